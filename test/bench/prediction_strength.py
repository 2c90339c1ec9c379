#!/usr/bin/env python3
"""A prototype, outside dac: prediction strength as the one-cluster test.

For each group of the kinds benchmark (test/bench/kinds.sh DIR made
DIR/groups.csv; DIR/LABEL.csv holds a dac build's answers) that dac's
default answers as one cluster: the prediction strength of k-means at
k = 2 .. 6 (Tibshirani & Walther, 2005: the group halved at random five
times; each half clustered; the worst cluster's share of pairs of a test
half's cluster that the training half's centroids also put together), and
the largest k whose strength reaches THRESHOLD, else one cluster.  Prints,
per kind and split, how many one-class groups stay one cluster and how
many groups of 2+ classes are split, with their mean ARI (k-means at that
k on the whole group; 0 as one cluster).

  /usr/bin/python3 test/bench/prediction_strength.py DIR LABEL [THRESHOLD ...]
"""
import collections
import csv
import sys

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score


def strength(X, k, rng, reps=5):
    out = []
    for _ in range(reps):
        p = rng.permutation(len(X))
        a, b = p[:len(X) // 2], p[len(X) // 2:]
        ka = KMeans(k, n_init=2, random_state=0).fit(X[a])
        lb = KMeans(k, n_init=2, random_state=0).fit(X[b]).labels_
        pa = ka.predict(X[b])
        worst = 1.0
        for c in range(k):
            m = np.flatnonzero(lb == c)
            if len(m) >= 2:
                same = (pa[m][:, None] == pa[m][None, :]).sum() - len(m)
                worst = min(worst, same / (len(m) * (len(m) - 1)))
        out.append(worst)
    return float(np.mean(out))


def main(d, label, thresholds):
    groups = collections.defaultdict(list)
    with open(d + "/groups.csv") as f:
        for r in csv.reader(f):
            groups[(r[0], r[1], r[2], int(r[3]))].append((int(r[4]), int(r[5]), [float(v) for v in r[6].strip("{}").split(",")]))
    dac = collections.defaultdict(dict)
    with open("%s/%s.csv" % (d, label)) as f:
        for r in csv.reader(f):
            if r[0].endswith("default"):
                dac[(r[1], r[2], r[3], int(r[4]))][int(r[5])] = int(r[6])
    rng = np.random.default_rng(0)
    rows = []
    for key, rs in sorted(groups.items()):
        if key[0] == "shapes":
            continue
        rs.sort()
        if len({dac[key][r[0]] for r in rs}) > 1:
            continue
        y = np.array([r[1] for r in rs])
        X = np.array([r[2] for r in rs])
        ps = [strength(X, k, rng) for k in range(2, 7)]
        ari = [adjusted_rand_score(y, KMeans(k, n_init=4, random_state=0).fit_predict(X)) for k in range(2, 7)]
        rows.append((key[0], key[2], len(set(y)), ps, ari))
    print("| threshold | kind | split | one-class groups kept as one | 2+ classes answered as one: split | their mean ARI |")
    print("|---|---|---|---|---|---|")
    for t in thresholds:
        for kind in ("tabular", "pixels", "embedding"):
            for split in ("dev", "held"):
                a = [r for r in rows if r[0] == kind and r[1] == split]
                pick = [max([k for k, p in zip(range(2, 7), r[3]) if p >= t], default=1) for r in a]
                one = [k for r, k in zip(a, pick) if r[2] == 1]
                many = [(k, r[4][k - 2] if k > 1 else 0.0) for r, k in zip(a, pick) if r[2] > 1]
                print("| %.2f | %s | %s | %d / %d | %d / %d | %.3f |" % (
                    t, kind, split, sum(k == 1 for k in one), len(one), sum(k > 1 for k, _ in many), len(many),
                    np.mean([v for _, v in many]) if many else 0.0))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], [float(t) for t in sys.argv[3:]] or [0.8, 0.9])
