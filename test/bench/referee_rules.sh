#!/usr/bin/env bash
# The given-k referee's rule (docs/kinds.md, "Given k"): builds a copy of
# this checkout's HEAD with test/bench/patches/referee_rules.patch (the rule
# between the graph's k communities and k-means' k clusters read from
# /tmp/dac_bench_switch: modularity, silhouette, their sum as shipped,
# either (the communities unless k-means is ahead on both), communities,
# kmeans), installs it, and for each rule runs the kinds benchmark given the
# true k on each DIR (kinds.sh's groups: equal or Dir(1) shares, other
# seeds) and, given each set's true k, mlf_embed on each embeddings.py
# prepare directory of DAC_REFEREE_SUITES ("DIR:dev" or "DIR:held",
# space-separated); then installs this checkout's own build again and prints
# referee_rules.py's tables: each rule's mean ARI per kind and split (groups
# of 2+ classes) and per suite, beside k-means given the same k; then each
# rule's development and held-out sums, worst columns and columns below
# k-means.  About a
# minute per rule and DIR, and a minute per suite.
# Usage: [DAC_REFEREE_SUITES="/tmp/dac_pca:dev /tmp/dac_cnn:held"] bash test/bench/referee_rules.sh DIR...
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/bench/patched_build.sh test/bench/patches/referee_rules.patch
rules="modularity silhouette sum either communities kmeans"
copies=()
for d in "$@"; do
	kinds_copy "$(cd "$d" && pwd)"
	[ -s "$out/baselines.jsonl" ] || { echo "$d has no baselines.jsonl (kinds.py baselines)" >&2; exit 1; }
	copies+=("$out=$(basename "$d")")
done
suites=()
for s in ${DAC_REFEREE_SUITES:-}; do
	sdir=$(cd "${s%%:*}" && pwd)
	out=$(mktemp -d)
	scratch="$scratch $out"
	ln -s "$sdir/sets.json" "$sdir/features.npz" "$out/"
	cat > "$out/given.sql" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dac;
CREATE TABLE fm_sets (cfg text, split text, set_id int, ord int, label int, v real[]);
\\copy fm_sets FROM '$sdir/sets.csv' CSV
\\i test/bench/given_k.sql
SQL
	chmod -R a+rwX "$out"
	suites+=("$out=$(basename "$sdir"):${s##*:}")
done
for rule in $rules; do
	echo "$rule" > "$switch"
	chmod a+r "$switch"
	for c in "${copies[@]}"; do
		out=${c%%=*}
		as_pg "DAC_KINDS_DEFAULT=0 pg_virtualenv -t -v 15 bash test/bench/kinds.sh '$out' 24 2 'r_$rule'" >/dev/null
	done
	for s in "${suites[@]}"; do
		out=${s%%=*}
		{
			cat "$out/given.sql"
			echo "SELECT 'r_$rule', g.* FROM (SELECT DISTINCT split FROM fm_sets) s, given_k('mlf_embed', s.split) g;"
		} > "$out/run.sql"
		chmod a+r "$out/run.sql"
		as_pg "pg_virtualenv -t -v 15 psql -X -q -At -F'|' -f '$out/run.sql'" | grep '^r_' > "$out/r_$rule.txt"
	done
	echo "rule $rule done" >&2
done
/usr/bin/python3 test/bench/referee_rules.py "$rules" "${copies[@]}" -- "${suites[@]}"
