#!/bin/bash
# Two sessions cluster with a model while a third keeps replacing its
# weights (same architecture, other values).  Every clustering must succeed
# and equal the result of one version or the other, never a mix.
# Usage (against a running server): bash test/concurrency.sh DBNAME
set -euo pipefail
db=${1:-postgres}
psql=(psql -X -q -v ON_ERROR_STOP=1 -d "$db")
"${psql[@]}" -o /dev/null <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS conc_pts, conc_seen, conc_expect;
CREATE TABLE conc_pts AS SELECT set_id AS grp, ord AS id, x FROM dac_generate('mog', 8, 400, 4, 99);
SELECT dac_import('conc_a', dac_export('mlf_mog2d'));
-- version B: copy 200 kB of float32 values over the last 200 kB (4-byte aligned)
SELECT dac_import('conc_b', overlay(w placing substring(w from length(w) - 400000 + 1 for 200000)
                                    from length(w) - 200000 + 1))
FROM (SELECT dac_export('mlf_mog2d') AS w) s;
CREATE TABLE conc_expect AS
SELECT m AS which, (SELECT string_agg(ids::text, ';' ORDER BY grp)
                    FROM (SELECT grp, dac_cluster_agg(x, m ORDER BY id) AS ids FROM conc_pts GROUP BY grp) s) AS r
FROM unnest(ARRAY['conc_a', 'conc_b']) m;
CREATE TABLE conc_seen (session int, iter int, r text);
SELECT dac_import('conc_m', dac_export('conc_a'));
SQL
if [ "$("${psql[@]}" -Atc "SELECT count(DISTINCT r) FROM conc_expect")" != 2 ]; then
	echo "not ok - the two versions cluster alike; the test could not see a mix"; exit 1
fi

reader() {
	for i in $(seq 1 15); do
		echo "INSERT INTO conc_seen SELECT $1, $i, string_agg(ids::text, ';' ORDER BY grp) FROM (SELECT grp, dac_cluster_agg(x, 'conc_m' ORDER BY id) AS ids FROM conc_pts GROUP BY grp) s;"
	done | "${psql[@]}"
}
writer() {
	for i in $(seq 1 30); do
		if [ $((i % 2)) = 1 ]; then v=conc_b; else v=conc_a; fi
		echo "SELECT dac_import('conc_m', dac_export('$v'));"
	done | "${psql[@]}" >/dev/null
}
reader 1 & r1=$!
reader 2 & r2=$!
writer & w=$!
fail=0
wait $r1 || { echo "not ok - reader 1 failed"; fail=1; }
wait $r2 || { echo "not ok - reader 2 failed"; fail=1; }
wait $w || { echo "not ok - writer failed"; fail=1; }

read -r seen bad versions replaced <<<"$("${psql[@]}" -AtF' ' -c "
SELECT count(*), count(*) FILTER (WHERE r NOT IN (SELECT r FROM conc_expect)),
       count(DISTINCT r), (SELECT version FROM dac_models WHERE name = 'conc_m')
FROM conc_seen")"
echo "# $seen clusterings of 8 groups, $versions distinct results, model replaced $((replaced - 1)) times"
if [ "$seen" = 30 ] && [ "$fail" = 0 ]; then echo "ok 1 - 30 clusterings ran without an error"; else echo "not ok 1 - $seen of 30 clusterings"; fail=1; fi
if [ "$bad" = 0 ]; then echo "ok 2 - each equals version A or B, never a mix"; else echo "not ok 2 - $bad mixed results"; fail=1; fi
"${psql[@]}" -c "DROP TABLE conc_pts, conc_seen, conc_expect; DELETE FROM dac_models WHERE name IN ('conc_a', 'conc_b', 'conc_m')"
exit $fail
