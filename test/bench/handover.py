#!/usr/bin/python3
"""Rules for handing a group from model A to model B as it grows, judged on
the lines of test/bench/handover.c: per size n, the ARI of each rule's
answer against the truth, and the ARI between its answers on n and n + 1
rows (the jump a user sees when one row is added), beside each model's own
change when a row is added.

  handover.py FILE SWITCH LO HI

Rules: `switch` (A up to SWITCH rows, B above: the default's), and `prior`
(A up to LO, B from HI; between, the answer of larger evidence, -BIC/2, with
a prior on A falling linearly from 1 at LO to 0 at HI).
"""
import math
import statistics
import sys


def load(path):
    rows = []
    for line in open(path):
        f = line.split()
        if len(f) != 13:
            continue
        rows.append(dict(n=int(f[1]), bic=((float(f[3]), float(f[4])), (float(f[5]), float(f[6]))),
                         ari=(float(f[7]), float(f[8])),
                         jump={(0, 0): float(f[9]), (0, 1): float(f[10]), (1, 0): float(f[11]),
                               (1, 1): float(f[12])}))
    return rows


def prior_a(n, lo, hi):
    if n <= lo:
        return 1.0
    if n >= hi:
        return 0.0
    return (hi - n) / (hi - lo)


def choose_switch(n, bic, at):
    return 0 if n <= at else 1


def choose_prior(n, bic, lo, hi):
    w = prior_a(n, lo, hi)
    if w >= 1:
        return 0
    if w <= 0:
        return 1
    return 1 if (bic[0] - bic[1]) / 2 > math.log(w / (1 - w)) else 0


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def main():
    rows = load(sys.argv[1])
    at, lo, hi = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    sizes = sorted({r['n'] for r in rows})
    print(f'| rows | rule | sets | ARI | jump to n+1: mean | 10th pct | 5th pct | share B |')
    print('|---|---|---|---|---|---|---|---|')
    for n in sizes:
        sets = [r for r in rows if r['n'] == n]
        for name, fn in (('A alone', None), ('B alone', None), ('switch', choose_switch), ('prior', choose_prior)):
            aris, jumps, bs = [], [], 0
            for r in sets:
                if fn is None:
                    c0 = c1 = 0 if name == 'A alone' else 1
                elif fn is choose_switch:
                    c0, c1 = fn(n, None, at), fn(n + 1, None, at)
                else:
                    c0 = fn(n, r['bic'][0], lo, hi)
                    c1 = fn(n + 1, r['bic'][1], lo, hi)
                aris.append(r['ari'][c0])
                jumps.append(r['jump'][(c0, c1)])
                bs += c0
            print(f'| {n} | {name} | {len(sets)} | {statistics.mean(aris):.4f} | {statistics.mean(jumps):.4f} | '
                  f'{pct(jumps, 0.1):.3f} | {pct(jumps, 0.05):.3f} | {bs / len(sets):.2f} |')


if __name__ == '__main__':
    main()
