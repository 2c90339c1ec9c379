#!/usr/bin/python3
"""Can a table's labels teach the graph which directions matter?  A linear map
fitted on labelled rows (within-class whitening, or LDA) applied before the
5-NN graph and leidenalg's partition at resolution 0.05 (a stand-in for dac's
graph stage), scored on Fashion-MNIST *training* images only:

  seen:   fitted on half the rows of all ten classes, scored on the other half;
  unseen: fitted on three of classes 0-5, scored on the other three (both ways).

Usage: /usr/bin/python3 test/bench/label_maps.py DIR [SETS (40)]
DIR is an embeddings benchmark directory (its features.npz: the source's
features of the training and test images; only the training ones are read).
Prints mean ARI per map, split and set size (docs/embeddings.md)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings as E  # noqa: E402

CFGS = {"small": (90, 299, 4), "large": (300, 999, 12)}


def within(X, y, lam):
    """(Σ_within + lam·mean eigenvalue)^(-1/2)."""
    C = np.zeros((X.shape[1],) * 2)
    for c in np.unique(y):
        Z = X[y == c] - X[y == c].mean(0)
        C += Z.T @ Z
    w, V = np.linalg.eigh(C / len(X))
    w = np.maximum(w, 0)
    return V @ np.diag(1 / np.sqrt(w + lam * w.mean())) @ V.T


def lda(X, y, lam):
    W = within(X, y, lam)
    M = np.array([X[y == c].mean(0) for c in np.unique(y)]) @ W
    M -= M.mean(0)
    _, _, Vt = np.linalg.svd(M, full_matrices=False)
    return W @ Vt[:len(M) - 1].T


def run(name, Xfit, yfit, Xte, yte, sets):
    from sklearn.metrics import adjusted_rand_score
    maps = {"none": None, "whitening 0.1": within(Xfit, yfit, 0.1), "LDA": lda(Xfit, yfit, 0.1)}
    for cfg in CFGS:
        rng = np.random.default_rng(99)
        idx = E.sample_sets(rng, yte, sorted(set(yte.tolist())), sets, cfg, CFGS)
        score = {m: 0.0 for m in maps}
        for rows in idx:
            for m, W in maps.items():
                Z = Xte[rows] if W is None else Xte[rows] @ W
                score[m] += adjusted_rand_score(yte[rows], E.leiden(Z, 5, 0.05)) / len(idx)
        print(name, cfg, "  ".join("%s %.3f" % kv for kv in score.items()), flush=True)


def main():
    d = sys.argv[1]
    sets = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    z = np.load(os.path.join(d, "features.npz"))
    X, y = z["Ftr"].astype(np.float64), z["ytr"].astype(int)
    keep = np.random.default_rng(5).permutation(len(y))[:20000]
    X, y = X[keep], y[keep]
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
    half = np.arange(len(y)) % 2 == 0
    run("seen", X[half], y[half], X[~half], y[~half], sets)
    a, b = np.isin(y, [0, 3, 5]), np.isin(y, [1, 2, 4])
    run("unseen 0,3,5 -> 1,2,4", X[a], y[a], X[b], y[b], sets)
    run("unseen 1,2,4 -> 0,3,5", X[b], y[b], X[a], y[a], sets)


if __name__ == "__main__":
    main()
