#!/usr/bin/env bash
# What every clustering form returns, as one md5 a case: every shipped model
# (and the default choice) on 2-D sets, embeddings, large groups and images,
# under each setting that switches a stage on or off.  Two builds that print the
# same lines cluster alike, byte for byte: a restructuring of the stages must
# leave every line as it was.  The stages' names, which dac_clustering reports,
# are left out of its md5.  Runs against the server of the caller's environment
# (inside pg_virtualenv), where dac is installed.
# Usage: bash test/bench/fingerprint.sh > FILE   (about 10 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
DROP TABLE IF EXISTS fp_sets, fp_img;
CREATE TABLE fp_sets AS
      SELECT 'mog' AS data, set_id, ord, x FROM dac_generate('mog', 8, 1200, 8, 11)
UNION ALL SELECT 'warped', set_id, ord, x FROM dac_generate('warped_mog', 4, 600, 4, 12)
UNION ALL SELECT 'embed384', set_id, ord, x FROM dac_generate('embed', 6, 300, 6, 13, 384)
UNION ALL SELECT 'embed64_large', set_id, ord, x FROM dac_generate('embed', 2, 3000, 6, 14, 64);
CREATE TABLE fp_img (id int, grp int, label int, px real[]);
\copy fp_img FROM 'test/data/fmnist_groups.csv' CSV
SQL
cases=(
	"mog|"
	"mog|mlf_mog2d"
	"mog|af_mog2d"
	"mog|mlf64_mog2d"
	"mog|mlf_fast2d"
	"mog|mlf_small2d"
	"mog|mlf_warped2d"
	"mog|mlf_embed"
	"warped|"
	"warped|mlf_warped2d"
	"embed384|"
	"embed64_large|"
)
settings=(
	""
	"SET dac.noise = 0.01"
	"SET dac.rotations = 4"
	"SET dac.em_steps = 20"
	"SET dac.reassign = on"
	"SET dac.leftover = best"
	"SET dac.leftover = first"
	"SET dac.min_cluster_size = 5"
	"SET dac.absorb_size = 1"
	"SET dac.pair_merge = 0"
	"SET dac.pair_split = off"
	"SET dac.refine_rounds = 1"
	"SET dac.k_search = 0"
	"SET dac.graph_neighbors = 0"
	"SET dac.graph_merge = 0"
	"SET dac.kmeans_steps = 0"
	"SET dac.sample_size = 200"
	"SET dac.k = 3"
	"SET dac.max_k = 2"
)
run() {
	local data=$1 model=$2 set=$3
	local m="NULL"
	[ -n "$model" ] && m="'$model'"
	printf '%s\t%s\t%s\t' "$data" "${model:-default}" "${set:-defaults}"
	psql -X -q -A -t -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" ${set:+-c "$set"} -c "
		SELECT md5(string_agg(set_id || ':' || ord || ':' || coalesce(c::text, 'N'), ',' ORDER BY set_id, ord))
		FROM (SELECT set_id, ord, dac_cluster(x, $m) OVER (PARTITION BY set_id) AS c
		      FROM fp_sets WHERE data = '$data') s" | tr -d '\n'
	printf '\t'
	psql -X -q -A -t -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" ${set:+-c "$set"} -c "
		SELECT md5(string_agg(j::text, ',' ORDER BY set_id))
		FROM (SELECT set_id, dac_clustering(array_agg(x ORDER BY ord), $m) - 'stages' AS j
		      FROM fp_sets WHERE data = '$data' AND set_id <= 2 GROUP BY set_id) s" | tr -d '\n'
	printf '\n'
}
for c in "${cases[@]}"; do
	for s in "${settings[@]}"; do
		run "${c%%|*}" "${c#*|}" "$s"
	done
done
for s in "" "SET dac.k = 3" "SET dac.noise = 0.01" "SET dac.min_cluster_size = 5"; do
	printf 'images\tmlf_fmnist\t%s\t' "${s:-defaults}"
	psql -X -q -A -t -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" ${s:+-c "$s"} -c "
		SELECT md5(string_agg(id || ':' || coalesce(c::text, 'N'), ',' ORDER BY id))
		FROM (SELECT id, dac_cluster(px, 'mlf_fmnist') OVER (PARTITION BY grp) AS c FROM fp_img) s"
done
