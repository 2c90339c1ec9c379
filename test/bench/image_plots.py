#!/usr/bin/python3
"""Pictures of the image model (docs/img/images_clusters.png), as the paper's
appendix shows its mixture of neural statisticians: for a few test sets, the
images of each cluster dac found, and images decoded from random latent codes
under each cluster's context θ (z drawn from the cluster's prior p(z | θ), a
flow inverted block by block; each pixel shown as its probability of ink).

  image_plots.py sets DIR              three test sets (CSV for COPY: set, ord, label, pixels)
  image_plots.py draw DIR WEIGHTS OUT  the picture, from DIR/ids.csv (set, ord, cluster) and
                                       DIR/theta.csv (set, cluster, θ) written by image_plots.sh
Benchmark tool only (torch and matplotlib), never a runtime dependency."""
import csv
import gzip
import json
import os
import struct
import sys

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist/"
NAMES = ["T-shirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag", "boot"]
# (classes, images per class): two sets of seen classes, one of unseen
SETS = [([0, 1, 7], 60), ([2, 5, 3, 4], 50), ([6, 8, 9], 60)]


def sets(d):
    with gzip.open(DATA + "t10k-images-idx3-ubyte.gz") as f:
        X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)
    with gzip.open(DATA + "t10k-labels-idx1-ubyte.gz") as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8).astype(int)
    rng = np.random.default_rng(5)
    B = (rng.random(X.shape) < X / 255.0).astype(np.uint8)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "sets.csv"), "w", newline="") as f:
        w = csv.writer(f)
        for s, (classes, m) in enumerate(SETS):
            rows = np.concatenate([rng.choice(np.where(y == c)[0], m, replace=False) for c in classes])
            rng.shuffle(rows)
            for o, r in enumerate(rows):
                w.writerow([s + 1, o + 1, y[r], "{" + ",".join(map(str, B[r])) + "}"])


def load_weights(path):
    buf = open(path, "rb").read()
    n = struct.unpack("<Q", buf[:8])[0]
    head = json.loads(buf[8:8 + n])
    out = {}
    for k, v in head.items():
        if k == "__metadata__":
            continue
        a, b = v["data_offsets"]
        dt = {"F32": np.float32, "F64": np.float64, "I64": np.int64}[v["dtype"]]
        out[k] = np.frombuffer(buf[8 + n + a:8 + n + b], dtype=dt).reshape(v["shape"]).astype(np.float64)
    return out, json.loads(head["__metadata__"]["dac.config"])


def sampler(W, cfg):
    import torch
    import torch.nn.functional as F
    t = {k: torch.tensor(v) for k, v in W.items()}
    L, nmade = cfg["dim_lats"], cfg["maf"]["num_made"]

    def made(k, x, c):
        p = "prior.transform.transforms.%d." % (2 * k)
        h = F.elu(x @ t[p + "linear.linear.weight"].T + t[p + "linear.linear.bias"] + c @ t[p + "ctx_linear.weight"].T)
        h = F.elu(h @ t[p + "mlp.1.linear.weight"].T + t[p + "mlp.1.linear.bias"])
        raw = h @ t[p + "mlp.3.linear.weight"].T + t[p + "mlp.3.linear.bias"]
        return raw[:, :L], F.softplus(raw[:, L:]) + 1e-5

    def invlin(k):
        p = "prior.transform.transforms.%d." % (2 * k + 1)
        lower = torch.tril(t[p + "lower"], -1) + torch.eye(L, dtype=torch.float64)
        upper = torch.triu(t[p + "upper"], 1) + torch.diag(t[p + "sign_s"] * torch.exp(t[p + "log_s"]))
        return t[p + "p"] @ lower @ upper

    def bn(x, name):
        return F.batch_norm(x, t[name + ".running_mean"], t[name + ".running_var"], t[name + ".weight"],
                            t[name + ".bias"], False, 0.0, 1e-5)

    def draw(theta, count, gen):
        c = torch.tensor(theta, dtype=torch.float64).reshape(1, -1).repeat(count, 1)
        y = torch.randn(count, L, generator=gen, dtype=torch.float64)
        for k in reversed(range(nmade)):
            u = torch.linalg.solve(invlin(k), y.T).T          # y = u Wᵀ
            x = torch.zeros_like(u)
            for j in range(L):                                  # u = (x − shift) / scale, x_j after x_<j
                shift, scale = made(k, x, c)
                x[:, j] = u[:, j] * scale[:, j] + shift[:, j]
            y = x
        h = F.relu(torch.cat([y, c], 1) @ t["dec.0.weight"].T + t["dec.0.bias"]).reshape(count, -1, 4, 4)
        h = F.relu(bn(F.conv_transpose2d(h, t["dec.3.weight"], t["dec.3.bias"], 2, 1, 0), "dec.4"))
        h = F.relu(bn(F.conv_transpose2d(h, t["dec.6.weight"], t["dec.6.bias"], 2, 1, 0), "dec.7"))
        logits = F.conv_transpose2d(h, t["dec.9.weight"], t["dec.9.bias"], 2, 0, 1)
        return torch.sigmoid(logits).reshape(count, 28, 28).numpy()

    return draw


