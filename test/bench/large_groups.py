#!/usr/bin/python3
"""Large groups of real embeddings (docs/embeddings.md).

Whole Fashion-MNIST files as single groups, from the embeddings benchmark's
features (DIR/features.npz: PCA-32 or the CNN's 64-d embeddings) and the
pixels themselves (784-d, grey levels / 255):
  test      the 10,000 test images, 10 classes
  unseen    the 4,000 test images of classes 6-9
  train     the 60,000 training images, 10 classes
  train05   the 36,000 training images of classes 0-5

  large_groups.py groups PCA_DIR CNN_DIR OUT    OUT/<source>_<group>.tsv (label, vector)
  large_groups.py baselines OUT                 OUT/baselines.jsonl: k-means given the true k,
                                                k-means + silhouette (k 2-20, silhouette on
                                                5,000 rows), Leiden at its defaults (15-NN,
                                                resolution 1) and at the benchmark's tuned
                                                large-set setting (5-NN, resolution 0.1)
  large_groups.py table OUT                     the markdown table (dac's labels: OUT/dac_<file>.txt)
"""
import gzip
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings as E  # noqa: E402

GROUPS = {'test': ('te', range(10)), 'unseen': ('te', range(6, 10)),
          'train': ('tr', range(10)), 'train05': ('tr', range(6))}
SOURCES = ('pca', 'cnn', 'pixels')


def pixels():
    with gzip.open(E.DATA + 'train-images-idx3-ubyte.gz') as f:
        Xtr = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784) / 255.0
    with gzip.open(E.DATA + 't10k-images-idx3-ubyte.gz') as f:
        Xte = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784) / 255.0
    return Xtr, Xte


def files(out):
    for src in SOURCES:
        for g in GROUPS:
            yield src, g, os.path.join(out, '%s_%s.tsv' % (src, g))


def make_groups(pca, cnn, out):
    os.makedirs(out, exist_ok=True)
    feats = {}
    for src, d in (('pca', pca), ('cnn', cnn)):
        z = np.load(os.path.join(d, 'features.npz'))
        feats[src] = (z['Ftr'], z['ytr'], z['Fte'], z['yte'])
    Xtr, Xte = pixels()
    feats['pixels'] = (Xtr, feats['pca'][1], Xte, feats['pca'][3])
    for src, g, path in files(out):
        Ftr, ytr, Fte, yte = feats[src]
        part, classes = GROUPS[g]
        F, y = (Ftr, ytr) if part == 'tr' else (Fte, yte)
        m = np.isin(y, list(classes))
        fmt = '%.4g' if src == 'pixels' else '%.7g'
        with open(path, 'w') as f:
            for v, lab in zip(F[m], y[m]):
                f.write('%d\t{%s}\n' % (lab, ','.join(fmt % x for x in v)))


def load(path):
    y, X = [], []
    for line in open(path):
        lab, v = line.split('\t')
        y.append(int(lab))
        X.append(np.array(v.strip()[1:-1].split(','), dtype=np.float64))
    return np.array(y), np.array(X)


def baselines(out):
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score
    res = open(os.path.join(out, 'baselines.jsonl'), 'w')
    for src, g, path in files(out):
        y, X = load(path)
        k = len(np.unique(y))

        def km_sil(X):
            top = None
            for kk in range(2, 21):
                p = KMeans(n_clusters=kk, n_init=2, random_state=0).fit_predict(X)
                s = silhouette_score(X, p, sample_size=min(5000, len(X)), random_state=0)
                if top is None or s > top[0]:
                    top = (s, p)
            return top[1]

        methods = {
            'k-means (true k)': lambda X: KMeans(n_clusters=k, n_init=4, random_state=0).fit_predict(X),
            'k-means + silhouette': km_sil,
            'Leiden, 15-NN, resolution 1 (defaults)': lambda X: E.leiden(X),
            'Leiden, 5-NN, resolution 0.1 (tuned on the large suites)': lambda X: E.leiden(X, 5, 0.1),
        }
        for name, fn in methods.items():
            t0 = time.perf_counter()
            p = fn(X)
            t = time.perf_counter() - t0
            a, n, _ = E.metrics(y, p)
            rec = {'source': src, 'group': g, 'method': name, 'ari': a, 'nmi': n,
                   'k': int(len(np.unique(p))), 'true_k': k, 'rows': len(y), 'seconds': t}
            res.write(json.dumps(rec) + '\n')
            res.flush()
            print(json.dumps(rec), flush=True)


def table(out):
    rows = [json.loads(line) for line in open(os.path.join(out, 'baselines.jsonl'))]
    print('| source, group (rows, classes) | method | ARI | NMI | clusters found | s |')
    print('|---|---|---|---|---|---|')
    for src, g, path in files(out):
        y, _ = load(path)
        lab = [int(line.split()[0]) for line in open(os.path.join(out, 'dac_%s_%s.txt' % (src, g)))]
        secs = json.load(open(os.path.join(out, 'dac_%s_%s.json' % (src, g))))['seconds']
        a, n, _ = E.metrics(y, np.array(lab))
        head = '%s %s (%d, %d)' % (src, g, len(y), len(np.unique(y)))
        print('| %s | dac, no model named | %.3f | %.3f | %d | %.2f |' % (head, a, n, len(set(lab)), secs))
        for r in rows:
            if r['source'] == src and r['group'] == g:
                print('| | %s | %.3f | %.3f | %d | %.2f |' % (r['method'], r['ari'], r['nmi'], r['k'], r['seconds']))


if __name__ == '__main__':
    if sys.argv[1] == 'groups':
        make_groups(*sys.argv[2:5])
    elif sys.argv[1] == 'baselines':
        baselines(sys.argv[2])
    else:
        table(sys.argv[2])
