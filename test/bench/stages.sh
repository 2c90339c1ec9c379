#!/usr/bin/env bash
# What each stage adds, per kind of data: the kinds benchmark's groups (made
# by test/bench/kinds.sh in DIR) clustered by the default with every stage,
# and with each stage after the network's passes turned off by its setting
# (the graph stage, the count searches with the one-cluster test, k-means
# steps, the modes stage of 2-D models), then with all four off (the
# network's passes alone).  Rows of
# the kinds tables, in DIR/stages (the groups and baselines copied there).
#   pg_virtualenv -t -v 15 bash test/bench/stages.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$(cd "$1" && pwd)
out=$src/stages
mkdir -p "$out"
cp "$src/groups.csv" "$src/baselines.jsonl" "$out/"
rm -f "$out"/stage_*.csv "$out"/stage_*.jsonl
export DAC_KINDS_GIVEN_K=0
run() { bash test/bench/kinds.sh "$out" 24 2 "$1" "$2" | sed -n '/^### /,$p' > "$out/report.md"; }
run "stage_all" ""
run "stage_no_graph" "-c dac.graph_neighbors=0"
run "stage_no_count_searches" "-c dac.k_search=0"
run "stage_no_kmeans_steps" "-c dac.kmeans_steps=0"
run "stage_no_modes" "-c dac.mode_merge=0"
run "stage_passes_alone" "-c dac.graph_neighbors=0 -c dac.k_search=0 -c dac.kmeans_steps=0 -c dac.mode_merge=0"
cat "$out/report.md"
