#!/usr/bin/env bash
# Quality benchmark (issue: match the paper's MoG results): generated sets
# with fixed seeds, clustered through the extension by the shipped MLF and AF
# models, and the narrower mlf64 (dac_evaluate: LL, ARI, NMI, k-MAE, seconds per set), at the
# default settings, with dac.absorb_size = 1 (the authors' loop), and with
# dac.min_cluster_size, dac.reassign and dac.em_steps, next to two
# oracle LLs (true parameters, as the paper; the true labels' own ML fit) and to baselines run on the same sets (test/bench/baselines.py:
# variational DP mixture, k-means and spectral given the true k), and the
# FLOPs each DAC clustering spent against the machine's sgemm rate.
# Prints a markdown table.  Needs the extension installed (test/demo.sh),
# python3-sklearn and python3-scipy.
# Usage: bash test/bench/quality.sh [sets (1000)] [sets at (3000, 12) (same)]
set -euo pipefail
cd "$(dirname "$0")/../.."
sets_small=${1:-1000}
sets_large=${2:-$sets_small}
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
for p in python3-sklearn python3-scipy; do
	dpkg -s "$p" >/dev/null 2>&1 || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null; }
done
make -s PG_CONFIG=$PG_CONFIG bench >/dev/null 2>&1 || true
sgemm=$(OPENBLAS_NUM_THREADS=1 build/dac-bench | awk -F'|' '/sgemm 1024x1024x1024/ {gsub(/[^0-9.]/, "", $3); print $3}')
work=$(mktemp -d)
chmod 777 "$work"
echo "| set (n_max, k_max), sets | method | LL | ARI | NMI | k-MAE | s/set | GFLOP/set | GFLOP/s (% of sgemm) |"
echo "|---|---|---|---|---|---|---|---|---|"
for cfg in "1000 4 $sets_small 1001" "3000 12 $sets_large 3001"; do
	read -r nmax kmax sets seed <<<"$cfg"
	pg_virtualenv -t -v 15 psql -X -q -At -F' ' -v ON_ERROR_STOP=1 >"$work/dac.txt" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
\copy (SELECT set_id, ord, label, x[1], x[2] FROM dac_generate('mog', $sets, $nmax, $kmax, $seed)) TO '$work/sets.csv' CSV
SELECT 'mlf_mog2d', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set, oracle_ll FROM dac_evaluate('mlf_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SELECT 'af_mog2d', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('af_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SELECT 'mlf64_mog2d', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('mlf64_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SET dac.absorb_size = 1;
SELECT 'mlf_mog2d:absorb_size_1', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('mlf_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SELECT 'af_mog2d:absorb_size_1', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('af_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SELECT 'mlf64_mog2d:absorb_size_1', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('mlf64_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
RESET dac.absorb_size;
SET dac.min_cluster_size = 2;
SELECT 'mlf_mog2d:min_cluster_size_2', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('mlf_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SELECT 'af_mog2d:min_cluster_size_2', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('af_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
RESET dac.min_cluster_size;
SET dac.reassign = on;
SELECT 'mlf_mog2d:reassign', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('mlf_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SELECT 'af_mog2d:reassign', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('af_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
RESET dac.reassign;
SET dac.em_steps = 100;
SELECT 'mlf_mog2d:em_steps_100', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('mlf_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SELECT 'af_mog2d:em_steps_100', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('af_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SELECT 'mlf64_mog2d:em_steps_100', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('mlf64_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SET dac.min_cluster_size = 2;
SELECT 'af_mog2d:em_steps_100,min_cluster_size_2', ll, ari, nmi, k_mae, seconds_per_set, gflop_per_set FROM dac_evaluate('af_mog2d', 'mog', '{"sets": $sets, "n_max": $nmax, "k_max": $kmax, "seed": $seed}');
SQL
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 test/bench/baselines.py "$work/sets.csv" "$kmax" >"$work/base.txt"
	oracle=$(/usr/bin/python3 -c "import json,sys; [print('%.3f | %.3f | %.3f | %.3f' % (d['ll'], d['ari'], d['nmi'], d['k_mae'])) for d in map(json.loads, open('$work/base.txt')) if d['method'] == 'oracle']")
	# the paper's oracle: each set's LL under the true mixture that drew it
	# (the same for every model; dac_evaluate returns it with any)
	true_ll=$(awk '$1 == "mlf_mog2d" {printf "%.3f", $8}' "$work/dac.txt")
	echo "| ($nmax, $kmax), $sets | oracle (true parameters, the paper's) | $true_ll | | | | | | |"
	echo "| ($nmax, $kmax), $sets | oracle (true labels' ML fit; points to their likeliest component) | $oracle | | | |"
	while read -r label ll ari nmi kmae sps fl _; do
		# label: model, or model:settings (absorb_size_1, min_cluster_size_2, reassign, em_steps_100; comma-separated)
		model=${label%%:*}
		name="$model"
		[ "$label" != "$model" ] && name="$model, $(echo "${label#*:}" | sed 's/_\([0-9]\)/ \1/g; s/,/, /g')"
		gf=$(awk -v f="$fl" -v s="$sps" -v p="$sgemm" 'BEGIN {printf "%.1f (%.0f%%)", f / s, 100 * f / s / p}')
		printf "| (%s, %s), %s | DAC %s | %.3f | %.3f | %.3f | %.3f | %.4f | %.2f | %s |\n" \
			"$nmax" "$kmax" "$sets" "$name" "$ll" "$ari" "$nmi" "$kmae" "$sps" "$fl" "$gf"
	done < <(grep -E "^(mlf|af|mlf64)_mog2d(:[a-z_0-9,]+)? " "$work/dac.txt")
	/usr/bin/python3 - "$work/base.txt" "$nmax" "$kmax" "$sets" <<'PY'
import json, sys
for d in map(json.loads, open(sys.argv[1])):
    if d["method"] == "oracle":
        continue
    ll = "%.3f" % d["ll"] if "ll" in d else "–"
    print("| (%s, %s), %s | %s | %s | %.3f | %.3f | %.3f | %.4f | | |" % (
        sys.argv[2], sys.argv[3], sys.argv[4], d["method"], ll, d["ari"], d["nmi"], d["k_mae"], d["seconds_per_set"]))
PY
done
echo
echo "sgemm 1024³, one thread, same machine: $sgemm GFLOP/s. DAC runs through the extension (dac_evaluate), one BLAS thread; the baselines run with one thread too."
rm -rf "$work"
