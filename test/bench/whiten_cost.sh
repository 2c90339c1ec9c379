#!/bin/bash
# What a table's whitening map (dac_train's "whiten") costs a clustering:
# mlf_embed and mlf_embed with a whitening map of the same width cluster
# the same generated sets of d-dimensional embeddings (dac-cli eval --data
# embed), n <= 300 and n <= 1,000, one thread, each pair alternated REPS
# times; prints seconds per set, min and median, and their ratio.
#   bash test/bench/whiten_cost.sh [REPS] [DIMS...]   (default 5; 64 384 1536)
set -euo pipefail
reps=${1:-5}
shift || true
dims=${*:-64 384 1536}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cli=build/dac-cli
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); kernels: $(grep -q avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2)"
for d in $dims; do
	# a labelled table of 8 Gaussian classes in d dimensions: only its width matters here
	/usr/bin/python3 - "$d" > "$tmp/lab.txt" <<'PY'
import sys, numpy as np
d = int(sys.argv[1]); r = np.random.default_rng(3)
C = r.normal(size=(8, d)) * 2
for i in range(2000):
    l = i % 8
    print(l, ' '.join('%.5g' % v for v in C[l] + r.normal(size=d)))
PY
	$cli whiten --model weights/mlf_embed.safetensors --labelled "$tmp/lab.txt" --ridge 1 --out "$tmp/w.safetensors" >/dev/null
	for cfg in "300 4" "1000 12"; do
		set -- $cfg
		for m in weights/mlf_embed.safetensors "$tmp/w.safetensors"; do : > "$tmp/$(basename "$m").t"; done
		for r in $(seq "$reps"); do
			for m in weights/mlf_embed.safetensors "$tmp/w.safetensors"; do
				$cli eval --model "$m" --data embed --data-dim "$d" --sets 20 --n-max "$1" --k-max "$2" --seed 7 \
					--kmeans 10 --k-search 2 --graph 5 --resolution 0.05 --merge 0.04 |
					awk '/^ARI/ {for (i = 1; i <= NF; i++) if ($i == "s/set") print $(i + 1)}' >> "$tmp/$(basename "$m").t"
			done
		done
		/usr/bin/python3 - "$d" "$1" "$tmp/mlf_embed.safetensors.t" "$tmp/w.safetensors.t" <<'PY'
import sys, statistics as st
d, n, a, b = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
A = [float(x) for x in open(a)]; B = [float(x) for x in open(b)]
print('d %5s  n <= %4s: mlf_embed %.4f / %.4f s, with the map %.4f / %.4f s (min / median), ratio of medians %.2f'
      % (d, n, min(A), st.median(A), min(B), st.median(B), st.median(B) / st.median(A)))
PY
	done
done
