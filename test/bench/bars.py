#!/usr/bin/python3
"""The embeddings benchmark's first two bars, suite by suite, from embeddings.sh's results
(docs/embeddings.md, "Against the issue's bars").

  bars.py NAME=DIR [NAME=DIR ...]

Each DIR is an output directory of `DAC_BENCH_GIVEN_K=0 DAC_BENCH_SOURCE=S
bash test/bench/embeddings.sh 100 DIR` (dac.jsonl and baselines.jsonl).  For
every suite (small/large sets x all/unseen classes): the zero-shot default
against every method given no labels and no k (ahead on ARI and NMI; k-MAE no
worse), the table defaults against every method tuned on the table's classes
(the same), against spectral clustering given the true k, and item 2's
minimum on unseen classes (not behind zero-shot).  Figures are compared as
the tables print them (three places, k-MAE two): a tie is not ahead.
"""
import json
import os
import sys

ZERO = "DAC mlf_embed (zero-shot, shipped)"
TABLE = "DAC, trained on the table (defaults)"
SPECTRAL = "spectral (true k)"
UNTUNED = {"k-means + silhouette": "k-means + sil.",
           "Leiden on a 15-NN graph (defaults)": "Leiden defaults",
           "Louvain on a 15-NN graph (defaults)": "Louvain defaults",
           "Gaussian mixture + BIC": "GMM + BIC",
           "variational DP mixture": "VB-DPM"}
TUNED = {"Leiden (tuned": "Leiden", "Ward (tuned": "Ward", "DBSCAN (tuned": "DBSCAN"}


def rows(d):
    out = {}
    for name in ("dac.jsonl", "baselines.jsonl"):
        for line in open(os.path.join(d, name)):
            r = json.loads(line)
            r3 = (round(r["ari"], 3), round(r["nmi"], 3), round(r["k_mae"], 2))
            out.setdefault((r["cfg"], r["split"]), {})[r["method"]] = r3
    return out


def short(method):
    if method in UNTUNED:
        return UNTUNED[method]
    for head, name in TUNED.items():
        if method.startswith(head):
            return name
    return method


def against(dac, others):
    """(ahead on ARI and NMI of every one, k-MAE no worse than any): each as
    'yes' or 'no (the methods it misses against)'."""
    lose = [short(m) for m, f in others.items() if not (dac[0] > f[0] and dac[1] > f[1])]
    count = [short(m) for m, f in others.items() if dac[2] > f[2]]
    return ("yes" if not lose else "no (%s)" % ", ".join(lose),
            "yes" if not count else "no (%s)" % ", ".join(count))


def cell(f):
    return "%.3f / %.3f / %.2f" % f


def main(args):
    print("| source, suite | zero-shot | ahead of every untuned method on ARI and NMI | k-MAE no worse | "
          "table defaults | ahead of every tuned method on ARI and NMI | k-MAE no worse | "
          "against spectral given k (ARI / NMI) | not behind zero-shot (unseen) |")
    print("|---|---|---|---|---|---|---|---|---|")
    tally = [0] * 6
    suites = 0
    for arg in args:
        name, d = arg.split("=", 1)
        res = rows(d)
        for cfg in ("small", "large"):
            for split in ("all", "unseen"):
                r = res[(cfg, split)]
                want = [ZERO, TABLE, SPECTRAL] + list(UNTUNED) + list(TUNED)
                missing = [m for m in want if not any(k == m or k.startswith(m) for k in r)]
                if missing:
                    sys.exit("%s: %s %s lacks %s (run embeddings.sh with training and "
                             "DAC_BENCH_GIVEN_K=0)" % (d, cfg, split, ", ".join(missing)))
                z, t, sp = r[ZERO], r[TABLE], r[SPECTRAL]
                untuned = {m: f for m, f in r.items() if m in UNTUNED}
                tuned = {m: f for m, f in r.items() if any(m.startswith(h) for h in TUNED)}
                z1, z2 = against(z, untuned)
                t1, t2 = against(t, tuned)
                ahead_sp = t[0] > sp[0] and t[1] > sp[1]
                sp_txt = "%s (%.3f / %.3f)" % ("ahead" if ahead_sp else "behind", sp[0], sp[1])
                floor = "" if split == "all" else ("yes" if t[0] >= z[0] else "no (%.3f)" % z[0])
                print("| %s, %s %s | %s | %s | %s | %s | %s | %s | %s | %s |" %
                      (name, cfg, split, cell(z), z1, z2, cell(t), t1, t2, sp_txt, floor))
                suites += 1
                tally[0] += z1 == "yes"
                tally[1] += z2 == "yes"
                tally[2] += t1 == "yes"
                tally[3] += t2 == "yes"
                tally[4] += ahead_sp
                tally[5] += split == "unseen" and t[0] >= z[0]
    print()
    print("Of %d suites: zero-shot ahead of every untuned method on %d, count no worse on %d; "
          "table defaults ahead of every tuned method on %d, count no worse on %d, ahead of spectral "
          "given k on %d; not behind zero-shot on %d of the %d unseen suites." %
          (suites, tally[0], tally[1], tally[2], tally[3], tally[4], tally[5], suites // 2))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
