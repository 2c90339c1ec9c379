/*
 * density.h
 *	  The density heads of the filtering networks, behind one interface: what
 *	  turns the pooled set summary H_θ [B, D] into a cluster's parameters θ and
 *	  the log-density ll of every point under them.
 *
 *	  gaussian_diag  θ = (μ, σ = softplus(raw)) from fc1: D -> 2d
 *	  maf            θ = fc1(H_θ): D -> C, the context of a conditional masked
 *	                 autoregressive flow (flow.h: MADE blocks, each followed
 *	                 by a Flip, over a standard normal base), as the authors'
 *	                 warped model
 *	  ns             θ = fc1(H_θ): D -> C, the context of a neural
 *	                 statistician's per-image evidence bound (image.h)
 *	  none           θ = H_θ itself; no ll
 */
#ifndef DAC_DENSITY_H
#define DAC_DENSITY_H

#include "core.h"
#include "flow.h"
#include "image.h"
#include "nn.h"

typedef enum
{
	DAC_DENSITY_GAUSSIAN = 0, DAC_DENSITY_NONE = 1, DAC_DENSITY_MAF = 2, DAC_DENSITY_NS = 3
} dac_density;

typedef struct dac_head
{
	dac_density kind;
	int			d;				/* row width (ns: an image's pixels and its noise) */
	int			D;				/* width of H_θ */
	dac_linear	fc1;			/* gaussian: D -> 2d; maf, ns: D -> C */
	dac_flow	flow;			/* maf */
	dac_ns		ns;				/* ns */
} dac_head;

/* What a head's forward pass keeps (for its backward pass unless infer). */
typedef struct dac_head_cache
{
	int			B,
				n;
	const dac_real *X;			/* [B*n, d] */
	const dac_real *Ht;			/* [B, D] */
	dac_real   *raw;			/* [B, fc1.out] */
	dac_real   *theta;			/* [B, theta_dim] */
	dac_real   *ll;				/* [B*n]; NULL without a density */
	dac_flow_cache flow;		/* maf, kept when not infer */
	dac_ns_cache ns;			/* ns */
} dac_head_cache;

/* Width of θ: 2d (μ, σ), C (the flow's context), or D (H_θ, no density). */
extern int	dac_head_theta_dim(const dac_head *h);
extern int	dac_head_has_density(const dac_head *h);
extern const char *dac_density_name(dac_density kind);

/* The head's flow (the maf density, the ns prior), or NULL. */
extern const dac_flow *dac_head_flow(const dac_head *h);
/* Zero the masked-out MADE weights in P (after loading or drawing them). */
extern void dac_head_mask_params(const dac_head *h, dac_real *P);

/*
 * θ and ll of B sets of n points X from H_θ; feat: the rows' image features
 * (ns; NULL otherwise).  infer: keep only θ and ll (rows in chunks, bounded
 * scratch: dac_head_infer_bytes); DAC_INFER_NO_LL: the image model leaves
 * ll NULL (its evidence bound costs more than the rest of the pass), the
 * other heads compute it as for infer.
 */
#define DAC_INFER_NO_LL 2
extern dac_status dac_head_forward(const dac_head *h, const dac_real *P, const dac_real *Ht,
								   const dac_real *X, const dac_real *feat, int B, int n,
								   int infer, dac_arena *ar, dac_head_cache *c);
/*
 * G += gradients; dHt [B, D] += d loss / d H_θ, given dll [B*n] (NULL: no
 * ll term); dfeat (ns) += d loss / d feat.
 */
extern dac_status dac_head_backward(const dac_head *h, const dac_real *P, dac_real *G,
									const dac_head_cache *c, const dac_real *dll,
									dac_real *dHt, dac_real *dfeat, dac_arena *ar);

/*
 * ll [n] of n points X [n, d] under one cluster's θ, and (z2, may be NULL)
 * the squared length of each point in the head's standard-normal space
 * (Σ ((x − μ)/σ)² for a Gaussian; |z|² for the flow), which is χ²_d for
 * points the density draws.  DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED (checked
 * every chunk of rows), DAC_ERR_INVALID without a density.
 */
extern dac_status dac_head_ll(const dac_head *h, const dac_real *P, const dac_real *theta,
							  const dac_real *X, int n, dac_real *ll, double *z2);

/*
 * ll [K, n] of n points X under each of K clusters' θ [K, theta_dim] (the
 * image model encodes the images once for all of them).
 */
extern dac_status dac_head_ll_many(const dac_head *h, const dac_real *P, const dac_real *theta, int K,
								   const dac_real *X, int n, dac_real *ll);

/*
 * Matrix FLOPs of the head for one set of n points; arena bytes of an
 * inference pass: kept to its end (returned) and held while the head runs.
 */
extern double dac_head_flops(const dac_head *h, int n);
extern double dac_head_infer_bytes(const dac_head *h, int B, int n, double *scratch);

/* The one diagonal Gaussian: Σ_j ((x_j − μ_j)/σ_j)², and −Σ_j log σ_j − (d/2) log 2π. */
extern double dac_gauss_sqdist(const dac_real *x, const double *mu, const double *sd, int d);
extern double dac_gauss_lognorm(const double *sd, int d);

#endif							/* DAC_DENSITY_H */
