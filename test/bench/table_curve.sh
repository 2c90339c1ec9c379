#!/usr/bin/env bash
# A table's defaults against their training CPU (docs/embeddings.md): the
# table recipe (mlf_embed fine-tuned at learning rate 2e-4, batch 10, n_max
# 300, k_max 4, seed 1: what CALL dac_train does given only the two columns)
# run by dac-cli for 500, 1,000, 2,000 and 4,000 steps on the training images
# of all ten classes and of classes 0-5, per source; each model then clusters
# the benchmark's test sets through the extension at the default settings
# (all ten classes: new rows of the classes it learnt; classes 6-9: classes it
# never saw), beside mlf_embed itself (0 steps).  The sets are those of
# test/bench/graph_tune.sh (the same as every table in docs/embeddings.md).
# Usage: bash test/bench/table_curve.sh PCA_DIR CNN_DIR PCA_SETS CNN_SETS [OUT (/tmp/dac_table_curve)]
#   *_DIR: benchmark directories (features.npz); *_SETS: graph_tune.py's set files
# About 70 minutes of training on one core, then 10 minutes of clustering.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${5:-/tmp/dac_table_curve}
py=/usr/bin/python3
mkdir -p "$out"
chmod 755 "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
declare -A feat=([pca]=$1 [cnn]=$2)
declare -A sets=([pca]=$3 [cnn]=$4)
for src in pca cnn; do
	$py - "${feat[$src]}" "$out" "$src" <<'PY'
import os, sys
import numpy as np
d, out, src = sys.argv[1:4]
z = np.load(os.path.join(d, 'features.npz'))
for name, cl in (('all', range(10)), ('seen', range(6))):
    p = os.path.join(out, 'lab_%s_%s.txt' % (src, name))
    if os.path.exists(p):
        continue
    m = np.isin(z['ytr'], list(cl))
    with open(p, 'w') as f:
        for v, lab in zip(z['Ftr'][m], z['ytr'][m]):
            f.write('%d %s\n' % (lab, ' '.join('%.7g' % x for x in v)))
PY
done
for steps in 2000 500 1000 4000; do
	for src in pca cnn; do
		for split in seen all; do
			m=$out/tab_${src}_${split}_${steps}.safetensors
			[ -f "$m" ] && continue
			build/dac-cli train --init weights/mlf_embed.safetensors --labelled "$out/lab_${src}_${split}.txt" \
				--steps "$steps" --lr 2e-4 --out "$m" --log-every 500 > "$out/log_${src}_${split}_${steps}.txt" 2>&1
		done
	done
done
chmod 644 "$out"/*.safetensors
pg_virtualenv -t -v 15 bash -s "$out" "${sets[pca]}" "${sets[cnn]}" <<'SH'
set -euo pipefail
out=$1
declare -A sets=([pca]=$2 [cnn]=$3)
psql -X -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac"
for m in "$out"/tab_*.safetensors; do
	psql -X -q -A -t -c "SELECT dac_import('$(basename "$m" .safetensors)', pg_read_binary_file('$m'))" > /dev/null
done
for src in pca cnn; do
	for split in all unseen; do
		for cfg in small large; do
			psql -X -q -c "DROP TABLE IF EXISTS v" -c "CREATE TABLE v (s int, c int, x real[])" \
				-c "\copy v FROM '${sets[$src]}/test_${cfg}_${split}.tsv'"
			psql -X -q -A -t -F ' ' -c "SELECT s, c, dac_cluster(x) OVER (PARTITION BY s) FROM v" \
				> "$out/r_${src}_0_test_${cfg}_${split}.txt"
			trained=$split
			[ "$split" = unseen ] && trained=seen
			for steps in 500 1000 2000 4000; do
				name=tab_${src}_${trained}_${steps}
				psql -X -q -A -t -F ' ' -c "SELECT s, c, dac_cluster(x, '$name') OVER (PARTITION BY s) FROM v" \
					> "$out/r_${src}_${steps}_test_${cfg}_${split}.txt"
			done
		done
	done
done
SH
$py - "$out" <<'PY'
import os, re, sys
sys.path.insert(0, 'test/bench')
import graph_tune as G
out = sys.argv[1]
cpu = {}
for f in os.listdir(out):
    m = re.match(r'log_(\w+)_(\w+)_(\d+)\.txt', f)
    if m:
        t = re.search(r'([\d.]+) s CPU', open(os.path.join(out, f)).read())
        cpu[m.groups()] = float(t.group(1)) if t else float('nan')
print('| source, suite | ' + ' | '.join('%s steps' % s for s in ('0 (mlf_embed)', 500, 1000, 2000, 4000)) + ' |')
print('|---' * 6 + '|')
for src in ('pca', 'cnn'):
    for cfg, split in G.SUITES:
        cells = [G.cell(G.mean_metrics(G.load(os.path.join(out, 'r_%s_%s_test_%s_%s.txt' % (src, s, cfg, split))).values()))
                 for s in (0, 500, 1000, 2000, 4000)]
        print('| %s %s %s | %s |' % (src, cfg, split, ' | '.join(cells)))
for src in ('pca', 'cnn'):
    for split in ('all', 'seen'):
        print('training CPU, %s %s: %s' % (src, split, ', '.join('%s steps %.0f s' % (s, cpu.get((src, split, str(s)), float('nan')))
                                                         for s in (500, 1000, 2000, 4000))))
PY
