#!/usr/bin/env bash
# The graph stage's two scales (docs/kinds.md, "What the tables say"): builds
# a copy of this checkout's HEAD with test/bench/patches/graph_scales.patch
# (the finer scale's factor, where the resolution finds more than one
# community, the silhouette margin by which its partition may fall below the
# coarser one's, and whether graph_merge's partition stands where it does
# not, read from /tmp/dac_bench_switch as "FACTOR MARGIN FALLBACK"; MARGIN
# -1: no silhouette test, -2: the finer scale never stands, as in 0.41.0;
# FALLBACK 0: no), installs it, and for each runs the
# kinds benchmark's default (no k) and clusters the embed generator's sets
# (100 sets each of five sizes, counts and widths, seed 11); then installs
# this checkout's own build again.  Prints each kind's row, the development
# ARI summed over tables, pixels and embeddings, and the generator's mean
# ARIs and their sum.  DIR holds the kinds benchmark's groups (kinds.sh makes
# them); about a minute each.  DAC_SCALES_SUITES: embeddings.sh result
# directories (space-separated) whose test sets are clustered too, zero-shot
# (mlf_embed), each suite's mean ARI printed and summed (a minute more each).
# Usage: bash test/bench/graph_scales.sh DIR "FACTOR MARGIN FALLBACK"...
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "$1" && pwd)
shift
. test/bench/patched_build.sh test/bench/patches/graph_scales.patch
gen_sql="SET client_min_messages = warning;
CREATE EXTENSION dac;
SELECT string_agg(a::text, ' ' ORDER BY cfg) FROM (
  SELECT cfg, round(avg(dac_ari(t, c))::numeric, 3) AS a FROM (
    SELECT g.cfg, array_agg(label ORDER BY ord) AS t, dac_cluster_agg(x ORDER BY ord) AS c
    FROM (VALUES (1, 150, 5, 16), (2, 150, 5, 32), (3, 300, 8, 32), (4, 1000, 12, 32), (5, 100, 3, 64)) g (cfg, n, k, d),
         LATERAL dac_generate('embed', 100, g.n, g.k, 11, g.d)
    GROUP BY g.cfg, set_id) s GROUP BY cfg) r;"
for value in "$@"; do
	echo "$value" > "$switch"
	chmod a+r "$switch"
	tag="s${value// /_}"
	out=$(mktemp -d)
	cp "$dir/groups.csv" "$out/"
	[ -s "$dir/baselines.jsonl" ] && cp "$dir/baselines.jsonl" "$out/"
	chmod -R a+rwX "$out"
	echo "== factor, margin and fallback: $value"
	as_pg "DAC_KINDS_GIVEN_K=0 pg_virtualenv -t -v 15 bash test/bench/kinds.sh '$out' 24 2 '$tag'" |
		grep -E "^### |^\| $tag default" | tee "$out/rows.txt"
	awk -F'|' '/^### / {kind = $0} /default/ && kind !~ /shapes/ {sum += $3} END {printf "development ARI, tables + pixels + embeddings: %.3f\n", sum}' "$out/rows.txt"
	echo "$gen_sql" > "$out/gen.sql"
	chmod a+r "$out/gen.sql"
	as_pg "pg_virtualenv -t -v 15 psql -X -q -At -f '$out/gen.sql'" | grep -v '^\(Creating\|Dropping\)' |
		awk '{s = 0; for (i = 1; i <= NF; i++) s += $i; printf "embed generator, mean ARI per size: %s; summed %.3f\n", $0, s}'
	for suites in ${DAC_SCALES_SUITES:-}; do
		suites=$(cd "$suites" && pwd)
		printf '%s\n' "SET client_min_messages = warning;" "CREATE EXTENSION dac;" \
			"CREATE TABLE fm_sets (cfg text, split text, set_id int, ord int, label int, v real[]);" \
			"\\copy fm_sets FROM '$suites/sets.csv' CSV" \
			"SELECT 'zero-shot', cfg, split, set_id, dac_cluster_agg(v, 'mlf_embed' ORDER BY ord) FROM fm_sets GROUP BY 2, 3, 4;" \
			> "$out/suites.sql"
		chmod a+r "$out/suites.sql"
		as_pg "pg_virtualenv -t -v 15 psql -X -q -At -F'|' -f '$out/suites.sql'" | grep -v '^\(Creating\|Dropping\)' > "$out/labels.csv"
		ln -sf "$suites/sets.json" "$suites/features.npz" "$out/"
		rm -f "$out/dac.jsonl"
		/usr/bin/python3 test/bench/embeddings.py score "$out" "$out/labels.csv" |
			/usr/bin/python3 -c "import json, sys
r = sorted((j['cfg'], j['split'], j['ari']) for j in map(json.loads, sys.stdin))
print('suites %s: %s; summed %.3f' % (sys.argv[1], ', '.join('%s %s %.3f' % t for t in r), sum(t[2] for t in r)))" "$suites"
	done
	[ -s "$dir/baselines.jsonl" ] || cp "$out/baselines.jsonl" "$dir/"
	rm -rf "$out"
done
