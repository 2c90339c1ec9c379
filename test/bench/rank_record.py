"""Decision rules for the normal scores' one-cluster test, scored on the
records test/bench/rank_record.sh leaves in DIR.

Each record line is a group that reached the test: its sample's rows m, width,
the count k-means found in its normal scores, that split's mean silhouette s
and the 8 Gaussians' silhouettes (mean g).  Kinds' lines come in the order
kinds.sh clusters the groups (each matched to the next group of m distinct
rows); a suite's lines follow a marker line naming the set.  A rule splits a
reached group or not: split, the group scores as the recorded run (which
split every reached group); not, as one cluster.  Prints per rule: the
tabular and embedding kinds' mean ARI over groups of 2+ classes (development
and held out; groups of 2+ classes answered as one cluster; groups of one
class split), each suite's summed mean ARI over its four configurations, the
development sum (tabular and embedding development, the development suites)
and the held-out sum (tabular held out, the held-out suites).  A suite is
named as rank_record.sh names its files (its directory's name), NAME:held
where its source is held out.
Usage: python3 rank_record.py DIR [SUITE_NAME[:held]...]
       python3 rank_record.py project SRC DST WIDTH
  (a suite's sets, SRC/sets.csv, on their WIDTH principal axes, fitted on
  all its rows without labels, to DST/sets.csv: a held-out embedding source
  narrow enough to reach the test)
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kinds  # noqa: E402


def record(fields):
    return {"m": int(fields[0]), "s": float(fields[3]), "g": np.array([float(v) for v in fields[4:12]])}


def main(d, suites):
    from sklearn.metrics import adjusted_rand_score as ari
    groups = kinds.load_groups(d)
    keys = sorted(groups, key=lambda k: (" ".join(k[:3]), k[3]))
    size = {k: len(np.unique(groups[k][0], axis=0)) for k in keys}
    split = {}
    for line in open(os.path.join(d, "split.jsonl")):
        r = json.loads(line)
        split[(r["kind"], r["source"], r["split"], r["set"])] = r
    rec, i = {}, 0
    for line in open(os.path.join(d, "record.txt")):
        f = line.split()
        while i < len(keys) and size[keys[i]] != int(f[0]):
            i += 1
        if i == len(keys):
            sys.exit("a record line matches no group: %s" % line.strip())
        rec[keys[i]] = record(f)
        i += 1
    held = {n.split(":")[0]: n.endswith(":held") for n in suites}
    suites = list(held)
    suite = {}
    for name in suites:
        labels = {}
        for line in open(os.path.join(d, "record_%s.labels" % name)):
            c, s, k, t, p = line.strip().split("|")
            t = np.array([int(v) for v in t.strip("{}").split(",")])
            p = np.array([int(v) for v in p.strip("{}").split(",")])
            labels[(c, s, int(k))] = (ari(t, p), ari(t, np.ones_like(t)))
        reached, cur = {}, None
        for line in open(os.path.join(d, "record_%s.txt" % name)):
            f = line.split()
            if f[0] == "=":
                cur = (f[1], f[2], int(f[3]))
            else:
                reached[cur] = record(f)
        suite[name] = (labels, reached)

    def excess(r):
        return r["s"] - r["g"].mean()
    rules = [("the test off", lambda r: False)]
    rules += [("g + %.2f" % t, lambda r, t=t: excess(r) >= t) for t in (0.04, 0.05, 0.06)]
    rules += [("g + %.2f/sqrt(m)" % c, lambda r, c=c: excess(r) >= c / np.sqrt(r["m"])) for c in (0.25, 0.45)]
    rules += [("s >= %.2f, g + %.2f/sqrt(m)" % (f, c),
               lambda r, f=f, c=c: r["s"] >= f and excess(r) >= c / np.sqrt(r["m"]))
              for f in (0.22, 0.25) for c in (0.2, 0.25, 0.3)]
    rules += [("s >= 0.22, g + 2 sd", lambda r: r["s"] >= 0.22 and excess(r) >= 2 * r["g"].std(ddof=1))]
    head = ["tabular dev", "tabular held", "embedding dev"] + [
        "suite %s (%s)" % (n, "held" if held[n] else "dev") for n in suites]
    print("| rule | " + " | ".join(head) + " | development sum | held-out sum |")
    print("|---" * (len(head) + 3) + "|")
    for name, rule in rules:
        cells, dev, out = [], 0.0, 0.0
        for kind, sp in (("tabular", "dev"), ("tabular", "held"), ("embedding", "dev")):
            aris, ones, split1 = [], 0, 0
            for k in keys:
                if k[0] != kind or k[2] != sp:
                    continue
                c = len(np.unique(groups[k][1]))
                r = split[k] if k not in rec or rule(rec[k]) else {"ari": 0.0, "one": 1}
                if c > 1:
                    aris.append(r["ari"])
                    ones += r["one"]
                else:
                    split1 += 1 - r["one"]
            cells.append("%.3f (%d, %d)" % (np.mean(aris), ones, split1))
            if sp == "dev":
                dev += np.mean(aris)
            else:
                out += np.mean(aris)
        for n in suites:
            labels, reached = suite[n]
            per = {}
            for k, (a_split, a_one) in labels.items():
                per.setdefault(k[:2], []).append(a_split if k not in reached or rule(reached[k]) else a_one)
            total = sum(np.mean(v) for v in per.values())
            cells.append("%.3f" % total)
            if held[n]:
                out += total
            else:
                dev += total
        print("| %s | %s | %.3f | %.3f |" % (name, " | ".join(cells), dev, out))


def project(src, dst, width):
    import csv
    rows = list(csv.reader(open(os.path.join(src, "sets.csv"))))
    X = np.array([[float(v) for v in r[5].strip("{}").split(",")] for r in rows])
    X -= X.mean(axis=0)
    Z = X @ np.linalg.svd(X, full_matrices=False)[2][:width].T
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, "sets.csv"), "w") as f:
        w = csv.writer(f)
        for r, z in zip(rows, Z):
            w.writerow(r[:5] + ["{" + ",".join("%.7g" % v for v in z) + "}"])


if __name__ == "__main__":
    if sys.argv[1] == "project":
        project(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main(sys.argv[1], sys.argv[2:])
