#!/bin/bash
# The code's layers hold: the core includes no PostgreSQL header; its headers
# include one another without a loop; the glue and dac-cli include the
# core through dac.h alone, which includes no other core header and
# declares every core function they call; and the glue's modules call one another without
# a loop (an edge a -> b when a uses a function or setting
# that b defines; tsort finds any loop).  Usage: bash test/layers.sh
set -uo pipefail
cd "$(dirname "$0")/.."
fail=0
pg=$(grep -ln '#include "\(postgres\|fmgr\|utils/\|catalog/\|access/\)' src/core/*.[ch] || true)
if [ -z "$pg" ]; then echo "ok - src/core includes no PostgreSQL header"; else echo "not ok - PostgreSQL headers in: $pg"; fail=1; fi
edges=$(for f in src/core/*.h src/core/*.c; do
	for h in $(sed -n 's/^#include "\([a-z_0-9]*\.h\)"/\1/p' "$f"); do
		[ -f "src/core/$h" ] && [ "$(basename "$f" .c)" != "$(basename "$h" .h)" ] && echo "$(basename "$f" | sed 's/\.[ch]$//') ${h%.h}"
	done
done)
if echo "$edges" | tsort >/dev/null 2>&1; then echo "ok - the core's files include one another without a loop"; else
	echo "not ok - a loop among the core's includes:"; echo "$edges" | tsort 2>&1 >/dev/null | head; fail=1; fi
# the front door: the glue and dac-cli include dac.h and no other core header
core_headers=$(cd src/core && ls *.h | grep -vx dac.h)
back=$(for f in src/pg/*.[ch] src/cli/*.[ch]; do
	for h in $core_headers; do grep -l "^#include \"$h\"" "$f" >/dev/null && echo "$f: $h"; done
done)
if [ -z "$back" ]; then echo "ok - the glue and dac-cli include one core header, dac.h"; else
	echo "not ok - core headers included past dac.h:"; echo "$back"; fail=1; fi
# dac.h is the front door, not a gathering of the core's headers: it includes none
inc=$(grep -o '^#include "[a-z_0-9]*\.h"' src/core/dac.h || true)
if [ -z "$inc" ]; then echo "ok - dac.h includes no other core header"; else
	echo "not ok - dac.h includes $inc"; fail=1; fi
# and every core function the glue or dac-cli calls is declared there
declared=$(grep -oE '\b(dac_[a-z_0-9]+)\(' src/core/dac.h | tr -d '(' | sort -u)
core_fns=$(grep -hoE '^(dac_[a-z_0-9]+)\(' src/core/*.c | tr -d '(' | sort -u)
used=$(cat src/pg/*.c src/pg/*.h src/cli/*.c src/cli/*.h | grep -v '^[[:space:]]*/\{0,1\}\*' |
	grep -oE '\b(dac_[a-z_0-9]+)\(' | tr -d '(' | sort -u)
past=$(comm -12 <(echo "$used") <(echo "$core_fns") | comm -23 - <(echo "$declared"))
if [ -z "$past" ]; then
	echo "ok - the glue and dac-cli call $(comm -12 <(echo "$used") <(echo "$core_fns") | wc -l) core functions, each declared in dac.h"
else
	echo "not ok - core functions called past dac.h: $(echo $past)"; fail=1
fi
glue=$(for f in src/pg/*.c; do
	syms=$( (grep -oE '^(dac_[a-z_0-9]+)\(' "$f" | tr -d '('; grep -oE '^[a-z].*\b(dac_[a-z_0-9]+) = ' "$f" | grep -oE 'dac_[a-z_0-9]+') | sort -u)
	for s in $syms; do
		for g in $(grep -lw "$s" src/pg/*.c); do
			[ "$g" != "$f" ] && echo "$(basename "$g" .c) $(basename "$f" .c)"
		done
	done
done | sort -u)
if echo "$glue" | tsort >/dev/null 2>&1; then
	echo "ok - the glue's modules call one another without a loop: $(echo "$glue" | tsort | tr '\n' ' ')"
else
	echo "not ok - a loop among the glue's modules:"; echo "$glue" | tsort 2>&1 >/dev/null | head; fail=1
fi
exit $fail
