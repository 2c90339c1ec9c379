#!/usr/bin/env bash
# The main job of dac on a fresh Debian 12 machine: installs what it needs,
# builds and installs the extension, starts a scratch PostgreSQL 15 cluster,
# creates the extension and validates a weights file in the database, then
# clusters generated sets with the command-line driver built from the same core.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
need=()
for p in postgresql-15 postgresql-server-dev-15 postgresql-common libopenblas-dev make gcc; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
make -s PG_CONFIG=$PG_CONFIG
$SUDO make -s PG_CONFIG=$PG_CONFIG install >/dev/null
make -s PG_CONFIG=$PG_CONFIG cli

W=$(base64 -w0 test/data/tiny_mlf.safetensors)
pg_virtualenv -v 15 psql -X -v ON_ERROR_STOP=1 -v w="$W" <<'SQL'
CREATE EXTENSION dac;
SELECT dac_version();
SELECT jsonb_pretty(dac_weights_info(decode(:'w', 'base64'))) AS weights;
SQL

echo "== training a small MLF model on generated 2-D mixtures (60 steps), then clustering 20 new sets"
build/dac-cli train --out build/demo_mlf.safetensors --steps 60 --batch 8 --n-max 200 --seed 1 --log-every 20
build/dac-cli eval --model build/demo_mlf.safetensors --sets 20 --n-max 300 --seed 7
