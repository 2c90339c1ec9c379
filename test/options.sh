#!/bin/bash
# The training options are defined once (src/core/options.h) and the three
# places that read them agree: for every option, dac_train_options (SQL)
# gives the table's default and refuses a value just outside its range with
# the table's bounds, and so does dac-cli for the options it has a flag for
# (before any training starts).  Usage (against a running server, with
# build/dac-cli built): bash test/options.sh
set -uo pipefail
. "$(dirname "$0")/check.sh"
cd "$(dirname "$0")/.."
db=dac_options
dropdb --if-exists $db
createdb $db
q() { psql -X -q -At -d $db "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" >/dev/null
check "the SQL defaults are the table's" \
	"$(q -c "SELECT count(*) FROM dac_internal.dac_train_option_table() t
	         WHERE t.default_value IS NOT NULL AND t.name NOT LIKE 'maf%' AND t.name NOT LIKE 'image%'
	           AND (dac_train_options('mog', '{}') ->> t.name)::numeric IS DISTINCT FROM t.default_value")" 0
rows=$(q -F' ' -c "SELECT name, \"integer\", min, max, min_open, coalesce(cli_flag, '-'),
                          CASE WHEN \"integer\" THEN (max + 1)::text ELSE (max * 2)::text END,
                          CASE WHEN min_open THEN min::text WHEN \"integer\" THEN (min - 1)::text ELSE (min - 1)::text END
                   FROM dac_internal.dac_train_option_table() ORDER BY name")
n=0
while read -r name int lo hi open flag above below; do
	n=$((n + 1))
	if [ "$open" = t ]; then range="greater than $lo and at most $hi"; else range="between $lo and $hi"; fi
	opts="{\"$name\": $above}"
	[ "${name#maf_}" != "$name" ] && opts="{\"$name\": $above, \"density\": \"maf\"}"
	for v in "$above" "$below"; do
		opts="{\"$name\": $v}"
		[ "${name#maf_}" != "$name" ] && opts="{\"$name\": $v, \"density\": \"maf\"}"
		[ "${name#image_}" != "$name" ] && opts="{\"$name\": $v, \"density\": \"ns\"}"
		got=$(q -c "SELECT dac_train_options('warped_mog', '$opts')" 2>&1 | grep -o "must be $range" | head -1)
		check "SQL refuses $name = $v: must be $range" "$got" "must be $range"
		if [ "$flag" != - ]; then
			got=$(build/dac-cli train --out /tmp/dac_options_test.safetensors --data warped --density maf "$flag" "$v" 2>&1 >/dev/null | grep -o "must be $range" | head -1)
			check "dac-cli refuses $flag $v the same way" "$got" "must be $range"
		fi
	done
done <<< "$rows"
check "every option of the table was tried" "$([ "$n" -ge 20 ] && echo yes)" yes
rm -f /tmp/dac_options_test.safetensors
dropdb $db
exit $fail
