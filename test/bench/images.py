#!/usr/bin/python3
"""The image benchmark's data and baselines (test/bench/images.sh).

Fashion-MNIST images from Debian's dataset-fashion-mnist, clustered as the
paper clusters EMNIST with its mixture of neural statisticians (§5.3): each
test image binarised once (every pixel black or white with its grey value as
the probability, seed 2026), as the authors' loader does.  The image model
was trained on the 60,000 training images of classes 0-5 only; test sets are
drawn from the 10,000 test images only, in two splits:
  seen:   classes 0-5 (new images of the classes the model was trained on)
  unseen: classes 6-9 (classes it never saw)
and two configurations, the paper's, with k capped at the split's classes:
  (1000, 4):  n ~ U{300..999},  k - 1 ~ Bin(3, 1/2)
  (3000, 12): n ~ U{900..2999}, k - 1 ~ Bin(11, 1/2), at most 6 (seen) or 4 (unseen)
with proportions ~ Dir(1) over k classes picked at random.
Benchmark tool only, never a runtime dependency of the extension.

  images.py prepare DIR SETS_1000 SETS_3000 SEED   sets as CSV for COPY (pixels 0/1)
  images.py baselines DIR    on PCA-50 features of the binarised images (PCA fitted
                             on the training images): k-means and spectral given the
                             true k (and k-means on the pixels), and not given k:
                             Gaussian mixture + BIC, k-means + silhouette, Leiden on a
                             15-NN graph at its defaults, and Leiden tuned (neighbours,
                             resolution) on sets of the training images of classes 0-5
  images.py report DIR       the markdown table
  images.py labelled OUT KIND [TURNS]
                             a --labelled file for dac-cli train / eval, grey levels
                             / 255 to 4 digits: KIND train (the training images of
                             classes 0-5), val (every sixth of them, the validation
                             draws' images; val-binarised: the same binarised with
                             seed 2027), seen or unseen (the test images of
                             classes 0-5 or 6-9, binarised with seed 2026, as the
                             benchmark's sets); TURNS (train only, e.g. 1,2,3) adds
                             each training image turned by that many quarter turns
                             as a class of its own (label 10 * turns + class)
"""
import csv
import gzip
import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings  # noqa: E402
from embeddings import gmm_bic, kmeans_silhouette, leiden, metrics, score_method  # noqa: E402

DATA = "/usr/share/datasets/fashion-mnist/"
SPLITS = {"seen": [0, 1, 2, 3, 4, 5], "unseen": [6, 7, 8, 9]}
TRAIN_CLASSES = [0, 1, 2, 3, 4, 5]
CFGS = {"(1000, 4)": (300, 999, 4), "(3000, 12)": (900, 2999, 12)}


def idx(kind):
    with gzip.open(DATA + "%s-images-idx3-ubyte.gz" % kind) as f:
        X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)
    with gzip.open(DATA + "%s-labels-idx1-ubyte.gz" % kind) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8).astype(int)
    return X, y


def binarised(X, seed):
    rng = np.random.default_rng(seed)
    return (rng.random(X.shape) < X / 255.0).astype(np.uint8)


def sample_sets(rng, y, classes, count, cfg):
    return embeddings.sample_sets(rng, y, classes, count, cfg, CFGS)


def prepare(d, count1, count3, seed):
    os.makedirs(d, exist_ok=True)
    Xte, yte = idx("t10k")
    B = binarised(Xte, 2026)
    rng = np.random.default_rng(seed)
    sets = {}
    with open(os.path.join(d, "sets.csv"), "w", newline="") as f:
        w = csv.writer(f)
        for cfg, count in (("(1000, 4)", count1), ("(3000, 12)", count3)):
            for split, classes in SPLITS.items():
                idxs = sample_sets(rng, yte, classes, count, cfg)
                sets[cfg + "/" + split] = [r.tolist() for r in idxs]
                for s, rows in enumerate(idxs):
                    for o, r in enumerate(rows):
                        w.writerow([cfg, split, s + 1, o + 1, yte[r],
                                    "{" + ",".join(map(str, B[r])) + "}"])
    with open(os.path.join(d, "sets.json"), "w") as f:
        json.dump({"seed": seed, "sets": sets}, f)
    print("wrote %s sets to %s" % ({k: len(v) for k, v in sets.items()}, d))


def pca_features():
    """PCA-50 of binarised images, fitted on the training images (binarised with seed 2025)."""
    from sklearn.decomposition import PCA
    Xtr, ytr = idx("train")
    Xte, yte = idx("t10k")
    Btr = binarised(Xtr, 2025).astype(np.float32)
    Bte = binarised(Xte, 2026).astype(np.float32)
    p = PCA(n_components=50, random_state=0).fit(Btr)
    return p.transform(Btr), ytr, p.transform(Bte), yte, Bte


