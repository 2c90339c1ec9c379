/*
 * mixture.h
 *	  What is kept of a clustering: its clusters as a diagonal Gaussian
 *	  mixture (size, mean, standard deviation, a representative member per
 *	  cluster), written to and read from JSON, and used to assign new points
 *	  without clustering again; and the χ² tail that the noise test
 *	  (stages.h) and assignment share.
 */
#ifndef DAC_MIXTURE_H
#define DAC_MIXTURE_H

#include "core.h"
#include "labels.h"
#include "json.h"

/* The temperature's range (1: the mixture's own posterior). */
#define DAC_TEMPERATURE_MAX 1e4

/*
 * dac_mixture_from_clustering (dac.h) in full.
 *
 * The clusters of c (labels 1 .. num_clusters; 0 = noise, left out) over
 * X [n, d]: ids 1 .. k, sizes, and as mean and sd the network's θ when
 * gaussian (c->theta holds μ then σ; taken back to the caller's units
 * through c's frame when it has one), else the members' mean and standard
 * deviation.  The representative of a cluster is its member nearest its
 * mean: in the metric of its σ (the member its Gaussian gives the highest
 * density) for a Gaussian head, in Euclidean distance without one; ties to
 * the smaller ord.  Empty clusters are left out.
 *
 * The temperature calibrates dac_mixture_assign's probability: in many
 * dimensions a diagonal Gaussian counts correlated coordinates as separate
 * evidence, so its posterior is 1.000 for nearly every point.  It is the T
 * in [1, DAC_TEMPERATURE_MAX] that makes the tempered posterior (log
 * weight + log density) / T likeliest for the members' own clusters, each
 * member scored against its cluster's Gaussian refit without it (leave one
 * out; the network's θ as it is for a Gaussian head), on at most
 * DAC_CALIBRATION_POINTS members taken at an even stride.  A held-out row's
 * probability is then the chance it would have been put in that cluster had
 * it been clustered with the set.
 */
#define DAC_CALIBRATION_POINTS 2000
/* The same without the temperature (it stays 1): for the noise test, which needs none. */
extern dac_status dac_mixture_of_clusters(const dac_real *X, int d, const dac_clustering *c,
										  int gaussian, dac_mixture *mix, dac_error *err);
/* Σ_j ((x_j − μ_j) / sd_eff_j)² of x [d] under the mixture's cluster s (0-based). */
extern double dac_mixture_sqdist(const dac_mixture *mix, int s, const dac_real *x);

/*
 * The untempered log-odds of x [d] for each cluster: z [k] = log w_k + log
 * N(x; μ_k, sd_eff_k); dac_mixture_assign's posterior is softmax(z / T).
 */
extern void dac_mixture_logodds(const dac_mixture *mix, const dac_real *x, double *z);

/*
 * log P(χ²_dof ≥ x): the log of the chance that a squared standardised
 * distance in dof dimensions is at least x (the upper regularised incomplete
 * gamma Q(dof/2, x/2)), accurate to about 1e-12 relative; dof need not be
 * a whole number.
 */
extern double dac_chi2_log_sf(double x, double dof);

/*
 * The standard normal quantile Φ⁻¹(p) for 0 < p < 1, to about 1e-14:
 * Newton's steps on Φ (erfc), kept inside a bracket that halves whenever a
 * step would leave it; the lower tail is solved directly, the upper one as
 * −Φ⁻¹(1 − p).  ±INFINITY at 0 and 1, NaN outside.
 */
extern double dac_normal_quantile(double p);

#endif							/* DAC_MIXTURE_H */