def draw(d, weights, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import torch
    W, cfg = load_weights(weights)
    sample = sampler(W, cfg)
    gen = torch.Generator().manual_seed(7)
    px, lab = {}, {}
    for r in csv.reader(open(os.path.join(d, "sets.csv"))):
        px[(int(r[0]), int(r[1]))] = np.array([float(v) for v in r[3].strip("{}").split(",")]).reshape(28, 28)
        lab[(int(r[0]), int(r[1]))] = int(r[2])
    ids = {(int(r[0]), int(r[1])): int(r[2]) for r in csv.reader(open(os.path.join(d, "ids.csv")))}
    theta = {(int(r[0]), int(r[1])): np.array([float(v) for v in r[2].strip("{}").split(",")])
             for r in csv.reader(open(os.path.join(d, "theta.csv")))}
    per = 8
    rows = sorted(theta)
    fig, axes = plt.subplots(len(rows), 2 * per + 1, figsize=(0.8 * (2 * per + 1), len(rows) * 0.95))
    for i, (s, k) in enumerate(rows):
        members = [o for (s2, o), c in sorted(ids.items()) if s2 == s and c == k]
        classes = sorted({lab[(s, o)] for o in members}, key=lambda c: -sum(lab[(s, o)] == c for o in members))
        shown = members[:per]
        samples = sample(theta[(s, k)], per, gen)
        for j in range(2 * per + 1):
            ax = axes[i, j]
            ax.axis("off")
            if j < per and j < len(shown):
                ax.imshow(px[(s, shown[j])], cmap="gray_r", vmin=0, vmax=1)
            elif j > per:
                ax.imshow(samples[j - per - 1], cmap="gray_r", vmin=0, vmax=1)
        axes[i, 0].set_title("set %d, cluster %d: %d images (%s)" % (
            s, k, len(members), ", ".join("%d %s" % (sum(lab[(s, o)] == c for o in members), NAMES[c])
                                          for c in classes[:3])), loc="left", fontsize=8)
        axes[i, per + 1].set_title("decoded from z ~ p(z | θ)", loc="left", fontsize=8)
    fig.suptitle("mlf_fmnist on Fashion-MNIST test images (sets 1-2: classes it was trained on; "
                 "set 3: classes it never saw)", fontsize=10)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.93, wspace=0.05, hspace=0.5)
    fig.savefig(out, dpi=80)
    print("wrote", out)


if __name__ == "__main__":
    if sys.argv[1] == "sets":
        sets(sys.argv[2])
    elif sys.argv[1] == "draw":
        draw(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
