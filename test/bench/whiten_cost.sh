#!/bin/bash
# What a table's maps (dac_train's "whiten") cost a clustering: mlf_embed,
# mlf_embed with a whitening map of the same width, and mlf_embed with the
# gated projection onto a labelled table's 8 classes (dac-cli project)
# cluster the same sets, n <= 300 and n <= 1,000, one thread, the models
# alternated REPS times; prints seconds per set, min and median, and the
# ratios of medians.  Generated sets of d-dimensional embeddings (dac-cli
# eval --data embed) lie far from the table's classes, so the gate closes
# (its cost alone); sets drawn from new rows of the table's classes open it
# (the gate and the projection).
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
for i in range(6000):
    l = i % 8
    print(l, ' '.join('%.5g' % v for v in C[l] + r.normal(size=d)))
PY
	head -n 2000 "$tmp/lab.txt" > "$tmp/fit.txt"
	sed -n '2001,4000p' "$tmp/lab.txt" > "$tmp/held.txt"
	tail -n 2000 "$tmp/lab.txt" > "$tmp/new.txt"
	$cli whiten --model weights/mlf_embed.safetensors --labelled "$tmp/fit.txt" --ridge 1 --out "$tmp/w.safetensors" >/dev/null
	$cli project --model weights/mlf_embed.safetensors --labelled "$tmp/fit.txt" --held "$tmp/held.txt" \
		--out "$tmp/p.safetensors" >/dev/null
	for src in generated table; do
		data=(--data embed --data-dim "$d")
		[ "$src" = table ] && data=(--labelled "$tmp/new.txt")
		for cfg in "300 4" "1000 12"; do
			set -- $cfg
			for m in weights/mlf_embed.safetensors "$tmp/w.safetensors" "$tmp/p.safetensors"; do : > "$tmp/$(basename "$m").t"; done
			for r in $(seq "$reps"); do
				for m in weights/mlf_embed.safetensors "$tmp/w.safetensors" "$tmp/p.safetensors"; do
					$cli eval --model "$m" "${data[@]}" --sets 20 --n-max "$1" --k-max "$2" --seed 7 \
						--kmeans 10 --k-search 2 --graph 5 --resolution 0.05 --merge 0.04 2>/dev/null |
						awk '/^ARI/ {for (i = 1; i <= NF; i++) if ($i == "s/set") print $(i + 1)}' >> "$tmp/$(basename "$m").t"
				done
			done
			/usr/bin/python3 - "$d" "$1" "$src" "$tmp/mlf_embed.safetensors.t" "$tmp/w.safetensors.t" "$tmp/p.safetensors.t" <<'PY'
import sys, statistics as st
d, n, src = sys.argv[1:4]
A, B, C = ([float(x) for x in open(f)] for f in sys.argv[4:7])
print('d %5s  n <= %4s  %-9s sets: mlf_embed %.4f / %.4f s, whitened %.4f / %.4f s, gated projection %.4f / %.4f s '
      '(min / median); ratios of medians %.2f, %.2f'
      % (d, n, src, min(A), st.median(A), min(B), st.median(B), min(C), st.median(C),
         st.median(B) / st.median(A), st.median(C) / st.median(A)))
PY
		done
	done
done
