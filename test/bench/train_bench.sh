#!/usr/bin/env bash
# Training speed, side by side: steps per second of the same run (MLF,
# 128 wide, B = 10 sets of n = 1000 points, same seed, one BLAS thread) through the command-line driver and through
# CALL dac_train in a scratch cluster.  Needs the extension installed.
# Usage: bash test/bench/train_bench.sh [steps]
set -euo pipefail
cd "$(dirname "$0")/../.."
steps=${1:-30}
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
make -s PG_CONFIG=$PG_CONFIG cli >/dev/null
t0=$(date +%s.%N)
build/dac-cli train --out /tmp/dac_train_bench.safetensors --steps "$steps" --batch 10 --n-max 1000 --fixed-n \
	--seed 5 --log-every "$steps" >/dev/null
t1=$(date +%s.%N)
cli=$(awk -v s="$steps" -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", s / (b - a)}')
sql=$(pg_virtualenv -t -v 15 psql -X -q -At -v ON_ERROR_STOP=1 \
	-c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
	-c "CALL dac_train('bench', 'mog', '{\"steps\": $steps, \"batch\": 10, \"n_max\": 1000, \"fixed_n\": true, \"seed\": 5, \"checkpoint_every\": $steps, \"log_every\": $steps}')" \
	-c "SELECT round(($steps / extract(epoch FROM finished_at - started_at))::numeric, 3) || ' ' || round(steps_per_second::numeric, 3) FROM dac_training_runs" \
	| grep -v Dropping | tail -1)
read -r sql_wall sql_steps <<<"$sql"
echo "| path | steps/s (B = 10, n = 1000, $steps steps) |"
echo "|---|---|"
echo "| dac-cli train (whole run, incl. start-up and writing the file) | $cli |"
echo "| CALL dac_train (whole call, incl. checkpoint commit) | $sql_wall |"
echo "| CALL dac_train (training steps only) | $sql_steps |"
rm -f /tmp/dac_train_bench.safetensors
