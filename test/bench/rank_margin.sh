#!/usr/bin/env bash
# The one-cluster test's margin in normal scores (docs/kinds.md, "The
# one-cluster test"): builds a copy of this checkout's HEAD with
# test/bench/patches/rank_margin.patch (the margin read from
# /tmp/dac_bench_switch), installs it, runs the kinds benchmark's default
# once per MARGIN (0: the test in normal scores off), then installs this
# checkout's own build again.  Prints each kind's row per margin; the margin
# is chosen on development sources (the best development ARI over groups of
# 2+ classes that splits no development group of one class) and read on the
# held-out ones.  DIR holds the kinds benchmark's groups (kinds.sh makes
# them); about 2 minutes a margin.
# Usage: bash test/bench/rank_margin.sh DIR MARGIN...
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "$1" && pwd)
shift
. test/bench/patched_build.sh test/bench/patches/rank_margin.patch
for margin in "$@"; do
	echo "$margin" > "$switch"
	chmod a+r "$switch"
	out=$(mktemp -d)
	cp -r "$dir/groups.csv" "$dir/r" "$out/"
	[ -s "$dir/baselines.jsonl" ] && cp "$dir/baselines.jsonl" "$out/"
	chmod -R a+rwX "$out"
	as_pg "DAC_KINDS_GIVEN_K=0 pg_virtualenv -t -v 15 bash test/bench/kinds.sh '$out' 24 2 'm$margin'" | grep -E "^### |^\| m$margin default"
	[ -s "$dir/baselines.jsonl" ] || cp "$out/baselines.jsonl" "$dir/"
	rm -rf "$out"
done
