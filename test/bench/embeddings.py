#!/usr/bin/python3
"""The embeddings benchmark's data and baselines (test/bench/embeddings.sh).

Fashion-MNIST from Debian's dataset-fashion-mnist: each image -> PCA to 32
dimensions (fitted on the 60,000 training images only) -> L2-normalised; or,
with DAC_BENCH_SOURCE=cnn, a second source: 64-d embeddings of a small CNN
trained on the training images of classes 0-5 only (features_cnn; its weights
kept in cnn_fmnist_0to5.npz beside this file); or, with
DAC_BENCH_SOURCE=digits, a third: scikit-learn's bundled handwritten digits
(64-d, halves for training and test rows; features_digits).
Test sets are drawn from the test images only (digits: the test half):
  small: n ~ U{90..299}, k - 1 ~ Bin(3, 1/2)
  large: n ~ U{300..999}, k - 1 ~ Bin(11, 1/2), capped at the classes there are
with proportions ~ Dir(1) over k classes picked at random (classes that draw
no point drop out), from two splits:
  all:    any of the 10 classes (models trained on all 10)
  unseen: classes 6-9 only (models trained on classes 0-5 only)
Benchmark tool only, never a runtime dependency of the extension.

  embeddings.py prepare DIR SETS SEED   features and sets as CSV for COPY
  embeddings.py baselines DIR           k-means and spectral given the true k;
                                        not given k: variational DP mixture,
                                        Gaussian mixture + BIC, k-means +
                                        silhouette, Leiden and Louvain on a kNN
                                        graph at their defaults; tuned on
                                        training sets: DBSCAN, Leiden, Ward
                                        with a distance threshold
  embeddings.py score DIR FILE          metrics of the extension's labels
                                        (CSV: method, cfg, split, set_id, ids)
  embeddings.py report DIR              the markdown tables
  embeddings.py tune_sets DIR           the tuned methods' training sets as
                                        CSV, for dac_tune (tune_suites.sh)
  embeddings.py leiden DIR K RES        Leiden on the K-NN graph at RES, each
                                        configuration's mean ARI, NMI, k-MAE
"""
import csv
import gzip
import json
import os
import sys
import time
import warnings
from collections import defaultdict

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist/"
SPLITS = {"all": list(range(10)), "unseen": [6, 7, 8, 9]}
TRAIN_CLASSES = {"all": list(range(10)), "unseen": [0, 1, 2, 3, 4, 5]}
CFGS = {"small": (90, 299, 4), "large": (300, 999, 12)}


def idx(name):
    with gzip.open(DATA + name) as f:
        b = f.read()
    if b[3] == 3:
        return np.frombuffer(b, np.uint8, offset=16).reshape(-1, 784).astype(np.float64) / 255
    return np.frombuffer(b, np.uint8, offset=8).astype(int)


def unit_rows(Z):
    """Each row at unit length, as every source's features are given to the
    methods; with DAC_BENCH_RAW_ROWS=1 the rows as the feature map gives them
    (docs/embeddings.md, "Rows of any length")."""
    if os.environ.get("DAC_BENCH_RAW_ROWS") == "1":
        return Z
    return Z / np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1e-12)


def features_pca():
    Xtr, ytr = idx("train-images-idx3-ubyte.gz"), idx("train-labels-idx1-ubyte.gz")
    Xte, yte = idx("t10k-images-idx3-ubyte.gz"), idx("t10k-labels-idx1-ubyte.gz")
    mean = Xtr.mean(axis=0)
    _, _, vt = np.linalg.svd(Xtr - mean, full_matrices=False)
    V = vt[:32].T

    def f(X):
        Z = (X - mean) @ V
        return unit_rows(Z)
    return f(Xtr), ytr, f(Xte), yte


CNN_WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cnn_fmnist_0to5.npz")


def cnn_body():
    import torch.nn as nn
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 7 * 7, 64), nn.ReLU())


