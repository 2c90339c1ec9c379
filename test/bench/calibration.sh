#!/usr/bin/env bash
# Is dac_assign_prob calibrated? (docs/production.md, "Probabilities").
# For every set of each suite, dac_clustering keeps a clustering of 4 rows
# in 5 (ord % 5 <> 0) and the fifth row is assigned to it with dac_assign
# and dac_assign_prob.  A held-out row is
#  - "as clustered" right when dac_assign gives the cluster the row gets when
#    the whole set is clustered (dac_cluster, its ids matched to the kept
#    clustering's by dac_match_ids): what the probability promises;
#  - "true class" right when the cluster's commonest true label among its
#    kept rows is the row's own (this also counts the clustering's mistakes,
#    which no probability computed without labels can know).
# Suites: the embeddings benchmark's Fashion-MNIST test sets, PCA-32 and CNN
# (test/bench/embeddings.py prepares them; all four splits), dac's 384-d
# embed generator and the 2-D MoG sets, each clustered with no model named.
# Prints, per suite: mean probability against each accuracy, the expected
# calibration error over 10 bins, and the reliability table.
# Usage: bash test/bench/calibration.sh [PCA_DIR (/tmp/dac_pca)] [CNN_DIR (/tmp/dac_cnn)]
# Needs dataset-fashion-mnist, python3-sklearn, python3-torch and the
# extension installed; about 10 minutes on 2 cores when the sets are ready.
set -euo pipefail
cd "$(dirname "$0")/../.."
pca=${1:-/tmp/dac_pca}
cnn=${2:-/tmp/dac_cnn}
py=/usr/bin/python3
for d in "$pca" "$cnn"; do
	mkdir -p "$d"
	chmod 755 "$d"
	src=pca
	[ "$d" = "$cnn" ] && src=cnn
	[ -f "$d/sets.json" ] || DAC_BENCH_SOURCE=$src OMP_NUM_THREADS=1 $py test/bench/embeddings.py prepare "$d" 100 7
	chmod 644 "$d"/*.csv
done
lscpu | sed -n 's/^Model name: *//p'
pg_virtualenv -t -v 15 bash -s "$pca" "$cnn" <<'SH'
set -euo pipefail
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
q <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE raw_sets (cfg text, split text, set_id int, ord int, label int, v real[]);
\copy raw_sets FROM '$1/sets.csv' CSV
CREATE TABLE s AS SELECT 'Fashion-MNIST PCA-32, n ' || cfg AS suite, split || set_id AS set_id, ord, label, v FROM raw_sets;
TRUNCATE raw_sets;
\copy raw_sets FROM '$2/sets.csv' CSV
INSERT INTO s SELECT 'Fashion-MNIST CNN-64, n ' || cfg, split || set_id, ord, label, v FROM raw_sets;
INSERT INTO s SELECT 'embed generator, 384-d, n <= 300', set_id::text, ord, label, x FROM dac_generate('embed', 100, 300, 4, 11, 384);
INSERT INTO s SELECT '2-D MoG, n <= 1000, k <= 4', set_id::text, ord, label, x FROM dac_generate('mog', 100, 1000, 4, 11);
ANALYZE s;
SQL
q <<'SQL'
SET client_min_messages = warning;
CREATE TABLE kept AS
SELECT suite, set_id, dac_clustering(array_agg(v ORDER BY ord)) AS c FROM s WHERE ord % 5 <> 0 GROUP BY 1, 2;
-- the same clusterings as 0.10.0 kept them: no temperature, no stability
ALTER TABLE kept ADD c0 jsonb;
UPDATE kept SET c0 = jsonb_set(c, '{clusters}', (SELECT jsonb_agg(e - 'stability') FROM jsonb_array_elements(c->'clusters') e))
                     - 'temperature';
CREATE TABLE part AS
SELECT suite, set_id, ord, label, dac_cluster(v) OVER (PARTITION BY suite, set_id) AS cl FROM s WHERE ord % 5 <> 0;
CREATE TABLE whole AS
SELECT suite, set_id, ord, dac_cluster(v) OVER (PARTITION BY suite, set_id) AS cl FROM s;
CREATE TABLE matched AS
SELECT suite, set_id, o AS ord, m AS cl
FROM (SELECT w.suite, w.set_id, dac_match_ids(array_agg(w.cl ORDER BY w.ord), array_agg(p.cl ORDER BY w.ord)) AS ids,
             array_agg(w.ord ORDER BY w.ord) AS ords
      FROM whole w LEFT JOIN part p USING (suite, set_id, ord) GROUP BY 1, 2) x,
     unnest(ids, ords) AS u(m, o);
CREATE TABLE majority AS
SELECT DISTINCT ON (suite, set_id, cl) suite, set_id, cl, label
FROM part WHERE cl IS NOT NULL GROUP BY suite, set_id, cl, label ORDER BY suite, set_id, cl, count(*) DESC, label;
CREATE TABLE held AS
SELECT h.suite, h.set_id, h.ord, dac_assign_prob(h.v, k.c) AS p, dac_assign_prob(h.v, k.c0) AS p1,
       (dac_assign(h.v, k.c) = m.cl) AS self_ok, (mj.label = h.label) AS truth_ok
