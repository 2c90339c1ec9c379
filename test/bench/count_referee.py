#!/usr/bin/python3
"""Referees between dac's answer given the true k and k-means at the same k,
measured offline on a kinds benchmark run (docs/kinds.md, "Given k").

For every group of 2+ classes of DIR (kinds.py prepare) that is not a 2-D
shape, the answer of LABEL's "given true k" rows (DIR/LABEL.csv, as
kinds.sh writes it) is set beside k-means at k (scikit-learn, 4 starts), and
each referee keeps one of the two: the higher mean silhouette, or the higher
modularity (resolution 1) in the group's 5-nearest-neighbour graph (the
graph stage's neighbours).  Prints mean ARI per kind and split.

  count_referee.py DIR LABEL
"""
import csv
import os
import sys
import warnings
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings  # noqa: E402
import kinds  # noqa: E402

NEIGHBORS = 5


def knn_modularity(X, labels):
    return embeddings.knn_graph(X, NEIGHBORS).modularity(list(labels), resolution=1.0)


def main():
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score, silhouette_score
    warnings.filterwarnings("ignore")
    d, label = sys.argv[1], sys.argv[2]
    answers = defaultdict(dict)
    with open(os.path.join(d, label + ".csv")) as f:
        for method, kind, src, split, s, ord_, c, _ in csv.reader(f):
            if method == label + " given true k":
                answers[(kind, src, split, int(s))][int(ord_)] = int(c) if c else 0
    rows = defaultdict(list)
    for key, (X, y) in sorted(kinds.load_groups(d).items()):
        k = len(np.unique(y))
        if key[0] == "shapes" or k < 2 or key not in answers:
            continue
        dac = np.array([answers[key][i + 1] for i in range(len(y))])
        km = KMeans(k, n_init=4, random_state=0).fit_predict(X)
        by_sil = dac if len(set(dac)) > 1 and silhouette_score(X, dac) >= silhouette_score(X, km) else km
        by_mod = dac if knn_modularity(X, dac) >= knn_modularity(X, km) else km
        rows[(key[0], key[2])].append([adjusted_rand_score(y, p) for p in (dac, km, by_sil, by_mod)])
    print("| kind | split | groups | dac given k | k-means at k | the higher silhouette | the higher modularity |")
    print("|---|---|---|---|---|---|---|")
    for (kind, split), v in sorted(rows.items()):
        a = np.mean(v, axis=0)
        print(f"| {kind} | {split} | {len(v)} | " + " | ".join(f"{x:.3f}" for x in a) + " |")


if __name__ == "__main__":
    main()
