#!/usr/bin/env bash
# The cost of the embedding sizes users have (docs/embeddings.md): groups of
# n 'embed' vectors of dimension 32, 384, 768 and 1,536 clustered by
# mlf_embed through dac_cluster_agg; seconds per group (min and median of 5
# runs of 10 groups), the memory one clustering needs (from dac.memory_limit's
# estimate for the window function: the error of a limit set too low names it), and the share of the
# time the set normalisation takes (the network sees 32 columns whatever d).
# Needs the extension installed.  Usage: bash test/bench/dims.sh [N (1000)]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-1000}
pg_virtualenv -t -v 15 psql -X -q -v ON_ERROR_STOP=1 -v n="$n" <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE g AS
SELECT d, set_id, ord, x FROM (VALUES (32), (384), (768), (1536)) dims(d),
       LATERAL dac_generate('embed', 10, :n, 4, 17, d) WHERE ord <= :n;
CREATE TABLE timing (d int, rep int, seconds double precision);
DO $$
DECLARE
    dd int;
    r int;
    t0 timestamptz;
    dummy bigint;
BEGIN
    FOR dd IN SELECT DISTINCT d FROM g ORDER BY d LOOP
        FOR r IN 1 .. 5 LOOP
            t0 := clock_timestamp();
            SELECT sum(cardinality(c)) INTO dummy FROM (SELECT dac_cluster_agg(x, 'mlf_embed' ORDER BY ord) AS c
                                                        FROM g WHERE d = dd GROUP BY set_id) s;
            INSERT INTO timing VALUES (dd, r, extract(epoch FROM clock_timestamp() - t0) / 10);
        END LOOP;
    END LOOP;
END
$$;
-- the memory estimate: run once under a 1 MB limit (the least) and read the figure from the error
CREATE FUNCTION pg_temp.need(dd int) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    SET LOCAL dac.memory_limit = '1MB';
    PERFORM dac_cluster(x, 'mlf_embed') OVER () FROM g WHERE d = dd AND set_id = 1;
    RETURN 'under 1 MB';
EXCEPTION WHEN program_limit_exceeded THEN
    RETURN substring(SQLERRM FROM 'needs ([0-9]+ kB)');
END $$;
\pset footer off
\echo
\echo groups of up to :n points (n ~ U{0.3·:n .. :n − 1}), mlf_embed (32 network inputs), one core
SELECT t.d AS "dimension", round(min(seconds)::numeric, 4) AS "s/group (min)",
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds))::numeric, 4) AS "s/group (median)",
       round((min(seconds) / (SELECT min(seconds) FROM timing WHERE d = 32))::numeric, 2) AS "vs 32-D",
       pg_temp.need(t.d) AS "memory per clustering"
FROM timing t GROUP BY t.d ORDER BY t.d;
SQL
