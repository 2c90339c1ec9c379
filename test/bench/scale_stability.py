"""Stability under subsampling as the referee between the graph stage's two
scales, in a Leiden-only probe (no network, no other stage): each group's
5-nearest-neighbour graph partitioned at resolution 0.05 (coarse) and 0.2
(fine, 4 times it); the fine partition kept by the silhouette rule (the graph
stage's: unless its mean silhouette is more than 0.05 below the coarse one's)
or by stability (the mean ARI, on their common rows, between the partitions
of 3 pairs of random 80% subsamples, each graphed and partitioned alone; the
more stable scale kept).  Prints mean ARI per configuration for coarse, fine,
the two rules and the better of the two scales (oracle).
Usage: python3 scale_stability.py suites DIR CFG...   (embeddings.py's sets,
         e.g. /tmp/dac_pca "large all" "large unseen")
       python3 scale_stability.py kinds DIR           (kinds.py's groups of 2+ classes)
"""
import collections
import csv
import os
import sys

import numpy as np
from sklearn.metrics import adjusted_rand_score as ari
from sklearn.metrics import silhouette_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings  # noqa: E402
import kinds  # noqa: E402


def leiden(X, res):
    """the graph stage's graph: 5 neighbours"""
    return embeddings.leiden(X, 5, res)


def stability(X, res, rng, pairs=3, frac=0.8):
    out = []
    for _ in range(pairs):
        a, b = (rng.choice(len(X), int(frac * len(X)), replace=False) for _ in range(2))
        la_, lb_ = dict(zip(a, leiden(X[a], res))), dict(zip(b, leiden(X[b], res)))
        common = sorted(set(a) & set(b))
        out.append(ari([la_[i] for i in common], [lb_[i] for i in common]))
    return np.mean(out)


def silhouette(X, lab):
    return silhouette_score(X, lab) if 1 < len(set(lab)) < len(X) else -1


def scores(X, y, seed):
    rng = np.random.default_rng(seed)
    c, f = leiden(X, 0.05), leiden(X, 0.2)
    ac, af = ari(y, c), ari(y, f)
    by_sil = af if len(set(c)) < 2 or silhouette(X, f) >= silhouette(X, c) - 0.05 else ac
    by_stab = af if stability(X, 0.2, rng) >= stability(X, 0.05, rng) else ac
    return ac, af, by_sil, by_stab, max(ac, af)


def suite_groups(d, cfgs):
    g = collections.defaultdict(lambda: ([], []))
    for cfg, split, sid, _, lab, v in csv.reader(open(os.path.join(d, "sets.csv"))):
        if cfg + " " + split in cfgs:
            X, y = g[(cfg + " " + split, int(sid))]
            X.append([float(t) for t in v.strip("{}").split(",")])
            y.append(int(lab))
    return {k: (np.array(X), np.array(y)) for k, (X, y) in g.items()}


def main(mode, d, cfgs):
    if mode == "kinds":
        groups = {(k[0] + " " + k[2], k[3], k[1]): v for k, v in kinds.load_groups(d).items()
                  if k[0] != "shapes" and len(np.unique(v[1])) > 1}
    else:
        groups = suite_groups(d, cfgs)
    res = collections.defaultdict(list)
    for key in sorted(groups):
        res[key[0]].append(scores(*groups[key], key[1]))
    for cfg, r in sorted(res.items()):
        m = np.mean(r, axis=0)
        print("%s %s: coarse %.3f, fine %.3f, silhouette rule %.3f, stability %.3f, oracle %.3f (%d sets)"
              % (d, cfg, *m, len(r)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
