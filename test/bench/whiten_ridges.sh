#!/bin/bash
# The whitening's ridges measured outside the database (docs/embeddings.md,
# "A table's run whitens its rows"): maps fit on labelled rows (numpy, the
# same map as src/core/whiten.c: L⁻¹ of S + ridge·(tr S / d)·I), applied to
# other rows, clustered by mlf_embed with dac-cli eval (100 sets, the
# default clustering settings).
#   bash test/bench/whiten_ridges.sh FEATURES.npz OUT [validation|test]
# FEATURES.npz: the embeddings benchmark's features (Ftr, ytr, Fte, yte).
#   validation (the default): training rows only: three folds of classes
#     0-5 (maps fit on four classes, sets of the other two, n <= 300) and
#     the training rows of all ten classes (fit on 85%, sets of the other
#     15%, n <= 300 and n <= 1,000).
#   test: the first look that found the lever, on the test rows: maps fit
#     on the training rows of classes 0-5 (all ten), sets of the test rows of
#     classes 6-9 (all ten); not a way to choose anything.
set -euo pipefail
feat=$1
out=$2
mode=${3:-validation}
mkdir -p "$out"
/usr/bin/python3 - "$feat" "$out" "$mode" <<'PY'
import sys, numpy as np
feat, out, mode = sys.argv[1:4]
f = np.load(feat)
Ftr, ytr = f['Ftr'].astype(np.float64), f['ytr']
def within(F, y):
    R = F.copy()
    for c in np.unique(y):
        R[y == c] -= F[y == c].mean(0)
    return R.T @ R / len(F)
def write(path, G, yy):
    with open(path, 'w') as fh:
        for lab, row in zip(yy, G):
            fh.write(str(int(lab)) + ' ' + ' '.join('%.6g' % v for v in row) + '\n')
jobs = []
if mode == 'validation':
    for fold in range(3):
        ev = (ytr == 2 * fold) | (ytr == 2 * fold + 1)
        jobs.append(('fold%d' % fold, Ftr[(ytr < 6) & ~ev], ytr[(ytr < 6) & ~ev], Ftr[ev], ytr[ev]))
    hold = np.random.default_rng(7).random(len(ytr)) < 0.15
    jobs.append(('rows', Ftr[~hold], ytr[~hold], Ftr[hold], ytr[hold]))
else:
    Fte, yte = f['Fte'].astype(np.float64), f['yte']
    jobs.append(('unseen', Ftr[ytr < 6], ytr[ytr < 6], Fte[yte >= 6], yte[yte >= 6]))
    jobs.append(('all', Ftr, ytr, Fte, yte))
for name, Ff, yf, Fe, ye in jobs:
    S = within(Ff, yf); d = S.shape[0]
    write('%s/%s_none.txt' % (out, name), Fe, ye)
    for a in [0.01, 0.1, 1.0, 10.0]:
        L = np.linalg.cholesky(S + a * np.trace(S) / d * np.eye(d))
        write('%s/%s_ridge%g.txt' % (out, name, a), np.linalg.solve(L, Fe.T).T, ye)
PY
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
for f in "$out"/*.txt; do
	name=$(basename "$f" .txt)
	cfgs="300:4"
	case $name in rows_*|all_*|unseen_*) cfgs="300:4 1000:12" ;; esac
	for c in $cfgs; do
		r=$(build/dac-cli eval --model weights/mlf_embed.safetensors --labelled "$f" --sets 100 --n-max "${c%%:*}" \
			--k-max "${c##*:}" --seed 5 --kmeans 10 --k-search 2 --graph 5 --resolution 0.05 --merge 0.04 |
			awk '/^ARI/ {print $2, $4, $6}')
		echo "$name n<=${c%%:*}: ARI NMI k-MAE $r"
	done
done
