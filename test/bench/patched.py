#!/usr/bin/python3
"""The table of patched.sh: mean ARI / NMI / k-MAE per file and setting,
and the ARI summed over the tuning files of the unseen splits (training images
of classes 0-5 only: what chooses) and over the test files.

  patched.py OUT TAG...      (OUT/r_<TAG>_<file>.txt: set, label, cluster)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_tune as G  # noqa: E402


def main(out, tags):
    print('| file | ' + ' | '.join(tags) + ' |')
    print('|---' * (len(tags) + 1) + '|')
    sums = {t: [0.0, 0.0, 0.0] for t in tags}
    for kind in ('tune', 'test'):
        for cfg, split in G.SUITES:
            b = '%s_%s_%s' % (kind, cfg, split)
            cells = []
            for t in tags:
                m = G.mean_metrics(G.load(os.path.join(out, 'r_%s_%s.txt' % (t, b))).values())
                if kind == 'tune':
                    sums[t][0] += m[0]
                    if split == 'unseen':
                        sums[t][1] += m[0]
                else:
                    sums[t][2] += m[0]
                cells.append(G.cell(m))
            print('| %s | %s |' % (b, ' | '.join(cells)))
    for i, what in enumerate(('tune, all files', 'tune, classes 0-5 files', 'test')):
        print('| ARI summed, %s | %s |' % (what, ' | '.join('%.3f' % sums[t][i] for t in tags)))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
