#!/usr/bin/env bash
# DAC against scikit-learn's variational DP mixture on the same (3000, 12)
# sets (the paper's generator, seed 3001): seconds per set and ARI, 3 rounds
# alternating; min and median.  "default" is what a user gets with no model
# named: dac_cluster_ids(points) over a table of pre-grouped sets, timed as
# one query (each set's model chosen by the settings: dac.default_model,
# dac.large_group_models...), ARI per set against the generator's labels by
# scikit-learn, averaged.  A named MODEL runs through dac_evaluate (the same
# clustering, one model for every set).  VBDPM: test/bench/baselines.py, one
# thread.  Needs the extension installed and python3-sklearn.
# Usage: bash test/bench/vs_dpm.sh [SETS (300)] [N_MAX (3000)] [K_MAX (12)] [MODEL ... (default)]
set -euo pipefail
cd "$(dirname "$0")/../.."
# OpenBLAS picks its kernels for this CPU (the module and dac-cli set them); a
# shell's OPENBLAS_CORETYPE would override that for every server started here
unset OPENBLAS_CORETYPE
sets=${1:-300}
nmax=${2:-3000}
kmax=${3:-12}
shift $(($# < 3 ? $# : 3))
models=("${@:-default}")
for p in python3-sklearn python3-scipy; do
	dpkg -s "$p" >/dev/null 2>&1 || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null; }
done
work=$(mktemp -d)
chmod 777 "$work"
pg_virtualenv -t -v 15 bash -s "$sets" "$nmax" "$kmax" "$work" "${models[@]}" <<'SH'
set -euo pipefail
q() { psql -X -q -At -F' ' -v ON_ERROR_STOP=1 "$@"; }
sets=$1 nmax=$2 kmax=$3 work=$4
shift 4
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
  -c "\copy (SELECT set_id, ord, label, x[1], x[2] FROM dac_generate('mog', $sets, $nmax, $kmax, 3001)) TO '$work/sets.csv' CSV"
q -c "CREATE TABLE grouped AS SELECT set_id, array_agg(x ORDER BY ord) AS m FROM dac_generate('mog', $sets, $nmax, $kmax, 3001) GROUP BY set_id"
for r in 1 2 3; do
	for model in "$@"; do
		if [ "$model" = default ]; then
			# the models the sets use (once), then the timed query
			[ -s "$work/models.txt" ] ||
				q -c "SELECT 'models', string_agg(model || ':' || n, ',') FROM (SELECT dac_clustering(m)->>'model' AS model, count(*) AS n FROM grouped GROUP BY 1) s" >"$work/models.txt"
			q -c "LOAD 'dac'" -c "SELECT dac_cluster_ids(m) FROM grouped WHERE set_id = 0" >/dev/null \
			  -c "CREATE TEMP TABLE t0 AS SELECT clock_timestamp() AS t" \
			  -c "CREATE TEMP TABLE ids AS SELECT set_id, dac_cluster_ids(m) AS ids FROM grouped" \
			  -c "SELECT 'default', extract(epoch FROM clock_timestamp() - (SELECT t FROM t0)) / $sets" \
			  -c "\copy (SELECT set_id, array_to_string(ids, ' ', '0') FROM ids) TO '$work/ids.csv' CSV" >>"$work/dac_sql.txt"
		else
			q -c "LOAD 'dac'" -c "SELECT '$model', '$model', seconds_per_set, ari FROM dac_evaluate('$model', 'mog', '{\"sets\": $sets, \"n_max\": $nmax, \"k_max\": $kmax, \"seed\": 3001}')" >>"$work/dac.txt"
		fi
	done
	DAC_BASELINES=VBDPM OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 test/bench/baselines.py "$work/sets.csv" "$kmax" |
		/usr/bin/python3 -c "import json,sys; [print(d['seconds_per_set'], d['ari']) for d in map(json.loads, sys.stdin) if d['method'].startswith('VBDPM')]" >>"$work/dpm.txt"
done
SH
touch "$work/dac.txt" "$work/dac_sql.txt"
/usr/bin/python3 - "$work/dac.txt" "$work/dpm.txt" "$sets" "$nmax" "$kmax" "$work" <<'PY'
import csv, os, statistics, sys
from sklearn.metrics import adjusted_rand_score
work = sys.argv[6]
dac = [l.split() for l in open(sys.argv[1])]
dpm = [l.split() for l in open(sys.argv[2])]
if os.path.getsize(os.path.join(work, "dac_sql.txt")):
    truth = {}
    for row in csv.reader(open(os.path.join(work, "sets.csv"))):
        truth.setdefault(int(row[0]), {})[int(row[1])] = int(row[2])
    found = {int(r[0]): [int(v) for v in r[1].split()] for r in csv.reader(open(os.path.join(work, "ids.csv")))}
    ari = statistics.mean(adjusted_rand_score([truth[s][i] for i in sorted(truth[s])], found[s]) for s in truth)
    models = open(os.path.join(work, "models.txt")).read().split()[1]
    dac = [["default", "(no model named: %s)" % models.replace(",", ", "), l.split()[1], "%.4f" % ari]
           for l in open(os.path.join(work, "dac_sql.txt"))] + dac
ps = [float(r[0]) for r in dpm]
print("| %s sets of (%s, %s) | min s/set | median s/set | ARI | speed over the DP mixture's (min / median) |" % tuple(sys.argv[3:6]))
print("|---|---|---|---|---|")
seen = []
for r in dac:
    if r[0] not in seen:
        seen.append(r[0])
for label in seen:
    rows = [r for r in dac if r[0] == label]
    ds = [float(r[2]) for r in rows]
    what = rows[0][1]
    print("| DAC, %s, default settings | %.4f | %.4f | %.4f | %.2fx / %.2fx |" % (
        what, min(ds), statistics.median(ds), float(rows[0][3]), min(ps) / min(ds), statistics.median(ps) / statistics.median(ds)))
print("| VBDPM (sklearn, DP prior, 2 k_max components, one thread) | %.4f | %.4f | %.4f | |" % (min(ps), statistics.median(ps), float(dpm[0][1])))
PY
rm -rf "$work"
