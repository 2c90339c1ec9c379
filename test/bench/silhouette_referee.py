#!/usr/bin/python3
"""The silhouette as a referee between dac's clustering and k-means + silhouette
(docs/embeddings.md, "Tried after 0.19.0").

For each set of a directory made by graph_tune.py (tune_*.tsv and test_*.tsv:
set, label, vector) and dac's clustering of it (LABELS/r_<TAG>_<file>.txt, as
cluster_sets.sh writes them: set, label, cluster), k-means + silhouette runs as
the embeddings benchmark runs it (k from 2 to 2 k_max, four k-means++ starts a
count); its partition replaces dac's when its mean silhouette is higher than
that of dac's partition by more than a margin.  A set where dac found one
cluster keeps it (the silhouette cannot compare one cluster with two).
Prints, per file, mean ARI / NMI / k-MAE at each margin (the largest margin:
dac's clustering as it is).

  silhouette_referee.py SETS_DIR LABELS_DIR TAG
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings as E  # noqa: E402  (the benchmark's configurations and metrics)
from graph_tune import load  # noqa: E402

MARGINS = (0.0, 0.02, 0.05, 0.1, float('inf'))


def read_sets(path):
    rows = {}
    for line in open(path):
        s, _, v = line.rstrip('\n').split('\t')
        rows.setdefault(int(s), []).append(np.array(v.strip('{}').split(','), dtype=float))
    return {s: np.array(v) for s, v in rows.items()}


def best_kmeans(X, k_up):
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score
    best = None
    for k in range(2, min(k_up, len(X) - 1) + 1):
        p = KMeans(n_clusters=k, n_init=4, random_state=0).fit_predict(X)
        s = silhouette_score(X, p)
        if best is None or s > best[0]:
            best = (s, p)
    return best


def main(sets_dir, labels_dir, tag):
    from sklearn.metrics import silhouette_score
    for f in sorted(os.listdir(sets_dir)):
        if not (f.endswith('.tsv') and f.split('_')[0] in ('tune', 'test')):
            continue
        b = f[:-4]
        cfg = b.split('_')[1]
        X = read_sets(os.path.join(sets_dir, f))
        dac = load(os.path.join(labels_dir, 'r_%s_%s.txt' % (tag, b)))
        k_up = 2 * min(E.CFGS[cfg][2], 10)
        out = {m: [] for m in MARGINS}
        for s, (y, d) in sorted(dac.items()):
            y, d = np.array(y), np.array(d)
            one = len(np.unique(d)) == 1
            sd = -1.0 if one else silhouette_score(X[s], d)
            sk, pk = best_kmeans(X[s], k_up)
            for m in MARGINS:
                out[m].append(E.metrics(y, pk if (not one and sk > sd + m) else d))
        print(b, '  '.join('%g: %s' % (m, ' / '.join('%.3f' % x for x in np.mean(out[m], axis=0)))
                           for m in MARGINS), flush=True)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
