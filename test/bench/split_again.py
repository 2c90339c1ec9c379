#!/usr/bin/python3
"""Scores split_again.sh's output: ARI / k-MAE per file for dac as it is,
every cluster split as its second pass cuts it, a cut kept only when its
second part holds at least 10-40% of the cluster, and every cut kept only in
groups where dac found 3 to 6 clusters or more; then ARI summed over the
tuning files and over the test files.
Usage: /usr/bin/python3 test/bench/split_again.py OUT SOURCE"""
import collections
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings as E  # noqa: E402


def load(path):
    sets = collections.defaultdict(list)
    for line in open(path):
        p = line.split()
        if len(p) == 4:
            sets[int(p[0])].append(tuple(int(x) for x in p[1:]))
    return sets


def split(rows, share, many):
    c0 = np.array([r[1] for r in rows])
    c1 = np.array([r[2] for r in rows])
    out = c0 * 1000
    if share is None or len(np.unique(c0)) < many:
        return out
    for j in np.unique(c0):
        m = c0 == j
        _, n = np.unique(c1[m], return_counts=True)
        if len(n) >= 2 and np.sort(n)[-2] >= share * m.sum():
            out[m] = j * 1000 + c1[m]
    return out


VARIANTS = [("as it is", None, 0), ("every cut", 0.0, 0), ("second part >= 10%", 0.1, 0),
            ("second part >= 20%", 0.2, 0), ("second part >= 30%", 0.3, 0), ("second part >= 40%", 0.4, 0),
            ("in groups of >= 3", 0.0, 3), ("in groups of >= 4", 0.0, 4), ("in groups of >= 5", 0.0, 5),
            ("in groups of >= 6", 0.0, 6)]


def main():
    out, src = sys.argv[1], sys.argv[2]
    sums = collections.defaultdict(float)
    print("| %s file | %s |" % (src, " | ".join(v[0] for v in VARIANTS)))
    print("|---" * (len(VARIANTS) + 1) + "|")
    for part in ("tune", "test"):
        for suite in ("small_all", "small_unseen", "large_all", "large_unseen"):
            path = os.path.join(out, "r_%s_%s_%s.txt" % (src, part, suite))
            if not os.path.exists(path):
                continue
            sets = load(path)
            cells = []
            for name, share, many in VARIANTS:
                m = np.mean([E.metrics(np.array([r[0] for r in rows]), split(rows, share, many))
                             for rows in sets.values()], axis=0)
                cells.append("%.3f / %.2f" % (m[0], m[2]))
                sums[(part, name)] += m[0]
            print("| %s %s | %s |" % (part, suite, " | ".join(cells)))
    for part in ("tune", "test"):
        print("| ARI summed, %s | %s |" % (part, " | ".join("%.3f" % sums[(part, v[0])] for v in VARIANTS)))


if __name__ == "__main__":
    main()
