# Sourced from the repository root by the benchmarks that measure a patched
# build (". test/bench/patched_build.sh PATCH"): installs a copy of this
# checkout's HEAD with PATCH (install_patched.sh), and on exit removes the
# switch file the patches read and the paths in $scratch, and installs this
# checkout's own build again.  Sets root, PG and switch; as_pg CMD runs CMD
# in the repository root as postgres (PostgreSQL refuses root).
root=$PWD
PG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
switch=/tmp/dac_bench_switch
scratch=
trap 'rm -rf "$switch" $scratch; make -C "$root" -s install PG_CONFIG="$PG" >/dev/null' EXIT
bash test/bench/install_patched.sh "$1"
as_pg() {
	if [ "$(id -u)" = 0 ]; then su postgres -c "cd '$root' && $1"; else bash -c "$1"; fi
}
# kinds_copy DIR: a scratch copy of the kinds benchmark's groups in DIR (and
# its baselines, where made) to $out, readable by postgres, removed on exit
kinds_copy() {
	out=$(mktemp -d)
	scratch="$scratch $out"
	cp -r "$1/groups.csv" "$1/r" "$out/"
	[ -s "$1/baselines.jsonl" ] && cp "$1/baselines.jsonl" "$out/"
	chmod -R a+rwX "$out"
}
