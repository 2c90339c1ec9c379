#!/bin/bash
# The options are defined once (dac_train_options and dac_cluster_options,
# src/core/options.c, declared in dac.h) and the places that read them
# agree.  Training: for every numeric option, dac_train_options (SQL) gives
# the table's default and refuses a value just outside its range with the
# table's bounds, and so does dac-cli for the options it has a flag for
# (before any training starts); the text and boolean options' defaults are
# the table's in SQL too.  Clustering: every dac.* setting of the table has
# the table's default and range (pg_settings), dac-cli eval refuses a value
# just outside it with the same bounds, and dac_evaluate refuses the sets'
# options (sets, n_max, k_max, seed) outside them.  Usage (against a running
# server, with build/dac-cli built): bash test/options.sh
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

# the text and boolean training options: SQL's defaults are the table's, SQL takes every
# name the table lists (the image model's from a table of images) and refuses one it does not
q -c "CREATE TABLE opt_rows (v real[], c int)" >/dev/null
while read -r tab name flag kind def lo hi open bare; do
	[ "$tab" = train ] || continue
	[ "$kind" = text ] || [ "$kind" = boolean ] || continue
	check "SQL's default $name is the table's ($def)" "$(q -c "SELECT dac_train_options('mog', '{}') ->> '$name'")" "$def"
	[ "$kind" = text ] || continue
	for v in ${lo//|/ }; do
		src=mog
		[ "$v" = ns ] || [ "$v" = setnorm ] && src=opt_rows
		cols=""
		[ "$src" = opt_rows ] && cols=', "vector_column": "v", "label_column": "c"'
		check "SQL takes $name \"$v\", a name of the table's" \
			"$(q -c "SELECT dac_train_options('$src', '{\"$name\": \"$v\"$cols}') ->> '$name'" 2>&1)" "$v"
	done
	check "SQL refuses $name \"nope\", a name the table does not list" \
		"$(q -c "SELECT dac_train_options('mog', '{\"$name\": \"nope\"}')" 2>&1 | grep -c "option \"$name\" must be")" 1
done < <(build/dac-cli options)
# the clustering options: the settings' defaults and ranges, dac-cli's refusals
m=0
while read -r tab name flag kind def lo hi open bare; do
	[ "$tab" = cluster ] || continue
	m=$((m + 1))
	case $name in sets|n_max|k_max|seed)
		check "dac_evaluate refuses $name above $hi" \
			"$(q -c "SELECT dac_evaluate('mlf_mog2d', 'mog', '{\"$name\": $(awk -v h="$hi" 'BEGIN { printf "%.0f", h + 1 }')}')" 2>&1 | grep -o "must be between $lo and $hi" | head -1)" \
			"must be between $lo and $hi"
		got=$(build/dac-cli eval --model weights/mlf_mog2d.safetensors "$flag" "$(awk -v h="$hi" 'BEGIN { printf "%.0f", h + 1 }')" 2>&1 | grep -o "must be between $lo and $hi" | head -1)
		check "dac-cli eval refuses $flag above $hi the same way" "$got" "must be between $lo and $hi"
		continue;;
	esac
	# the module loaded first, so that its settings are defined in the session
	set=$(q -F' ' -c "SELECT dac_version() IS NOT NULL" \
		-c "SELECT boot_val, coalesce(min_val, '-'), coalesce(max_val, '-') FROM pg_settings WHERE name = 'dac.$name'" | tail -1)
	read -r sboot smin smax <<< "$set"
	if [ "$kind" = boolean ] || [ "$kind" = text ]; then
		check "dac.$name defaults to the table's $def" "$sboot" "$([ "$kind" = boolean ] && { [ "$def" = true ] && echo on || echo off; } || echo "$def")"
		continue
	fi
	check "dac.$name: default $def, range $lo .. $hi (the table's)" \
		"$(echo "$sboot $smin $smax" | awk '{printf "%.10g %.10g %.10g", $1, $2, $3}')" \
		"$(echo "$def $lo $hi" | awk '{printf "%.10g %.10g %.10g", $1, $2, $3}')"
	# one more than an integral bound; twice a bound that is not, or that one more cannot pass (1e300)
	above=$(echo "$hi" | awk '{ if ($1 == int($1) && $1 + 1 > $1) printf "%.0f", $1 + 1; else printf "%.10g", $1 * 2 }')
	got=$(build/dac-cli eval --model weights/mlf_mog2d.safetensors --sets 1 "$flag" "$above" 2>&1 | grep -o "must be between $lo and $hi" | head -1)
	check "dac-cli eval refuses $flag $above the same way" "$got" "must be between $lo and $hi"
done < <(build/dac-cli options)
check "every clustering option of the table was tried" "$([ "$m" -ge 17 ] && echo yes)" yes
# At dac.blas_threads = 1 (the default) OpenBLAS starts no worker thread in
# the backend (one a core would spin a while on the other cores); at more,
# it starts them when a product is large enough to share
if [ -d /proc/self/task ]; then
	check "a backend that clustered at dac.blas_threads = 1 has one thread" \
		"$(q -c "SET client_min_messages = warning" \
			-c "SELECT count(*) FROM (SELECT dac_cluster(ARRAY[i, i % 7]::real[]) OVER () FROM generate_series(1, 300) i) c" \
			-c "SELECT count(*) FROM pg_ls_dir('/proc/' || pg_backend_pid() || '/task') t" | tail -1)" 1
fi
rm -f /tmp/dac_options_test.safetensors
dropdb $db
exit $fail
