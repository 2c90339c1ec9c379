#!/usr/bin/python3
"""The one-cluster test read in normal scores: the replica that chose its margin
(docs/kinds.md, "The one-cluster test").

For each group of the kinds benchmark (DIR, made by kinds.sh) that a run of dac
(DIR/LABEL.jsonl and .csv, a build without the test in normal scores) answered
as one cluster: k-means + silhouette over k = 2..10 (four k-means++ starts a
count, scikit-learn) on the group's rows in the coordinates the stage sees
(mlf_embed's: the rows' leading 32 principal components; `raw`: the rows as
given) and on their normal scores (each column's ranks mapped to a standard
normal's quantiles), each against the same on a Gaussian of its own mean and
covariance.  Then, for each margin, the
groups where the normal scores beat their Gaussian by the margin take the
best k-means partition of the rows, and the script prints per kind and split
the mean ARI over groups of 2+ classes and the one-class groups so split.
The margin is chosen on development sources alone: the smallest that splits
no one-class development group.

  rank_margin.py DIR LABEL [raw]
"""
import csv
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kinds  # noqa: E402  (the benchmark's groups)

MARGINS = (0.01, 0.015, 0.02, 0.03, 0.04, 0.06, 0.08)


def best_kmeans(X):
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score
    top = (-1.0, None)
    for k in range(2, min(11, len(X))):
        p = KMeans(n_clusters=k, n_init=4, random_state=0).fit_predict(X)
        if len(np.unique(p)) > 1:
            s = silhouette_score(X, p)
            if s > top[0]:
                top = (s, p)
    return top


def gaussian_reference(X, rng):
    m = len(X)
    return best_kmeans(rng.standard_normal((m, m)) / np.sqrt(m - 1) @ (X - X.mean(0)))[0]


def normal_scores(X):
    from scipy.stats import norm, rankdata
    return norm.ppf((np.column_stack([rankdata(c) for c in X.T]) - 0.5) / len(X))


def network_coordinates(X, w=32):
    C = X - X.mean(0)
    _, _, Vt = np.linalg.svd(C, full_matrices=False)
    return C @ Vt[:w].T


def main(d, label, raw=False):
    from sklearn.metrics import adjusted_rand_score
    groups = kinds.load_groups(d)
    ids, runs = {}, {}
    for row in csv.reader(open(os.path.join(d, label + ".csv"))):
        if row[0] == label + " default":
            ids.setdefault((row[1], row[2], row[3], int(row[4])), {})[int(row[5])] = int(row[6])
    for line in open(os.path.join(d, label + ".jsonl")):
        r = json.loads(line)
        if r["method"] == label + " default" and r["kind"] != "shapes":
            runs[(r["kind"], r["source"], r["split"], r["set"])] = (r["ari"], r["classes"])
    test = {}
    for key in sorted(runs):
        X, y = groups[key]
        if len(set(ids[key].values())) != 1:
            continue
        if not raw:
            X = network_coordinates(X)
        rng = np.random.default_rng(1)
        _, p = best_kmeans(X)
        Z = normal_scores(X)
        sz, _ = best_kmeans(Z)
        test[key] = (sz - gaussian_reference(Z, rng), adjusted_rand_score(y, p))
    for margin in MARGINS:
        cells = []
        for kind in ("tabular", "pixels", "embedding"):
            for split in ("dev", "held"):
                keys = [k for k in runs if k[0] == kind and k[2] == split]
                many = [k for k in keys if runs[k][1] > 1]
                ari = [test[k][1] if k in test and test[k][0] >= margin else runs[k][0] for k in many]
                split1 = sum(1 for k in keys if runs[k][1] == 1 and k in test and test[k][0] >= margin)
                cells.append("%s %s %.3f, %d/%d one-class split" % (kind, split, np.mean(ari), split1,
                                                                   len(keys) - len(many)))
        print("margin %.3f: %s" % (margin, " | ".join(cells)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "raw")
