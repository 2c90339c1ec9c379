#!/usr/bin/env bash
# Whether a window query over wide vectors sorts in memory: 8,608 rows of
# 384-d embeddings (one embed group) clustered by dac_cluster(x) OVER
# (PARTITION BY grp ORDER BY id), EXPLAIN ANALYZE's sort method at the
# default work_mem and at 64MB (docs/scaling.md).  Needs the extension
# installed.  Usage: bash test/bench/work_mem.sh
set -euo pipefail
pg_virtualenv -t -v 15 psql -X -q -v ON_ERROR_STOP=1 <<'SQL' | grep -E "of vectors|Sort Method"
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE w AS SELECT set_id AS grp, ord AS id, x FROM dac_generate('embed', 1, 20000, 4, 3, 384);
SELECT count(*) || ' rows, ' || pg_size_pretty(sum(pg_column_size(x))) || ' of vectors' AS size FROM w;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp ORDER BY id) FROM w;
SET work_mem = '64MB';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp ORDER BY id) FROM w;
SQL
