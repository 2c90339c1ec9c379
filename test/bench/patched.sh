#!/usr/bin/env bash
# A lever tried as a bench patch (docs/embeddings.md, "Tried after 0.17.0"):
# builds a copy of this checkout's HEAD with PATCH (test/bench/patches/),
# installs it, clusters graph_tune.py's tuning and test sets through the
# extension (no model named) once per VALUE, then installs this checkout's own
# build again.  A patch reads its setting from the file /tmp/dac_bench_switch;
# each VALUE is "LINE" or "LINE;SQL": LINE is written to that file ("off": no
# file, dac as it is), SQL runs before each clustering (e.g. "SET
# dac.graph_neighbors = 0").  Needs graph_tune.py's set files.
# Usage: bash test/bench/patched.sh PATCH SETS_DIR OUT VALUE...
# About 35 seconds a VALUE on one core.
set -euo pipefail
cd "$(dirname "$0")/../.."
patchfile=$(readlink -f "$1")
sets=$2
out=$3
shift 3
mkdir -p "$out"
. test/bench/patched_build.sh "$patchfile"
chmod -R a+rX "$out" "$sets"
chmod a+w "$out"
tags=()
for value in "$@"; do
	line=${value%%;*}
	sql=()
	[ "$line" != "$value" ] && sql=("${value#*;}")
	tag=$(printf '%s' "$value" | tr -c 'A-Za-z0-9.\n' '_')
	tags+=("$tag")
	rm -f "$switch"
	if [ "$line" != off ]; then
		echo "$line" > "$switch"
		chmod a+r "$switch"
	fi
	pg_virtualenv -t -v 15 bash -c 'psql -X -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" &&
		bash "$@"' - "$root/test/bench/cluster_sets.sh" "$sets" "$out" "$tag" "${sql[@]}"
done
/usr/bin/python3 test/bench/graph_tune.py tags "$out" "${tags[@]}"
