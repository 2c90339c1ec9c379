# Sourced from the repository root by the benchmarks that compare builds
# (". test/bench/build_revs.sh REV..."): each REV (a git revision) and HEAD
# built from `git archive` under $work, each installed later with
# `make -C "$work/$rev" -s install PG_CONFIG="$PG"`; on exit $work is removed
# and this checkout's own build installed again.  Sets root, PG, work, revs.
root=$PWD
PG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
work=$(mktemp -d)
trap 'rm -rf "$work"; make -C "$root" -s install PG_CONFIG="$PG" >/dev/null' EXIT
revs=("$@" HEAD)
for rev in "${revs[@]}"; do
	mkdir -p "$work/$rev"
	git archive "$rev" | tar -x -C "$work/$rev"
	make -C "$work/$rev" -s -j2 PG_CONFIG="$PG" >/dev/null 2>&1
done
