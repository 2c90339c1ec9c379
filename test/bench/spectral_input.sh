#!/usr/bin/env bash
# Spectral embeddings as the network's input, zero-shot (docs/embeddings.md,
# "Tried after 0.16.0"): graph_tune.py's tuning and test sets as they are and
# as their 4 and 10 leading eigenvectors of the 10-NN graph, clustered through
# the extension with no model named.  Needs graph_tune.py's set files.
# Usage: bash test/bench/spectral_input.sh SETS_DIR [OUT (/tmp/dac_spectral_input)]
# About 10 minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/../.."
sets=$1
out=${2:-/tmp/dac_spectral_input}
py=/usr/bin/python3
mkdir -p "$out"
for m in 4 10; do
	[ -f "$out/m$m/test_small_all.tsv" ] || OMP_NUM_THREADS=1 $py test/bench/spectral_input.py make "$sets" "$out/m$m" "$m" 10
done
chmod -R a+rX "$out"
chmod a+w "$out"
pg_virtualenv -t -v 15 bash -s "$out" "$sets" "$PWD/test/bench/cluster_sets.sh" <<'SH'
set -euo pipefail
out=$1
sets=$2
run=$3
psql -X -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac"
bash "$run" "$sets" "$out" as_is
for tag in m4 m10; do
	bash "$run" "$out/$tag" "$out" "$tag"
done
SH
$py test/bench/graph_tune.py tags "$out" as_is m4 m10
