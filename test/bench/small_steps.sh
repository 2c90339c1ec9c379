#!/usr/bin/env bash
# Small groups, step by step, in the core (no SQL): seconds per set of up to
# 30 points (9-29, k_max 4) for 0.5.0's default network (mlf_mog2d, every
# product computed in each pass), then with the inducing points' fc_q
# computed once per model, then the small-group network (mlf_small2d) without
# and with it; and sets of up to 1,000 points with mlf_mog2d.  5 rounds,
# alternating, dac-cli eval on the same seeded sets, one BLAS thread; min and
# median; points per second against the large sets'.
# Usage: bash test/bench/small_steps.sh [SMALL_SETS (4000)] [LARGE_SETS (100)]
set -euo pipefail
cd "$(dirname "$0")/../.."
# OpenBLAS picks its kernels for this CPU (the module and dac-cli set them); a
# shell's OPENBLAS_CORETYPE would override that for every server started here
unset OPENBLAS_CORETYPE
make -s cli >/dev/null
small=${1:-4000}
large=${2:-100}
cases=(
"mlf_mog2d, each pass computes every product (0.5.0)|weights/mlf_mog2d.safetensors|30|$small|--no-fixed"
"mlf_mog2d, fc_q of the inducing points once per model|weights/mlf_mog2d.safetensors|30|$small|"
"mlf_small2d, each pass computes every product|weights/mlf_small2d.safetensors|30|$small|--no-fixed"
"mlf_small2d, fc_q of the inducing points once per model|weights/mlf_small2d.safetensors|30|$small|"
"large: mlf_mog2d, sets of up to 1,000 points|weights/mlf_mog2d.safetensors|1000|$large|"
)
out=$(mktemp)
for r in 1 2 3 4 5; do
	for c in "${cases[@]}"; do
		IFS='|' read -r what model nmax sets flag <<<"$c"
		# shellcheck disable=SC2086
		build/dac-cli eval --model "$model" --sets "$sets" --n-max "$nmax" --k-max 4 --seed 17 $flag |
			awk -v w="$what" -v n="$nmax" -v s="$sets" '/^ARI/ {print w "|" n "|" s "|" $2 "|" $10 "|" $12}' >>"$out"
	done
done
/usr/bin/python3 - "$out" <<'PY'
import statistics, sys
rows = {}
order = []
for line in open(sys.argv[1]):
    what, nmax, sets, ari, sps, gflop = line.rstrip('\n').split('|')
    if what not in rows:
        order.append(what)
    rows.setdefault(what, []).append((float(sps), float(ari), float(gflop), int(nmax)))
def mean_n(nmax):
    # the generator draws n uniformly from [floor(0.3 n_max), n_max)
    lo = int(0.3 * nmax)
    return (lo + nmax - 1) / 2
big = [r for w, r in rows.items() if w.startswith('large')][0]
big_min = mean_n(big[0][3]) / min(r[0] for r in big)
big_med = mean_n(big[0][3]) / statistics.median(r[0] for r in big)
print("| sets | min s/set | median s/set | GFLOP/set | points/s (median) | over large sets' points/s (min / median) | ARI |")
print("|---|---|---|---|---|---|---|")
for w in order:
    r = rows[w]
    mn = min(x[0] for x in r); md = statistics.median(x[0] for x in r)
    n = mean_n(r[0][3])
    print("| %s | %.6f | %.6f | %.4f | %.0f | %.2f / %.2f | %.4f |" % (
        w, mn, md, r[0][2], n / md, n / mn / big_min, n / md / big_med, r[0][1]))
PY
rm -f "$out"
