#!/usr/bin/env bash
# Every test of dac, on a fresh Debian 12 machine, as root or with sudo:
# installs the build and test dependencies, builds, runs the C unit tests of
# the core (float32 and float64 builds) and the pg_regress tests in a
# throwaway PostgreSQL 15 cluster.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
need=()
for p in postgresql-15 postgresql-server-dev-15 postgresql-common libopenblas-dev postgresql-15-pgtap make gcc; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
echo "== build"
make -s PG_CONFIG=$PG_CONFIG
$SUDO make -s PG_CONFIG=$PG_CONFIG install >/dev/null

echo "== core unit tests"
make -s PG_CONFIG=$PG_CONFIG check-core

echo "== pg_regress"
rm -f regression.diffs
if ! pg_virtualenv -v 15 make -s PG_CONFIG=$PG_CONFIG installcheck; then
  [ -f regression.diffs ] && cat regression.diffs
  exit 1
fi
echo "all tests passed"
