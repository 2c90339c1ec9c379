#!/bin/bash
# The README's SQL runs top to bottom as written: every ```sql block of
# README.md, in order, as one script on a fresh database (the pg_cron block
# needs a server with pg_cron preloaded: test/cron.sh runs it), with the
# tables the README itself creates; the roles alice and bob it grants to
# stand for the reader's users and are made first.  Then again with the
# README's made-up table of 2-D points swapped for 384-d embeddings (the
# variant the README names).  Checks that every later row is assigned and
# that the refit wrote ids.  Usage (against a running server, as a
# superuser): bash test/readme.sh
set -euo pipefail
cd "$(dirname "$0")/.."
db=dac_readme
blocks=$(awk '/^```sql/ {c = 1; b = ""; next} c && /^```/ {c = 0; if (b !~ /cron\./) printf "%s", b; next} c {b = b $0 "\n"}' README.md)
n=$(grep -c '^```sql' README.md)
[ "$n" -ge 6 ] && grep -q "CREATE TABLE items AS" <<<"$blocks" && grep -q "CALL dac_train" <<<"$blocks" ||
	{ echo "not ok - the README's SQL blocks were not found ($n)"; exit 1; }
psql -X -q -d postgres -c "DO \$\$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'alice') THEN CREATE ROLE alice LOGIN; END IF;
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'bob') THEN CREATE ROLE bob LOGIN; END IF; END \$\$"
fail=0
run() {   # label, the blocks
	local out
	dropdb --if-exists $db >/dev/null 2>&1
	createdb $db
	out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d $db 2>&1 <<SQL
SET client_min_messages = warning;
$2
RESET dac.noise;
SELECT 'assigned ' || count(*) FILTER (WHERE c IS NOT NULL) || '/' || count(*)
FROM (SELECT dac_assign(n.embedding, k.clustering) AS c FROM new_items n JOIN kept k USING (grp)) s;
SELECT 'ids kept ' || count(*) FROM items WHERE cluster IS NOT NULL;
SELECT 'width ' || max(cardinality(embedding)) FROM items;
SQL
) || { echo "not ok - the README's SQL runs top to bottom as written ($1)"; tail -5 <<<"$out"; fail=1; dropdb $db; return; }
	echo "ok - the README's SQL runs top to bottom as written ($1: $(grep -c '^```sql' README.md) blocks, the pg_cron one in test/cron.sh)"
	grep -q "^assigned \([0-9]*\)/\1$" <<<"$out" && echo "ok - every new row is assigned ($1)" ||
		{ echo "not ok - every new row is assigned ($1): $(tail -3 <<<"$out")"; fail=1; }
	grep -q "^ids kept [1-9]" <<<"$out" && echo "ok - the refit wrote ids ($1)" || { echo "not ok - the refit wrote ids ($1)"; fail=1; }
	grep -q "^width $3$" <<<"$out" && echo "ok - the table's vectors are $3-d ($1)" || { echo "not ok - the table's vectors are $3-d ($1)"; fail=1; }
	dropdb $db
}
run "2-D points" "$blocks" 2
embed=${blocks//"dac_generate('mog', 3, 300, 4, 5)"/"dac_generate('embed', 3, 300, 4, 5, 384)"}
[ "$embed" != "$blocks" ] || { echo "not ok - the README's made-up table was not found"; exit 1; }
run "384-d embeddings" "$embed" 384
exit $fail
