#!/usr/bin/python3
"""Levers after the zero-shot clustering, tried in Python on the labels an
embeddings benchmark run left in DIR (labels.csv, sets.json, features.npz;
test/bench/embeddings.sh).  Exploratory: the rules are measured on the test
sets themselves, so the figures point at a lever, they are not results
(docs/embeddings.md).  Usage: embed_levers.py DIR"""
import json
import os
import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.metrics import adjusted_rand_score as ari, normalized_mutual_info_score as nmi
from sklearn.neighbors import NearestNeighbors

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from embeddings import kmeans_silhouette  # noqa: E402

warnings.filterwarnings("ignore")


def knn_vote(X, lab, k=10, rounds=10):
    nb = NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X, return_distance=False)
    for _ in range(rounds):
        new = np.array([np.argmax(np.bincount(lab[nb[i]])) for i in range(len(X))])
        if (new == lab).all():
            break
        lab = new
    return lab


def near_k_silhouette(X, kd, w=2):
    return kmeans_silhouette(X, range(max(2, kd - w), kd + w + 1), 2)


def main(d):
    z = np.load(d + "/features.npz")
    Fte, yte = z["Fte"], z["yte"]
    meta = json.load(open(d + "/sets.json"))
    res = {}
    for line in open(d + "/labels.csv"):
        head, ids = line.rstrip("\n").split("{", 1)
        m, cfg, split, sid = head.rstrip("|").rsplit("|", 3)
        if "zero-shot" not in m:
            continue
        rows = meta["sets"][cfg + "/" + split][int(sid) - 1]
        pred = np.array([int(v) for v in ids.strip("{}").split(",")])
        X, y, kd = Fte[rows], yte[rows], len(set(pred))
        out = {"nothing": pred, "10-NN majority vote": knn_vote(X, pred)}
        out["k-means with DAC's k"] = KMeans(n_clusters=kd, n_init=4, random_state=0).fit_predict(X) if kd > 1 else pred
        out["spectral with DAC's k"] = SpectralClustering(
            n_clusters=kd, affinity="nearest_neighbors", n_neighbors=10, random_state=0).fit_predict(X) if kd > 1 else pred
        out["silhouette over DAC's k +- 2"] = near_k_silhouette(X, kd)
        for name, v in out.items():
            r = res.setdefault((name, cfg, split), np.zeros(4))
            r += (ari(y, v), nmi(y, v), abs(len(set(y)) - len(set(v))), 1)
    for (name, cfg, split), r in sorted(res.items()):
        print("%-32s %-6s %-7s ARI %.3f  NMI %.3f  k-MAE %.2f" % (name, cfg, split, r[0] / r[3], r[1] / r[3], r[2] / r[3]))


if __name__ == "__main__":
    main(sys.argv[1])
