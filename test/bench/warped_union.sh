#!/usr/bin/env bash
# The rule of dac.pair_merge (0.16.0, built into the clustering loop for flow
# models; docs/warped.md), as it was measured through SQL before it was
# built, kept because it runs the rule on any model (the Gaussian ones
# included, where the loop does not apply it): with dac.pair_merge = 0, after
# dac_cluster(x, MODEL), two found clusters are merged when one network pass
# over their points alone (dac_filter) selects at least TAU of each of them,
# the first such pair in order each time, until no pair is.  Prints ARI, NMI
# and k-MAE before and after, and the merges made, for SETS warped_mog sets
# drawn by dac_generate (the same sets as `dac-cli eval --data warped --seed`;
# KIND mog: the Gaussian sets).
# Usage: bash test/bench/warped_union.sh [SETS (300)] [N_MAX (1000)] [K_MAX (4)] [SEED (77)] [TAU (0.9)] [MODEL (mlf_warped2d)] [KIND (warped_mog)]
set -euo pipefail
cd "$(dirname "$0")/../.."
pg_virtualenv -t -v 15 bash -s "${1:-300}" "${2:-1000}" "${3:-4}" "${4:-77}" "${5:-0.9}" "${6:-mlf_warped2d}" "${7:-warped_mog}" <<'SH'
set -euo pipefail
psql -X -q -v ON_ERROR_STOP=1 -v sets="$1" -v n_max="$2" -v k_max="$3" -v seed="$4" -v tau="$5" -v model="$6" -v kind="$7" <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION dac;
SET dac.pair_merge = 0;
CREATE TABLE r AS
SELECT set_id, ord, label, x, dac_cluster(x, :'model') OVER (PARTITION BY set_id) AS c
FROM dac_generate(:'kind', :sets, :n_max, :k_max, :seed);
CREATE FUNCTION pg_temp.shares(s int, a int, b int, m text) RETURNS TABLE (fa float8, fb float8)
LANGUAGE sql AS $$
    WITH u AS (SELECT array_agg(x ORDER BY ord) AS pts, array_agg(c ORDER BY ord) AS cs
               FROM r WHERE set_id = s AND c IN (a, b))
    SELECT avg(f.member::int) FILTER (WHERE u.cs[f.ord] = a)::float8,
           avg(f.member::int) FILTER (WHERE u.cs[f.ord] = b)::float8
    FROM u, dac_filter(u.pts, m) f
$$;
CREATE FUNCTION pg_temp.merge_set(s int, tau float8, m text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    a int;
    b int;
    merged bool;
    merges int := 0;
BEGIN
    LOOP
        merged := false;
        FOR a, b IN SELECT p.c, q.c FROM (SELECT DISTINCT c FROM r WHERE set_id = s) p,
                                          (SELECT DISTINCT c FROM r WHERE set_id = s) q
                    WHERE p.c < q.c ORDER BY 1, 2 LOOP
            IF (SELECT fa >= tau AND fb >= tau FROM pg_temp.shares(s, a, b, m)) THEN
                UPDATE r SET c = a WHERE set_id = s AND c = b;
                merged := true;
                merges := merges + 1;
                EXIT;
            END IF;
        END LOOP;
        EXIT WHEN NOT merged;
    END LOOP;
    RETURN merges;
END $$;
CREATE VIEW scores AS
SELECT round(avg(dac_ari(t, c))::numeric, 4) AS ari, round(avg(dac_nmi(t, c))::numeric, 4) AS nmi,
       round(avg(abs(kt - kc))::numeric, 3) AS k_mae
FROM (SELECT array_agg(label ORDER BY ord) AS t, array_agg(c ORDER BY ord) AS c,
             count(DISTINCT label) AS kt, count(DISTINCT c) AS kc FROM r GROUP BY set_id) s;
\pset footer off
SELECT 'dac_cluster' AS clusters, * FROM scores;
SELECT sum(pg_temp.merge_set(set_id, :tau, :'model')) AS merges FROM (SELECT DISTINCT set_id FROM r) s;
SELECT 'merged by one pass over each pair' AS clusters, * FROM scores;
SQL
SH
