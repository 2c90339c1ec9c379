#!/bin/bash
# A generated matrix of hostile calls to every SQL entry point a member of
# dac_user (and a role with no grant) can reach, against every kind of model:
# widths against raw 2-D, raw 8-D and normalising models, MLF and AF,
# Gaussian, flow and no density head; sizes claimed in kept clusterings and
# weights configs; settings naming missing, foreign and too-narrow models.
# Each call must return or raise a clean error: never an internal error
# (XX000), never a crash (the checkpointer's start, which a crash-restart
# renews while the postmaster's start time stays, is checked after every
# block; test/security.sh shows the check seeing a restart it provokes).  The core paths these calls reach run under AddressSanitizer in
# the unit tests (test_hostile.c: filter_any_width, claimed_sizes).
# Usage (against a running server, as a superuser): bash test/sql_fuzz.sh
set -uo pipefail
cd "$(dirname "$0")/.."
db=dac_fuzz
fail=0
pass=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
bad() { echo "not ok - $1"; fail=$((fail + 1)); }
su() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
alive() { su -c "SELECT backend_start FROM pg_stat_activity WHERE backend_type = 'checkpointer'" 2>/dev/null; }

dropdb --if-exists $db >/dev/null 2>&1
su -d postgres -c "DROP ROLE IF EXISTS fuzz_user" -c "DROP ROLE IF EXISTS fuzz_plain" >/dev/null 2>&1
createdb $db
su -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
	-c "CREATE ROLE fuzz_user IN ROLE dac_user" -c "CREATE ROLE fuzz_plain" \
	-c "GRANT SET ON PARAMETER dac.memory_limit TO fuzz_user" >/dev/null
started=$(alive)

# models of every kind the matrix runs against, owned by fuzz_user
su -c "CREATE TABLE fz_items AS SELECT g AS id, g % 5 AS label, ARRAY(SELECT ((g * 7 + j * 3) % 11)::real FROM generate_series(1, 8) j) AS v FROM generate_series(1, 400) g" \
	-c "GRANT SELECT ON fz_items TO fuzz_user" >/dev/null
su -c "SET ROLE fuzz_user" -c "SET client_min_messages = warning" \
	-c "CALL dac_train('fz_raw8', 'fz_items', '{\"vector_column\": \"v\", \"label_column\": \"label\", \"input\": \"raw\", \"steps\": 2, \"batch\": 1, \"n_max\": 40, \"dim_hidden\": 8, \"num_heads\": 2, \"num_inds\": 2}')" \
	-c "CALL dac_train('fz_af', 'mog', '{\"strategy\": \"af\", \"steps\": 2, \"batch\": 1, \"n_max\": 20, \"dim_hidden\": 8, \"num_heads\": 2, \"num_inds\": 2}')" \
	-c "CALL dac_train('fz_set', 'embed', '{\"steps\": 2, \"batch\": 1, \"n_max\": 20, \"dim_hidden\": 8, \"num_heads\": 2, \"num_inds\": 2}')" >/dev/null
models="mlf_mog2d af_mog2d mlf64_mog2d mlf_embed mlf_warped2d mlf_small2d mlf_fast2d fz_raw8 fz_af fz_set"

