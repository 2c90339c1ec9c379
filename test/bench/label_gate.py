#!/usr/bin/python3
"""A table's LDA, applied only to groups that look like the table's classes:
a prototype measured on *training* rows only, through the extension.

A table's labels give a projection onto the directions that separate its
classes (LDA: the between-class directions of the rows whitened within
their labels).  On new rows of those classes it helps a great deal; on
classes the table does not hold it destroys the clusters (docs/embeddings.md,
"a linear map learnt from the table's labels").  The gate decides per group:
each row's squared distance to the nearest class mean, in the whitened
coordinates, against the 95th percentile of the same distance over the
held-out new rows of the table's classes; the group is projected when no
more of its rows lie beyond that than 5% plus two binomial standard errors.
A fourth way (after 0.24.0) gives each class its own threshold: a row is
inside when it lies within the 95th percentile of its distance to some
class's mean over that class's held-out new rows; a fifth ("scaled")
divides each row's distance to a class by that class's spread against the
pooled spread (the 95th percentiles of the rows the map was fit on, which a
refit on every row can still measure for a class held out whole) and takes
the one threshold of those scaled distances over the held-out new rows; a
sixth ("own") takes that threshold from each held-out row's scaled
distance to its own class instead of the nearest; a seventh ("mean", what
commit 185d94c built and did not ship) is the sixth with each class's
spread its mean squared distance rather than its 95th percentile (steadier
for classes of few rows).

Scenarios, as a validated run of dac_train holds rows out (training rows of
the benchmark's features only; no test row is read):
  all:    the ten classes; two held out whole, 15% of the others' rows;
  fold F: classes 0-5 less {2F, 2F+1}, which are held out whole; 15% of
          the other four's rows.
Suites per scenario: sets of the held-out new rows of the fitted classes
("known"), of every held-out row ("held", the classes held out whole among
them) and of the whole-held classes alone ("unseen"), small (n 90-299, k <= 4)
and large (n 300-999, k <= 12), drawn by the benchmark's sampler.  Each set
is clustered by mlf_embed at the session's defaults three ways: its rows as
they are, always projected, and projected when the gate opens.

Usage (inside pg_virtualenv, dac installed):
  /usr/bin/python3 test/bench/label_gate.py FEATURES.npz OUT [SETS (40)]
Prints ARI / NMI / k-MAE per suite and way, and how often the gate opened."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import embeddings as E  # noqa: E402

RIDGE = 0.1
ROW_Q = 95
SHARE = 0.05


def fit(X, y):
    """The whitening M (L⁻¹ of S_w + ridge·mean variance, as whiten.c), the
    class means in whitened coordinates, and the LDA projection P (r × d)."""
    cl = np.unique(y)
    R = np.concatenate([X[y == c] - X[y == c].mean(0) for c in cl])
    S = R.T @ R / len(R)
    d = S.shape[0]
    L = np.linalg.cholesky(S + RIDGE * np.trace(S) / d * np.eye(d))
    M = np.linalg.inv(L)
    mu = np.array([X[y == c].mean(0) for c in cl]) @ M.T
    centred = mu - mu.mean(0)
    _, _, Vt = np.linalg.svd(centred, full_matrices=False)
    return M, mu, Vt[:len(cl) - 1] @ M


def nearest(X, M, mu):
    Z = X @ M.T
    return ((Z[:, None, :] - mu[None, :, :]) ** 2).sum(-1).min(1)


def opens(X, M, mu, t_row):
    n = len(X)
    frac = (nearest(X, M, mu) > t_row).mean()
    return frac <= SHARE + 2 * np.sqrt(SHARE * (1 - SHARE) / n)


def class_thresholds(X, y, cl, M, mu):
    """Each class's own threshold: the ROW_Q percentile of its held-out new
    rows' squared distance to its own mean (whitened coordinates)."""
    Z = X @ M.T
    return np.array([np.percentile(((Z[y == c] - mu[j]) ** 2).sum(1), ROW_Q) for j, c in enumerate(cl)])


def class_scales(X, y, cl, M, mu, q=ROW_Q):
    """Each class's spread against the pooled one, on the rows the map was
    fit on: the q percentile of a class's rows' squared distance to its
    mean over the same percentile of every row's to its own mean; q None,
    the means instead (the build of commit 185d94c)."""
    Z = X @ M.T
    own = [((Z[y == c] - mu[j]) ** 2).sum(1) for j, c in enumerate(cl)]
    if q is None:
        return np.array([o.mean() for o in own]) / np.concatenate(own).mean()
    pooled = np.percentile(np.concatenate(own), q)
    return np.array([np.percentile(o, q) / pooled for o in own])


def nearest_scaled(X, M, mu, scl):
    Z = X @ M.T
    return (((Z[:, None, :] - mu[None, :, :]) ** 2).sum(-1) / scl[None, :]).min(1)


def own_scaled(X, y, cl, M, mu, scl):
    """Each row's scaled distance to its own class (what the gate of commit 185d94c sets its threshold by)."""
    Z = X @ M.T
    j = np.searchsorted(cl, y)
    return ((Z - mu[j]) ** 2).sum(1) / scl[j]


