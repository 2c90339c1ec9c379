#!/usr/bin/python3
"""Baselines of the quality benchmark (test/bench/quality.sh), run on the
same sets the extension clustered: a variational Bayesian Dirichlet-process
mixture (scikit-learn BayesianGaussianMixture, diagonal covariances), k-means
and spectral clustering given the true k, and the oracle LL (each true
cluster's own diagonal Gaussian, fitted by maximum likelihood, weighted by
its share of the points).  Benchmark tool only, never a runtime dependency.

With a third argument, TUNE.csv (held-out sets drawn the same way), DBSCAN
runs too, its eps and min_samples chosen by mean ARI on those sets.

Usage: baselines.py SETS.csv K_MAX [TUNE.csv]   (CSV rows: set_id, ord, label, x1, x2, ...)
Prints one JSON object per method: ari, nmi, k_mae, ll, seconds_per_set."""
import csv
import json
import os
import sys
import time
import warnings
from collections import defaultdict

import numpy as np
from scipy.special import logsumexp
from sklearn.cluster import DBSCAN, KMeans, SpectralClustering
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.mixture import BayesianGaussianMixture

warnings.filterwarnings("ignore", category=ConvergenceWarning)
warnings.filterwarnings("ignore", message="Graph is not fully connected")


def load(path):
    rows = defaultdict(list)
    with open(path) as f:
        for r in csv.reader(f):
            rows[int(r[0])].append((int(r[1]), int(r[2]), [float(v) for v in r[3:]]))
    sets = []
    for sid in sorted(rows):
        pts = sorted(rows[sid])
        sets.append((np.array([p[2] for p in pts]), np.array([p[1] for p in pts])))
    return sets


def diag_gauss_ll(X, mu, var):
    return -0.5 * (np.log(2 * np.pi * var) + (X - mu) ** 2 / var).sum(axis=1)


def mixture_fit(X, labels):
    """Mean log-likelihood per point of X under the mixture of each label's
    own ML diagonal Gaussian (variance floored at 1e-6), weights = shares,
    and each point's most probable component (as an index into the labels)."""
    comps = []
    for lab in np.unique(labels):
        Xi = X[labels == lab]
        comps.append(np.log(len(Xi) / len(X)) +
                     diag_gauss_ll(X, Xi.mean(axis=0), np.maximum(Xi.var(axis=0), 1e-6)))
    comps = np.stack(comps)
    return float(np.mean(logsumexp(comps, axis=0))), comps.argmax(axis=0)


def tune_dbscan(path):
    """eps and min_samples of the best mean ARI on the held-out sets."""
    tune = load(path)
    best = None
    for eps in (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0):
        for ms in (3, 5, 10, 20):
            a = np.mean([adjusted_rand_score(y, DBSCAN(eps=eps, min_samples=ms).fit_predict(X))
                         for X, y in tune])
            if best is None or a > best[0]:
                best = (a, eps, ms)
    return best[1], best[2]


def main():
    sets = load(sys.argv[1])
    k_max = int(sys.argv[2])
    dbscan = tune_dbscan(sys.argv[3]) if len(sys.argv) > 3 else None
    acc = defaultdict(lambda: defaultdict(float))
    for X, y in sets:
        k = len(np.unique(y))
        ll, pred = mixture_fit(X, y)
        acc["oracle"]["ll"] += ll
        acc["oracle"]["ari"] += adjusted_rand_score(y, pred)
        acc["oracle"]["nmi"] += normalized_mutual_info_score(y, pred)
        acc["oracle"]["k_mae"] += abs(k - len(np.unique(pred)))
        methods = {
            "VBDPM (sklearn, DP prior)": lambda: BayesianGaussianMixture(
                n_components=2 * k_max, covariance_type="diag",
                weight_concentration_prior_type="dirichlet_process",
                max_iter=200, random_state=0),
            "k-means (true k)": lambda: KMeans(n_clusters=k, n_init=10, random_state=0),
            "spectral (true k)": lambda: SpectralClustering(
                n_clusters=k, affinity="nearest_neighbors", n_neighbors=10,
                assign_labels="kmeans", random_state=0),
        }
        if dbscan:
            # noise points (-1) count as one more cluster, as a user would see them
            methods["DBSCAN (tuned on held-out sets: eps %g, min_samples %d)" % dbscan] = \
                lambda: DBSCAN(eps=dbscan[0], min_samples=dbscan[1])
        for name, make in methods.items():
            # DAC_BASELINES=VBDPM (a prefix): only the methods named so
            only = os.environ.get("DAC_BASELINES")
            if only and not name.startswith(only):
                continue
            m = make()
            t0 = time.perf_counter()
            if name.startswith("VBDPM"):
                m.fit(X)
                pred = m.predict(X)
                ll = float(np.mean(m.score_samples(X)))
            else:
                pred = m.fit_predict(X)
                ll = None
            acc[name]["seconds_per_set"] += time.perf_counter() - t0
            acc[name]["ari"] += adjusted_rand_score(y, pred)
            acc[name]["nmi"] += normalized_mutual_info_score(y, pred)
            acc[name]["k_mae"] += abs(k - len(np.unique(pred)))
            if ll is not None:
                acc[name]["ll"] += ll
    n = len(sets)
    for name, a in acc.items():
        print(json.dumps({"method": name, **{key: v / n for key, v in a.items()}}))


if __name__ == "__main__":
    main()
