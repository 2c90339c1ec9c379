#!/usr/bin/env python3
"""A prototype, outside dac: the graph stage's resolution chosen per group.

Leiden (RB configuration) on each group's 5-nearest-neighbour graph, as dac's
graph stage builds it, at the resolutions 0.05 * 2^j (j = 0 .. 6); the
partition of the best mean silhouette among those of 2 to n/2 clusters is the
group's ("ladder").  With LABEL (DIR/LABEL.csv: a dac build's answers, as
kinds.sh writes them), also "dac + ladder": where dac's default answers two
or more clusters, its answer competes with the ladder's partitions on the
same silhouette; where it answers one cluster, that stays.  Scored against
the known classes on the kinds benchmark's groups of 2 or more classes
(test/bench/kinds.sh DIR made DIR/groups.csv and DIR/baselines.jsonl),
beside dac's default, k-means + silhouette and Leiden at its defaults from
the same run.  The ladder alone never answers one cluster: groups of one
class need a test of their own before it can be dac's.

  /usr/bin/python3 test/bench/graph_ladder.py DIR [LABEL]
"""
import collections
import csv
import json
import sys

import igraph as ig
import leidenalg as la
import numpy as np
from sklearn.metrics import adjusted_rand_score, silhouette_score
from sklearn.neighbors import NearestNeighbors

LADDER = [0.05 * 2 ** j for j in range(7)]


def ladder_partition(X):
    """The partition of the best silhouette over the ladder, or None."""
    _, idx = NearestNeighbors(n_neighbors=6).fit(X).kneighbors(X)
    g = ig.Graph(edges=[(i, j) for i in range(len(X)) for j in idx[i, 1:]]).simplify()
    best = None
    for gamma in LADDER:
        lab = np.array(la.find_partition(g, la.RBConfigurationVertexPartition,
                                         resolution_parameter=gamma, seed=1).membership)
        k = len(set(lab))
        if k < 2 or k >= len(X) // 2:
            continue
        s = silhouette_score(X, lab)
        if best is None or s > best[0]:
            best = (s, lab)
    return None if best is None else best[1]


def ladder_or_own(X, own):
    """dac's answer against the ladder's partitions, on their mean silhouette."""
    if len(set(own)) < 2:
        return own
    lab = ladder_partition(X)
    if lab is None or silhouette_score(X, own) >= silhouette_score(X, lab):
        return own
    return lab


def main(d, label=None):
    groups = collections.defaultdict(list)
    with open(d + "/groups.csv") as f:
        for r in csv.reader(f):
            groups[(r[0], r[1], r[2], int(r[3]))].append((int(r[4]), int(r[5]), [float(v) for v in r[6].strip("{}").split(",")]))
    own = collections.defaultdict(dict)
    if label:
        with open("%s/%s.csv" % (d, label)) as f:
            for r in csv.reader(f):
                if r[0].endswith("default"):
                    own[(r[1], r[2], r[3], int(r[4]))][int(r[5])] = int(r[6])
    base = collections.defaultdict(dict)
    with open(d + "/baselines.jsonl") as f:
        for line in f:
            b = json.loads(line)
            base[(b["kind"], b["source"], b["split"], b["set"])][b["method"]] = b["ari"]
    scores = collections.defaultdict(list)
    for key, rows in sorted(groups.items()):
        rows.sort()
        y = np.array([r[1] for r in rows])
        if len(set(y)) < 2 or key[0] == "shapes":
            continue
        X = np.array([r[2] for r in rows])
        lab = ladder_partition(X)
        mine = np.array([own[key].get(r[0], 0) for r in rows]) if label else None
        scores[(key[0], key[2])].append((0.0 if lab is None else adjusted_rand_score(y, lab),
                                         adjusted_rand_score(y, mine) if label else np.nan,
                                         adjusted_rand_score(y, ladder_or_own(X, mine)) if label else np.nan,
                                         base[key].get("k-means + silhouette", np.nan),
                                         base[key].get("Leiden at its defaults", np.nan)))
    print("| kind | split | groups | ladder | dac | dac + ladder | k-means + silhouette | Leiden at its defaults |")
    print("|---|---|---|---|---|---|---|---|")
    for (kind, split), v in sorted(scores.items()):
        a = np.nanmean(np.array(v), 0)
        print("| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f |" % ((kind, split, len(v)) + tuple(a)))


if __name__ == "__main__":
    main(*sys.argv[1:3])
