#!/usr/bin/env bash
# The embeddings benchmark (docs/embeddings.md): Fashion-MNIST images as a
# user's labelled embeddings (features and sets: test/bench/embeddings.py).
#  - models trained in the database with CALL dac_train from the labelled
#    training table, giving only the vector and label columns (the defaults
#    for a table): on all 10 classes ("all" test sets) and on classes 0-5
#    only ("unseen" test sets, classes 6-9); their training CPU time;
#  - the shipped mlf_embed, trained on no image at all (zero-shot);
#  - with DAC_BENCH_RAW=1, also the 0.3.0 recipe (raw 32-D input, 3,000
#    steps) for comparison; with DAC_BENCH_TRAIN=0, no training (zero-shot
#    and baselines only); with DAC_BENCH_NOVALIDATE=1, also the table
#    defaults with "validate": false (0.20.0's: every row trained on, no
#    choice), in the same run; with DAC_BENCH_NOWHITEN=1, also the table
#    defaults with "whiten": false (0.21.0's: validated, no whitening map);
#  - each DAC model also given each set's true k (dac.k), unless
#    DAC_BENCH_GIVEN_K=0;
#  - with DAC_BENCH_MERGE=RESOLUTION:SHARE (e.g. 0.2:0.05), mlf_embed also
#    with dac.graph_resolution and dac.graph_merge set so;
#  - DAC_BENCH_SOURCE=digits: a third, the 1,797 handwritten digits scikit-learn
#    bundles (64-d; halves for training and test rows);
#  - DAC_BENCH_SOURCE=cnn: the second real source, 64-d embeddings of a small
#    CNN trained (torch, in embeddings.py) on classes 0-5 only, its weights
#    kept in test/bench/cnn_fmnist_0to5.npz so that every machine computes
#    the same features (DAC_BENCH_CNN_TRAIN=1: trained again here);
#  - every test set clustered through the extension (dac_cluster_agg), then
#    scored beside the baselines run on the same sets.
# Needs dataset-fashion-mnist, python3-sklearn and the extension installed.
# Usage: bash test/bench/embeddings.sh [SETS (200)] [OUT_DIR (/tmp/dac_embeddings)]
# Prints the markdown tables; takes about 45 minutes on 2 cores (the
# baselines run beside the training).
set -euo pipefail
cd "$(dirname "$0")/../.."
sets=${1:-200}
dir=${2:-/tmp/dac_embeddings}
py=/usr/bin/python3
mkdir -p "$dir"
chmod 755 "$dir"
rm -f "$dir"/dac.jsonl "$dir"/timing.jsonl "$dir"/labels.csv
[ -f "$dir/sets.json" ] || OMP_NUM_THREADS=1 $py test/bench/embeddings.py prepare "$dir" "$sets" 7
# the baselines on the other core while the database trains (kept from an
# earlier run on the same sets unless DAC_BENCH_BASELINES=1)
if [ "${DAC_BENCH_BASELINES:-0}" = 1 ] || [ "$( (wc -l < "$dir/baselines.jsonl") 2>/dev/null || echo 0)" != 40 ]; then
	( OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $py test/bench/embeddings.py baselines "$dir" > "$dir/baselines.log" 2>&1 ) &
	bl=$!
else
	bl=
