#!/bin/bash
# The installed module under Valgrind's memcheck: a throwaway server run by
# valgrind (backends are forked, so each is checked), a member of dac_user
# running what freed a model under its caller in 0.25.0 (a volatile function
# in the window function's and the aggregate's argument that replaces the
# model and looks it up again), and a count of memcheck's invalid reads and
# writes, which must be 0 (0.25.0: 309).  Slow (CREATE EXTENSION decodes
# every shipped model under valgrind: about 7 minutes on 2 cores), so not in
# CI.  Usage, after make install, as root or the server's user:
#   bash test/valgrind_server.sh
set -uo pipefail
cd "$(dirname "$0")/.."
. test/check.sh
bin=$(${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} --bindir)
tmp=$(mktemp -d)
chmod 755 "$tmp"
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown postgres "$tmp"
port=$((5600 + RANDOM % 200))
as_pg "$bin/initdb" -D "$tmp/data" -A trust -U postgres >/dev/null
as_pg valgrind --quiet --log-file="$tmp/vg.%p" "$bin/postgres" -D "$tmp/data" -p $port -k "$tmp" \
	-c listen_addresses='' >"$tmp/log" 2>&1 &
for i in $(seq 1 120); do pg_isready -q -h "$tmp" -p $port && break; sleep 1; done
q() { psql -X -q -At -h "$tmp" -p $port -U "$1" -d postgres "${@:2}"; }
q postgres -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" -c "CREATE ROLE bob LOGIN IN ROLE dac_user" >/dev/null
check "bob: the window function and the aggregate cluster on with the model their rows' function replaced" \
	"$(q bob -c "SELECT dac_import('uaf_c', dac_export('mlf_mog2d'))" -c "$(cat <<'SQL'
CREATE FUNCTION pg_temp.f(x real[], i int, at int) RETURNS real[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE junk text;
BEGIN
  IF i = at THEN
    UPDATE dac_models SET weights = (SELECT weights FROM dac_models WHERE name = 'mlf_fast2d'),
           config = (SELECT config FROM dac_models WHERE name = 'mlf_fast2d') WHERE name = 'uaf_c';
    PERFORM dac_cluster_ids('{{0,0}}'::real[], 'uaf_c');
    junk := repeat('A', 20000);
  END IF;
  RETURN x;
END $$;
SQL
)" -c "SELECT count(c) FROM (SELECT dac_cluster(pg_temp.f(ARRAY[g, g % 7]::real[], g, 200), 'uaf_c') OVER (ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) c FROM generate_series(1, 200) g) s" \
		-c "SELECT dac_import('uaf_c', dac_export('mlf_mog2d'))" \
		-c "SELECT cardinality(dac_cluster_agg(pg_temp.f(ARRAY[g, g % 7]::real[], g, 2), 'uaf_c')) FROM generate_series(1, 200) g" 2>&1 | tr '\n' ' ')" "1 200 2 200 "
as_pg "$bin/pg_ctl" -D "$tmp/data" -m fast stop >/dev/null
check "memcheck: no invalid read or write" "$(cat "$tmp"/vg.* | grep -c 'Invalid read\|Invalid write')" 0
rm -rf "$tmp"
exit $fail