def train_cnn(Xtr, ytr):
    """The CNN trained (here, on the CPU, seeded) to classify the training
    images of classes 0-5 only; its body (the classifier head dropped).
    Float rounding differs between CPUs' kernels, and over three epochs the
    weights drift apart: the same seed gives other weights on another CPU."""
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    body = cnn_body()
    head = nn.Linear(64, 6)
    seen = np.where(ytr < 6)[0]
    xs = torch.tensor(Xtr[seen], dtype=torch.float32).view(-1, 1, 28, 28)
    ys = torch.tensor(ytr[seen])
    opt = torch.optim.Adam(list(body.parameters()) + list(head.parameters()), lr=1e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(3):
        perm = torch.randperm(len(seen), generator=gen)
        for b in range(0, len(seen), 128):
            i = perm[b:b + 128]
            loss = nn.functional.cross_entropy(head(body(xs[i])), ys[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print("cnn epoch %d: loss %.3f" % (epoch + 1, loss.item()), file=sys.stderr)
    return body


def features_cnn():
    """A second real source: 64-d embeddings from a small CNN trained on
    classes 0-5 only, as the paper's Embedded-ImageNet features were made;
    the penultimate layer, L2-normalised, of every image.  Classes 6-9 are
    never seen.  The trained weights are kept beside this file
    (cnn_fmnist_0to5.npz, made by train_cnn on the AMD EPYC VM with AVX2
    kernels), so that every machine computes the same features from them;
    DAC_BENCH_CNN_TRAIN=1 trains the network here instead (and, with
    DAC_BENCH_CNN_SAVE=FILE, writes its weights there)."""
    import torch
    torch.set_num_threads(1)
    Xtr, ytr = idx("train-images-idx3-ubyte.gz"), idx("train-labels-idx1-ubyte.gz")
    Xte, yte = idx("t10k-images-idx3-ubyte.gz"), idx("t10k-labels-idx1-ubyte.gz")
    if os.environ.get("DAC_BENCH_CNN_TRAIN") == "1" or not os.path.exists(CNN_WEIGHTS):
        body = train_cnn(Xtr, ytr)
        if os.environ.get("DAC_BENCH_CNN_SAVE"):
            np.savez_compressed(os.environ["DAC_BENCH_CNN_SAVE"],
                                **{k: v.numpy() for k, v in body.state_dict().items()})
    else:
        body = cnn_body()
        w = np.load(CNN_WEIGHTS)
        body.load_state_dict({k: torch.tensor(w[k]) for k in w.files})
    body.eval()

    def f(X):
        with torch.no_grad():
            Z = torch.cat([body(torch.tensor(X[b:b + 2048], dtype=torch.float32).view(-1, 1, 28, 28))
                           for b in range(0, len(X), 2048)]).numpy().astype(np.float64)
        return unit_rows(Z)
    return f(Xtr), ytr, f(Xte), yte


def features_digits():
    """A third real source: the 1,797 handwritten digits (8x8 grey levels 0-16,
    64-d) of the UCI optical-digits test set that scikit-learn bundles
    (load_digits; no download).  Split in halves by a seeded permutation:
    training rows (tuning sets and table models) and test rows (the sets);
    each row's grey levels / 16, L2-normalised as the other sources are.
    Its sets are smaller than the configurations ask where a class runs out
    of rows (about 90 test rows a class)."""
    from sklearn.datasets import load_digits
    d = load_digits()
    X = d.data / 16.0
    X = unit_rows(X)
    perm = np.random.default_rng(0).permutation(len(X))
    tr, te = np.sort(perm[:len(X) // 2]), np.sort(perm[len(X) // 2:])
    return X[tr], d.target[tr], X[te], d.target[te]


SOURCES = {"pca": features_pca, "cnn": features_cnn, "digits": features_digits}
_FEATURES = {}


def features(d=None):
    """The source's features (DAC_BENCH_SOURCE: pca, the default, cnn or
    digits), computed once and kept in DIR/features.npz for the later steps."""
    source = os.environ.get("DAC_BENCH_SOURCE", "pca")
    if source not in SOURCES:
        sys.exit("DAC_BENCH_SOURCE must be one of %s" % ", ".join(SOURCES))
    # the cache holds what made it: the source, the rows' lengths and, for
    # the CNN, kept or retrained weights; a directory made another way is
    # refused (its sets hold that way's vectors), not computed again over them
    made = "%s rows=%s cnn=%s" % (source, os.environ.get("DAC_BENCH_RAW_ROWS") == "1" and "raw" or "unit",
                                  os.environ.get("DAC_BENCH_CNN_TRAIN") == "1" and "trained" or "kept")
    p = os.path.join(d, "features.npz") if d else None
    if p and os.path.exists(p):
        z = np.load(p)
        if "made" in z.files and str(z["made"]) == made:
            return z["Ftr"], z["ytr"], z["Fte"], z["yte"]
        sys.exit("%s holds features made as \"%s\", not \"%s\": set DAC_BENCH_SOURCE (and DAC_BENCH_RAW_ROWS, "
                 "DAC_BENCH_CNN_TRAIN) as it was made, or use another directory"
                 % (d, str(z["made"]) if "made" in z.files else "unknown", made))
    if source not in _FEATURES:
        _FEATURES[source] = SOURCES[source]()
    Ftr, ytr, Fte, yte = _FEATURES[source]
    if p:
        np.savez(p, source=source, made=made, Ftr=Ftr, ytr=ytr, Fte=Fte, yte=yte)
    return Ftr, ytr, Fte, yte


def sample_sets(rng, y, classes, count, cfg, cfgs=None):
    """count sets as lists of row indices into y, and their labels (cfgs: the
    configurations, by default this benchmark's)."""
    n_lo, n_hi, k_max = (cfgs or CFGS)[cfg]
    k_max = min(k_max, len(classes))
    by = {c: np.where(y == c)[0] for c in classes}
    out = []
    for _ in range(count):
        n = int(rng.integers(n_lo, n_hi + 1))
        k = 1 + int(rng.binomial(k_max - 1, 0.5))
        chosen = rng.choice(classes, k, replace=False)
        counts = rng.multinomial(n, rng.dirichlet(np.ones(k)))
        rows = []
        for c, m in zip(chosen, counts):
            m = min(int(m), len(by[c]))
            rows.extend(rng.choice(by[c], m, replace=False).tolist())
        rows = np.array(rows)
        rng.shuffle(rows)
        out.append(rows)
    return out


def vec(v):
    return "{" + ",".join("%.7g" % x for x in v) + "}"


def prepare(d, count, seed):
    os.makedirs(d, exist_ok=True)
    Ftr, ytr, Fte, yte = features(d)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "train.csv"), "w", newline="") as f:
        w = csv.writer(f)
        for i, (v, lab) in enumerate(zip(Ftr, ytr)):
            w.writerow([i + 1, lab, vec(v)])
    rng = np.random.default_rng(seed)
    sets = {}
    with open(os.path.join(d, "sets.csv"), "w", newline="") as f:
        w = csv.writer(f)
        for cfg in CFGS:
            for split, classes in SPLITS.items():
                idxs = sample_sets(rng, yte, classes, count, cfg)
                sets[cfg + "/" + split] = [r.tolist() for r in idxs]
                for s, rows in enumerate(idxs):
                    for o, r in enumerate(rows):
                        w.writerow([cfg, split, s + 1, o + 1, yte[r], vec(Fte[r])])
    with open(os.path.join(d, "sets.json"), "w") as f:
        json.dump({"seed": seed, "count": count, "sets": sets}, f)
    print("wrote %d training rows and %d sets per configuration and split to %s" % (len(ytr), count, d))


def metrics(y, pred):
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
    return (adjusted_rand_score(y, pred), normalized_mutual_info_score(y, pred),
            abs(len(np.unique(y)) - len(np.unique(pred))))


def knn_graph(X, k):
    """The symmetrised k-nearest-neighbour graph of X (igraph, undirected, simple)."""
    import igraph as ig
    from sklearn.neighbors import NearestNeighbors
    k = min(k, len(X) - 1)
    nb = NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X, return_distance=False)[:, 1:]
    edges = {(min(i, j), max(i, j)) for i in range(len(X)) for j in nb[i]}
    return ig.Graph(n=len(X), edges=sorted(edges))


def leiden(X, k=15, resolution=1.0):
    """leidenalg's RBConfiguration partition of the kNN graph (its defaults: resolution 1)."""
    import leidenalg
    g = knn_graph(X, k)
    p = leidenalg.find_partition(g, leidenalg.RBConfigurationVertexPartition,
                                 resolution_parameter=resolution, seed=0)
    return np.array(p.membership)


def louvain(X, k=15):
    return np.array(knn_graph(X, k).community_multilevel().membership)


def score_method(name, fn, sets, cfg, split, out):
    """fn(X, true k) on every (X, y) of sets: mean ARI, NMI, k-MAE and seconds, a JSON line to out."""
    acc = np.zeros(4)
    count = 0
    for X, y in sets:
        t0 = time.perf_counter()
        pred = fn(X, len(np.unique(y)))
        acc[3] += time.perf_counter() - t0
        acc[:3] += metrics(y, pred)
        count += 1
    acc /= count
    rec = {"method": name, "cfg": cfg, "split": split, "ari": acc[0], "nmi": acc[1],
           "k_mae": acc[2], "seconds_per_set": acc[3], "given_k": "true k" in name}
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(json.dumps(rec))


def gmm_bic(X, k_up):
    """A diagonal Gaussian mixture of 1 to k_up components, the labels of the lowest BIC."""
    from sklearn.mixture import GaussianMixture
    top = None
    for k in range(1, k_up + 1):
        g = GaussianMixture(n_components=k, covariance_type="diag", random_state=0).fit(X)
        b = g.bic(X)
        if top is None or b < top[0]:
            top = (b, g.predict(X))
    return top[1]


def kmeans_silhouette(X, ks, n_init):
    """k-means at each k of ks (n_init k-means++ starts), the labels of the best silhouette."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score
    top = None
    for k in ks:
        p = KMeans(n_clusters=k, n_init=n_init, random_state=0).fit_predict(X)
        s = silhouette_score(X, p)
        if top is None or s > top[0]:
            top = (s, p)
    return top[1]


def tuning_sets(meta, ytr):
    """Per suite (key, cfg, split), the 40 sets of training rows the tuned
    methods are chosen on, drawn as the suite's test sets are from the
    split's training classes, in the order baselines draws them."""
    rng = np.random.default_rng(meta["seed"] + 1)
    for key in meta["sets"]:
        cfg, split = key.split("/")
        yield key, cfg, split, sample_sets(rng, ytr, TRAIN_CLASSES[split], 40, cfg)


def write_tuning_sets(d):
    """DIR/tune_<cfg>_<split>.csv: group, order, label, vector rows of the
    tuned methods' sets, for dac_tune (test/bench/tune_suites.sh), from the
    features the directory was made with (whatever DAC_BENCH_SOURCE says)."""
    z = np.load(os.path.join(d, "features.npz"))
    Ftr, ytr = z["Ftr"], z["ytr"]
    meta = json.load(open(os.path.join(d, "sets.json")))
    for _, cfg, split, tune in tuning_sets(meta, ytr):
        with open(os.path.join(d, "tune_%s_%s.csv" % (cfg, split)), "w", newline="") as f:
            w = csv.writer(f)
            for g, rows in enumerate(tune):
                for o, r in enumerate(rows):
                    w.writerow([g + 1, o + 1, ytr[r], vec(Ftr[r])])


def baselines(d):
    from sklearn.cluster import AgglomerativeClustering, DBSCAN, KMeans, SpectralClustering
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.mixture import BayesianGaussianMixture
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", message="Graph is not fully connected")
    warnings.filterwarnings("ignore", message=".*did not converge.*")

    Ftr, ytr, Fte, yte = features(d)
    meta = json.load(open(os.path.join(d, "sets.json")))
    out = open(os.path.join(d, "baselines.jsonl"), "w")
    for key, cfg, split, tune in tuning_sets(meta, ytr):
        sets = meta["sets"][key]
        k_up = 2 * min(CFGS[cfg][2], 10)
        # DBSCAN: eps and min_samples chosen by mean ARI on 40 sets drawn the
        # same way from the training images of the split's training classes
        best = None
        for ms in (3, 5, 10):
            for eps in np.linspace(0.05, 1.0, 39):
                a = np.mean([metrics(ytr[r], DBSCAN(eps=eps, min_samples=ms).fit_predict(Ftr[r]))[0]
                             for r in tune])
                if best is None or a > best[0]:
                    best = (a, eps, ms)
        _, eps, ms = best
        # Leiden: neighbours and resolution; Ward: the distance threshold; by
        # mean ARI on the same training sets
        best_l = None
        for kn in (5, 10, 15, 20):
            for res in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5):
                a = np.mean([metrics(ytr[r], leiden(Ftr[r], kn, res))[0] for r in tune])
                if best_l is None or a > best_l[0]:
                    best_l = (a, kn, res)
        _, l_k, l_res = best_l
        best_w = None
        for t in np.linspace(0.5, 8.0, 31):
            a = np.mean([metrics(ytr[r], AgglomerativeClustering(
                n_clusters=None, distance_threshold=t, linkage="ward").fit_predict(Ftr[r]))[0] for r in tune])
            if best_w is None or a > best_w[0]:
                best_w = (a, t)
        _, w_t = best_w

        def kmeans_sil(X):
            return kmeans_silhouette(X, range(2, min(k_up, len(X) - 1) + 1), 4)

        methods = {
            "k-means (true k)": lambda X, k: KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(X),
            "spectral (true k)": lambda X, k: SpectralClustering(
                n_clusters=k, affinity="nearest_neighbors", n_neighbors=10,
                assign_labels="kmeans", random_state=0).fit_predict(X),
            "variational DP mixture": lambda X, k: BayesianGaussianMixture(
                n_components=k_up, covariance_type="diag",
                weight_concentration_prior_type="dirichlet_process",
                max_iter=300, random_state=0).fit(X).predict(X),
            "Gaussian mixture + BIC": lambda X, k: gmm_bic(X, k_up),
            "k-means + silhouette": lambda X, k: kmeans_sil(X),
            "DBSCAN (tuned: eps %.3f, min_samples %d)" % (eps, ms):
                lambda X, k: DBSCAN(eps=eps, min_samples=ms).fit_predict(X),
            "Leiden on a 15-NN graph (defaults)": lambda X, k: leiden(X),
            "Louvain on a 15-NN graph (defaults)": lambda X, k: louvain(X),
            "Leiden (tuned: %d-NN, resolution %.2f)" % (l_k, l_res): lambda X, k: leiden(X, l_k, l_res),
            "Ward (tuned: distance threshold %.2f)" % w_t: lambda X, k: AgglomerativeClustering(
                n_clusters=None, distance_threshold=w_t, linkage="ward").fit_predict(X),
        }
        for name, fn in methods.items():
            score_method(name, fn, ((Fte[rows], yte[rows]) for rows in sets), cfg, split, out)


def leiden_at(d, k, res):
    """Leiden at fixed parameters on every test set (dac's graph stage's own: 5, 0.05)."""
    _, _, Fte, yte = features(d)
    meta = json.load(open(os.path.join(d, "sets.json")))
    for key, sets in sorted(meta["sets"].items()):
        m = np.mean([metrics(yte[rows], leiden(Fte[rows], k, res)) for rows in sets], axis=0)
        print("%s: Leiden, %d-NN, resolution %g: ARI %.3f, NMI %.3f, k-MAE %.2f" % ((key, k, res) + tuple(m)))


def score(d, path):
    """path: lines method|cfg|split|set_id|{ids} (NULL ids as NULL)."""
    meta = json.load(open(os.path.join(d, "sets.json")))
    yte = np.load(os.path.join(d, "features.npz"))["yte"]
    acc = defaultdict(lambda: np.zeros(4))
    for line in open(path):
        head, ids = line.rstrip("\n").split("{", 1)
        method, cfg, split, sid = _fields(head)
        ids = "{" + ids
        rows = meta["sets"][cfg + "/" + split][int(sid) - 1]
        pred = np.array([int(v) if v not in ("", "NULL") else -1 for v in ids.strip("{}").split(",")])
        acc[(method, cfg, split)][:3] += metrics(yte[rows], pred)
        acc[(method, cfg, split)][3] += 1
    with open(os.path.join(d, "dac.jsonl"), "a") as out:
        for (method, cfg, split), a in acc.items():
            rec = {"method": method, "cfg": cfg, "split": split, "ari": a[0] / a[3], "nmi": a[1] / a[3],
                   "k_mae": a[2] / a[3], "sets": int(a[3]), "given_k": "true k" in method}
            out.write(json.dumps(rec) + "\n")
            print(json.dumps(rec))


def _fields(head):
    """method, cfg, split, set_id from the part of a line before the ids
    (the separator is | or ,; the method may contain commas)."""
    sep = "|" if "|" in head else ","
    method, cfg, split, sid = head.rstrip(sep).rsplit(sep, 3)
    return method, cfg, split, sid


def report(d):
    recs = []
    for name in ("dac.jsonl", "baselines.jsonl"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            recs += [json.loads(line) for line in open(p)]
    timing = {}
    p = os.path.join(d, "timing.jsonl")
    if os.path.exists(p):
        for line in open(p):
            t = json.loads(line)
            timing[(t["method"], t["cfg"], t["split"])] = t["seconds_per_set"]
    for cfg in CFGS:
        n_lo, n_hi, k_max = CFGS[cfg]
        print("\n**%s sets** (n %d-%d, k <= %d, capped at the split's classes)\n" % (cfg, n_lo, n_hi, k_max))
        print("| split | method | given k | ARI | NMI | k-MAE | s/set |")
        print("|---|---|---|---|---|---|---|")
        for split in SPLITS:
            rows = [r for r in recs if r["cfg"] == cfg and r["split"] == split]
            rows.sort(key=lambda r: (r.get("given_k", False), -r["ari"]))
            for r in rows:
                s = r.get("seconds_per_set", timing.get((r["method"], cfg, split)))
                print("| %s | %s | %s | %.3f | %.3f | %.2f | %s |" % (
                    split, r["method"], "yes" if r.get("given_k") else "no", r["ari"], r["nmi"],
                    r["k_mae"], "%.4f" % s if s is not None else "-"))


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
    elif cmd == "leiden":
        leiden_at(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif cmd == "tune_sets":
        write_tuning_sets(sys.argv[2])
    else:
        sys.exit(__doc__)
