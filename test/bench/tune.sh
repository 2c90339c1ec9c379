#!/usr/bin/env bash
# What dac_tune's choice of the graph resolution and scales gives a table,
# measured fairly: the kinds benchmark's groups (made by test/bench/kinds.sh
# in DIR) clustered by the default at the pairs dac_tune tries (mlf_embed's
# 0.05 times 0.5, 1, 2, 4, 8, each at two scales and at one, dac.graph_merge
# 0); then, per source (a user's table), the pair of best mean ARI on half of
# its groups (ties: 0.05, then the nearest, then two scales) is scored on
# the other half, and the halves swapped: no group is scored by a choice it
# took part in; then the same with the choice made on 2, 4 and 6 of the
# half's groups (20 draws each); last, each choice kept only where dac_tune's
# check holds on the groups it was made on (else the default's pair).  Prints the default's mean ARI and the
# chosen one's over the groups of 2+ classes, and the groups of one class
# kept whole, per kind and split: first with the resolution alone chosen
# (as 0.51.0's dac_tune), then with the scales too (0.52.0's), then checked
# (0.53.0's).  Rows in DIR/tune.
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
	bash test/bench/kinds.sh "$out" 24 2 "r${r}m0" "-c dac.graph_resolution=$r -c dac.graph_merge=0" >/dev/null
done
/usr/bin/python3 - "$out" <<'PY'
import collections, json, math, random, statistics, sys
d = sys.argv[1]
# a candidate: the resolution, and 'm0' where dac.graph_merge is 0 (one scale)
everything = ['%s%s' % (r, m) for m in ('', 'm0') for r in ('0.025', '0.05', '0.1', '0.2', '0.4')]
res = {}
for r in everything:
    for line in open('%s/r%s.jsonl' % (d, r)):
        j = json.loads(line)
        res[(r, j['kind'], j['source'], j['split'], j['set'])] = j
by_src = collections.defaultdict(list)
for (_, kind, source, split, s) in res:
    if s not in by_src[(kind, source, split)]:
        by_src[(kind, source, split)].append(s)
# ties: 0.05, then the nearest resolution, then the two scales
rank = lambda r: (-abs(math.log(float(r.split('m')[0]) / 0.05)), 'm0' not in r)
# dac_tune's order of trying: 0.05 times 1, 0.5, 2, 4, 8, each at the start's scales (two) then one
order = ['%s%s' % (r, m) for r in ('0.05', '0.025', '0.1', '0.2', '0.4') for m in ('', 'm0')]


def validated(best, fit, key, ladder):
    # the check (dac_choice_validated): each group scored by the pair the other groups choose,
    # ahead of the start's by more than one paired standard error, or the start's pair
    cands = [r for r in order if r in ladder]
    sc = {r: [res[(r,) + key + (s,)]['ari'] for s in fit] for r in cands}
    tot = {r: sum(v) for r, v in sc.items()}
    loo = []
    for i in range(len(fit)):
        b = cands[0]
        for r in cands[1:] if len(fit) > 1 else []:
            if tot[r] - sc[r][i] > tot[b] - sc[b][i]:
                b = r
        loo.append(sc[b][i])
    lead = [a - b for a, b in zip(loo, sc[cands[0]])]
    if len(lead) < 2:
        return cands[0]
    m = statistics.mean(lead)
    return best if m > 0 and m > statistics.stdev(lead) / math.sqrt(len(lead)) else cands[0]


for title, ladder, check in (('the resolution alone', everything[:5], False),
                             ('the resolution and the scales (dac.graph_merge 0 or not)', everything, False),
                             ('the resolution and the scales, kept where dac_tune\'s check holds', everything, True)):
    # the choice dac_tune makes on the groups fit: best mean ARI, then rank (and, from 0.53.0, its check)
    def choose(fit, key):
        best = max(ladder, key=lambda r: (statistics.mean(res[(r,) + key + (s,)]['ari'] for s in fit),) + rank(r))
        return validated(best, fit, key, ladder) if check else best
    rng = random.Random(1)
    sizes = (2, 4, 6, 12)
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    ones = collections.defaultdict(lambda: [0, 0, 0])
    picks = collections.defaultdict(list)
    for key, sets in sorted(by_src.items()):
        sets = sorted(sets)
        halves = [sets[0::2], sets[1::2]]
        for m in sizes:
            # the whole half once; fewer groups: 20 draws of m from it
            for rep in range(1 if m >= len(halves[0]) else 20):
                for h in range(2):
                    fit = halves[h] if m >= len(halves[h]) else rng.sample(halves[h], m)
                    best = choose(fit, key)
                    if m == sizes[-1]:
                        picks[(key[0], key[2])].append('%s %s' % (key[1], best))
                    for s in halves[1 - h]:
                        j0, j1 = res[('0.05',) + key + (s,)], res[(best,) + key + (s,)]
                        if j0['classes'] >= 2:
                            rows[(key[0], key[2])]['base'].append(j0['ari'])
                            rows[(key[0], key[2])][m].append(j1['ari'])
                        elif m == sizes[-1]:
                            ones[(key[0], key[2])][0] += 1
                            ones[(key[0], key[2])][1] += j0['one']
                            ones[(key[0], key[2])][2] += j1['one']
    print('Chosen among %s:' % title)
    print()
    print('| kind | split | default (0.05) | chosen on 2 groups | 4 | 6 | the other half (12) | one-class groups whole: default | chosen on 12 |')
    print('|---|---|---|---|---|---|---|---|---|')
    for (kind, split), r in sorted(rows.items()):
        o = ones[(kind, split)]
        print('| %s | %s | %.3f | %s | %d of %d | %d of %d |' % (
            kind, split, statistics.mean(r['base']), ' | '.join('%.3f' % statistics.mean(r[m]) for m in sizes),
            o[1], o[0], o[2], o[0]))
    print()
    for (kind, split), p in sorted(picks.items()):
        print('%s %s: %s' % (kind, split, ', '.join(p)))
    print()
PY
