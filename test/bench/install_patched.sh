#!/usr/bin/env bash
# Builds a copy of this checkout's HEAD with PATCH (test/bench/patches/) and
# installs it, for a benchmark that measures a patched build; the caller
# installs the checkout's own build again when it is done.
# Usage: bash test/bench/install_patched.sh PATCH
set -euo pipefail
cd "$(dirname "$0")/../.."
patchfile=$(readlink -f "$1")
PG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git archive HEAD | tar -x -C "$src"
patch -s -d "$src" -p1 < "$patchfile"
make -C "$src" -s -j2 PG_CONFIG="$PG" >/dev/null
make -C "$src" -s install PG_CONFIG="$PG" >/dev/null
