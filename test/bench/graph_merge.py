"""Validation suites for dac.graph_merge (docs/embeddings.md, 0.14.0).

Training images only: from the embeddings benchmark's features (DIR/features.npz,
made by `test/bench/embeddings.sh`), 20,000 training rows of all ten classes and
20,000 of classes 0-5, per source; sets drawn by the benchmark's own sampler
(embeddings.sample_sets: small n 90-299, k_max 4; large n 300-999, k_max 12;
large4 n 300-999, k_max 4; k_max capped at the file's classes, k - 1 ~
Bin(k_max - 1, 1/2)), 100 of each.

  graph_merge.py sets PCA_DIR CNN_DIR OUT    writes OUT/v_<source>_<classes>_<suite>.tsv
  graph_merge.py table OUT TAG...            scores OUT/r_<TAG>_v_*.txt (set, class, cluster)
"""
import collections
import glob
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings  # noqa: E402  (the benchmark's set sampler and vector format)

SUITES = ['pca_05_small', 'pca_05_large4', 'pca_05_large', 'cnn_05_small', 'cnn_05_large4', 'cnn_05_large',
          'pca_all_small', 'pca_all_large4', 'pca_all_large', 'cnn_all_small', 'cnn_all_large4', 'cnn_all_large']


# the benchmark's sets (embeddings.sample_sets), and large ones of at most 4 classes
CFGS = {'small': (90, 299, 4), 'large': (300, 999, 12), 'large4': (300, 999, 4)}


def make_sets(pca_dir, cnn_dir, out):
    os.makedirs(out, exist_ok=True)
    pick = np.random.default_rng(5)
    for src, d in (('pca', pca_dir), ('cnn', cnn_dir)):
        z = np.load(os.path.join(d, 'features.npz'))
        F, y = z['Ftr'], z['ytr']
        for name, classes in (('all', range(10)), ('05', range(6))):
            idx = pick.choice(np.where(np.isin(y, list(classes)))[0], 20000, replace=False)
            X, yy = F[idx], y[idx]
            for suite, seed in (('small', 21), ('large', 21), ('large4', 23)):
                sets = embeddings.sample_sets(np.random.default_rng(seed), yy, list(classes), 100, suite, CFGS)
                with open(os.path.join(out, 'v_%s_%s_%s.tsv' % (src, name, suite)), 'w') as f:
                    for s, rows in enumerate(sets):
                        for i in rows:
                            f.write('%d\t%d\t%s\n' % (s, yy[i], embeddings.vec(X[i])))


def load(path):
    d = collections.defaultdict(lambda: ([], []))
    for line in open(path):
        s, c, k = line.split()
        d[int(s)][0].append(int(c))
        d[int(s)][1].append(int(k))
    return d


def table(out, tags):
    from sklearn.metrics import adjusted_rand_score as ari
    print('| suite (100 sets each) | ' + ' | '.join(tags) + ' |')
    print('|---' * (len(tags) + 1) + '|')
    sums = collections.defaultdict(float)
    for s in SUITES:
        cells = []
        for t in tags:
            d = load(os.path.join(out, 'r_%s_v_%s.txt' % (t, s)))
            a = np.mean([ari(tt, q) for tt, q in d.values()])
            km = np.mean([abs(len(set(tt)) - len(set(q))) for tt, q in d.values()])
            cells.append('%.3f / %.2f' % (a, km))
            sums[(t, '05' in s)] += a
        print('| %s | %s |' % (s, ' | '.join(cells)))
    print('| ARI summed, classes 0-5 | ' + ' | '.join('%.3f' % sums[(t, True)] for t in tags) + ' |')
    print('| ARI summed, all 12 | ' + ' | '.join('%.3f' % (sums[(t, True)] + sums[(t, False)]) for t in tags) + ' |')


if __name__ == '__main__':
    if sys.argv[1] == 'sets':
        make_sets(*sys.argv[2:5])
    else:
        table(sys.argv[2], sys.argv[3:])
