#!/usr/bin/env bash
# The normal scores' one-cluster test, group by group (docs/kinds.md, "The
# one-cluster test"): builds a copy of this checkout's HEAD with
# test/bench/patches/rank_record.patch (every group that reaches the test
# appends its sample's rows, width, the count and mean silhouette k-means
# found in its normal scores and the 8 Gaussians' silhouettes to
# /tmp/dac_rank_record.txt, and is split there), installs it, runs the kinds
# benchmark's default and clusters each SUITES directory's sets (an
# embeddings.sh result, zero-shot mlf_embed, one set a query), then installs
# this checkout's own build again.  rank_record.py then scores decision
# rules on the records: development and held-out sources apart.  DIR holds
# the kinds benchmark's groups (kinds.sh makes them); about 2 minutes, and a
# minute a suite.
# Usage: bash test/bench/rank_record.sh DIR [SUITES...]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "$1" && pwd)
shift
record=/tmp/dac_rank_record.txt
. test/bench/patched_build.sh test/bench/patches/rank_record.patch
kinds_copy "$dir"
echo split > "$switch"
chmod a+r "$switch"
rm -f "$record" "$dir"/record*.txt
touch "$record"
chmod a+rw "$record"
as_pg "DAC_KINDS_GIVEN_K=0 pg_virtualenv -t -v 15 bash test/bench/kinds.sh '$out' 24 2 split" >/dev/null
cp "$record" "$dir/record.txt"
cp "$out/split.jsonl" "$dir/split.jsonl"
for suites in "$@"; do
	suites=$(cd "$suites" && pwd)
	name=$(basename "$suites")
	: > "$record"
	# one query a set, a marker line in the record before each
	/usr/bin/python3 - "$suites" "$record" > "$out/suites.sql" <<'PY'
import csv, sys
suites, record = sys.argv[1:]
keys = sorted({tuple(r[:3]) for r in csv.reader(open(suites + "/sets.csv"))}, key=lambda t: (t[0], t[1], int(t[2])))
print("SET client_min_messages = warning;\nCREATE EXTENSION dac;")
print("CREATE TABLE fm_sets (cfg text, split text, set_id int, ord int, label int, v real[]);")
print("\\copy fm_sets FROM '%s/sets.csv' CSV" % suites)
for c, s, i in keys:
    print("\\! echo '= %s %s %s' >> %s" % (c, s, i, record))
    print("SELECT '%s', '%s', %s, array_agg(label ORDER BY ord), dac_cluster_agg(v, 'mlf_embed' ORDER BY ord) "
          "FROM fm_sets WHERE cfg = '%s' AND split = '%s' AND set_id = %s;" % (c, s, i, c, s, i))
PY
	chmod a+r "$out/suites.sql"
	as_pg "pg_virtualenv -t -v 15 psql -X -q -At -F'|' -f '$out/suites.sql'" | grep '|' > "$dir/record_$name.labels"
	cp "$record" "$dir/record_$name.txt"
done
