#!/usr/bin/env bash
# What a clustering costs, this checkout against earlier releases, in one run:
# each REV (a git revision) and HEAD built from `git archive`, then ROUNDS
# rounds in which each build in turn is installed and times, in a fresh
# pg_virtualenv cluster, the window query over each kind's groups of the
# kinds benchmark (DIR/groups.csv, made by kinds.sh; the query alone, not
# psql's start) and over one group of 1,000 rows of a Gaussian in 2, 16 and
# in 64 dimensions (one cluster: every stage after the passes runs).  Prints
# seconds per group, min and median over the rounds, and HEAD's over each
# REV's.  Installs this checkout's own build again at the end.
# Usage: bash test/bench/cost.sh DIR ROUNDS REV... (ROUNDS 3 for the docs' table)
# About 30 seconds a build a round, after a minute or two to build each.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "$1" && pwd)
rounds=$2
shift 2
. test/bench/build_revs.sh "$@"
cat > "$work/time.sh" <<'SH'
set -euo pipefail
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" \
	-c "CREATE TABLE kg (kind text, source text, split text, s int, ord int, label int, x real[])" \
	-c "\copy kg FROM '$1/groups.csv' CSV" -c "VACUUM ANALYZE kg" \
	-c "SELECT setseed(0.3)" \
	-c "CREATE TABLE big AS SELECT d, i, (SELECT array_agg((sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))::real)
	      FROM generate_series(1, d) j) AS x FROM generate_series(1, 1000) i, unnest(ARRAY[2, 16, 64]) d" >/dev/null
# the query's own seconds a group (clock_timestamp around it, in the server)
q <<'SQL'
CREATE FUNCTION pg_temp.secs(what text, groups int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp(); s bigint;
BEGIN
  EXECUTE what INTO s;
  RETURN extract(epoch FROM clock_timestamp() - t0) / groups;
END $$;
SELECT k, pg_temp.secs(format('SELECT sum(c) FROM (SELECT dac_cluster(x) OVER (PARTITION BY source, s) AS c FROM kg WHERE kind = %L) s', k),
                       (SELECT count(DISTINCT (source, s))::int FROM kg WHERE kind = k))
FROM (SELECT DISTINCT kind AS k FROM kg) g ORDER BY k;
SELECT '1,000 rows, ' || d || '-D, one cluster', pg_temp.secs(format('SELECT sum(c) FROM (SELECT dac_cluster(x) OVER () AS c FROM big WHERE d = %s) s', d), 1)
FROM unnest(ARRAY[2, 16, 64]) d;
SQL
SH
chmod -R a+rX "$work" "$dir"
for r in $(seq "$rounds"); do
	for rev in "${revs[@]}"; do
		make -C "$work/$rev" -s install PG_CONFIG="$PG" >/dev/null
		if [ "$(id -u)" = 0 ]; then
			su postgres -c "pg_virtualenv -t -v 15 bash '$work/time.sh' '$dir'" 2>/dev/null
		else
			pg_virtualenv -t -v 15 bash "$work/time.sh" "$dir" 2>/dev/null
		fi | grep '|' | sed "s/^/$rev|/" >> "$work/times"
	done
done
/usr/bin/python3 - "$work/times" "${revs[@]}" <<'PY'
import sys, statistics
from collections import defaultdict
t = defaultdict(list)
for line in open(sys.argv[1]):
    rev, what, s = line.rstrip("\n").split("|")
    t[(what, rev)].append(float(s))
revs = sys.argv[2:]
whats = sorted({w for w, _ in t}, key=lambda w: (w.startswith("1,000"), w))
print("| group | " + " | ".join("%s s/group (min / median)" % r for r in revs) +
      " | " + " | ".join("HEAD over %s (min / median)" % r for r in revs[:-1]) + " |")
print("|---" * (2 * len(revs)) + "|")
for w in whats:
    cells = ["%.4f / %.4f" % (min(t[(w, r)]), statistics.median(t[(w, r)])) for r in revs]
    h = t[(w, "HEAD")]
    ratios = ["%.2f / %.2f" % (min(h) / min(t[(w, r)]), statistics.median(h) / statistics.median(t[(w, r)]))
              for r in revs[:-1]]
    print("| %s | %s | %s |" % (w, " | ".join(cells), " | ".join(ratios)))
PY
