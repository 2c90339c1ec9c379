#!/usr/bin/env bash
# Small groups of raw pixels (docs/embeddings.md, "Small groups of raw
# pixels"): 40 groups of 100 Fashion-MNIST test images of 2 or 3 classes, as
# 784 grey levels, as stochastically binarised pixels, and the same images as
# PCA-32 (the benchmark's features), and 40 groups of 300 grey-level images;
# clustered through the extension with no model named, at
# dac.graph_resolution 0.05 (the default), 0.2 and 1.  Prints mean ARI, mean
# clusters found and the groups returned as one cluster.
# Needs the PCA benchmark directory (features.npz) and the extension installed.
# Usage: bash test/bench/small_pixels.sh PCA_DIR [OUT (/tmp/dac_small_pixels)]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${2:-/tmp/dac_small_pixels}
mkdir -p "$out"
OMP_NUM_THREADS=1 /usr/bin/python3 - "$1" "$out" <<'PY'
import gzip, os, sys
import numpy as np
sys.path.insert(0, 'test/bench')
import embeddings as E
pca, out = sys.argv[1:3]
with gzip.open(E.DATA + 't10k-images-idx3-ubyte.gz') as f:
    X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784) / 255.0
with gzip.open(E.DATA + 't10k-labels-idx1-ubyte.gz') as f:
    y = np.frombuffer(f.read(), np.uint8, offset=8)
P = np.load(os.path.join(pca, 'features.npz'))['Fte']
rng = np.random.default_rng(3)
outs = {n: open(os.path.join(out, n + '.tsv'), 'w') for n in ('grey', 'bin', 'pca', 'grey300')}
for s in range(40):
    k = 2 + s % 2
    cl = rng.choice(10, k, replace=False)
    rows = np.concatenate([rng.choice(np.where(y == c)[0], 100 // k + (1 if i < 100 % k else 0), replace=False)
                           for i, c in enumerate(cl)])
    rows300 = np.concatenate([rng.choice(np.where(y == c)[0], 300 // k, replace=False) for c in cl])
    B = (rng.random((len(rows), 784)) < X[rows]).astype(float)
    for i, r in enumerate(rows):
        outs['grey'].write('%d\t%d\t{%s}\n' % (s, y[r], ','.join('%.4g' % v for v in X[r])))
        outs['bin'].write('%d\t%d\t{%s}\n' % (s, y[r], ','.join('%d' % v for v in B[i])))
        outs['pca'].write('%d\t%d\t{%s}\n' % (s, y[r], ','.join('%.7g' % v for v in P[r])))
    for r in rows300:
        outs['grey300'].write('%d\t%d\t{%s}\n' % (s, y[r], ','.join('%.4g' % v for v in X[r])))
for f in outs.values():
    f.close()
PY
chmod -R a+rX "$out"
pg_virtualenv -t -v 15 bash -s "$out" <<'SH'
set -euo pipefail
out=$1
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
  -c "CREATE TABLE v (name text, s int, c int, x real[], ord serial)" -c "CREATE TABLE t (s int, c int, x real[])"
for n in bin grey grey300 pca; do
	q -c "TRUNCATE t" -c "\copy t FROM '$out/$n.tsv'" -c "INSERT INTO v (name, s, c, x) SELECT '$n', * FROM t"
done
for r in 0.05 0.2 1; do
	echo "dac.graph_resolution = $r"
	q -c "SET dac.graph_resolution = $r" -c "
SELECT name AS groups, round(avg(ari)::numeric, 3) AS ari, avg(kf)::numeric(4, 2) AS clusters_found,
       avg(k)::numeric(4, 2) AS true_k, count(*) FILTER (WHERE kf = 1) AS one_cluster
FROM (SELECT name, s, dac_ari(array_agg(c ORDER BY ord), array_agg(p ORDER BY ord)) AS ari,
             count(DISTINCT p) AS kf, count(DISTINCT c) AS k
      FROM (SELECT name, s, c, ord, dac_cluster(x) OVER (PARTITION BY name, s) AS p FROM v) q
      GROUP BY name, s) r
GROUP BY name ORDER BY name"
done
SH
