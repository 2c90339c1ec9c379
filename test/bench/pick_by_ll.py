#!/usr/bin/python3
"""Per set, the clustering of the highest LL among several runs of `dac-cli
eval --per-set` on the same sets (docs/warped.md, "the frame's width chosen
per set by the fit"): each file's means, then those of the per-set choice
over every subset of two or more files.

  pick_by_ll.py FILE FILE...
"""
import itertools
import re
import sys

LINE = re.compile(r'set (\d+)\s+n (\d+)\s+k (\d+)\s+found (\d+)\s+ARI ([-\d.]+)\s+NMI ([-\d.]+)\s+LL ([-\d.]+)')


def load(path):
    r = {}
    for line in open(path):
        m = LINE.match(line)
        if m:
            s, _, k, f = (int(x) for x in m.groups()[:4])
            r[s] = (k, f) + tuple(float(x) for x in m.groups()[4:])
    return r


def means(rows):
    n = len(rows)
    return 'LL %.3f  ARI %.4f  NMI %.4f  k-MAE %.3f' % (
        sum(r[4] for r in rows) / n, sum(r[2] for r in rows) / n, sum(r[3] for r in rows) / n,
        sum(abs(r[0] - r[1]) for r in rows) / n)


def main(paths):
    runs = {p: load(p) for p in paths}
    sets = sorted(runs[paths[0]])
    if any(sorted(r) != sets for r in runs.values()):
        sys.exit('the files must hold the same sets')
    for p in paths:
        print('%s: %s' % (p, means([runs[p][s] for s in sets])))
    for size in range(2, len(paths) + 1):
        for sub in itertools.combinations(paths, size):
            print('best LL of %s: %s' % (', '.join(sub),
                                        means([max((runs[p][s] for p in sub), key=lambda r: r[4]) for s in sets])))


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
