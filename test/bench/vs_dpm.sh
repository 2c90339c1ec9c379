#!/usr/bin/env bash
# The default model against scikit-learn's variational DP mixture on the same
# (3000, 12) sets (the paper's generator, seed 3001): seconds per set and ARI,
# 3 rounds alternating (dac_evaluate with the model dac.default_model names,
# at the default settings; test/bench/baselines.py's VBDPM, one thread);
# min and median.  Needs the extension installed and python3-sklearn.
# Usage: bash test/bench/vs_dpm.sh [SETS (300)] [N_MAX (3000)] [K_MAX (12)]
set -euo pipefail
cd "$(dirname "$0")/../.."
sets=${1:-300}
nmax=${2:-3000}
kmax=${3:-12}
for p in python3-sklearn python3-scipy; do
	dpkg -s "$p" >/dev/null 2>&1 || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null; }
done
work=$(mktemp -d)
chmod 777 "$work"
pg_virtualenv -v 15 bash -s "$sets" "$nmax" "$kmax" "$work" <<'SH'
set -euo pipefail
q() { psql -X -q -At -F' ' -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
  -c "\copy (SELECT set_id, ord, label, x[1], x[2] FROM dac_generate('mog', $1, $2, $3, 3001)) TO '$4/sets.csv' CSV"
for r in 1 2 3; do
	q -c "LOAD 'dac'" -c "SELECT current_setting('dac.default_model'), seconds_per_set, ari FROM dac_evaluate(current_setting('dac.default_model'), 'mog', '{\"sets\": $1, \"n_max\": $2, \"k_max\": $3, \"seed\": 3001}')" >>"$4/dac.txt"
	DAC_BASELINES=VBDPM OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 test/bench/baselines.py "$4/sets.csv" "$3" |
		/usr/bin/python3 -c "import json,sys; [print(d['seconds_per_set'], d['ari']) for d in map(json.loads, sys.stdin) if d['method'].startswith('VBDPM')]" >>"$4/dpm.txt"
done
SH
/usr/bin/python3 - "$work/dac.txt" "$work/dpm.txt" "$sets" "$nmax" "$kmax" <<'PY'
import statistics, sys
dac = [l.split() for l in open(sys.argv[1])]
dpm = [l.split() for l in open(sys.argv[2])]
model = dac[0][0]
ds = [float(r[1]) for r in dac]; ps = [float(r[0]) for r in dpm]
print("| %s sets of (%s, %s) | min s/set | median s/set | ARI |" % (sys.argv[3], sys.argv[4], sys.argv[5]))
print("|---|---|---|---|")
print("| DAC, %s (dac.default_model), default settings | %.4f | %.4f | %.4f |" % (model, min(ds), statistics.median(ds), float(dac[0][2])))
print("| VBDPM (sklearn, DP prior, 2 k_max components, one thread) | %.4f | %.4f | %.4f |" % (min(ps), statistics.median(ps), float(dpm[0][1])))
print("| DAC's speed over the DP mixture's | %.2fx | %.2fx | |" % (min(ps) / min(ds), statistics.median(ps) / statistics.median(ds)))
PY
rm -rf "$work"
