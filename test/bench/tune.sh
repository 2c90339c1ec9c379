#!/usr/bin/env bash
# What dac_tune's choice of the graph resolution gives a table, measured
# fairly: the kinds benchmark's groups (made by test/bench/kinds.sh in DIR)
# clustered by the default at the ladder dac_tune tries (mlf_embed's 0.05
# times 0.5, 1, 2, 4, 8); then, per source (a user's table), the resolution
# of best mean ARI on half of its groups (ties: 0.05, then the nearest) is
# scored on the other half, and the halves swapped: no group is scored by a
# choice it took part in.  Prints the default's mean ARI and the chosen
# one's over the groups of 2+ classes, and the groups of one class kept
# whole, per kind and split.  Rows in DIR/tune.
#   pg_virtualenv -t -v 15 bash test/bench/tune.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$(cd "$1" && pwd)
out=$src/tune
mkdir -p "$out"
cp "$src/groups.csv" "$src/baselines.jsonl" "$out/"
export DAC_KINDS_GIVEN_K=0
for r in 0.025 0.05 0.1 0.2 0.4; do
	bash test/bench/kinds.sh "$out" 24 2 "r$r" "-c dac.graph_resolution=$r" >/dev/null
done
/usr/bin/python3 - "$out" <<'PY'
import collections, json, statistics, sys
d = sys.argv[1]
ladder = ['0.025', '0.05', '0.1', '0.2', '0.4']
res = {}
for r in ladder:
    for line in open('%s/r%s.jsonl' % (d, r)):
        j = json.loads(line)
        res[(r, j['kind'], j['source'], j['split'], j['set'])] = j
by_src = collections.defaultdict(list)
for (_, kind, source, split, s) in res:
    if s not in by_src[(kind, source, split)]:
        by_src[(kind, source, split)].append(s)
rows = collections.defaultdict(lambda: {'base': [], 'tuned': [], 'one_base': 0, 'one_tuned': 0, 'ones': 0})
picks = collections.defaultdict(list)
far = lambda r: abs(__import__('math').log(float(r) / 0.05))
for (kind, source, split), sets in sorted(by_src.items()):
    sets = sorted(sets)
    halves = [sets[0::2], sets[1::2]]
    for h in range(2):
        fit, test = halves[h], halves[1 - h]
        best = max(ladder, key=lambda r: (statistics.mean(res[(r, kind, source, split, s)]['ari'] for s in fit), -far(r)))
        picks[(kind, split)].append('%s %s' % (source, best))
        for s in test:
            j0, j1 = res[('0.05', kind, source, split, s)], res[(best, kind, source, split, s)]
            row = rows[(kind, split)]
            if j0['classes'] >= 2:
                row['base'].append(j0['ari'])
                row['tuned'].append(j1['ari'])
            else:
                row['ones'] += 1
                row['one_base'] += j0['one']
                row['one_tuned'] += j1['one']
print('| kind | split | groups of 2+ classes | default (0.05) | chosen on the source\'s other half | one-class groups kept whole: default | chosen |')
print('|---|---|---|---|---|---|---|')
for (kind, split), r in sorted(rows.items()):
    print('| %s | %s | %d | %.3f | %.3f | %d of %d | %d of %d |' % (
        kind, split, len(r['base']), statistics.mean(r['base']), statistics.mean(r['tuned']),
        r['one_base'], r['ones'], r['one_tuned'], r['ones']))
print()
for (kind, split), p in sorted(picks.items()):
    print('%s %s: %s' % (kind, split, ', '.join(p)))
PY
