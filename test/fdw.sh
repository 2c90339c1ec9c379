#!/bin/bash
# Scale-out with postgres_fdw: a coordinator (the server this runs against)
# and two shard servers started here (initdb, as the OS user that owns the
# coordinator's data), each with the extension installed.  The coordinator's
# table is partitioned by the group key, each partition a foreign table on
# a shard; with enable_partitionwise_aggregate and the servers' option
# extensions 'dac', dac_cluster_agg runs on the shards (EXPLAIN VERBOSE shows
# it in the remote SQL) and gives the same ids as one server.  Also: a model
# imported on every node and named through the servers' "options" (an
# aggregate with a text argument is not shipped), dac.* settings reaching the
# shards the same way, and the window function, which postgres_fdw never
# pushes down.  Usage (under pg_virtualenv, as root or as the postgres
# user): bash test/fdw.sh [GROUPS (40)]
set -uo pipefail
groups=${1:-40}
. "$(dirname "$0")/check.sh"
bin=$("${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" --bindir)
base=$(mktemp -d /tmp/dac_fdw.XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$base"
ports=()
for s in 1 2; do
	port=$((5450 + s + RANDOM % 100 * 2))
	as_pg "$bin/initdb" -D "$base/s$s" -A trust -U postgres >/dev/null
	# a clean environment, as a server started by its service has (an
	# OPENBLAS_CORETYPE of the caller's would override the module's choice)
	as_pg env -u OPENBLAS_CORETYPE -u OPENBLAS_NUM_THREADS "$bin/pg_ctl" -D "$base/s$s" -l "$base/s$s.log" -w \
		-o "-p $port -k $base -c listen_addresses=''" start >/dev/null ||
		{ echo "not ok - shard $s starts"; cat "$base/s$s.log"; exit 1; }
	ports+=("$port")
done
cleanup() {
	for s in 1 2; do as_pg "$bin/pg_ctl" -D "$base/s$s" -m immediate stop >/dev/null 2>&1; done
	rm -rf "$base"
}
trap cleanup EXIT
shard() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$base" -p "${ports[$1 - 1]}" -U postgres -d postgres "${@:2}"; }
db=dac_fdw
co() { psql -X -q -At -v ON_ERROR_STOP=1 -d $db "$@"; }
dropdb --if-exists $db >/dev/null 2>&1
createdb $db

for s in 1 2; do
	shard $s -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
		-c "CREATE TABLE points (grp int, id int, x real[])" >/dev/null
done
co -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" -c "CREATE EXTENSION postgres_fdw" >/dev/null
for s in 1 2; do
	co -c "CREATE SERVER shard$s FOREIGN DATA WRAPPER postgres_fdw
	       OPTIONS (host '$base', port '${ports[$s - 1]}', dbname 'postgres', extensions 'dac', async_capable 'true')" \
	   -c "CREATE USER MAPPING FOR CURRENT_USER SERVER shard$s OPTIONS (user 'postgres')"
done
co <<SQL
SET client_min_messages = warning;
CREATE TABLE points (grp int, id int, x real[]) PARTITION BY HASH (grp);
CREATE FOREIGN TABLE points_s1 PARTITION OF points FOR VALUES WITH (MODULUS 2, REMAINDER 0)
    SERVER shard1 OPTIONS (table_name 'points');
CREATE FOREIGN TABLE points_s2 PARTITION OF points FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    SERVER shard2 OPTIONS (table_name 'points');
-- the same rows on the coordinator alone, to compare with
CREATE TABLE local_points AS
SELECT set_id AS grp, ord AS id, x FROM dac_generate('mog', $groups, 1000, 4, 77);
INSERT INTO points SELECT * FROM local_points;
SQL
check "the rows went to the shards by group" \
	"$(( $(shard 1 -c "SELECT count(*) FROM points") + $(shard 2 -c "SELECT count(*) FROM points") ))" \
	"$(co -c "SELECT count(*) FROM local_points")"
check "both shards hold groups" \
	"$(shard 1 -c "SELECT count(DISTINCT grp) > 0 FROM points")$(shard 2 -c "SELECT count(DISTINCT grp) > 0 FROM points")" tt

q="SELECT grp, dac_cluster_agg(x ORDER BY id) AS ids FROM points GROUP BY grp"
plan=$(co -c "SET enable_partitionwise_aggregate = on" -c "EXPLAIN (VERBOSE, COSTS OFF) $q")
echo "$plan" | sed 's/^/#   /'
check "EXPLAIN VERBOSE: both remote queries run dac_cluster_agg on the shards" \
	"$(grep -c 'Remote SQL: SELECT grp, public.dac_cluster_agg(x ORDER BY id' <<<"$plan")" 2
check "the shards are scanned asynchronously" "$(grep -c 'Async Foreign Scan' <<<"$plan")" 2
check "the sharded clustering gives the same ids as one server" \
	"$(co -c "SET enable_partitionwise_aggregate = on" -c "SELECT count(*) FROM ($q) s
	          FULL JOIN (SELECT grp, dac_cluster_agg(x ORDER BY id) AS ids FROM local_points GROUP BY grp) l USING (grp)
	          WHERE s.ids IS DISTINCT FROM l.ids")" 0

# without partitionwise aggregation every row travels to the coordinator
plan=$(co -c "SET enable_partitionwise_aggregate = off" -c "EXPLAIN (VERBOSE, COSTS OFF) $q")
check "with enable_partitionwise_aggregate off the rows are pulled (no remote dac_cluster_agg)" \
	"$(grep -c 'Remote SQL: SELECT grp, public.dac_cluster_agg' <<<"$plan")" 0
# the window function is never pushed down
plan=$(co -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) FROM points")
check "the window function runs on the coordinator (postgres_fdw ships no window function)" \
	"$(grep -c 'Remote SQL: SELECT grp, id, x FROM public.points' <<<"$plan")" 2

# a user model: imported on every node under the same name
co -c "SELECT dac_import('mine', dac_export('af_mog2d'))" >/dev/null
{ printf "SELECT dac_import('mine', decode('"; co -c "SELECT encode(dac_export('mine'), 'base64')" | tr -d '\n'; printf "', 'base64'));\n"; } > "$base/import.sql"
for s in 1 2; do shard $s -f "$base/import.sql" >/dev/null; done
check "the model's weights are the same on every node" \
	"$(shard 1 -c "SELECT md5(dac_export('mine'))") $(shard 2 -c "SELECT md5(dac_export('mine'))")" \
	"$(co -c "SELECT md5(dac_export('mine'))") $(co -c "SELECT md5(dac_export('mine'))")"
# postgres_fdw ships no aggregate with a collatable argument (the model's
# name is text): the named form pulls the rows; name the model on the shards
# with the servers' options instead and call the one-argument form
plan=$(co -c "SET enable_partitionwise_aggregate = on" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT grp, dac_cluster_agg(x, 'mine' ORDER BY id) FROM points GROUP BY grp")
check "dac_cluster_agg(x, 'mine') is not pushed down (a text argument)" \
	"$(grep -c "Remote SQL: SELECT grp, public.dac_cluster_agg" <<<"$plan")" 0
for s in 1 2; do co -c "ALTER SERVER shard$s OPTIONS (ADD options '-c dac.default_model=mine')"; done
check "with the servers' options '-c dac.default_model=mine', the shards cluster with the model, as one server does by name" \
	"$(co -c "SET enable_partitionwise_aggregate = on" -c "SELECT count(*) FROM
	          (SELECT grp, dac_cluster_agg(x ORDER BY id) AS ids FROM points GROUP BY grp) s
	          FULL JOIN (SELECT grp, dac_cluster_agg(x, 'mine' ORDER BY id) AS ids FROM local_points GROUP BY grp) l USING (grp)
	          WHERE s.ids IS DISTINCT FROM l.ids")" 0
for s in 1 2; do co -c "ALTER SERVER shard$s OPTIONS (DROP options)"; done

# settings: SET on the coordinator does not reach the shards; the server's
# libpq "options" does
noise_q="SELECT sum(cardinality(array_positions(ids, NULL))) FROM (SELECT grp, dac_cluster_agg(x ORDER BY id) AS ids FROM %s GROUP BY grp) s"
local_noise=$(co -c "SET dac.noise = 0.01" -c "$(printf "$noise_q" local_points)")
check "SET dac.noise on the coordinator does not reach the shards (no NULL ids there)" \
	"$(co -c "SET enable_partitionwise_aggregate = on" -c "SET dac.noise = 0.01" -c "$(printf "$noise_q" points)")" 0
for s in 1 2; do co -c "ALTER SERVER shard$s OPTIONS (ADD options '-c dac.noise=0.01')"; done
check "the servers' options '-c dac.noise=0.01' give the shards the coordinator's noise ids" \
	"$(co -c "SET enable_partitionwise_aggregate = on" -c "$(printf "$noise_q" points)")" "$local_noise"
for s in 1 2; do co -c "ALTER SERVER shard$s OPTIONS (DROP options)"; done

# DAC_FDW_BENCH=1: seconds for all groups, one server against two shards
# (5 runs each, alternating; min and median)
if [ "${DAC_FDW_BENCH:-0}" = 1 ]; then
	one=(); two=()
	for r in 1 2 3 4 5; do
		t0=$(date +%s.%N)
		co -c "SELECT sum(cardinality(ids)) FROM (SELECT grp, dac_cluster_agg(x ORDER BY id) AS ids FROM local_points GROUP BY grp) s" >/dev/null
		t1=$(date +%s.%N)
		co -c "SET enable_partitionwise_aggregate = on" -c "SELECT sum(cardinality(ids)) FROM ($q) s" >/dev/null
		t2=$(date +%s.%N)
		one+=("$(echo "$t1 - $t0" | bc -l)"); two+=("$(echo "$t2 - $t1" | bc -l)")
	done
	python3 - "${one[*]}" "${two[*]}" "$groups" <<'PY'
import statistics, sys
one = [float(v) for v in sys.argv[1].split()]
two = [float(v) for v in sys.argv[2].split()]
print("| %s groups of up to 1,000 2-D points, mlf_mog2d | min s | median s |" % sys.argv[3])
print("|---|---|---|")
print("| one server (the coordinator's own table) | %.2f | %.2f |" % (min(one), statistics.median(one)))
print("| two shards (postgres_fdw, partitionwise aggregate) | %.2f | %.2f |" % (min(two), statistics.median(two)))
print("| speed-up | %.2fx | %.2fx |" % (min(one) / min(two), statistics.median(one) / statistics.median(two)))
PY
fi
dropdb $db
exit $fail
