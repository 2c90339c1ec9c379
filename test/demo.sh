#!/usr/bin/env bash
# The main job of dac on a fresh Debian 12 machine: installs what it needs,
# builds and installs the extension, starts a scratch PostgreSQL 15 cluster,
# creates the extension, generates a few groups of 2-D points, clusters each
# group with dac_cluster(...) OVER (PARTITION BY ...) and the shipped default
# model, and prints the ids next to the true labels with the ARI per group.
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

pg_virtualenv -t -v 15 psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
\pset footer off
CREATE EXTENSION dac;
SELECT dac_version(), dac_blas_info() AS blas_kernels, current_setting('dac.default_model') AS default_model;

-- four groups of points from the paper's generator (2-D mixtures of Gaussians)
CREATE TABLE points AS
SELECT set_id AS grp, ord AS id, label AS true_label, x AS pt
FROM dac_generate('mog', 4, 400, 4, 11);

\echo '== the first rows of each group: cluster id next to the true label'
SELECT grp, id, pt, true_label, cluster
FROM (SELECT grp, id, pt, true_label,
             dac_cluster(pt) OVER (PARTITION BY grp) AS cluster,
             row_number() OVER (PARTITION BY grp ORDER BY id) AS r
      FROM points) s
WHERE r <= 5 ORDER BY grp, id;

\echo '== per group: points, true and found clusters, ARI and NMI against the truth'
WITH c AS (
  SELECT grp, id, true_label, dac_cluster(pt) OVER (PARTITION BY grp) AS cluster FROM points)
SELECT grp, count(*) AS points,
       count(DISTINCT true_label) AS true_k, count(DISTINCT cluster) AS found_k,
       round(dac_ari(array_agg(true_label ORDER BY id), array_agg(cluster ORDER BY id))::numeric, 3) AS ari,
       round(dac_nmi(array_agg(true_label ORDER BY id), array_agg(cluster ORDER BY id))::numeric, 3) AS nmi
FROM c GROUP BY grp ORDER BY grp;

\echo '== how true labels map to found clusters (group 1)'
SELECT true_label, cluster, count(*)
FROM (SELECT true_label, dac_cluster(pt) OVER () AS cluster FROM points WHERE grp = 1) s
GROUP BY 1, 2 ORDER BY 1, 2;

\echo '== the same groups with the anchored-filtering model, as one array per group'
SELECT grp, round(dac_ari(array_agg(true_label ORDER BY id), dac_cluster_agg(pt, 'af_mog2d' ORDER BY id))::numeric, 3) AS ari_af
FROM points GROUP BY grp ORDER BY grp;
SQL
