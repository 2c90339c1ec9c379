#!/usr/bin/python3
"""The kinds benchmark: groups of the kinds of data users cluster, from offline
sources, each kind's sources split once into development and held-out ones
(test/bench/kinds.sh runs it).  Benchmark tool only, never a runtime dependency.

Kinds, and their sources (development | held out), fixed before any tuning:
  tabular   rows of a labelled table, z-scored per feature over the table:
            scikit-learn wine, breast cancer; R palmerpenguins
            | R iris, mclust banknote, MASS crabs (species x sex), mlbench Glass
  pixels    raw pixel vectors: scikit-learn digits (8x8, 0-16)
            | Fashion-MNIST test images (28x28, 0-1; Debian dataset-fashion-mnist)
  embedding embeddings of images from trained networks (embeddings.py's):
            Fashion-MNIST, 32-d PCA fitted on the training images
            | a CNN's 64-d features (trained on classes 0-5 only, cnn_fmnist_0to5.npz)
  shapes    2-D shaped clusters: scikit-learn moons, circles, anisotropic blobs
            | mlbench spirals, smiley, cassini, shapes
A group: n ~ U{50..300} rows of k ~ U{1..min(C, 6)} classes of the source picked at random, equal
shares (fewer where a class has fewer rows; DAC_KINDS_SHARES=dirichlet at prepare: shares ~ Dir(1),
at least 2 rows a class): one group in six or so is one class, where the right answer is one
cluster.  Shaped sets are whole draws of their generator.

  kinds.py prepare DIR SETS SEED   the groups as CSV (kind, source, split, set, ord, label, vector)
  kinds.py baselines DIR           untuned methods not given k (k-means + silhouette, Gaussian
                                   mixture + BIC, Leiden at its defaults); k-means and spectral
                                   given the true k (ceilings); JSON lines to DIR/baselines.jsonl
  kinds.py score DIR FILE.csv      the extension's labels (CSV: method, set key, ord, id, s/set),
                                   scored to FILE.jsonl
  kinds.py report DIR              one markdown table per kind, development beside held out
  kinds.py small DIR DRAWS SEED    small groups: DRAWS groups of each of SMALL_SIZES rows from each
                                   class of each source but the shapes, and as many of two
                                   classes (half the rows each, the pair at random), as CSV
                                   (kind, source, split, set, rows, ord, label, vector) to DIR/small.csv
  kinds.py small_baselines DIR     the untuned methods not given k on those groups, scored as
                                   test/bench/few_rows.sh scores dac, to DIR/small_baselines.csv
"""
import csv
import json
import os
import subprocess
import sys
import time
import warnings
from collections import defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SPLITS = {
    "tabular": (["wine", "breast_cancer", "penguins"], ["iris", "banknote", "crabs", "glass"]),
    "pixels": (["digits"], ["fashion_pixels"]),
    "embedding": (["fashion_pca"], ["fashion_cnn"]),
    "shapes": (["moons", "circles", "aniso"], ["spirals", "smiley", "cassini", "mlshapes"]),
}

R_TABLES = r'''
args <- commandArgs(TRUE); out <- args[1]
w <- function(df, lab, name) {
  x <- as.matrix(df); ok <- stats::complete.cases(x) & !is.na(lab)
  write.table(data.frame(label = as.integer(factor(lab[ok])), x[ok, , drop = FALSE]),
              file.path(out, paste0(name, ".csv")), sep = ",", row.names = FALSE, col.names = FALSE)
}
w(iris[, 1:4], iris$Species, "iris")
p <- palmerpenguins::penguins
w(p[, c("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g")], p$species, "penguins")
data(banknote, package = "mclust"); w(banknote[, -1], banknote$Status, "banknote")
data(crabs, package = "MASS"); w(crabs[, 4:8], paste(crabs$sp, crabs$sex), "crabs")
data(Glass, package = "mlbench"); w(Glass[, 1:9], Glass$Type, "glass")
set.seed(1)
g <- function(s, name) w(s$x, s$classes, name)
for (i in 1:6) {
  g(mlbench::mlbench.spirals(300, cycles = 1, sd = 0.03), paste0("spirals_", i))
  g(mlbench::mlbench.smiley(300, sd1 = 0.1, sd2 = 0.05), paste0("smiley_", i))
  g(mlbench::mlbench.cassini(300), paste0("cassini_", i))
  g(mlbench::mlbench.shapes(300), paste0("mlshapes_", i))
}
'''


def r_tables(d):
    rdir = os.path.join(d, "r")
    os.makedirs(rdir, exist_ok=True)
    subprocess.run(["Rscript", "-e", R_TABLES, rdir], check=True, capture_output=True)
    return rdir


