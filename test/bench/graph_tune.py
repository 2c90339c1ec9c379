#!/usr/bin/python3
"""The graph stage's settings tuned as the tuned Leiden's are (docs/embeddings.md).

The embeddings benchmark tunes Leiden's neighbours and resolution per suite by
mean ARI on 40 labelled sets of *training* images of the split's training
classes (embeddings.baselines).  This script gives dac's graph stage the same
information: the same 40 tuning sets (the same sampler and seeds, so the same
rows), a grid of dac.graph_neighbors, dac.graph_resolution and
dac.graph_merge, the setting of best mean tuning ARI kept per suite and
scored on the benchmark's 100 test sets of that suite (seed 7, the sets of
every table in docs/embeddings.md).  Leiden is tuned and scored here again on
the same sets, so the comparison is within one run.  Also the consensus of
several settings' partitions (evidence accumulation: rows joined when most
partitions join them, average linkage cut at a share).

  graph_tune.py sets FEATURES_DIR OUT   OUT/{tune,test}_<cfg>_<split>.tsv (set, label, vector)
                                        and OUT/leiden.json
  graph_tune.py score OUT TAG           one JSON line: TAG's mean ARI / NMI / k-MAE per file
                                        (OUT/r_<TAG>_<file>.txt: set, label, cluster)
  graph_tune.py table OUT GRID.jsonl    the chosen setting per suite against the tuned Leiden
  graph_tune.py consensus OUT TAG,TAG,... SHARE
  graph_tune.py counts OUT TAG...       per tag and kind (tune, test): the sets, those returned
                                        as one cluster, those of them holding two classes or
                                        more, and the clusters missed and added, summed
  graph_tune.py tags OUT TAG...         mean ARI / NMI / k-MAE per file and tag, and the ARI
                                        summed over the tuning files (all, and those of the
                                        unseen splits: training images of classes 0-5 only)
                                        and over the test files (spectral_input.sh, patched.sh)
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings as E  # noqa: E402  (the benchmark's sampler, metrics and Leiden)

SUITES = [(c, s) for c in E.CFGS for s in E.SPLITS]
DEFAULT = 'g5_r0.05_m0.04'


def write(path, F, y, sets):
    with open(path, 'w') as f:
        for s, rows in enumerate(sets):
            for i in rows:
                f.write('%d\t%d\t%s\n' % (s, y[i], E.vec(F[i])))


def make_sets(src, out):
    os.makedirs(out, exist_ok=True)
    z = np.load(os.path.join(src, 'features.npz'))
    Ftr, ytr, Fte, yte = z['Ftr'], z['ytr'], z['Fte'], z['yte']
    rng = np.random.default_rng(7)          # embeddings.py prepare DIR 100 7
    test = {}
    for cfg in E.CFGS:
        for split, classes in E.SPLITS.items():
            test[(cfg, split)] = E.sample_sets(rng, yte, classes, 100, cfg)
    rng = np.random.default_rng(8)          # embeddings.baselines: seed + 1, suites in order
    res = {}
    for (cfg, split), ts in test.items():
        tune = E.sample_sets(rng, ytr, E.TRAIN_CLASSES[split], 40, cfg)
        write(os.path.join(out, 'tune_%s_%s.tsv' % (cfg, split)), Ftr, ytr, tune)
        write(os.path.join(out, 'test_%s_%s.tsv' % (cfg, split)), Fte, yte, ts)
        best = None
        for kn in (5, 10, 15, 20):
            for r in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5):
                a = np.mean([E.metrics(ytr[q], E.leiden(Ftr[q], kn, r))[0] for q in tune])
                if best is None or a > best[0]:
                    best = (a, kn, r)
        m = np.mean([E.metrics(yte[q], E.leiden(Fte[q], best[1], best[2])) for q in ts], axis=0)
        res['%s_%s' % (cfg, split)] = {'kn': best[1], 'res': best[2], 'tune_ari': best[0],
                                        'test': [float(x) for x in m]}
    json.dump(res, open(os.path.join(out, 'leiden.json'), 'w'), indent=1)


def load(path):
    d = {}
    for line in open(path):
        s, c, k = line.split()
        d.setdefault(int(s), ([], []))
        d[int(s)][0].append(int(c))
        d[int(s)][1].append(int(k))
    return d


def mean_metrics(pairs):
    return [float(x) for x in np.mean([E.metrics(np.array(t), np.array(q)) for t, q in pairs], axis=0)]


def score(out, tag):
    r = {}
    for kind in ('tune', 'test'):
        for cfg, split in SUITES:
            p = os.path.join(out, 'r_%s_%s_%s_%s.txt' % (tag, kind, cfg, split))
            r['%s_%s_%s' % (kind, cfg, split)] = mean_metrics(load(p).values())
    print(json.dumps({'tag': tag, 'r': r}))


def counts(out, tags):
    for tag in tags:
        line = []
        for kind in ('tune', 'test'):
            c = [0] * 5
            for cfg, split in SUITES:
                for t, q in load(os.path.join(out, 'r_%s_%s_%s_%s.txt' % (tag, kind, cfg, split))).values():
                    kt, kq = len(set(t)), len(set(q))
                    c[0] += 1
                    c[1] += kq == 1
                    c[2] += kq == 1 and kt >= 2
                    c[3] += max(0, kt - kq)
                    c[4] += max(0, kq - kt)
            line.append('%s: sets %d, one cluster %d (of them two classes or more %d), clusters missed %d, '
                        'added %d' % ((kind,) + tuple(c)))
        print('%s  %s' % (tag, '; '.join(line)))


def cell(m):
    return '%.3f / %.3f / %.2f' % tuple(m)


def table(out, grid):
    leiden = json.load(open(os.path.join(out, 'leiden.json')))
    rows = [json.loads(line) for line in open(grid)]
    default = next(r for r in rows if r['tag'] == DEFAULT)['r']
    print('| suite | dac at its defaults (5, 0.05, 0.04) | dac tuned: setting (tuning ARI) | dac tuned | '
          'Leiden tuned: setting (tuning ARI) | Leiden tuned |')
    print('|---|---|---|---|---|---|')
    for cfg, split in SUITES:
        s = '%s_%s' % (cfg, split)
        best = max(rows, key=lambda r: r['r']['tune_' + s][0])
        n, r, m = best['tag'][1:].replace('_r', ' ').replace('_m', ' ').split()
        lz = leiden[s]
        print('| %s %s | %s | %s, %s, %s (%.3f) | %s | %d-NN, %.2f (%.3f) | %s |' % (
            cfg, split, cell(default['test_' + s]), n, r, m, best['r']['tune_' + s][0],
            cell(best['r']['test_' + s]), lz['kn'], lz['res'], lz['tune_ari'], cell(lz['test'])))


def consensus(out, tags, share):
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform
    r = {}
    for kind in ('tune', 'test'):
        for cfg, split in SUITES:
            ds = [load(os.path.join(out, 'r_%s_%s_%s_%s.txt' % (t, kind, cfg, split))) for t in tags]
            pairs = []
            for s in ds[0]:
                C = np.zeros((len(ds[0][s][0]),) * 2)
                for d in ds:
                    p = np.asarray(d[s][1])
                    C += p[:, None] == p[None, :]
                D = 1 - C / len(ds)
                np.fill_diagonal(D, 0)
                q = fcluster(linkage(squareform(D, checks=False), 'average'), share, 'distance')
                pairs.append((ds[0][s][0], q))
            r['%s_%s_%s' % (kind, cfg, split)] = mean_metrics(pairs)
    print(json.dumps({'tag': 'consensus %s at %s' % ('+'.join(tags), share), 'r': r}))


def tags_table(out, tags):
    print('| file | ' + ' | '.join(tags) + ' |')
    print('|---' * (len(tags) + 1) + '|')
    sums = {t: [0.0, 0.0, 0.0] for t in tags}
    for kind in ('tune', 'test'):
        for cfg, split in SUITES:
            b = '%s_%s_%s' % (kind, cfg, split)
            cells = []
            for t in tags:
                m = mean_metrics(load(os.path.join(out, 'r_%s_%s.txt' % (t, b))).values())
                if kind == 'tune':
                    sums[t][0] += m[0]
                    if split == 'unseen':
                        sums[t][1] += m[0]
                else:
                    sums[t][2] += m[0]
                cells.append(cell(m))
            print('| %s | %s |' % (b, ' | '.join(cells)))
    for i, what in enumerate(('tune, all files', 'tune, classes 0-5 files', 'test')):
        print('| ARI summed, %s | %s |' % (what, ' | '.join('%.3f' % sums[t][i] for t in tags)))


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'sets':
        make_sets(sys.argv[2], sys.argv[3])
    elif cmd == 'score':
        score(sys.argv[2], sys.argv[3])
    elif cmd == 'table':
        table(sys.argv[2], sys.argv[3])
    elif cmd == 'counts':
        counts(sys.argv[2], sys.argv[3:])
    elif cmd == 'tags':
        tags_table(sys.argv[2], sys.argv[3:])
    else:
        consensus(sys.argv[2], sys.argv[3].split(','), float(sys.argv[4]))
