#!/usr/bin/env bash
# DAC against scikit-learn's variational DP mixture on the same (3000, 12)
# sets (the paper's generator, seed 3001): seconds per set and ARI, 3 rounds
# alternating (dac_evaluate at the default settings with each model named,
# "default" meaning the one dac.default_model names; test/bench/baselines.py's
# VBDPM, one thread); min and median.  Needs the extension installed and
# python3-sklearn.
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
pg_virtualenv -v 15 bash -s "$sets" "$nmax" "$kmax" "$work" "${models[@]}" <<'SH'
set -euo pipefail
q() { psql -X -q -At -F' ' -v ON_ERROR_STOP=1 "$@"; }
sets=$1 nmax=$2 kmax=$3 work=$4
shift 4
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
  -c "\copy (SELECT set_id, ord, label, x[1], x[2] FROM dac_generate('mog', $sets, $nmax, $kmax, 3001)) TO '$work/sets.csv' CSV"
for r in 1 2 3; do
	for model in "$@"; do
		if [ "$model" = default ]; then name="current_setting('dac.default_model')"; label=default; else name="'$model'"; label=$model; fi
		q -c "LOAD 'dac'" -c "SELECT '$label', $name, seconds_per_set, ari FROM dac_evaluate($name, 'mog', '{\"sets\": $sets, \"n_max\": $nmax, \"k_max\": $kmax, \"seed\": 3001}')" >>"$work/dac.txt"
	done
	DAC_BASELINES=VBDPM OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 test/bench/baselines.py "$work/sets.csv" "$kmax" |
		/usr/bin/python3 -c "import json,sys; [print(d['seconds_per_set'], d['ari']) for d in map(json.loads, sys.stdin) if d['method'].startswith('VBDPM')]" >>"$work/dpm.txt"
done
SH
/usr/bin/python3 - "$work/dac.txt" "$work/dpm.txt" "$sets" "$nmax" "$kmax" <<'PY'
import statistics, sys
dac = [l.split() for l in open(sys.argv[1])]
dpm = [l.split() for l in open(sys.argv[2])]
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
    what = "%s (dac.default_model)" % rows[0][1] if label == "default" else rows[0][1]
    print("| DAC, %s, default settings | %.4f | %.4f | %.4f | %.2fx / %.2fx |" % (
        what, min(ds), statistics.median(ds), float(rows[0][3]), min(ps) / min(ds), statistics.median(ps) / statistics.median(ds)))
print("| VBDPM (sklearn, DP prior, 2 k_max components, one thread) | %.4f | %.4f | %.4f | |" % (min(ps), statistics.median(ps), float(dpm[0][1])))
PY
rm -rf "$work"
