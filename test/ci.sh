#!/usr/bin/env bash
# Every test of dac, on a fresh Debian 12 machine, as root or with sudo:
# installs the build and test dependencies, builds, runs the C unit tests of
# the core (float32 and float64 builds, then under AddressSanitizer and
# UndefinedBehaviorSanitizer), a minute of libFuzzer over the weights
# readers, dac-cli's options, then pg_regress, pgTAP, the concurrency,
# training-stop, multi-role security, upgrade and postgres_fdw shard tests in a throwaway
# PostgreSQL 15 cluster, and the pg_cron test in another.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
need=()
for p in postgresql-15 postgresql-server-dev-15 postgresql-common libopenblas-dev postgresql-15-pgtap postgresql-15-cron make gcc clang libclang-rt-14-dev bc dataset-fashion-mnist python3-numpy; do
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

echo "== layers, exported symbols, error messages"
bash test/layers.sh
bash test/symbols.sh
/usr/bin/python3 test/messages.py

echo "== core unit tests"
make -s PG_CONFIG=$PG_CONFIG check-core

echo "== core unit tests under AddressSanitizer and UndefinedBehaviorSanitizer"
make -s PG_CONFIG=$PG_CONFIG check-core-san | tail -3

echo "== fuzzing the weights and optimiser-state readers (libFuzzer, 60 s)"
bash test/fuzz/run.sh "${DAC_FUZZ_SECONDS:-60}" | tail -1

echo "== dac-cli options"
bash test/cli.sh

echo "== SQL tests: pg_regress, pgTAP, concurrency, security, upgrade (throwaway cluster)"
rm -f regression.diffs
pg_virtualenv -t -v 15 bash test/sql_tests.sh

echo "== dac_train on a pg_cron schedule (throwaway cluster with pg_cron preloaded)"
bash test/cron.sh
echo "all tests passed"