fi
chmod 644 "$dir"/*.csv

pg_virtualenv -t -v 15 bash -s "$dir" "${DAC_BENCH_RAW:-0}" "${DAC_BENCH_TRAIN:-1}" "${DAC_BENCH_MERGE:-}" \
	"${DAC_BENCH_NOVALIDATE:-0}" "${DAC_BENCH_NOWHITEN:-0}" <<'SH'
set -euo pipefail
dir=$1
raw=$2
trained=$3
merge=$4
novalidate=$5
nowhiten=$6
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
q <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE fm_train (id int, label int, v real[]);
CREATE TABLE fm_sets (cfg text, split text, set_id int, ord int, label int, v real[]);
\copy fm_train FROM '$dir/train.csv' CSV
\copy fm_sets FROM '$dir/sets.csv' CSV
CREATE VIEW fm_train_all AS SELECT * FROM fm_train;
CREATE VIEW fm_train_seen AS SELECT * FROM fm_train WHERE label < 6;
SQL
train() {   # model view options
	local t0 t1
	t0=$(date +%s.%N)
	q -c "SET client_min_messages = warning" -c "CALL dac_train('$1', '$2', '$3')"
	t1=$(date +%s.%N)
	# the run's row: its cost and what its validation held out, scored and kept
	q -At -c "SELECT format('{\"model\": \"%s\", \"wall_s\": %s, \"train_s\": %s, \"steps\": %s, \"validation\": %s}', '$1',
	                 round(($t1 - $t0)::numeric, 1), round(sum(seconds)::numeric, 1), max(step_to),
	                 coalesce(max(r.validation::text), 'null'))
	          FROM dac_training_log l JOIN dac_training_runs r USING (run_id) WHERE r.model = '$1'" >> "$dir/training.jsonl"
}
rm -f "$dir/training.jsonl"
touch "$dir/training.jsonl"
if [ "$trained" = 1 ]; then
	train fm_all fm_train_all '{"vector_column": "v", "label_column": "label"}'
	train fm_seen fm_train_seen '{"vector_column": "v", "label_column": "label"}'
fi
if [ "$novalidate" = 1 ]; then
	train fm_all_nv fm_train_all '{"vector_column": "v", "label_column": "label", "validate": false}'
	train fm_seen_nv fm_train_seen '{"vector_column": "v", "label_column": "label", "validate": false}'
fi
if [ "$nowhiten" = 1 ]; then
	train fm_all_nw fm_train_all '{"vector_column": "v", "label_column": "label", "whiten": false}'
	train fm_seen_nw fm_train_seen '{"vector_column": "v", "label_column": "label", "whiten": false}'
fi
if [ "$raw" = 1 ]; then
	train fm_all_raw fm_train_all '{"vector_column": "v", "label_column": "label", "input": "raw", "steps": 3000}'
	train fm_seen_raw fm_train_seen '{"vector_column": "v", "label_column": "label", "input": "raw", "steps": 3000}'
fi
cluster() {   # method model split [settings]
	local t0 t1 n set=${4:-SET dac.progress = 0}
	t0=$(date +%s.%N)
	q -At -F'|' -c "$set" -c "SELECT '$1', cfg, split, set_id, dac_cluster_agg(v, '$2' ORDER BY ord)
	              FROM fm_sets WHERE split = '$3' GROUP BY cfg, split, set_id" >> "$dir/labels.csv"
	t1=$(date +%s.%N)
	for cfg in small large; do
		# per-configuration timing: cluster again, one configuration at a time
		t0=$(date +%s.%N)
		n=$(q -At -c "$set" -c "SELECT count(*) FROM (SELECT dac_cluster_agg(v, '$2' ORDER BY ord) AS c
		                                     FROM fm_sets WHERE split = '$3' AND cfg = '$cfg' GROUP BY set_id) s
		              WHERE cardinality(c) > 0")
		t1=$(date +%s.%N)
		echo "{\"method\": \"$1\", \"cfg\": \"$cfg\", \"split\": \"$3\", \"seconds_per_set\": $(echo "($t1 - $t0) / $n" | bc -l | xargs printf '%.6f')}" >> "$dir/timing.jsonl"
	done
}
cluster "DAC mlf_embed (zero-shot, shipped)" mlf_embed all
cluster "DAC mlf_embed (zero-shot, shipped)" mlf_embed unseen
if [ -n "$merge" ]; then
	ms="SET dac.graph_resolution = ${merge%%:*}; SET dac.graph_merge = ${merge##*:}"
	cluster "DAC mlf_embed, graph_merge ${merge##*:} at resolution ${merge%%:*}" mlf_embed all "$ms"
	cluster "DAC mlf_embed, graph_merge ${merge##*:} at resolution ${merge%%:*}" mlf_embed unseen "$ms"
fi
# given the true k of each set (dac.k, set for that set alone)
q -f test/bench/given_k.sql
given() {   # method model split
	q -At -F'|' -c "SELECT '$1', cfg, split, set_id, c FROM given_k('$2', '$3')" >> "$dir/labels.csv"
}
if [ "${DAC_BENCH_GIVEN_K:-1}" = 1 ]; then
	given "DAC mlf_embed given the true k (dac.k)" mlf_embed all
	given "DAC mlf_embed given the true k (dac.k)" mlf_embed unseen
fi
if [ "$trained" = 1 ]; then
	cluster "DAC, trained on the table (defaults)" fm_all all
	cluster "DAC, trained on the table (defaults)" fm_seen unseen
	if [ "${DAC_BENCH_GIVEN_K:-1}" = 1 ]; then
		given "DAC, trained on the table, given the true k (dac.k)" fm_all all
		given "DAC, trained on the table, given the true k (dac.k)" fm_seen unseen
	fi
fi
if [ "$novalidate" = 1 ]; then
	cluster "DAC, trained on the table (defaults, validate false)" fm_all_nv all
	cluster "DAC, trained on the table (defaults, validate false)" fm_seen_nv unseen
fi
if [ "$nowhiten" = 1 ]; then
	cluster "DAC, trained on the table (defaults, whiten false)" fm_all_nw all
	cluster "DAC, trained on the table (defaults, whiten false)" fm_seen_nw unseen
fi
if [ "$raw" = 1 ]; then
	cluster "DAC, 0.3.0 recipe (raw input, 3000 steps)" fm_all_raw all
	cluster "DAC, 0.3.0 recipe (raw input, 3000 steps)" fm_seen_raw unseen
fi
SH
$py test/bench/embeddings.py score "$dir" "$dir/labels.csv" > /dev/null
[ -z "$bl" ] || wait $bl
echo "Training (CALL dac_train, one core):"
sed 's/^/    /' "$dir/training.jsonl"
$py test/bench/embeddings.py report "$dir"
