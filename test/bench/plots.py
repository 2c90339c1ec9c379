"""Pictures for docs/ (benchmark-only; matplotlib, scikit-learn, leidenalg from Debian).

plots.py DATA_DIR WEIGHTS_README OUT_DIR   (DATA_DIR: what plots.sh wrote)
  clusters_2d.png: per panel, the true labels and the clusters dac found
                   (NULL = noise, drawn as black crosses), each with its
                   Gaussian density (the 2σ ellipse of its θ) where the model
                   has one; axes in the data's units;
  embeddings_2d.png: Fashion-MNIST groups in a t-SNE projection, coloured by
                   true class, by dac_cluster, by k-means + silhouette and by
                   the tuned Leiden, each with its ARI;
  quality_vs_cpu.png: ARI at (1000, 4) and (3000, 12) of each checkpoint in
                   weights/README.md's table against its training CPU minutes.
"""
import csv
import os
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def clusters(path, summary, out):
    panels = defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            panels[row["panel"]].append(row)
    gauss = defaultdict(list)
    with open(summary) as f:
        for row in csv.DictReader(f):
            gauss[row["panel"]].append(row)
    names = sorted(panels)
    fig, axes = plt.subplots(2, len(names), figsize=(3.1 * len(names), 6.6))
    cmap = plt.get_cmap("tab20")
    for j, name in enumerate(names):
        rows = panels[name]
        for i, key in enumerate(("label", "cluster")):
            ax = axes[i][j]
            pts = [(float(r["x"]), float(r["y"]), r[key]) for r in rows]
            norm = [(x, y, c) for x, y, c in pts if c not in ("", "-1")]
            odd = [(x, y) for x, y, c in pts if c in ("", "-1")]
            ax.scatter([p[0] for p in norm], [p[1] for p in norm], s=3,
                       c=[cmap(int(p[2]) % 20) for p in norm])
            if odd:
                ax.scatter([p[0] for p in odd], [p[1] for p in odd], s=14, c="black", marker="x")
            if i == 1:
                for g in gauss[name]:
                    ax.add_patch(Ellipse((float(g["mx"]), float(g["my"])), 4 * float(g["sx"]),
                                         4 * float(g["sy"]), fill=False, lw=0.9, ls="--",
                                         color="black"))
            k = len({c for _, _, c in norm})
            title = name if i == 0 else "dac_cluster (%s)" % rows[0]["model"]
            ax.set_title(f"{title}\n{'truth' if i == 0 else 'found'}: {k} clusters", fontsize=7)
            ax.tick_params(labelsize=6)
            ax.ticklabel_format(style="plain", useOffset=False)
            if name.startswith("c:"):
                ax.set_xlabel("metres east", fontsize=6)
                ax.set_ylabel("metres north", fontsize=6)
    fig.suptitle("Top: true components (extra points: black crosses). Bottom: clusters dac found, "
                 "with each Gaussian model's densities (2σ ellipses of θ; noise: black crosses)", fontsize=9)
    fig.tight_layout()
    fig.savefig(f"{out}/clusters_2d.png", dpi=70)


def embeddings(path, leiden_txt, out):
    import numpy as np
    from sklearn.manifold import TSNE
    from sklearn.metrics import adjusted_rand_score
    import embeddings as eb
    names = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
             "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
    k, res = 5, 0.05      # the tuned Leiden of the benchmark's small unseen-class suite
    if os.path.exists(leiden_txt):
        m = re.search(r"(\d+)-NN, resolution ([\d.]+)", open(leiden_txt).read())
        if m:
            k, res = int(m.group(1)), float(m.group(2))
    sets = defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            sets[int(row["set_id"])].append(row)
    ids = sorted(sets)
    cols = ["true class", "dac_cluster (no model named)", "k-means + silhouette",
            f"Leiden, {k}-NN, resolution {res} (tuned)"]
    fig, axes = plt.subplots(len(ids), 4, figsize=(12, 3.0 * len(ids)))
    cmap = plt.get_cmap("tab10")
    for r, sid in enumerate(ids):
        rows = sets[sid]
        X = np.array([[float(v) for v in row["v"].strip("{}").split(",")] for row in rows])
        y = np.array([int(row["label"]) for row in rows])
        dac = np.array([int(row["cluster"]) if row["cluster"] else -1 for row in rows])
        km = eb.kmeans_silhouette(X, range(2, 11), 4)
        ld = eb.leiden(X, k, res)
        Y = TSNE(n_components=2, random_state=0, init="pca", perplexity=30).fit_transform(X)
        for c, (title, lab) in enumerate(zip(cols, (y, dac, km, ld))):
            ax = axes[r][c]
            ax.scatter(Y[:, 0], Y[:, 1], s=5, c=[cmap(int(v) % 10) for v in lab])
            ax.set_xticks([])
            ax.set_yticks([])
            if c == 0:
                classes = ", ".join(names[v] for v in sorted(set(y)))
                ax.set_title(f"set {sid}: {len(y)} images\n{classes}", fontsize=7)
            else:
                ax.set_title(f"{title}\n{len(set(lab))} clusters, ARI {adjusted_rand_score(y, lab):.2f}",
                             fontsize=7)
    fig.suptitle("Fashion-MNIST groups (64-d embeddings of a CNN trained on classes 0-5; these are classes 6-9), "
                 "drawn in a t-SNE projection of each group; every method clustered the 64-d vectors", fontsize=9)
    fig.tight_layout()
    fig.savefig(f"{out}/embeddings_2d.png", dpi=70)


def quality(path, out):
    series = defaultdict(list)
    pat = re.compile(r"^\| (MLF|AF|mlf64)[^|]*\| (\d+) \| ([\d.]+) / [^|]*\| ([\d.]+) / ")
    with open(path) as f:
        for line in f:
            m = pat.match(line)
            if m:
                series[m.group(1)].append((int(m.group(2)), float(m.group(3)), float(m.group(4))))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for i, title in enumerate(("(1000, 4)", "(3000, 12)")):
        ax = axes[i]
        for name, pts in series.items():
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1 + i] for p in pts], marker="o", ms=3, label=name)
        ax.set_xlabel("training CPU minutes (cumulative over stages)")
        ax.set_ylabel("ARI")
        ax.set_title(f"ARI on the {title} checkpoint sets")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(f"{out}/quality_vs_cpu.png", dpi=70)


if __name__ == "__main__":
    data, weights, out = sys.argv[1:4]
    clusters(f"{data}/clusters.csv", f"{data}/summary.csv", out)
    embeddings(f"{data}/fm.csv", f"{data}/leiden.txt", out)
    quality(weights, out)
