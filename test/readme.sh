#!/bin/bash
# The README's "Cluster your table" queries run as written: the sql block of
# that section, against a table items(grp, id, embedding, cluster) and a table
# new_items of later rows, made from the paper's generator.  Usage (against a
# running server, as a superuser): bash test/readme.sh
set -euo pipefail
cd "$(dirname "$0")/.."
db=dac_readme
dropdb --if-exists $db >/dev/null 2>&1
createdb $db
block=$(awk '/^## Cluster your table/ {s = 1} s && /^```sql/ {c = 1; next} c && /^```/ {exit} c' README.md)
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d $db 2>&1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE items AS
SELECT set_id AS grp, set_id * 10000 + ord AS id, x AS embedding, NULL::int AS cluster
FROM dac_generate('mog', 3, 300, 4, 5) WHERE ord % 10 <> 0;
CREATE TABLE new_items AS
SELECT set_id AS grp, set_id * 10000 + ord AS id, x AS embedding
FROM dac_generate('mog', 3, 300, 4, 5) WHERE ord % 10 = 0;
$block
RESET dac.noise;
SELECT 'assigned ' || count(*) FILTER (WHERE c IS NOT NULL) || '/' || count(*)
FROM (SELECT dac_assign(n.embedding, k.clustering) AS c FROM new_items n JOIN kept k USING (grp)) s;
SELECT 'ids kept ' || count(*) FROM items WHERE cluster IS NOT NULL;
SQL
) || { echo "not ok - the README's queries run as written"; tail -5 <<<"$out"; dropdb $db; exit 1; }
echo "ok - the README's queries run as written"
fail=0
grep -q "^assigned \([0-9]*\)/\1$" <<<"$out" && echo "ok - every new row is assigned" || { echo "not ok - every new row is assigned: $(tail -3 <<<"$out")"; fail=1; }
grep -q "^ids kept [1-9]" <<<"$out" && echo "ok - the refit wrote ids" || { echo "not ok - the refit wrote ids"; fail=1; }
dropdb $db
exit $fail
