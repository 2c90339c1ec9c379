#!/bin/bash
# dac.so exports what PostgreSQL calls and nothing else: the C functions the
# install and update scripts name (AS 'MODULE_PATHNAME', 'symbol'), their
# pg_finfo_ records, _PG_init and the magic block.  Usage: bash test/symbols.sh
set -euo pipefail
cd "$(dirname "$0")/.."
want=$( (grep -ho "'MODULE_PATHNAME', *'[a-z_0-9]*'" sql/dac--*.sql | sed "s/.*, *'\(.*\)'/\1/" |
	sed 'p; s/^/pg_finfo_/'; printf '%s\n' _PG_init Pg_magic_func) | sort -u)
got=$(nm -D --defined-only dac.so | awk '{print $3}' | sort -u)
if [ "$got" = "$want" ]; then
	echo "ok - dac.so exports the $(echo "$want" | grep -vc '^pg_finfo_\|^_PG_init$\|^Pg_magic_func$') SQL entry points, their info records, _PG_init and Pg_magic_func ($(echo "$got" | wc -l) symbols)"
else
	echo "not ok - dac.so's exported symbols differ from what PostgreSQL calls"
	diff <(echo "$want") <(echo "$got") | sed 's/^</  missing: /; s/^>/  extra: /' | grep -v '^[0-9]'
	exit 1
fi
