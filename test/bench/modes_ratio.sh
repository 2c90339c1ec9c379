#!/usr/bin/env bash
# How the modes stage's ratio (dac.mode_merge) and chain length were chosen:
# the 2-D pieces the passes leave (dac.mode_merge = 0) on the kinds
# benchmark's shapes groups and on 200 mog sets of up to 4 clusters, joined
# by a Python replica of the stage's first rule (pairs whose Gaussians'
# mixture dips to no less than the ratio along the ridgeline, chains of 3 or
# 4 pieces or more; not the path, deep-dip and one-cluster rules added
# after), for ratios 0.1 .. 0.25.  Prints mean ARI per split.  Run it inside
# pg_virtualenv, where dac is installed (test/bench/kinds.sh DIR made
# DIR/groups.csv):
#   pg_virtualenv -t -v 15 bash test/bench/modes_ratio.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "$1" && pwd)
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS dac" \
	-c "DROP TABLE IF EXISTS mr_kg" \
	-c "CREATE TABLE mr_kg (kind text, source text, split text, s int, ord int, label int, x real[])" \
	-c "\copy mr_kg FROM '$dir/groups.csv' CSV" -c "DELETE FROM mr_kg WHERE kind <> 'shapes'"
q -F ',' -c "SET dac.mode_merge = 0" \
	-c "SELECT split, s || source, label, x[1], x[2], dac_cluster(x) OVER (PARTITION BY source, split, s) FROM mr_kg" \
	-c "SELECT 'mog', set_id, label, x[1], x[2], dac_cluster(x) OVER (PARTITION BY set_id) FROM dac_generate('mog', 200, 300, 4, 9001)" \
	> "$dir/modes_pieces.csv"
/usr/bin/python3 - "$dir/modes_pieces.csv" <<'PY'
import csv, sys
from collections import defaultdict
import numpy as np
from sklearn.metrics import adjusted_rand_score as ari

groups = defaultdict(list)
for r in csv.reader(open(sys.argv[1])):
    if len(r) == 6:
        groups[(r[0], r[1])].append((float(r[3]), float(r[4]), int(r[2]), int(r[5])))

def logpdf(P, mu, C):
    d = P - mu
    return -0.5 * np.einsum('ij,jk,ik->i', d, np.linalg.inv(C), d) - 0.5 * np.log(np.linalg.det(C)) - np.log(2 * np.pi)

def ratios(X, lab):
    G = {}
    for k in set(lab):
        m = lab == k
        if m.sum() >= 3:
            G[k] = (m.mean(), X[m].mean(0), np.cov(X[m].T, bias=True) + 1e-9 * np.eye(2))
    keys, R = list(G), {}
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            (wa, ma, Ca), (wb, mb, Cb) = G[a], G[b]
            A, B = np.linalg.inv(Ca), np.linalg.inv(Cb)
            P = np.array([np.linalg.solve((1 - t) * A + t * B, (1 - t) * A @ ma + t * B @ mb) for t in np.linspace(0, 1, 41)])
            f = np.logaddexp(np.log(wa) + logpdf(P, ma, Ca), np.log(wb) + logpdf(P, mb, Cb))
            R[(a, b)] = np.exp(f.min() - min(f[0], f[-1]))
    return R

pre = {key: (np.array([r[:2] for r in rows]), np.array([r[2] for r in rows]), np.array([r[3] for r in rows]))
       for key, rows in groups.items()}
pre = {key: (X, y, lab, ratios(X, lab)) for key, (X, y, lab) in pre.items()}
for chain in (3, 4):
    for tau in (0.1, 0.15, 0.2, 0.25):
        res = defaultdict(list)
        for (split, _), (X, y, lab, R) in pre.items():
            parent = {k: k for k in set(lab)}
            def root(a):
                while parent[a] != a:
                    a = parent[a]
                return a
            for (a, b), r in R.items():
                if r >= tau:
                    parent[root(a)] = root(b)
            comp = defaultdict(list)
            for k in set(lab):
                comp[root(k)].append(k)
            new = lab.copy()
            for rt, ks in comp.items():
                if len(ks) >= chain:
                    new[np.isin(lab, ks)] = -1 - rt
            res[split].append(ari(y, new))
        print('chain %d ratio %.2f  ' % (chain, tau) + '  '.join('%s %.3f' % (s, np.mean(v)) for s, v in sorted(res.items())))
PY
