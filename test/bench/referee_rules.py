#!/usr/bin/python3
"""The given-k referee's rules side by side (test/bench/referee_rules.sh).

For each rule, its kinds benchmark rows given the true k (DIR/r_RULE.jsonl)
give the mean ARI per kind and split over the groups of 2+ classes (shapes
left out: 2-D models merge along ridgelines, not by the referee), beside
k-means given the same k (DIR/baselines.jsonl); each suite (SUITE/r_RULE.txt,
lines r_RULE|cfg|split|set_id|{ids}, scored by embeddings.py) its mean ARI per configuration and split,
beside scikit-learn's k-means given each set's true k (10 starts).  Prints
one row per rule: each column's ARI and its difference from k-means, the
development and held-out sums, and each side's worst difference (the
requirement: never below k-means given the same k); then the same in short,
with the columns more than 0.01 below k-means.

  referee_rules.py "RULES" DIR=NAME... -- SUITE=NAME:dev|held...
"""
import contextlib
import io
import json
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings  # noqa: E402
import kinds  # noqa: E402


def kinds_columns(d, name, rules):
    """{(column, side): {rule or 'k-means': mean ARI}} over the groups of 2+ classes."""
    groups = kinds.load_groups(d)
    many = {k for k, (X, y) in groups.items() if len(np.unique(y)) > 1 and k[0] != "shapes"}
    acc = defaultdict(lambda: defaultdict(list))
    files = [("k-means", "baselines.jsonl", "k-means, true k")] + \
        [(r, "r_%s.jsonl" % r, "r_%s given true k" % r) for r in rules]
    for who, f, method in files:
        for line in open(os.path.join(d, f)):
            j = json.loads(line)
            key = (j["kind"], j["source"], j["split"], j["set"])
            if j["method"] == method and key in many:
                acc[("%s %s %s" % (name, j["kind"], j["split"]), j["split"])][who].append(j["ari"])
    return {c: {n: float(np.mean(v)) for n, v in by.items()} for c, by in acc.items()}


def suite_columns(d, name, side, rules):
    """Each suite configuration's mean ARI: the rules' (embeddings.py score) and
    scikit-learn's k-means given each set's true k (10 starts)."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score
    meta = json.load(open(os.path.join(d, "sets.json")))
    f = np.load(os.path.join(d, "features.npz"))
    X, y = f["Fte"], f["yte"]
    cols = defaultdict(dict)
    for key, sets in meta["sets"].items():
        a = []
        for rows in sets:
            rows = np.array(rows)
            k = len(np.unique(y[rows]))
            pred = KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(X[rows]) if k > 1 else np.zeros(len(rows))
            a.append(adjusted_rand_score(y[rows], pred))
        cols[("%s %s" % (name, key), side)]["k-means"] = float(np.mean(a))
    if os.path.exists(os.path.join(d, "dac.jsonl")):
        os.remove(os.path.join(d, "dac.jsonl"))
    with contextlib.redirect_stdout(io.StringIO()):
        for r in rules:
            embeddings.score(d, os.path.join(d, "r_%s.txt" % r))
    for line in open(os.path.join(d, "dac.jsonl")):
        j = json.loads(line)
        cols[("%s %s/%s" % (name, j["cfg"], j["split"]), side)][j["method"][2:]] = j["ari"]
    return cols


def main():
    args = sys.argv[1:]
    rules = args[0].split()
    cut = args.index("--") if "--" in args else len(args)
    cols = {}
    for a in args[1:cut]:
        d, name = a.split("=", 1)
        cols.update(kinds_columns(d, name, rules))
    for s in args[cut + 1:]:
        d, side = s.rsplit(":", 1)
        d, name = d.split("=", 1)
        cols.update(suite_columns(d, name, "dev" if side == "dev" else "held", rules))
    order = sorted(cols, key=lambda c: (c[1] != "dev", c[0]))
    print("| rule | %s | dev sum | held sum | worst dev | worst held |" % " | ".join(c[0] for c in order))
    print("|---|%s---|---|---|---|" % ("---|" * len(order)))
    print("| k-means given k | %s | %.3f | %.3f | | |" % (
        " | ".join("%.3f" % cols[c]["k-means"] for c in order),
        sum(cols[c]["k-means"] for c in order if c[1] == "dev"),
        sum(cols[c]["k-means"] for c in order if c[1] != "dev")))
    for r in rules:
        diff = {c: cols[c][r] - cols[c]["k-means"] for c in order}
        print("| %s | %s | %.3f | %.3f | %+.3f | %+.3f |" % (
            r, " | ".join("%.3f (%+.3f)" % (cols[c][r], diff[c]) for c in order),
            sum(cols[c][r] for c in order if c[1] == "dev"), sum(cols[c][r] for c in order if c[1] != "dev"),
            min(diff[c] for c in order if c[1] == "dev"), min(diff[c] for c in order if c[1] != "dev")))
    ndev = sum(1 for c in order if c[1] == "dev")
    print("\n| rule | dev sum (%d columns) | held-out sum (%d) | worst dev | worst held out | below k-means by more than 0.01, dev / held out |"
          % (ndev, len(order) - ndev))
    print("|---|---|---|---|---|---|")
    for r in ["k-means"] + rules:
        diff = {c: cols[c][r] - cols[c]["k-means"] for c in order}
        print("| %s | %.3f | %.3f | %+.3f | %+.3f | %d / %d |" % (
            "k-means given k" if r == "k-means" else r,
            sum(cols[c][r] for c in order if c[1] == "dev"), sum(cols[c][r] for c in order if c[1] != "dev"),
            min(diff[c] for c in order if c[1] == "dev"), min(diff[c] for c in order if c[1] != "dev"),
            sum(diff[c] < -0.01 for c in order if c[1] == "dev"), sum(diff[c] < -0.01 for c in order if c[1] != "dev")))


if __name__ == "__main__":
    main()
