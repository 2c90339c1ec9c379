#!/usr/bin/python3
"""Tried after 0.16.0 (docs/embeddings.md): each set replaced by its spectral
embedding before dac clusters it zero-shot.  The embeddings benchmark names the kNN graph's
leading Laplacian eigenvectors as input features; this asks whether they help
the shipped network without training: every set of graph_tune.py's tuning and
test files becomes the M leading eigenvectors of its symmetrised, normalised
KN-nearest-neighbour affinity (D^-1/2 A D^-1/2), rows normalised (Ng, Jordan
and Weiss), clustered through the extension by spectral_input.sh.

  spectral_input.py make SETS_DIR OUT M KN    OUT/{tune,test}_<cfg>_<split>.tsv
  (the table: graph_tune.py tags OUT TAG...)
"""
import os
import sys

import numpy as np


def spectral(X, m, kn):
    from sklearn.neighbors import kneighbors_graph
    A = kneighbors_graph(X, min(kn, len(X) - 1), include_self=False).toarray()
    A = 0.5 * (A + A.T)
    s = 1 / np.sqrt(np.maximum(A.sum(1), 1e-12))
    _, V = np.linalg.eigh(A * s[:, None] * s[None, :])
    V = V[:, ::-1][:, :m]
    return V / np.maximum(np.linalg.norm(V, axis=1, keepdims=True), 1e-12)


def make(src, out, m, kn):
    os.makedirs(out, exist_ok=True)
    for f in sorted(os.listdir(src)):
        if not f.endswith('.tsv'):
            continue
        sets = {}
        for line in open(os.path.join(src, f)):
            s, c, v = line.rstrip('\n').split('\t')
            sets.setdefault(int(s), []).append((int(c), np.array(v[1:-1].split(','), float)))
        with open(os.path.join(out, f), 'w') as g:
            for s, rows in sets.items():
                Z = spectral(np.array([v for _, v in rows]), m, kn)
                for (c, _), z in zip(rows, Z):
                    g.write('%d\t%d\t{%s}\n' % (s, c, ','.join('%.7g' % x for x in z)))


if __name__ == '__main__':
    make(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