def baselines(d):
    from sklearn.cluster import KMeans, SpectralClustering
    from sklearn.exceptions import ConvergenceWarning
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", message="Graph is not fully connected")

    Ftr, ytr, Fte, yte, Bte = pca_features()
    meta = json.load(open(os.path.join(d, "sets.json")))
    rng = np.random.default_rng(meta["seed"] + 1)
    out = open(os.path.join(d, "baselines.jsonl"), "w")
    tuned = {}
    for key, sets in meta["sets"].items():
        cfg, split = key.split("/")
        k_up = 2 * min(CFGS[cfg][2], len(SPLITS[split]))
        if cfg not in tuned:
            # Leiden's neighbours and resolution by mean ARI on 20 sets of the
            # training images of classes 0-5 (what the image model saw)
            tune = sample_sets(rng, ytr, TRAIN_CLASSES, 20, cfg)
            best = None
            for kn in (10, 15, 30):
                for res in (0.02, 0.05, 0.1, 0.2, 0.5, 1.0):
                    a = np.mean([metrics(ytr[r], leiden(Ftr[r], kn, res))[0] for r in tune])
                    if best is None or a > best[0]:
                        best = (a, kn, res)
            tuned[cfg] = best[1:]
        l_k, l_res = tuned[cfg]

        methods = {
            "k-means on pixels (true k)": ("pixels", lambda X, k: KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(X)),
            "k-means (true k)": ("pca", lambda X, k: KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(X)),
            "spectral (true k)": ("pca", lambda X, k: SpectralClustering(
                n_clusters=k, affinity="nearest_neighbors", n_neighbors=10,
                assign_labels="kmeans", random_state=0).fit_predict(X)),
            "Gaussian mixture + BIC": ("pca", lambda X, k: gmm_bic(X, k_up)),
            "k-means + silhouette": ("pca", lambda X, k: kmeans_silhouette(X, range(2, min(k_up, len(X) - 1) + 1), 4)),
            "Leiden on a 15-NN graph (defaults)": ("pca", lambda X, k: leiden(X)),
            "Leiden (tuned: %d-NN, resolution %.2f)" % (l_k, l_res): ("pca", lambda X, k: leiden(X, l_k, l_res)),
        }
        for name, (feat, fn) in methods.items():
            score_method(name, fn, (((Bte if feat == "pixels" else Fte)[rows], yte[rows]) for rows in sets),
                         cfg, split, out)


def labelled(out, kind, turns=()):
    """Writes "label v1 ... v784" lines; classes made by quarter turns for TURNS."""
    if kind in ("train", "val", "val-binarised"):
        X, y = idx("train")
        keep = np.isin(y, TRAIN_CLASSES)
        X, y = X[keep], y[keep]
        if kind != "train":
            X, y = X[::6], y[::6]
        V = binarised(X, 2027).astype(np.float64) if kind == "val-binarised" else X / 255.0
    elif kind in SPLITS:
        X, y = idx("t10k")
        keep = np.isin(y, SPLITS[kind])
        V = binarised(X, 2026)[keep].astype(np.float64)
        y = y[keep]
    else:
        sys.exit("labelled: KIND is train, val, val-binarised, seen or unseen")
    if turns and kind != "train":
        sys.exit("labelled: TURNS only for train")
    blocks = [(0, V)] + [(t, np.rot90(V.reshape(-1, 28, 28), t, axes=(1, 2)).reshape(-1, 784))
                         for t in turns]
    with open(out, "w") as f:
        for t, B in blocks:
            for lab, row in zip(y, B):
                f.write("%d %s\n" % (10 * t + lab, " ".join("%.4g" % v for v in row)))
    print("wrote %d rows, %d classes to %s" % (len(y) * len(blocks), len(SPLITS.get(kind, TRAIN_CLASSES))
          * len(blocks), out))


def report(d):
    recs = [json.loads(l) for f in ("dac.jsonl", "timing.jsonl", "baselines.jsonl")
            if os.path.exists(os.path.join(d, f)) for l in open(os.path.join(d, f))]
    secs = {(r["method"], r["cfg"], r["split"]): r["seconds_per_set"] for r in recs if "seconds_per_set" in r}
    meta = json.load(open(os.path.join(d, "sets.json")))
    for key in meta["sets"]:
        cfg, split = key.split("/")
        print("\n**%s, %s classes** (%d sets)\n" % (cfg, split, len(meta["sets"][key])))
        print("| method | LL/pixel | ARI | NMI | k-MAE | s/set |")
        print("|---|---|---|---|---|---|")
        for r in recs:
            if r["cfg"] == cfg and r["split"] == split and "ari" in r:
                s = secs.get((r["method"], cfg, split))
                ll = r.get("ll")
                print("| %s | %s | %.3f | %.3f | %.2f | %s |" % (
                    r["method"], "%.3f" % ll if ll is not None else "–", r["ari"], r["nmi"], r["k_mae"],
                    "%.3f" % s if s is not None else "–"))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "prepare":
        prepare(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "baselines":
        baselines(sys.argv[2])
    elif cmd == "report":
        report(sys.argv[2])
    elif cmd == "labelled":
        labelled(sys.argv[2], sys.argv[3],
                 tuple(int(t) for t in sys.argv[4].split(",")) if len(sys.argv) > 4 else ())
    else:
        sys.exit(__doc__)
