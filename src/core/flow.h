/*
 * flow.h
 *	  The conditional masked autoregressive flow (MAF) of the authors' code:
 *	  the density of the warped model's head and the prior of the image
 *	  model's latent codes.
 *
 *	  One MADE block (input x [d], context c [C], H hidden units):
 *	    a1 = ELU(x (W_in ∘ M_in)ᵀ + b_in + W_ctx c)      W_ctx has no bias
 *	    a2 = ELU(a1 (W_hid ∘ M_hid)ᵀ + b_hid)
 *	    raw = a2 (W_out ∘ M_out)ᵀ + b_out                [2d]
 *	    u = (x − raw[0:d]) / s,  s = softplus(raw[d:2d]) + 1e-5
 *	    log-det −Σ log s
 *	  Each block is followed by a permutation of the coordinates:
 *	    flip     the next block reads u reversed (the warped model)
 *	    invlin   Glow's LU-decomposed invertible linear map y = u Wᵀ,
 *	             W = P (L ∘ M + I)(U ∘ Mᵀ + diag(sign · e^{log_s})), M the
 *	             strictly lower ones, log-det Σ log_s (the image model)
 *	  ll = Σ_j (−½ z_j² − ½ log 2π) + Σ log-dets, z = the last block's output.
 *	  The masks follow the degree rule of the reference: inputs j, hidden
 *	  units h mod (d − 1), outputs (o mod d) − 1; M[o, i] = deg_out ≥ deg_in.
 *	  Masked-out weights are kept at zero (dac_flow_mask_params), so the pass
 *	  multiplies by plain matrices; their gradients are zeroed.
 */
#ifndef DAC_FLOW_H
#define DAC_FLOW_H

#include "core.h"
#include "nn.h"

#define DAC_MAX_MADE 8
#define DAC_MAF_SCALE_EPS 1e-5

typedef struct dac_made
{
	dac_linear	in;				/* d -> H, masked */
	size_t		ctx;			/* W_ctx [H, C], no bias */
	dac_linear	hid;			/* H -> H, masked */
	dac_linear	out;			/* H -> 2d, masked: shift, then pre-softplus scale */
} dac_made;

/* Offsets of an invertible linear map's tensors ([d, d], [d, d], [d]; buffers [d, d], [d]). */
typedef struct dac_invlin
{
	size_t		lower,
				upper,
				log_s,
				perm,			/* buffer: the permutation matrix P */
				sign;			/* buffer: sign_s, ±1 */
} dac_invlin;

typedef enum
{
	DAC_PERM_FLIP = 0, DAC_PERM_INVLIN = 1
} dac_perm;

typedef struct dac_flow
{
	int			d;				/* point width */
	int			C;				/* context width */
	int			H;				/* hidden units per MADE */
	int			nmade;
	dac_perm	perm;
	dac_made	made[DAC_MAX_MADE];
	dac_invlin	inv[DAC_MAX_MADE];
} dac_flow;

/* What a flow's pass keeps (for its backward pass unless it ran in chunks). */
typedef struct dac_flow_cache
{
	int			B,
				n;
	const dac_real *context;	/* [B, C] */
	dac_real   *ctx[DAC_MAX_MADE];	/* [B, H] W_ctx c */
	dac_real   *W[DAC_MAX_MADE];	/* invlin: the assembled W [d, d] */
	dac_real   *xin[DAC_MAX_MADE];	/* [B*n, d] block inputs */
	dac_real   *a1[DAC_MAX_MADE];	/* [B*n, H] after the first ELU */
	dac_real   *a2[DAC_MAX_MADE];	/* [B*n, H] after the second ELU */
	dac_real   *mraw[DAC_MAX_MADE]; /* [B*n, 2d] */
	dac_real   *u[DAC_MAX_MADE];	/* invlin: [B*n, d] the MADE outputs */
	dac_real   *z;				/* [B*n, d] base-space points */
} dac_flow_cache;

/* Masks (1 = kept) of MADE weights: which 0 = in [H,d], 1 = hid [H,H], 2 = out [2d,H]. */
extern int	dac_flow_mask(const dac_flow *f, int which, int o, int i);
/* The masked linear of a block: which as above. */
extern const dac_linear *dac_flow_masked(const dac_flow *f, int block, int which);
/* Zero the masked-out MADE weights and the unused triangles of the LU factors in P (or G). */
extern void dac_flow_mask_params(const dac_flow *f, dac_real *P);

/* W [d, d] of invertible map k, assembled from P; returns its log-det Σ log_s. */
extern double dac_invlin_weight(const dac_flow *f, int k, const dac_real *P, dac_real *W);

/*
 * ll [B*n] (written) of rows X [B*n, d] under their sets' contexts
 * context [B, C] (row r belongs to set r / n), and z2 (may be NULL) the
 * squared length of each row's base point.  infer: rows in chunks, nothing
 * kept for a backward pass, scratch released (dac_flow_infer_bytes).
 * c->context keeps the context pointer.
 */
extern dac_status dac_flow_forward(const dac_flow *f, const dac_real *P, const dac_real *context,
								   const dac_real *X, int B, int n, int infer, dac_arena *ar,
								   dac_flow_cache *c, dac_real *ll, double *z2);
/* The pass's per-set products (c->ctx, c->W) for B contexts of sets of n rows. */
extern dac_status dac_flow_prepare(const dac_flow *f, const dac_real *P, const dac_real *context,
								   int B, int n, dac_arena *ar, dac_flow_cache *c);
/*
 * ll [rows] (and z2) of rows X [rows, d] that are rows row0.. of the pass c
 * was prepared for, in chunks, keeping nothing.
 */
extern dac_status dac_flow_rows(const dac_flow *f, const dac_real *P, const dac_flow_cache *c,
								const dac_real *X, size_t rows, size_t row0, dac_arena *ar,
								dac_real *ll, double *z2);
/*
 * G += gradients given dll [B*n] (G NULL: none, the parameters left out);
 * dX [B*n, d] (may be NULL) += d loss / d X;
 * dcontext [B, C] += d loss / d context.
 */
extern dac_status dac_flow_backward(const dac_flow *f, const dac_real *P, dac_real *G,
									const dac_flow_cache *c, const dac_real *dll, dac_real *dX,
									dac_real *dcontext, dac_arena *ar);

/* Matrix FLOPs for B sets of n rows; arena bytes kept (returned) and held while it runs. */
extern double dac_flow_flops(const dac_flow *f, int B, int n);
extern double dac_flow_infer_bytes(const dac_flow *f, int B, int n, double *scratch);

/* PyTorch's softplus (threshold 20), and its derivative. */
extern dac_real dac_softplus(dac_real x);
extern dac_real dac_softplus_grad(dac_real x);

#endif							/* DAC_FLOW_H */
