#!/usr/bin/env bash
# The graph stage's two scales, group by group (docs/kinds.md, "The graph's
# two scales"): builds a copy of this checkout's HEAD with
# test/bench/patches/scale_record.patch (every group whose resolution finds
# two or more communities records what each scale gave; a switch file
# chooses a rule in the finer scale's place), installs it, and clusters each
# group of the kinds benchmark (no shapes: 2-D models have no graph stage)
# and each SUITES directory's sets (an embeddings.sh result, zero-shot
# mlf_embed), one query a group, under each rule: as shipped, the finer
# scale never, always, neither it nor graph_merge's fallback, the network's
# pass over each coarse community (half of it or more selected: whole), and
# k-means' clusters at the count found where more modular (at resolution 1
# and at the stage's own); then installs this checkout's own build again.
# scale_record.py scores the answers and rules on the records.  DIR holds
# the kinds benchmark's groups (kinds.sh makes them); answers and records
# in DIR/scale.  About a minute a rule.
# Usage: bash test/bench/scale_record.sh DIR [SUITES...]
#   then /usr/bin/python3 test/bench/scale_record.py DIR [SUITE_NAME[:held]...]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "$1" && pwd)
shift
record=/tmp/dac_scale_record.txt
. test/bench/patched_build.sh test/bench/patches/scale_record.patch
scratch="$scratch $record"
mkdir -p "$dir/scale"
sql=$(mktemp)
scratch="$scratch $sql"
/usr/bin/python3 - "$dir" "$record" "$@" > "$sql" <<'PY'
import csv, os, sys
d, record, suites = sys.argv[1], sys.argv[2], sys.argv[3:]
keys, seen = [], set()
for r in csv.reader(open(d + "/groups.csv")):
    k = ("k_" + r[0], r[1], r[2], r[3])
    if r[0] != "shapes" and k not in seen:
        seen.add(k)
        keys.append(k)
print("SET client_min_messages = warning;\nCREATE EXTENSION dac;")
print("CREATE TABLE kg (kind text, source text, split text, set_id int, ord int, label int, x real[]);")
print("\\copy kg FROM '%s/groups.csv' CSV" % d)
print("CREATE TABLE g AS SELECT 'k_' || kind AS a, source AS b, split AS c, set_id AS d, ord, label, x "
      "FROM kg WHERE kind <> 'shapes';")
for s in suites:
    name = os.path.basename(os.path.abspath(s))
    print("CREATE TEMP TABLE t (cfg text, split text, set_id int, ord int, label int, v real[]);")
    print("\\copy t FROM '%s/sets.csv' CSV" % os.path.abspath(s))
    print("INSERT INTO g SELECT '%s', cfg, split, set_id, ord, label, v FROM t; DROP TABLE t;" % name)
    for r in csv.reader(open(os.path.abspath(s) + "/sets.csv")):
        k = (name, r[0], r[1], r[2])
        if k not in seen:
            seen.add(k)
            keys.append(k)
print("CREATE INDEX ON g (a, b, c, d);")
for a, b, c, i in keys:
    model = "" if a.startswith("k_") else ", 'mlf_embed'"
    print("\\! echo '= %s %s %s %s' >> %s" % (a, b, c, i, record))
    print("SELECT '%s', '%s', '%s', %s, array_agg(label ORDER BY ord), dac_cluster_agg(x%s ORDER BY ord) "
          "FROM g WHERE (a, b, c, d) = ('%s', '%s', '%s', %s);" % (a, b, c, i, model, a, b, c, i))
PY
chmod a+r "$sql"
for mode in 0 2 4 8 "16 0.5" 64 128; do
	echo "$mode" > "$switch"
	chmod a+r "$switch"
	: > "$record"
	chmod a+rw "$record"
	as_pg "pg_virtualenv -t -v 15 psql -X -q -At -F'|' -f '$sql'" | grep '|' > "$dir/scale/answers_${mode%% *}.txt"
	[ "$mode" = 0 ] && cp "$record" "$dir/scale/record.txt"
	echo "rule $mode: $(wc -l < "$dir/scale/answers_${mode%% *}.txt") groups"
done
