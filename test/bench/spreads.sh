#!/usr/bin/env bash
# 2-D groups of blobs of two spreads: 2 to 4 tight blobs (standard deviation
# 0.05) and 2 to 4 broad ones (2), 40 to 150 points each, centres uniform in
# a 120-wide square (setseed: the same groups each run).  The frame reads a
# group's width off its closest pairs, the tight blobs' width, at which the
# broad blobs are scattered points.  Prints per group the blobs, the
# clusters found and the ARI of the default, then the mean ARI and the
# groups answered as one cluster, beside k-means + silhouette over k = 2..10
# (four k-means++ starts; needs python3-sklearn).  Run it inside
# pg_virtualenv, where dac is installed:
#   pg_virtualenv -t -v 15 bash test/bench/spreads.sh [GROUPS (20)]
set -euo pipefail
groups=${1:-20}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
SELECT setseed(0.5);
CREATE TEMP TABLE blob AS
SELECT g, b, (b <= nt) AS tight, 40 + floor(random() * 111)::int AS m, random() * 120 - 60 AS cx, random() * 120 - 60 AS cy
FROM (SELECT g, 2 + floor(random() * 3)::int AS nt, 2 + floor(random() * 3)::int AS nb FROM generate_series(1, $groups) g) s,
     LATERAL generate_series(1, nt + nb) b;
CREATE TEMP TABLE pts AS
SELECT g, b AS label, row_number() OVER (PARTITION BY g ORDER BY b, i) AS ord,
       ARRAY[cx + sd * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()),
             cy + sd * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())] AS x
FROM (SELECT *, CASE WHEN tight THEN 0.05 ELSE 2 END AS sd FROM blob) b, LATERAL generate_series(1, m) i;
CREATE TEMP TABLE ans AS SELECT g, ord, label, x, dac_cluster(x) OVER (PARTITION BY g) AS c FROM pts;
\copy (SELECT g, label, x[1], x[2] FROM ans ORDER BY g, ord) TO '$out/pts.csv' CSV
\pset format aligned
SELECT g AS "group", count(*) AS rows, count(DISTINCT label) AS blobs, count(DISTINCT c) AS clusters,
       round(dac_ari(array_agg(label ORDER BY ord), array_agg(c ORDER BY ord))::numeric, 3) AS ari
FROM ans GROUP BY g ORDER BY g;
CREATE TEMP TABLE per AS SELECT g, count(DISTINCT c) AS k, dac_ari(array_agg(label ORDER BY ord), array_agg(c ORDER BY ord)) AS ari FROM ans GROUP BY g;
SELECT 'dac default' AS method, round(avg(ari)::numeric, 3) AS mean_ari, count(*) FILTER (WHERE k = 1) AS one_cluster, count(*) AS groups FROM per;
SQL
/usr/bin/python3 - "$out/pts.csv" <<'PY'
import csv, sys, collections
import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, silhouette_score
G = collections.defaultdict(list)
for g, lab, a, b in csv.reader(open(sys.argv[1])):
    G[int(g)].append((int(lab), float(a), float(b)))
aris = []
for g, rows in sorted(G.items()):
    y = [r[0] for r in rows]
    X = np.array([[r[1], r[2]] for r in rows])
    best = max((silhouette_score(X, p), p) for p in
               (KMeans(k, n_init=4, random_state=0).fit_predict(X) for k in range(2, 11)))[1]
    aris.append(adjusted_rand_score(y, best))
print("k-means + silhouette: mean ARI %.3f over %d groups" % (np.mean(aris), len(aris)))
PY
