#!/usr/bin/env bash
# The pictures in docs/, each from what the extension gives today:
#  - docs/img/clusters_2d.png: 2-D sets clustered through the extension with
#    no model named (MoG sets, one of them in metres far from the origin, to
#    show the units), warped sets with the flow model mlf_warped2d, and a set
#    with uniform extra points under dac.noise; the found Gaussians drawn as
#    2σ ellipses of θ (Gaussian models); axes in the data's units;
#  - docs/img/embeddings_2d.png: Fashion-MNIST groups (64-d CNN embeddings of
#    classes the CNN never saw, test/bench/embeddings.py) coloured by true
#    class, by dac_cluster with no model named, by k-means + silhouette and
#    by the tuned Leiden of the embeddings benchmark; drawn in a t-SNE
#    projection of each group (for display only: everything clustered the
#    64-d vectors);
#  - docs/img/quality_vs_cpu.png: ARI against training CPU time, from the
#    checkpoint table in weights/README.md (test/bench/curve.sh printed it).
# matplotlib, scikit-learn and leidenalg from Debian, for these pictures only.
# Usage: bash test/bench/plots.sh [CNN_DIR (/tmp/dac_cnn)]   (needs the
# extension installed; the CNN sets are prepared there when missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
cnn=${1:-/tmp/dac_cnn}
py=/usr/bin/python3
mkdir -p "$cnn"
chmod 755 "$cnn"
[ -f "$cnn/sets.json" ] || DAC_BENCH_SOURCE=cnn OMP_NUM_THREADS=1 $py test/bench/embeddings.py prepare "$cnn" 100 7
chmod 644 "$cnn"/*.csv
tmp=$(mktemp -d)
[ -n "${DAC_PLOTS_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
pg_virtualenv -t -v 15 psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE p AS
SELECT 'a: mog (1000, 4), seed 7, set ' || set_id AS panel, NULL::text AS model, ord, label, x
FROM dac_generate('mog', 2, 1000, 4, 7)
UNION ALL
SELECT 'b: mog (3000, 12), seed 3001, set 1', NULL, ord, label, x FROM dac_generate('mog', 1, 3000, 12, 3001)
UNION ALL
SELECT 'c: the same in metres, 500 km from the origin', NULL, ord, label,
       ARRAY[500000 + 1000 * x[1], 200000 + 1000 * x[2]]::real[] FROM dac_generate('mog', 1, 3000, 12, 3001)
UNION ALL
SELECT 'd: warped (1000, 4), seed 5, set ' || set_id, 'mlf_warped2d', ord, label, x FROM dac_generate('warped_mog', 2, 1000, 4, 5);
-- one set with 2% uniform extra points (label -1), clustered with dac.noise = 0.001
SELECT setseed(0.42) \g /dev/null
INSERT INTO p
SELECT 'e: mog (1000, 4) + 2% uniform, dac.noise = 0.001', NULL, ord, label, x FROM dac_generate('mog', 2, 1000, 4, 7) WHERE set_id = 2
UNION ALL
SELECT 'e: mog (1000, 4) + 2% uniform, dac.noise = 0.001', NULL, 100000 + i, -1, ARRAY[30 * random() - 15, 30 * random() - 15]::real[]
FROM generate_series(1, 15) i;
CREATE TABLE r AS
SELECT panel, coalesce(model, 'no model named') AS model, ord, x[1] AS x, x[2] AS y, label,
       CASE WHEN panel LIKE 'e:%' THEN NULL ELSE dac_cluster(x, model) OVER (PARTITION BY panel) END AS cluster
FROM p;
SET dac.noise = 0.001;
UPDATE r SET cluster = s.c
FROM (SELECT panel, ord, dac_cluster(x) OVER (PARTITION BY panel) AS c FROM p WHERE panel LIKE 'e:%') s
WHERE r.panel = s.panel AND r.ord = s.ord;
\copy r TO '$tmp/clusters.csv' WITH (FORMAT csv, HEADER)
RESET dac.noise;
-- each found cluster's Gaussian (the network's θ) where the model has one
CREATE TABLE s AS
SELECT panel, (dac_cluster_summary(array_agg(x ORDER BY ord))).* FROM p WHERE model IS NULL AND panel NOT LIKE 'e:%' GROUP BY panel;
\copy (SELECT panel, cluster, mean[1] AS mx, mean[2] AS my, stddev[1] AS sx, stddev[2] AS sy FROM s WHERE theta IS NOT NULL) TO '$tmp/summary.csv' WITH (FORMAT csv, HEADER)
-- Fashion-MNIST groups: the first three unseen-class sets of 3 or 4 classes
CREATE TABLE fm (cfg text, split text, set_id int, ord int, label int, v real[]);
\copy fm FROM '$cnn/sets.csv' CSV
CREATE TABLE pick AS
SELECT set_id FROM fm WHERE cfg = 'small' AND split = 'unseen' GROUP BY set_id
HAVING count(DISTINCT label) >= 3 ORDER BY set_id LIMIT 3;
\copy (SELECT set_id, ord, label, dac_cluster(v) OVER (PARTITION BY set_id) AS cluster, v FROM fm JOIN pick USING (set_id) WHERE cfg = 'small' AND split = 'unseen' ORDER BY set_id, ord) TO '$tmp/fm.csv' WITH (FORMAT csv, HEADER)
SQL
grep -o '"method": "Leiden (tuned[^"]*", "cfg": "small", "split": "unseen"' "$cnn/baselines.jsonl" > "$tmp/leiden.txt" || true
/usr/bin/python3 test/bench/plots.py "$tmp" weights/README.md docs/img
