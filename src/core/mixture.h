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
#include "clustering.h"
#include "labels.h"
#include "json.h"

/* The version of the JSON form ("dac_clustering": 1). */
#define DAC_MIXTURE_FORMAT 1

typedef struct dac_mixture
{
	int			k;				/* clusters */
	int			d;				/* dimension */
	int			n;				/* points clustered (noise included) */
	int			noise;			/* of them, noise */
	int			gaussian;		/* mean, sd: the network's θ (1), else the members' */
	char	   *model;			/* the model's name, or NULL */
	int64_t		model_version;	/* 0 when unknown */
	int		   *id;				/* [k] cluster ids */
	int		   *size;			/* [k] members */
	int		   *rep;			/* [k] 1-based ord of the representative, 0 = unknown */
	double	   *mean;			/* [k, d] */
	double	   *sd;				/* [k, d] as reported (0 for a one-point cluster) */
	double	   *sd_eff;			/* [k, d] σ used to assign: see dac_mixture_assign */
	double	   *logw;			/* [k] log(size / Σ size) */
	double	   *lognorm;		/* [k] dac_gauss_lognorm(sd_eff): −Σ_j log sd_eff − (d/2) log 2π */
	double	   *stability;		/* [k] in (0, 1]: the share of rows given the cluster
								 * that would be in it had they been clustered with
								 * the set (calibrate.h; 1 when not measured) */
	double		temperature;	/* ≥ 1: the posterior's log-odds are divided by it */
} dac_mixture;

/* The temperature's range (1: the mixture's own posterior). */
#define DAC_TEMPERATURE_MAX 1e4

/*
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
extern dac_status dac_mixture_from_clustering(const dac_real *X, int d, const dac_clustering *c,
											  int gaussian, dac_mixture *mix, dac_error *err);
/* Bytes dac_mixture_from_clustering needs for k clusters of n points of width d, at most. */
extern double dac_mixture_bytes(int n, int d, int k);
/* The same without the temperature (it stays 1): for the noise test, which needs none. */
extern dac_status dac_mixture_of_clusters(const dac_real *X, int d, const dac_clustering *c,
										  int gaussian, dac_mixture *mix, dac_error *err);
/* Σ_j ((x_j − μ_j) / sd_eff_j)² of x [d] under the mixture's cluster s (0-based). */
extern double dac_mixture_sqdist(const dac_mixture *mix, int s, const dac_real *x);
extern void dac_mixture_free(dac_mixture *mix);

/* Give the clusters new ids: map[j] for the cluster with id j (1 .. max id). */
extern void dac_mixture_relabel(dac_mixture *mix, const int *map, int max_id);

/*
 * Append the JSON form: {"dac_clustering": 1, "model": ..., "model_version":
 * ..., "density": "gaussian_diag" | "none", "dim": d, "n": n, "noise": ...,
 * "clusters": [{"id", "size", "representative", "mean": [...], "stddev":
 * [...], "stability": s}, ...], "temperature": T}, numbers with 17
 * significant digits (they read back the same).  A text without
 * "temperature" or "stability" (kept before 0.11.0) reads them as 1.
 */
extern void dac_mixture_to_json(const dac_mixture *mix, dac_strbuf *sb);

/*
 * Read the JSON form back, checking it: DAC_ERR_FORMAT naming what is wrong
 * (a missing or mistyped member, a length that is not dim, a non-finite or
 * negative number, a repeated id, ...); DAC_ERR_TOO_LARGE past the JSON
 * limits.
 */
extern dac_status dac_mixture_from_json(const char *text, size_t len, dac_mixture *mix,
										dac_error *err);

/*
 * Assign x [d] to a cluster: the one under whose Gaussian, weighted by its
 * share of the points, x is likeliest (each σ at least the smallest positive
 * σ any cluster has in that coordinate, and at least 1e-6: sd_eff).  *prob
 * is that cluster's posterior probability at the mixture's temperature
 * times its stability.  With noise_level > 0, *id = 0
 * (noise) when a point drawn from that cluster's Gaussian lies at least as
 * far (in its σ metric) from its mean with probability under noise_level.
 */
extern void dac_mixture_assign(const dac_mixture *mix, const dac_real *x, double noise_level,
							   int *id, double *prob);

/*
 * The untempered log-odds of x [d] for each cluster: z [k] = log w_k + log
 * N(x; μ_k, sd_eff_k); dac_mixture_assign's posterior is softmax(z / T).
 */
extern void dac_mixture_logodds(const dac_mixture *mix, const dac_real *x, double *z);

/*
 * log P(χ²_dof ≥ x): the log of the chance that a squared standardised
 * distance in dof dimensions is at least x (the upper regularised incomplete
 * gamma Q(dof/2, x/2)), accurate to about 1e-12 relative.
 */
extern double dac_chi2_log_sf(double x, int dof);


#endif							/* DAC_MIXTURE_H */