# the points of a group: n points of width w, some far apart
pts() {	# n w scale
	echo "(SELECT array_agg(ARRAY(SELECT ((g * 31 + j * 17) % 23 * $3)::real FROM generate_series(1, $2) j) ORDER BY g) FROM generate_series(1, $1) g)"
}
gen() {	# the SQL of the matrix, one pg_temp.err call a line
	cat <<'SQL'
SET client_min_messages = warning;
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN query_canceled OR OTHERS THEN
    RETURN SQLSTATE;
END $$;
SQL
	for m in $models; do
		for w in 1 2 3 8 31 32 33 100 2000; do
			for n in 1 2 7 150; do
				p=$(pts $n $w 1)
				for f in "SELECT count(*) FROM dac_filter($p, '$m')" \
					"SELECT count(*) FROM dac_filter($p, '$m', $n)" \
					"SELECT count(*) FROM dac_cluster_set($p, '$m')" \
					"SELECT dac_cluster_ids($p, '$m')" \
					"SELECT count(*) FROM dac_cluster_summary($p, '$m')" \
					"SELECT dac_assign(($p)[1:1][1:$w], dac_clustering($p, '$m'))"; do
					echo "SELECT \$l\$$m w$w n$n\$l\$, pg_temp.err(\$q\$$f\$q\$);"
				done
			done
			# the window function and the aggregate, rows of mixed widths after the first
			echo "SELECT \$l\$$m w$w window\$l\$, pg_temp.err(\$q\$SELECT count(c) FROM (SELECT dac_cluster(v, '$m') OVER () AS c FROM (SELECT ARRAY(SELECT (g * j % 7)::real FROM generate_series(1, $w + (g % 3 = 0)::int) j) AS v FROM generate_series(1, 30) g) s) t\$q\$);"
			echo "SELECT \$l\$$m w$w agg\$l\$, pg_temp.err(\$q\$SELECT dac_cluster_agg(ARRAY(SELECT (g * j % 7)::double precision FROM generate_series(1, $w) j), '$m') FROM generate_series(1, 30) g\$q\$);"
		done
		# values at the edges of real, NaN, empty and nested arrays
		for v in "'{{1e38,1e38},{-1e38,-1e38},{0,0}}'::real[]" "'{{NaN,0},{0,0}}'::real[]" "'{}'::real[]" \
			"'{{{1,2}},{{3,4}}}'::real[]" "'{{1,NULL},{2,3}}'::real[]" "'{{1e300,0},{0,0}}'::float8[]"; do
			echo "SELECT \$l\$$m edge\$l\$, pg_temp.err(\$q\$SELECT count(*) FROM dac_cluster_set($v, '$m')\$q\$);"
			echo "SELECT \$l\$$m edge filter\$l\$, pg_temp.err(\$q\$SELECT count(*) FROM dac_filter($v, '$m')\$q\$);"
			# a cluster's width at the edges of double, against points at the edges of real
			for wd in 0 4.9e-324 1e-300 1e-30 1 1e30 1e300; do
				echo "SELECT \$l\$$m edge width $wd\$l\$, pg_temp.err(\$q\$SELECT dac_cluster_ids($v, '$m', width => $wd)\$q\$);"
			done
		done
		for wd in 4.9e-324 1e-300 1e300; do
			echo "SELECT \$l\$$m width $wd window\$l\$, pg_temp.err(\$q\$SELECT count(c) FROM (SELECT dac_cluster(ARRAY[g * 1e30, (g % 7) * 1e-30]::float8[], '$m', width => $wd) OVER () AS c FROM generate_series(1, 300) g) s\$q\$);"
		done
	done
	# kept clusterings claiming sizes their text does not hold
	for dim in 1 2 1000000 2147483647 -1; do
		for k in 1 100 10000; do
			echo "SELECT \$l\$json dim$dim k$k\$l\$, pg_temp.err(\$q\$SELECT dac_assign('{1,2}'::real[], ('{\"dac_clustering\": 1, \"dim\": $dim, \"n\": $k, \"noise\": 0, \"density\": \"gaussian_diag\", \"clusters\": [' || (SELECT string_agg(format('{\"id\": %s, \"size\": 1, \"mean\": [0, 0], \"stddev\": [1, 1]}', g), ',') FROM generate_series(1, $k) g) || ']}')::jsonb)\$q\$);"
			echo "SELECT \$l\$json prob dim$dim k$k\$l\$, pg_temp.err(\$q\$SELECT dac_assign_prob('{1,2}'::real[], ('{\"dac_clustering\": 1, \"dim\": $dim, \"n\": 1, \"noise\": 0, \"density\": \"none\", \"clusters\": [{\"id\": $k, \"size\": 1, \"mean\": [0, 0], \"stddev\": [-1, 1]}]}')::jsonb)\$q\$);"
		done
	done
	# weights configs claiming sizes their tensors do not hold
	for cfg in '"dim_hidden": 4096, "num_blocks": 64, "shared_blocks": false' '"dim_hidden": 1024, "num_inds": 1024' \
		'"dim_input": 16384, "input": "setnorm"' '"dim_hidden": 7, "num_heads": 2' '"num_blocks": 0' \
		'"density": "maf", "num_made": 64, "dim_hids": 4096' '"dim_input": -5' \
		'"settings": {"k": 3}' '"settings": {"absorb_size": 1e300}' '"settings": [1]' '"settings": {"leftover": 2}'; do
		echo "SELECT \$l\$weights $cfg\$l\$, pg_temp.err(\$q\$WITH h AS (SELECT convert_to('{\"__metadata__\":{\"dac.config\":' || to_json('{\"strategy\": \"mlf\", \"density\": \"gaussian_diag\", \"dim_input\": 2, \"dim_hidden\": 16, \"num_heads\": 4, \"num_inds\": 4, \"num_blocks\": 2, \"shared_blocks\": true, $cfg}'::text)::text || '},\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}', 'UTF8') AS j) SELECT dac_weights_info((SELECT string_agg(set_byte('\\x00'::bytea, 0, ((octet_length(j)::bigint >> (8*i)) & 255)::int), ''::bytea ORDER BY i) FROM generate_series(0, 7) i) || j || '\\x0000803f'::bytea) FROM h\$q\$);"
	done
	# generators at the edges of their ranges
	for a in "'embed', 1, 4, 10000, 1, 16384" "'mog', 1, 10000000, 10000, 1, 16384" "'warped_mog', 2, 5, 3, 1, 3" \
		"'embed', 1000000, 10000000, 1, 1, 1" "'nope', 1, 4, 2, 1, 2" "'mog', 0, 4, 2, 1, 2"; do
		echo "SELECT \$l\$generate $a\$l\$, pg_temp.err(\$q\$SELECT count(*) FROM dac_generate($a)\$q\$);"
	done
	# settings naming models that are missing, too narrow or not the caller's
	for s in "dac.default_model=nope" "dac.default_model=fz_raw8" "dac.default_model=mlf_embed" \
		"dac.default_embedding_model=nope" "dac.default_embedding_model=mlf_mog2d" "dac.default_embedding_model=" \
		"dac.small_group_models=mlf_mog2d:fz_raw8" "dac.small_group_models=mlf_mog2d:mlf_embed" \
		"dac.large_group_models=mlf_mog2d:nope" "dac.small_group_models=:,:" "dac.max_passes=1"; do
		k=${s%%=*}
		v=$(echo "${s#*=}" | tr : =)
		for w in 2 8 64; do
			echo "SELECT \$l\$setting $s w$w\$l\$, pg_temp.err(\$q\$SELECT dac_cluster_ids($(pts 20 $w 1)) FROM (SELECT set_config('$k', '$v', true)) c\$q\$);"
			echo "SELECT \$l\$setting $s w$w window\$l\$, pg_temp.err(\$q\$SELECT count(c) FROM (SELECT set_config('$k', '$v', true)) s0, (SELECT dac_cluster(v) OVER () AS c FROM (SELECT ARRAY(SELECT (g * j % 7)::real FROM generate_series(1, $w) j) AS v FROM generate_series(1, 30) g) s) t\$q\$);"
		done
	done
	# metrics and id matching on hostile labelings
	for a in "'{}'::int[], '{}'::int[]" "'{1,2}'::int[], '{1}'::int[]" "'{{1,2}}'::int[], '{{1,2}}'::int[]" \
		"'{1,NULL}'::int[], '{1,2}'::int[]" "'{-2147483648,2147483647}'::int[], '{0,0}'::int[]"; do
		echo "SELECT \$l\$metrics $a\$l\$, pg_temp.err(\$q\$SELECT dac_ari($a), dac_nmi($a), dac_match_ids($a)\$q\$);"
	done
}