def opens_per_class(X, M, mu, t_cls):
    """As opens, a row inside when it lies within some class's own threshold."""
    n = len(X)
    Z = X @ M.T
    inside = (((Z[:, None, :] - mu[None, :, :]) ** 2).sum(-1) <= t_cls[None, :]).any(1)
    frac = 1 - inside.mean()
    return frac <= SHARE + 2 * np.sqrt(SHARE * (1 - SHARE) / n)


def scenarios(y):
    rng = np.random.default_rng(11)
    out = []
    whole = rng.choice(10, 2, replace=False)
    out.append(("all", list(range(10)), list(whole)))
    for f in range(3):
        out.append(("fold%d" % f, list(range(6)), [2 * f, 2 * f + 1]))
    return out


def main():
    feat, out = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    os.makedirs(out, exist_ok=True)
    f = np.load(feat)
    X, y = f["Ftr"].astype(np.float64), f["ytr"]
    rng = np.random.default_rng(5)
    rows = []          # (suite, way, set, label, vector)
    gate = {}
    for name, classes, whole in scenarios(y):
        inside = np.isin(y, classes)
        held_whole = np.isin(y, whole)
        new = inside & ~held_whole & (rng.random(len(y)) < 0.15)
        fitr = inside & ~held_whole & ~new
        M, mu, P = fit(X[fitr], y[fitr])
        t_row = np.percentile(nearest(X[new], M, mu), ROW_Q)
        t_cls = class_thresholds(X[new], y[new], np.unique(y[fitr]), M, mu)
        scl = class_scales(X[fitr], y[fitr], np.unique(y[fitr]), M, mu)
        t_scl = np.percentile(nearest_scaled(X[new], M, mu, scl), ROW_Q) * scl
        t_own = np.percentile(own_scaled(X[new], y[new], np.unique(y[fitr]), M, mu, scl), ROW_Q) * scl
        scm = class_scales(X[fitr], y[fitr], np.unique(y[fitr]), M, mu, None)
        t_mean = np.percentile(own_scaled(X[new], y[new], np.unique(y[fitr]), M, mu, scm), ROW_Q) * scm
        held = new | held_whole
        for part, mask in (("known", new), ("held", held), ("unseen", held_whole)):
            idx = np.where(mask)[0]
            for cfg in ("small", "large"):
                suite = "%s %s %s" % (name, part, cfg)
                sets = E.sample_sets(rng, y[idx], sorted(set(y[idx].tolist())), count, cfg)
                opened = opened_cls = opened_scl = opened_own = opened_mean = 0
                for s, r in enumerate(sets):
                    G, lab = X[idx[r]], y[idx[r]]
                    o = opens(G, M, mu, t_row)
                    oc = opens_per_class(G, M, mu, t_cls)
                    osc = opens_per_class(G, M, mu, t_scl)
                    oo = opens_per_class(G, M, mu, t_own)
                    opened_own += oo
                    om = opens_per_class(G, M, mu, t_mean)
                    opened_mean += om
                    opened += o
                    opened_cls += oc
                    opened_scl += osc
                    for way, V in (("none", G), ("always", G @ P.T), ("gated", G @ P.T if o else G),
                                   ("gated per class", G @ P.T if oc else G),
                                   ("gated scaled", G @ P.T if osc else G),
                                   ("gated own", G @ P.T if oo else G),
                                   ("gated mean", G @ P.T if om else G)):
                        for v, lb in zip(V, lab):
                            rows.append((suite, way, s, int(lb), E.vec(v)))
                gate[suite] = (opened / len(sets), opened_cls / len(sets), opened_scl / len(sets),
                               opened_own / len(sets), opened_mean / len(sets))
    path = os.path.join(out, "sets.tsv")
    with open(path, "w") as fh:
        for r in rows:
            fh.write("%s\t%s\t%d\t%d\t%s\n" % r)
    res = os.path.join(out, "clusters.tsv")
    sql = ("SET client_min_messages = warning; DROP TABLE IF EXISTS lg; "
           "CREATE TABLE lg (suite text, way text, s int, c int, x real[]); "
           "\\copy lg FROM '%s'\n"
           "\\copy (SELECT suite, way, s, c, dac_cluster(x, 'mlf_embed') OVER (PARTITION BY suite, way, s) FROM lg) TO '%s'\n"
           % (path, res))
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"], input=sql, text=True, check=True)
    got = {}
    for line in open(res):
        suite, way, s, c, k = line.rstrip("\n").split("\t")
        got.setdefault((suite, way, int(s)), ([], []))
        got[(suite, way, int(s))][0].append(int(c))
        got[(suite, way, int(s))][1].append(int(k))
    print("| suite | gate open: one threshold / per class / scaled / own / mean | none | always projected | gated | "
          "gated per class | gated scaled | gated own | gated mean (185d94c) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for suite in gate:
        cells = []
        for way in ("none", "always", "gated", "gated per class", "gated scaled", "gated own", "gated mean"):
            m = np.array([E.metrics(np.array(t), np.array(p)) for (su, w, _), (t, p) in got.items()
                          if su == suite and w == way])
            cells.append("%.3f / %.3f / %.2f" % tuple(m.mean(0)))
        print("| %s | %.2f / %.2f / %.2f / %.2f / %.2f | %s |" % ((suite,) + gate[suite] + (" | ".join(cells),)))


if __name__ == "__main__":
    main()
