"""Pictures for docs/ (benchmark-only; matplotlib from Debian).

plots.py CLUSTERS_CSV SUMMARY_CSV WEIGHTS_README OUT_DIR
  clusters_2d.png: per panel, the true labels and the clusters dac found
                   (NULL = noise, drawn as black crosses), each with its
                   Gaussian density (the 2σ ellipse of its θ);
  quality_vs_cpu.png: ARI at (1000, 4) and (3000, 12) of each checkpoint in
                   weights/README.md's table against its training CPU minutes.
"""
import csv
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402


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
    fig, axes = plt.subplots(2, len(names), figsize=(3.0 * len(names), 6.2))
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
            if i == 1 and not name.startswith("noise"):
                for g in gauss[name]:
                    ax.add_patch(Ellipse((float(g["mx"]), float(g["my"])), 4 * float(g["sx"]),
                                         4 * float(g["sy"]), fill=False, lw=0.8,
                                         color=cmap(int(g["cluster"]) % 20)))
            k = len({c for _, _, c in norm})
            title = name if i == 0 else "dac_cluster (mlf_mog2d)"
            ax.set_title(f"{title}\n{'truth' if i == 0 else 'found'}: {k} clusters", fontsize=7)
            ax.set_xticks([])
            ax.set_yticks([])
    fig.suptitle("Top: true components (extra points: black crosses). Bottom: clusters dac found, "
                 "each with its Gaussian density (2σ ellipse of θ; noise: black crosses)", fontsize=9)
    fig.tight_layout()
    fig.savefig(f"{out}/clusters_2d.png", dpi=70)


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
    clusters(sys.argv[1], sys.argv[2], sys.argv[4])
    quality(sys.argv[3], sys.argv[4])