sqlf=$(mktemp /tmp/dac_fuzz.XXXXXX.sql)
trap 'rm -f "$sqlf"' EXIT
gen > "$sqlf"
calls=$(grep -c "^SELECT .*pg_temp.err(" "$sqlf")
# as a member of dac_user, under a small memory limit, every call in one session
# (a call may run long within the limits, dac_generate of a million sets say:
# statement_timeout ends it, which is a clean outcome too: 57014)
out=$(psql -X -q -At -d "$db" -c "SET ROLE fuzz_user" -c "SET dac.memory_limit = '64MB'" -c "SET statement_timeout = '10s'" \
	-f "$sqlf" 2>&1)
internal=$(echo "$out" | grep -c '|XX000$')
returned=$(echo "$out" | grep -c '|[0-9A-Zok]*$')
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', want '$3')"; fi; }
check_eq "fuzz_user: every one of the $calls calls returned a row (no crash, no lost session)" "$returned" "$calls"
check_eq "fuzz_user: no internal error (XX000)" "$internal" 0
echo "$out" | grep '|XX000$' | head -5
echo "# outcomes: $(echo "$out" | awk -F'|' 'NF == 2 {c[$2]++} END {for (k in c) printf "%s %d, ", k, c[k]}')"
check_eq "the server never restarted" "$(alive)" "$started"

# a role with no grant: the same calls end in clean errors or pure results
out=$(psql -X -q -At -d "$db" -c "SET ROLE fuzz_plain" -c "SET statement_timeout = '10s'" -f "$sqlf" 2>&1)
check_eq "fuzz_plain: every call returned a row" "$(echo "$out" | grep -c '|[0-9A-Zok]*$')" "$calls"
check_eq "fuzz_plain: no internal error (XX000)" "$(echo "$out" | grep -c '|XX000$')" 0
check_eq "fuzz_plain: no model was read (only the pure functions ran)" \
	"$(echo "$out" | grep -E '^(mlf|af|fz)' | grep -vc '|42501$\|42704$\|22004$\|22000$\|22023$\|54000$\|22003$')" 0
check_eq "the server never restarted" "$(alive)" "$started"

dropdb $db
su -d postgres -c "REVOKE SET ON PARAMETER dac.memory_limit FROM fuzz_user" -c "DROP ROLE fuzz_user" -c "DROP ROLE fuzz_plain" >/dev/null 2>&1
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
