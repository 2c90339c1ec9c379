#!/usr/bin/env bash
# dac.noise on clean groups and on groups with planted points: the share of
# a group's own rows left NULL, and of the planted ones, at each level.
# Groups: the embed generator's 384-d sets (20 of up to 300 rows, 2-6
# clusters, seed 42); the paper's 2-D sets (100 of (1000, 4), seed 5); and,
# when DIR holds the kinds benchmark's groups (test/bench/kinds.sh DIR), its
# real embeddings and z-scored tabular rows, development and held-out sources
# apart.  Planted points: 5% more rows uniform in each group's bounding box
# (2-D: 2% uniform on [-15, 15]², as docs/production.md measures).  Run inside
# pg_virtualenv with dac installed (the last table: the test's cost):
#   pg_virtualenv -t -v 15 bash test/bench/noise.sh [DIR] [LEVELS (0.001 0.01)]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-}
levels=${2:-0.001 0.01}
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS dac"
q -c "DROP TABLE IF EXISTS ng" -c "CREATE TABLE ng (src text, s int, ord int, planted bool, x double precision[])" \
	-c "INSERT INTO ng SELECT 'embed-384', set_id, ord, false, x::double precision[] FROM dac_generate('embed', 20, 300, 6, 42, 384)" \
	-c "INSERT INTO ng SELECT 'mog-2d', set_id, ord, false, x::double precision[] FROM dac_generate('mog', 100, 1000, 4, 5)"
if [ -n "$dir" ] && [ -s "$dir/groups.csv" ]; then
	q -c "DROP TABLE IF EXISTS kg" -c "CREATE TABLE kg (kind text, source text, split text, s int, ord int, label int, x real[])" \
		-c "\copy kg FROM '$dir/groups.csv' CSV" \
		-c "INSERT INTO ng SELECT kind || '/' || split, dense_rank() OVER (ORDER BY source, s), ord, false, x::double precision[]
		    FROM kg WHERE kind IN ('embedding', 'tabular')"
fi
# planted rows, seeded: uniform in each group's bounding box (2-D: on [-15, 15]²)
q -c "SELECT setseed(0.42)" -c "
INSERT INTO ng
SELECT g.src, g.s, 100000 + p, true,
       (SELECT array_agg(CASE WHEN g.src = 'mog-2d' THEN -15 + 30 * random() ELSE b.lo[j] + (b.hi[j] - b.lo[j]) * random() END ORDER BY j)
        FROM generate_subscripts(b.lo, 1) j)
FROM (SELECT src, s, count(*) AS n FROM ng GROUP BY 1, 2) g
JOIN LATERAL (SELECT array_agg(lo ORDER BY j) AS lo, array_agg(hi ORDER BY j) AS hi
              FROM (SELECT j, min(x[j]) AS lo, max(x[j]) AS hi FROM ng, generate_subscripts(x, 1) j
                    WHERE ng.src = g.src AND ng.s = g.s AND NOT planted GROUP BY j) t) b ON true
CROSS JOIN LATERAL generate_series(1, greatest(1, round(g.n * CASE WHEN g.src = 'mog-2d' THEN 0.02 ELSE 0.05 END)::int)) p"
echo "| rows | dac.noise | own rows NULL, clean groups | own rows NULL, with planted | planted rows NULL |"
echo "|---|---|---|---|---|"
for lvl in $levels; do
	q -F ' | ' -c "SET dac.noise = $lvl" -c "
	WITH clean AS (SELECT src, dac_cluster(x) OVER (PARTITION BY src, s) AS c FROM ng WHERE NOT planted),
	     mixed AS (SELECT src, planted, dac_cluster(x) OVER (PARTITION BY src, s) AS c FROM ng)
	SELECT '| ' || c.src, $lvl,
	       round(100.0 * avg((c.c IS NULL)::int), 2) || '%',
	       (SELECT round(100.0 * avg((m.c IS NULL)::int), 2) || '%' FROM mixed m WHERE m.src = c.src AND NOT m.planted),
	       (SELECT round(100.0 * avg((m.c IS NULL)::int), 1) || '% |' FROM mixed m WHERE m.src = c.src AND m.planted)
	FROM clean c GROUP BY c.src ORDER BY c.src"
done
# The noise test's cost: each source's groups with planted rows clustered
# with dac.noise off and at the first level, alternately, five times each;
# min and median seconds a round, and the ratio of the medians.
echo
echo "| rows | noise off: min / median s | dac.noise = ${levels%% *}: min / median s | ratio of medians |"
echo "|---|---|---|---|"
q -c "DROP TABLE IF EXISTS ncost" -c "CREATE TABLE ncost (src text, level float8, rep int, s float8)"
for rep in 1 2 3 4 5; do
	for lvl in 0 "${levels%% *}"; do
		q -c "SET dac.noise = $lvl" -c "
		DO \$\$
		DECLARE r record; t0 timestamptz; n bigint;
		BEGIN
			FOR r IN SELECT DISTINCT src FROM ng ORDER BY 1 LOOP
				t0 := clock_timestamp();
				SELECT count(c) INTO n FROM (SELECT dac_cluster(x) OVER (PARTITION BY s) AS c FROM ng WHERE src = r.src) t;
				INSERT INTO ncost VALUES (r.src, $lvl, $rep, extract(epoch FROM clock_timestamp() - t0));
			END LOOP;
		END \$\$"
	done
done
q -F ' | ' -c "
SELECT '| ' || src,
       round(min(s) FILTER (WHERE level = 0)::numeric, 2) || ' / ' || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FILTER (WHERE level = 0))::numeric, 2),
       round(min(s) FILTER (WHERE level > 0)::numeric, 2) || ' / ' || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FILTER (WHERE level > 0))::numeric, 2),
       round(((percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FILTER (WHERE level > 0)) /
              (percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FILTER (WHERE level = 0)))::numeric, 2) || ' |'
FROM ncost GROUP BY src ORDER BY src"
