/*
 * density.h
 *	  The density heads of the filtering networks, behind one interface: what
 *	  turns the pooled set summary H_θ [B, D] into a cluster's parameters θ and
 *	  the log-density ll of every point under them.
 *
 *	  gaussian_diag  θ = (μ, σ = softplus(raw)) from fc1: D -> 2d
 *	  maf            θ = fc1(H_θ): D -> C, the context of a conditional masked
 *	                 autoregressive flow (MADE blocks, each followed by a Flip,
 *	                 over a standard normal base), as the authors' warped model
 *	  none           θ = H_θ itself; no ll
 *
 *	  One MADE block (input x [d], context c [C], H hidden units):
 *	    a1 = ELU(x (W_in ∘ M_in)ᵀ + b_in + W_ctx c)      W_ctx has no bias
 *	    a2 = ELU(a1 (W_hid ∘ M_hid)ᵀ + b_hid)
 *	    raw = a2 (W_out ∘ M_out)ᵀ + b_out                [2d]
 *	    u = (x − raw[0:d]) / s,  s = softplus(raw[d:2d]) + 1e-5
 *	    log-det −Σ log s; the next block reads u reversed (the Flip)
 *	  ll = Σ_j (−½ z_j² − ½ log 2π) + Σ log-dets, z = the last Flip's output.
 *	  The masks follow the degree rule of the reference: inputs j, hidden
 *	  units h mod (d − 1), outputs (o mod d) − 1; M[o, i] = deg_out ≥ deg_in.
 *	  Masked-out weights are kept at zero (dac_head_mask_params), so the pass
 *	  multiplies by plain matrices; their gradients are zeroed.
 */
#ifndef DAC_DENSITY_H
#define DAC_DENSITY_H

#include "core.h"
#include "nn.h"

typedef enum
{
	DAC_DENSITY_GAUSSIAN = 0, DAC_DENSITY_NONE = 1, DAC_DENSITY_MAF = 2
} dac_density;

#define DAC_MAX_MADE 8
#define DAC_MAF_SCALE_EPS 1e-5

typedef struct dac_made
{
	dac_linear	in;				/* d -> H, masked */
	size_t		ctx;			/* W_ctx [H, C], no bias */
	dac_linear	hid;			/* H -> H, masked */
	dac_linear	out;			/* H -> 2d, masked: shift, then pre-softplus scale */
} dac_made;

typedef struct dac_head
{
	dac_density kind;
	int			d;				/* point width */
	int			D;				/* width of H_θ */
	int			C;				/* maf: context width */
	int			H;				/* maf: hidden units per MADE */
	int			nmade;			/* maf: MADE blocks */
	dac_linear	fc1;			/* gaussian: D -> 2d; maf: D -> C */
	dac_made	made[DAC_MAX_MADE];
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
	/* maf, kept when not infer: */
	dac_real   *ctx[DAC_MAX_MADE];	/* [B, H] W_ctx θ */
	dac_real   *xin[DAC_MAX_MADE];	/* [B*n, d] block inputs */
	dac_real   *a1[DAC_MAX_MADE];	/* [B*n, H] after the first ELU */
	dac_real   *a2[DAC_MAX_MADE];	/* [B*n, H] after the second ELU */
	dac_real   *mraw[DAC_MAX_MADE]; /* [B*n, 2d] */
	dac_real   *z;				/* [B*n, d] base-space points */
} dac_head_cache;

/* Width of θ: 2d (μ, σ), C (the flow's context), or D (H_θ, no density). */
extern int	dac_head_theta_dim(const dac_head *h);
extern int	dac_head_has_density(const dac_head *h);
extern const char *dac_density_name(dac_density kind);

/* Masks (1 = kept) of MADE weights: which 0 = in [H,d], 1 = hid [H,H], 2 = out [2d,H]. */
extern int	dac_made_mask(const dac_head *h, int which, int o, int i);
/* Zero the masked-out MADE weights in P (after loading or drawing them). */
extern void dac_head_mask_params(const dac_head *h, dac_real *P);

/*
 * θ and ll of B sets of n points X from H_θ.  infer: keep only θ and ll
 * (rows in chunks, bounded scratch: dac_head_infer_bytes).
 */
extern dac_status dac_head_forward(const dac_head *h, const dac_real *P, const dac_real *Ht,
								   const dac_real *X, int B, int n, int infer, dac_arena *ar,
								   dac_head_cache *c);
/* G += gradients; dHt [B, D] += d loss / d H_θ, given dll [B*n] (NULL: no ll term). */
extern dac_status dac_head_backward(const dac_head *h, const dac_real *P, dac_real *G,
									const dac_head_cache *c, const dac_real *dll,
									dac_real *dHt, dac_arena *ar);

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
 * Matrix FLOPs of the head for one set of n points; arena bytes of an
 * inference pass: kept to its end (returned) and held while the head runs.
 */
extern double dac_head_flops(const dac_head *h, int n);
extern double dac_head_infer_bytes(const dac_head *h, int B, int n, double *scratch);

/* The one diagonal Gaussian: Σ_j ((x_j − μ_j)/σ_j)², and −Σ_j log σ_j − (d/2) log 2π. */
extern double dac_gauss_sqdist(const dac_real *x, const double *mu, const double *sd, int d);
extern double dac_gauss_lognorm(const double *sd, int d);

/* PyTorch's softplus (threshold 20). */
extern dac_real dac_softplus(dac_real x);

#endif							/* DAC_DENSITY_H */
