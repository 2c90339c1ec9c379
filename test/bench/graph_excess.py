"""The graph's excess per group of the kinds benchmark (test/bench/graph_excess.sh).

The record's lines come in the order kinds.sh clusters the groups (sources in
name order, groups by number), one for each group that reached the graph's
test; each is matched to the next group of that many distinct rows.  Prints
the ten largest excesses with their groups, then per kind and split the
largest excess of a group of one class and those of the groups of 2+ classes.
With --score, a label's mean ARI over every group of tables, pixels and
embeddings per split (a group of one class scores 1 where it stays one
cluster, as the kinds benchmark's ARI).
With --cli, the record of a dac-cli eval --per-set run (SETS its output),
each line matched to the next set of that many rows: the excesses of its
sets of one class and of 2+ classes.
Usage: python3 graph_excess.py DIR RECORD | --score DIR LABEL | --cli SETS RECORD
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kinds  # noqa: E402


def main(d, record):
    groups = kinds.load_groups(d)
    keys = sorted(groups, key=lambda k: (" ".join(k[:3]), k[3]))
    size = {k: len(np.unique(groups[k][0], axis=0)) for k in keys}
    found, i = [], 0
    for line in open(record):
        m, q, q0 = line.split()
        while i < len(keys) and size[keys[i]] != int(m):
            i += 1
        if i == len(keys):
            sys.exit("a record line matches no group: %s" % line.strip())
        k = keys[i]
        i += 1
        found.append((float(q) - float(q0), k, len(np.unique(groups[k][1]))))
    for e, k, c in sorted(found, reverse=True)[:10]:
        print("%.3f %s %s %s group %d, %d class(es)" % (e, k[0], k[1], k[2], k[3], c))
    for kind in ("tabular", "pixels", "embedding"):
        for split in ("dev", "held"):
            one = [e for e, k, c in found if k[0] == kind and k[2] == split and c == 1]
            more = sorted((e for e, k, c in found if k[0] == kind and k[2] == split and c > 1), reverse=True)
            print("%s %s: one class %d, largest %s; 2+ classes %d: %s" % (
                kind, split, len(one), "%.3f" % max(one) if one else "-", len(more),
                " ".join("%.3f" % e for e in more)))


def cli_sets(sets, record):
    found = [(int(f[3]), int(f[5])) for f in (line.split() for line in open(sets)) if f and f[0] == "set"]
    one, more, i = [], [], 0
    for line in open(record):
        m, q, q0 = line.split()
        while i < len(found) and found[i][0] != int(m):
            i += 1
        if i == len(found):
            sys.exit("a record line matches no set: %s" % line.strip())
        (one if found[i][1] == 1 else more).append(float(q) - float(q0))
        i += 1
    print("dac-cli's sets: one class %d: %s; 2+ classes %d: %s" % (
        len(one), " ".join("%.3f" % e for e in sorted(one, reverse=True)),
        len(more), " ".join("%.3f" % e for e in sorted(more, reverse=True))))


def score(d, label):
    rows = [json.loads(line) for line in open(os.path.join(d, label + ".jsonl"))]
    print("%s: %s" % (label, "; ".join(
        "%s mean ARI over every group %.3f" % (split, np.mean(
            [r["ari"] for r in rows if r["split"] == split and r["kind"] != "shapes"]))
        for split in ("dev", "held"))))


if __name__ == "__main__":
    if sys.argv[1] == "--score":
        score(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "--cli":
        cli_sets(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], sys.argv[2])