def read_r(rdir, name):
    a = np.loadtxt(os.path.join(rdir, name + ".csv"), delimiter=",", ndmin=2)
    return a[:, 1:].astype(np.float64), a[:, 0].astype(int)


def zscore(X):
    sd = X.std(axis=0)
    sd[sd == 0] = 1
    return (X - X.mean(axis=0)) / sd


def table_source(name, rdir):
    from sklearn import datasets
    if name == "wine":
        b = datasets.load_wine()
        return zscore(b.data), b.target
    if name == "breast_cancer":
        b = datasets.load_breast_cancer()
        return zscore(b.data), b.target
    X, y = read_r(rdir, name)
    return zscore(X), y


def pixel_source(name):
    if name == "digits":
        from sklearn import datasets
        b = datasets.load_digits()
        return b.data.astype(np.float64), b.target
    import embeddings
    return embeddings.idx("t10k-images-idx3-ubyte.gz"), embeddings.idx("t10k-labels-idx1-ubyte.gz")


def conv3(X, W, b):
    """3x3 convolution, padding 1: X [n, c, h, w], W [o, c, 3, 3] -> [n, o, h, w]."""
    n, c, h, w = X.shape
    P = np.pad(X, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, W.shape[0], h, w))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,oc->nohw", P[:, :, i:i + h, j:j + w], W[:, :, i, j])
    return out + b[None, :, None, None]


def pool2(X):
    n, c, h, w = X.shape
    return X.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def cnn_features(X):
    """embeddings.py's CNN (weights cnn_fmnist_0to5.npz) in numpy: its 64-d features, unit length."""
    w = np.load(os.path.join(HERE, "cnn_fmnist_0to5.npz"))
    out = []
    for b in range(0, len(X), 1000):
        h = X[b:b + 1000].reshape(-1, 1, 28, 28)
        h = pool2(np.maximum(conv3(h, w["0.weight"], w["0.bias"]), 0))
        h = pool2(np.maximum(conv3(h, w["3.weight"], w["3.bias"]), 0))
        out.append(np.maximum(h.reshape(len(h), -1) @ w["7.weight"].T + w["7.bias"], 0))
    Z = np.concatenate(out)
    return Z / np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1e-12)


def embedding_source(name):
    import embeddings
    if name == "fashion_cnn":
        return cnn_features(embeddings.idx("t10k-images-idx3-ubyte.gz")), \
            embeddings.idx("t10k-labels-idx1-ubyte.gz")
    Xtr, ytr, Xte, yte = embeddings.features_pca()
    return Xte, yte


