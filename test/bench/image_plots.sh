#!/usr/bin/env bash
# The image model's pictures (docs/img/images_clusters.png): three sets of
# Fashion-MNIST test images clustered through the extension, the images of
# each cluster and images decoded under each cluster's θ
# (test/bench/image_plots.py).  Needs dataset-fashion-mnist, python3-torch,
# python3-matplotlib and the extension installed.
# Usage: bash test/bench/image_plots.sh [OUT_DIR (/tmp/dac_image_plots)]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-/tmp/dac_image_plots}
model=${DAC_IMAGE_MODEL:-weights/mlf_fmnist.safetensors}
py=/usr/bin/python3
mkdir -p "$dir"
chmod 777 "$dir"
$py test/bench/image_plots.py sets "$dir"
cp "$model" "$dir/model.safetensors"
chmod 644 "$dir/sets.csv" "$dir/model.safetensors"
rm -f "$dir/ids.csv" "$dir/theta.csv"
pg_virtualenv -t -v 15 bash -s "$dir" <<'SH'
set -euo pipefail
dir=$1
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE plot_sets (set_id int, ord int, label int, px real[]);
\copy plot_sets FROM '$dir/sets.csv' CSV
SELECT dac_import('plot_img', pg_read_binary_file('$dir/model.safetensors'));
\copy (SELECT set_id, ord, dac_cluster(px, 'plot_img') OVER (PARTITION BY set_id) FROM plot_sets) TO '$dir/ids.csv' CSV
\copy (SELECT s.set_id, c.cluster, c.theta FROM (SELECT DISTINCT set_id FROM plot_sets) s, LATERAL dac_cluster_summary((SELECT array_agg(px ORDER BY ord) FROM plot_sets p WHERE p.set_id = s.set_id), 'plot_img') c) TO '$dir/theta.csv' CSV
SQL
SH
$py test/bench/image_plots.py draw "$dir" "$model" docs/img/images_clusters.png
