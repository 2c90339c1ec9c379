#!/usr/bin/env bash
# The pictures in docs/: clusters found in 2-D sets (docs/img/clusters_2d.png,
# clustered through the extension) and quality against training CPU time
# (docs/img/quality_vs_cpu.png, from the checkpoint table in
# weights/README.md, which test/bench/curve.sh printed).  matplotlib from
# Debian (python3-matplotlib), for these pictures only.
# The found clusters are drawn with their Gaussians (2σ ellipses of θ).
# Usage: bash test/bench/plots.sh   (needs the extension installed)
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
pg_virtualenv -v 15 psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE p AS
SELECT 'mog (1000, 4), seed 7, set ' || set_id AS panel, ord, label, x
FROM dac_generate('mog', 3, 1000, 4, 7)
UNION ALL
SELECT 'mog (3000, 12), seed 3001, set 1', ord, label, x FROM dac_generate('mog', 1, 3000, 12, 3001)
UNION ALL
SELECT 'warped (1000, 4), seed 5, set ' || set_id, ord, label, x FROM dac_generate('warped_mog', 2, 1000, 4, 5);
-- one set with 2% uniform extra points (label -1), clustered with dac.noise = 0.001
SELECT setseed(0.42) \g /dev/null
INSERT INTO p
SELECT 'noise: mog (1000, 4) + 2% uniform, dac.noise = 0.001', ord, label, x FROM dac_generate('mog', 1, 1000, 4, 8)
UNION ALL
SELECT 'noise: mog (1000, 4) + 2% uniform, dac.noise = 0.001', 100000 + i, -1, ARRAY[30 * random() - 15, 30 * random() - 15]::real[]
FROM generate_series(1, 15) i;
CREATE TABLE r AS
SELECT panel, x[1] AS x, x[2] AS y, label,
       CASE WHEN panel LIKE 'noise%' THEN NULL ELSE dac_cluster(x) OVER (PARTITION BY panel) END AS cluster
FROM p;
SET dac.noise = 0.001;
UPDATE r SET cluster = s.c
FROM (SELECT panel, x[1] AS x, x[2] AS y, dac_cluster(x) OVER (PARTITION BY panel) AS c FROM p WHERE panel LIKE 'noise%') s
WHERE r.panel = s.panel AND r.x = s.x AND r.y = s.y;
\copy r TO '$tmp/clusters.csv' WITH (FORMAT csv, HEADER)
RESET dac.noise;
-- each found cluster's Gaussian (the network's θ): drawn as its 2σ ellipse
CREATE TABLE s AS
SELECT panel, (dac_cluster_summary(array_agg(x ORDER BY ord))).* FROM p GROUP BY panel;
\copy (SELECT panel, cluster, mean[1] AS mx, mean[2] AS my, stddev[1] AS sx, stddev[2] AS sy FROM s) TO '$tmp/summary.csv' WITH (FORMAT csv, HEADER)
SQL
/usr/bin/python3 test/bench/plots.py "$tmp/clusters.csv" "$tmp/summary.csv" weights/README.md docs/img