def draw_groups(rng, X, y, count):
    """count groups: k ~ U{1..min(C, 6)} classes at random, n ~ U{50..300} rows in equal shares
    (DAC_KINDS_SHARES=dirichlet: shares ~ Dir(1), as the embeddings benchmark's, each class 2
    rows or more)."""
    classes = np.unique(y)
    uneven = os.environ.get("DAC_KINDS_SHARES", "equal") == "dirichlet"
    out = []
    for _ in range(count):
        k = int(rng.integers(1, min(len(classes), 6) + 1))
        pick = rng.choice(classes, size=k, replace=False)
        n = int(rng.integers(50, 301))
        sizes = rng.multinomial(n, rng.dirichlet(np.ones(k))) if uneven else [n // k] * k
        rows = []
        for c, m in zip(pick, sizes):
            idx = np.flatnonzero(y == c)
            rows.extend(rng.choice(idx, size=min(len(idx), max(2, int(m))), replace=False))
        rows = np.array(rows)
        rng.shuffle(rows)
        out.append((X[rows], y[rows]))
    return out


def shape_groups(name, rng, rdir, count):
    from sklearn import datasets
    out = []
    for i in range(count):
        n = int(rng.integers(150, 401))
        seed = int(rng.integers(1 << 30))
        if name == "moons":
            X, y = datasets.make_moons(n, noise=0.06, random_state=seed)
        elif name == "circles":
            X, y = datasets.make_circles(n, noise=0.04, factor=0.45, random_state=seed)
        elif name == "aniso":
            X, y = datasets.make_blobs(n, centers=3, random_state=seed)
            X = X @ np.array([[0.6, -0.64], [-0.41, 0.85]])
        elif name in ("spirals", "smiley", "cassini", "mlshapes"):
            if i >= 6:
                break
            X, y = read_r(rdir, "%s_%d" % (name, i + 1))
        out.append((X, y))
    return out


def prepare(d, count, seed):
    os.makedirs(d, exist_ok=True)
    rdir = r_tables(d)
    rng = np.random.default_rng(seed)
    with open(os.path.join(d, "groups.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        for kind, (dev, held) in SPLITS.items():
            for split, sources in (("dev", dev), ("held", held)):
                for src in sources:
                    if kind == "tabular":
                        groups = draw_groups(rng, *table_source(src, rdir), count)
                    elif kind == "pixels":
                        groups = draw_groups(rng, *pixel_source(src), count)
                    elif kind == "embedding":
                        groups = draw_groups(rng, *embedding_source(src), count)
                    else:
                        groups = shape_groups(src, rng, rdir, count)
                    for s, (X, y) in enumerate(groups):
                        for i in range(len(y)):
                            wr.writerow([kind, src, split, s, i + 1, int(y[i]),
                                         "{" + ",".join("%.7g" % v for v in X[i]) + "}"])
    print("wrote the groups to", os.path.join(d, "groups.csv"))


SMALL_SIZES = (12, 20, 30, 45, 60, 80, 99)


def small_groups(d, draws, seed):
    os.makedirs(d, exist_ok=True)
    rdir = r_tables(d)
    rng = np.random.default_rng(seed)
    load = {"tabular": lambda src: table_source(src, rdir), "pixels": pixel_source, "embedding": embedding_source}
    s = 0
    with open(os.path.join(d, "small.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        for kind, (dev, held) in SPLITS.items():
            if kind not in load:
                continue
            for split, sources in (("dev", dev), ("held", held)):
                for src in sources:
                    X, y = load[kind](src)
                    classes = np.unique(y)
                    picks = []
                    for c in classes:
                        rows = np.flatnonzero(y == c)
                        picks += [rng.choice(rows, n, replace=False)
                                  for n in SMALL_SIZES for _ in range(draws if len(rows) >= n else 0)]
                        # as many groups of two classes, half the rows each
                        for n in SMALL_SIZES:
                            for _ in range(draws):
                                a, b = rng.choice(classes, 2, replace=False)
                                ra, rb = np.flatnonzero(y == a), np.flatnonzero(y == b)
                                if min(len(ra), len(rb)) >= n - n // 2:
                                    picks.append(np.concatenate([rng.choice(ra, n // 2, replace=False),
                                                                 rng.choice(rb, n - n // 2, replace=False)]))
                    for pick in picks:
                        s += 1
                        for i, r in enumerate(pick):
                            wr.writerow([kind, src, split, s, len(pick), i + 1, int(y[r]),
                                         "{" + ",".join("%.7g" % v for v in X[r]) + "}"])
    print("wrote %d groups to %s" % (s, os.path.join(d, "small.csv")))


def small_baselines(d):
    """The untuned methods on the small groups (DIR/small.csv), scored as few_rows.sh scores dac:
    per kind, split and size band, the mean ARI of the groups of two classes, and over every
    group (one of one class: 1 where it comes back as one cluster, which k-means + silhouette
    never answers); to DIR/small_baselines.csv (kind, split, band, method, "two; every")."""
    warnings.filterwarnings("ignore")
    g = defaultdict(lambda: ([], []))
    with open(os.path.join(d, "small.csv")) as f:
        for kind, src, split, s, rows, ord_, lab, vec in csv.reader(f):
            band = "12-39" if int(rows) < 40 else "40-99"
            X, y = g[(kind, split, band, int(s))]
            X.append([float(v) for v in vec.strip("{}").split(",")])
            y.append(int(lab))
    got = defaultdict(list)
    for name, fn in list(methods().items())[:3]:
        for (kind, split, band, s), (X, y) in sorted(g.items()):
            pred = fn(np.array(X), 0)
            two = len(np.unique(y)) == 2
            got[(kind, split, band, name)].append((two, metrics(np.array(y), pred)[0] if two
                                                   else float(len(np.unique(pred)) == 1)))
    with open(os.path.join(d, "small_baselines.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        for key, v in sorted(got.items()):
            wr.writerow(list(key) + ["%.3f; %.3f" % (np.mean([a for t, a in v if t]), np.mean([a for t, a in v]))])


def load_groups(d):
    g = defaultdict(lambda: ([], []))
    with open(os.path.join(d, "groups.csv")) as f:
        for kind, src, split, s, ord_, lab, vec in csv.reader(f):
            X, y = g[(kind, src, split, int(s))]
            X.append([float(v) for v in vec.strip("{}").split(",")])
            y.append(int(lab))
    return {k: (np.array(X), np.array(y)) for k, (X, y) in g.items()}


def metrics(y, pred):
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
    return (adjusted_rand_score(y, pred), normalized_mutual_info_score(y, pred),
            abs(len(np.unique(y)) - len(np.unique(pred))), int(len(np.unique(pred)) == 1))


def methods():
    from sklearn.cluster import KMeans, SpectralClustering
    import embeddings as e
    return {
        "k-means + silhouette": lambda X, k: e.kmeans_silhouette(X, range(2, min(11, len(X))), 4),
        "Gaussian mixture + BIC": lambda X, k: e.gmm_bic(X, min(10, len(X) - 1)),
        "Leiden at its defaults": lambda X, k: e.leiden(X),
        "k-means, true k": lambda X, k: KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(X),
        "spectral, true k": lambda X, k: SpectralClustering(n_clusters=k, affinity="nearest_neighbors",
                                                            n_neighbors=min(10, len(X) - 1),
                                                            random_state=0).fit_predict(X),
    }


def record(out, method, key, y, pred, seconds):
    a, n, kerr, one = metrics(y, pred)
    out.write(json.dumps({"method": method, "kind": key[0], "source": key[1], "split": key[2], "set": key[3],
                          "classes": int(len(np.unique(y))), "ari": a, "nmi": n, "k_err": kerr, "one": one,
                          "s": seconds}) + "\n")


def baselines(d):
    from sklearn.exceptions import ConvergenceWarning
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", message="Graph is not fully connected")
    groups = load_groups(d)
    with open(os.path.join(d, "baselines.jsonl"), "w") as out:
        for name, fn in methods().items():
            for key, (X, y) in sorted(groups.items()):
                t0 = time.perf_counter()
                pred = fn(X, len(np.unique(y)))
                record(out, name, key, y, pred, time.perf_counter() - t0)
            print("baseline", name, "done", flush=True)


def score(d, path):
    groups = load_groups(d)
    got = defaultdict(dict)
    secs = {}
    with open(path) as f:
        for method, kind, src, split, s, ord_, cid, seconds in csv.reader(f):
            got[(method, (kind, src, split, int(s)))][int(ord_)] = int(cid) if cid else 0
            secs[(method, (kind, src, split, int(s)))] = float(seconds)
    with open(os.path.splitext(path)[0] + ".jsonl", "w") as out:
        for (method, key), ids in sorted(got.items()):
            X, y = groups[key]
            pred = np.array([ids[i + 1] for i in range(len(y))])
            record(out, method, key, y, pred, secs[(method, key)])


def report(d):
    """Per kind: on groups of 2+ classes, mean ARI, NMI, k-MAE and the groups answered as one
    cluster ("one cl. (2+)"); on groups of one class, those answered as one cluster, the right
    answer ("one cl. (1)"); development and held-out sources apart; seconds per group over all."""
    groups = load_groups(d)
    classes = {k: len(np.unique(y)) for k, (X, y) in groups.items()}
    rows = []
    for name in ["baselines.jsonl"] + sorted(f for f in os.listdir(d) if f.endswith(".jsonl") and f != "baselines.jsonl"):
        rows += [json.loads(l) for l in open(os.path.join(d, name))]
    order = []
    for r in rows:
        r["classes"] = classes[(r["kind"], r["source"], r["split"], r["set"])]
        if r["method"] not in order:
            order.append(r["method"])
    for kind, (dev, held) in SPLITS.items():
        print("\n### %s\n" % kind)
        print("development: %s; held out: %s\n" % (", ".join(dev), ", ".join(held)))
        head = []
        for split in ("dev", "held-out"):
            head += ["%s ARI" % split, "%s NMI" % split, "%s k-MAE" % split, "%s one cl. (2+)" % split,
                     "%s one cl. (1)" % split]
        print("| method | %s | s/set |" % " | ".join(head))
        print("|---|%s---|" % ("---|" * len(head)))
        for m in order:
            cells = []
            secs = []
            for split in ("dev", "held"):
                rs = [r for r in rows if r["method"] == m and r["kind"] == kind and r["split"] == split]
                many = [r for r in rs if r["classes"] > 1]
                single = [r for r in rs if r["classes"] == 1]
                if not many:
                    cells += [""] * 5
                    continue
                cells += ["%.3f" % np.mean([r["ari"] for r in many]), "%.3f" % np.mean([r["nmi"] for r in many]),
                          "%.2f" % np.mean([r["k_err"] for r in many]),
                          "%d / %d" % (sum(r["one"] for r in many), len(many)),
                          "%d / %d" % (sum(r["one"] for r in single), len(single)) if single else ""]
                secs += [r["s"] for r in rs]
            print("| %s | %s | %.4f |" % (m, " | ".join(cells), np.mean(secs) if secs else float("nan")))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "prepare":
        prepare(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "baselines":
        baselines(sys.argv[2])
    elif cmd == "score":
        score(sys.argv[2], sys.argv[3])
    elif cmd == "report":
        report(sys.argv[2])
    elif cmd == "small":
        small_groups(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "small_baselines":
        small_baselines(sys.argv[2])
    else:
        sys.exit(__doc__)
