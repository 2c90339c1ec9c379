#!/usr/bin/python3
"""Reference values for test_cluster.c's EM case, from scikit-learn.

GaussianMixture (diagonal covariances, no covariance regulariser) started
from the case's θ and cluster shares does the EM steps dac_clustering_em
does; its means, standard deviations and predicted labels after 1 and 3
steps, and at convergence, are printed as C initialisers.  The data: three
overlapping 2-D clusters of 20 points (seeded), rounded to 3 decimals so
that float32 holds the same values.

    /usr/bin/python3 test/unit/em_reference.py
"""
import warnings

import numpy as np
from sklearn.mixture import GaussianMixture

warnings.filterwarnings("ignore")   # max_iter 1 and 3 "do not converge"
rng = np.random.default_rng(5)
mus = np.array([[0, 0], [2.5, 0.5], [0.5, 3]])
sds = np.array([[1.0, 0.6], [0.7, 1.2], [0.8, 0.8]])
X = np.concatenate([rng.normal(mus[k], sds[k], size=(20, 2)) for k in range(3)])
X = np.round(X, 3).astype(np.float32).astype(np.float64)
# the starting clustering: bands of the plane, θ (mean, then σ) off the mark
lab = np.where(X[:, 1] > 1.8, 3, np.where(X[:, 0] > 1.3, 2, 1))
th = np.array([[0.2, -0.3, 0.8, 0.4], [2.0, 0.2, 0.5, 0.9], [0.0, 2.5, 1.0, 1.0]])
w = np.bincount(lab - 1, minlength=3) / len(X)


def fit(steps):
    g = GaussianMixture(3, covariance_type="diag", max_iter=steps,
                        tol=0 if steps < 100 else 1e-12, reg_covar=0,
                        weights_init=w, means_init=th[:, :2],
                        precisions_init=1 / th[:, 2:] ** 2)
    return g.fit(X)


def c_list(values, fmt):
    return ", ".join(fmt % v for v in values)


print("X:", c_list(X.ravel(), "%.3f"))
print("labels:", c_list(lab, "%d"))
for steps in (1, 3, 1000):
    g = fit(steps)
    theta = np.concatenate([g.means_, np.sqrt(g.covariances_)], 1).ravel()
    print("after %d step(s) (%d run): theta %s" % (steps, g.n_iter_, c_list(theta, "%.9g")))
    print("  labels", c_list(g.predict(X) + 1, "%d"))
    # every σ stays above the floor (smallest starting σ per dimension)
    assert (np.sqrt(g.covariances_) > th[:, 2:].min(0)).all()
