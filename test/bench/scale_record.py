"""The graph stage's two scales, scored on what test/bench/scale_record.sh
leaves in DIR/scale: each rule's answers (answers_MODE.txt, one line a
group: its key, true labels and dac's ids) and, for the shipped rule, each
group's record (record.txt: a marker line per group, then an "R" line where
the resolution found two or more communities).  Prints, per rule run and per
rule applied to the records (the finer scale's answer where the rule keeps
it, the shipped fallback's where not; groups without a record as shipped),
the mean ARI of each bucket (a kinds benchmark kind and split, groups of 2+
classes; a suite's configuration, all sets), the development sum (the kinds'
development buckets and the suites not marked held) and the held-out sum,
and, last, the sums each group's best of the three partitions would reach
(chosen with its labels: a ceiling no rule reaches).
Usage: python3 scale_record.py DIR [SUITE_NAME[:held]...]
"""
import collections
import sys

import numpy as np


def answers(path):
    out = {}
    for line in open(path):
        a, b, c, d, t, p = line.rstrip("\n").split("|")
        out[(a, b, c, d)] = ([int(x) for x in t[1:-1].split(",")],
                             [-1 if x == "NULL" else int(x) for x in p[1:-1].split(",")])
    return out


def records(path):
    out, key = {}, None
    for line in open(path):
        if line.startswith("= "):
            key = tuple(line[2:].split())
        elif line.startswith("R ") and key is not None:
            out[key] = {kv.split("=")[0]: float(kv.split("=")[1]) for kv in line[2:].split()}
    return out


def main(d, suites):
    from sklearn.metrics import adjusted_rand_score as ari
    held = {s.split(":")[0] for s in suites if s.endswith(":held")}
    modes = {m: answers("%s/scale/answers_%s.txt" % (d, m)) for m in ("0", "2", "4", "8", "16", "64", "128")}
    rec = records(d + "/scale/record.txt")
    groups = []
    for k, (t, _) in modes["0"].items():
        kinds = k[0].startswith("k_")
        if kinds and len(set(t)) < 2:
            continue
        bucket = (k[0][2:] + " " + k[2]) if kinds else (k[0] + " " + k[1] + "/" + k[2])
        is_held = k[2] == "held" if kinds else k[0] in held
        groups.append((bucket, is_held, {m: ari(t, a[k][1]) for m, a in modes.items()}, rec.get(k)))

    def show(name, pick):
        agg = collections.defaultdict(list)
        for bucket, is_held, s, r in groups:
            agg[(bucket, is_held)].append(pick(s, r))
        dev = sum(np.mean(v) for (b, h), v in agg.items() if not h)
        hld = sum(np.mean(v) for (b, h), v in agg.items() if h)
        print("%-58s development %.3f  held out %.3f" % (name, dev, hld))
        print("    " + ", ".join("%s %.3f" % (b, np.mean(v)) for (b, h), v in sorted(agg.items())))

    names = {"0": "as shipped", "2": "the finer scale never stands", "4": "the finer scale always stands",
             "8": "one scale: neither the finer nor graph_merge's fallback",
             "16": "a coarse community whole where the network's pass selects half of it",
             "64": "k-means' clusters at the count found, more modular at 1",
             "128": "k-means' clusters at the count found, at the stage's resolution"}
    for m, name in names.items():
        show("run: " + name, lambda s, r, m=m: s[m])
    shipped = lambda r: r["sf"] >= r["sc"] - 0.05
    show("rule: shipped, on the records", lambda s, r: s["0"] if r is None else (s["4"] if shipped(r) else s["2"]))
    show("rule: the finer scale where also as stable over Leiden's two starts",
         lambda s, r: s["0"] if r is None else (s["4"] if shipped(r) and r["af"] >= r["ac"] else s["2"]))
    show("ceiling: each group's best of the three, chosen with its labels",
         lambda s, r: s["0"] if r is None else max(s["2"], s["4"], s["8"]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