FROM s h JOIN kept k USING (suite, set_id) JOIN matched m USING (suite, set_id, ord)
LEFT JOIN majority mj ON mj.suite = h.suite AND mj.set_id = h.set_id AND mj.cl = dac_assign(h.v, k.c)
WHERE h.ord % 5 = 0;
\echo
\echo '| suite | held-out rows | mean probability (0.10.0) | right as clustered | ECE as clustered (0.10.0) | right by true class | ECE by true class (0.10.0) | median temperature |'
\echo '|---|---|---|---|---|---|---|---|'
WITH b AS (
    SELECT suite, least(floor(p * 10), 9) AS bin, count(*) AS n, avg(p)::numeric AS p,
           avg(coalesce(self_ok, false)::int) AS a_self, avg(coalesce(truth_ok, false)::int) AS a_truth
    FROM held GROUP BY 1, 2),
b1 AS (
    SELECT suite, least(floor(p1 * 10), 9) AS bin, count(*) AS n, avg(p1)::numeric AS p,
           avg(coalesce(self_ok, false)::int) AS a_self, avg(coalesce(truth_ok, false)::int) AS a_truth
    FROM held GROUP BY 1, 2),
e1 AS (SELECT suite, sum(n * p) / sum(n) AS p, sum(n * abs(p - a_self)) / sum(n) AS e_self,
              sum(n * abs(p - a_truth)) / sum(n) AS e_truth FROM b1 GROUP BY 1),
t AS (SELECT suite, percentile_cont(0.5) WITHIN GROUP (ORDER BY (c->>'temperature')::float8) AS temp
      FROM kept GROUP BY 1)
SELECT format('| %s | %s | %s (%s) | %s | %s (%s) | %s | %s (%s) | %s |', suite, sum(b.n),
              round(sum(b.n * b.p) / sum(b.n), 3), round(min(e1.p), 3), round(sum(b.n * b.a_self) / sum(b.n), 3),
              round(sum(b.n * abs(b.p - b.a_self)) / sum(b.n), 3), round(min(e1.e_self), 3),
              round(sum(b.n * b.a_truth) / sum(b.n), 3),
              round(sum(b.n * abs(b.p - b.a_truth)) / sum(b.n), 3), round(min(e1.e_truth), 3), round(min(temp)::numeric, 1))
FROM b JOIN t USING (suite) JOIN e1 USING (suite) GROUP BY suite ORDER BY suite \g (tuples_only format=unaligned)
\echo
\echo 'Cost: seconds to keep the clusterings of a suite (dac_clustering, which clusters four rows in five again to measure stability) against clustering the same rows once (dac_cluster_ids)'
\echo
\echo '| suite | dac_cluster_ids s | dac_clustering s | ratio |'
\echo '|---|---|---|---|'
CREATE TABLE cost (suite text, ids_s float8, kept_s float8);
DO $$
DECLARE
    r record;
    t0 timestamptz;
    a float8;
BEGIN
    FOR r IN SELECT DISTINCT suite FROM s ORDER BY 1 LOOP
        t0 := clock_timestamp();
        PERFORM dac_cluster_ids(array_agg(v ORDER BY ord)) FROM s WHERE suite = r.suite AND ord % 5 <> 0 GROUP BY set_id;
        a := extract(epoch FROM clock_timestamp() - t0);
        t0 := clock_timestamp();
        PERFORM dac_clustering(array_agg(v ORDER BY ord)) FROM s WHERE suite = r.suite AND ord % 5 <> 0 GROUP BY set_id;
        INSERT INTO cost VALUES (r.suite, a, extract(epoch FROM clock_timestamp() - t0));
    END LOOP;
END $$;
SELECT format('| %s | %s | %s | %s |', suite, round(ids_s::numeric, 2), round(kept_s::numeric, 2), round((kept_s / ids_s)::numeric, 2))
FROM cost ORDER BY suite \g (tuples_only format=unaligned)
\echo
\echo 'Reliability (all suites but the 2-D one pooled): rows by the probability given'
\echo
\echo '| probability | rows | mean probability | right as clustered | right by true class |'
\echo '|---|---|---|---|---|'
SELECT format('| %s-%s | %s | %s | %s | %s |', round(bin / 10.0, 1), round((bin + 1) / 10.0, 1), count(*), round(avg(p)::numeric, 3),
              round(avg(coalesce(self_ok, false)::int), 3), round(avg(coalesce(truth_ok, false)::int), 3))
FROM (SELECT *, least(floor(p * 10), 9)::int AS bin FROM held WHERE suite NOT LIKE '2-D%') h
GROUP BY bin ORDER BY bin \g (tuples_only format=unaligned)
SQL
SH
