#!/usr/bin/python3
"""Paired differences between two models on the same sets (weights/README.md's
ship rule): each file is `dac-cli eval ... --per-set` output of one model on
the same draws.  Prints, for ARI, NMI and LL, the mean difference (second
minus first), its paired standard error, and how many sets are better, worse
and level.

  paired.py FIRST.txt SECOND.txt
"""
import sys

import numpy as np


def read(path):
    rows = {}
    for line in open(path):
        if line.startswith('set '):
            f = line.split()
            if not all(k in f for k in ('ARI', 'NMI', 'LL')):
                sys.exit('%s: a per-set line without ARI, NMI and LL (dac-cli eval --per-set of 0.17.0 or later)' % path)
            rows[int(f[1])] = {k: float(f[f.index(k) + 1]) for k in ('ARI', 'NMI', 'LL')}
    return rows


def main(a, b):
    A, B = read(a), read(b)
    if sorted(A) != sorted(B) or not A:
        sys.exit('the two files do not hold the same sets')
    for k in ('ARI', 'NMI', 'LL'):
        d = np.array([B[s][k] - A[s][k] for s in sorted(A)])
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float('nan')
        print('%s  mean difference %+.4f  paired SE %.4f  better %d  worse %d  level %d  (%d sets)'
              % (k, d.mean(), se, (d > 1e-9).sum(), (d < -1e-9).sum(), (abs(d) <= 1e-9).sum(), len(d)))


if __name__ == '__main__':
    main(*sys.argv[1:3])
