#!/usr/bin/env bash
# The image benchmark (docs/images.md): the paper's mixture of neural
# statisticians (§5.3) on Fashion-MNIST test images, through the extension.
#  - the image model (DAC_IMAGE_MODEL, default the shipped
#    weights/mlf_fmnist.safetensors, trained on the training images of
#    classes 0-5) clusters every test set whole, as dac_cluster does
#    (dac_evaluate with "whole_groups": the set is the group), reporting the
#    per-pixel evidence bound (LL), ARI, NMI, k-MAE and seconds per set;
#  - the baselines (test/bench/images.py) on the same sets, beside it.
# Sets, splits and configurations: test/bench/images.py.
# Needs dataset-fashion-mnist, python3-sklearn, python3-leidenalg and the
# extension installed.
# Usage: bash test/bench/images.sh [SETS_1000 (30)] [SETS_3000 (10)] [OUT_DIR (/tmp/dac_images)]
# Prints the markdown tables; about 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
s1=${1:-30}
s3=${2:-10}
dir=${3:-/tmp/dac_images}
model=${DAC_IMAGE_MODEL:-weights/mlf_fmnist.safetensors}
py=/usr/bin/python3
mkdir -p "$dir"
chmod 755 "$dir"
rm -f "$dir"/dac.jsonl "$dir"/timing.jsonl
[ -f "$dir/sets.json" ] || OMP_NUM_THREADS=1 $py test/bench/images.py prepare "$dir" "$s1" "$s3" 11
if [ "${DAC_BENCH_BASELINES:-0}" = 1 ] || [ ! -s "$dir/baselines.jsonl" ]; then
	( OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $py test/bench/images.py baselines "$dir" > "$dir/baselines.log" 2>&1 ) &
	bl=$!
else
	bl=
fi
cp "$model" "$dir/model.safetensors"
chmod 644 "$dir"/sets.csv "$dir/model.safetensors"

pg_virtualenv -t -v 15 bash -s "$dir" "$(basename "$model" .safetensors)" <<'SH'
set -euo pipefail
dir=$1
name=$2
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE img_sets (cfg text, split text, set_id int, ord int, label int, px real[]);
\copy img_sets FROM '$dir/sets.csv' CSV
SELECT dac_import('bench_img', pg_read_binary_file('$dir/model.safetensors'));
SQL
for cfg in '(1000, 4)' '(3000, 12)'; do
	for split in seen unseen; do
		q -c "CREATE OR REPLACE VIEW img_view AS SELECT set_id, label, px FROM img_sets WHERE cfg = '$cfg' AND split = '$split'"
		q -c "SET dac.memory_limit = '4GB'" -c "SELECT json_build_object('method', 'dac ($name)', 'cfg', '$cfg', 'split', '$split',
		          'ari', ari, 'nmi', nmi, 'k_mae', k_mae, 'll', ll, 'seconds_per_set', seconds_per_set, 'given_k', false)
		        FROM dac_evaluate('bench_img', 'img_view',
		          '{\"vector_column\": \"px\", \"label_column\": \"label\", \"group_column\": \"set_id\", \"whole_groups\": true}')" \
			>> "$dir/dac.jsonl"
		tail -1 "$dir/dac.jsonl"
	done
done
SH
[ -n "$bl" ] && wait "$bl"
$py test/bench/images.py report "$dir"
