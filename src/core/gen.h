/*
 * gen.h
 *	  The paper's synthetic data: mixtures of Gaussians and warped mixtures.
 */
#ifndef DAC_GEN_H
#define DAC_GEN_H

#include "core.h"
#include "rng.h"

typedef enum
{
	DAC_GEN_MOG = 0, DAC_GEN_WARPED = 1, DAC_GEN_EMBED = 2
} dac_gen_kind;

/* n uniform on {⌊0.3·n_max⌋ … n_max−1} (n_max itself when that range is empty). */
extern int	dac_sample_n(dac_rng *r, int n_max);

/*
 * Fill B sets of n points: X [B*n, dim], labels [B*n] in 0..k−1 (components
 * renumbered in order, empty ones dropped), k_true [B] (may be NULL).
 *	 MoG: π ~ Dir(1), each component after the first kept with probability ½,
 *	      μ ~ N(0, 3²I), σ = exp(log 0.25 + 0.1ε) per coordinate.
 *	 Warped (dim 2): a 1-D MoG (Dir(5)) bent along ellipses, rotated and shifted.
 *	 Embed (any dim): clusters shaped like those of embeddings (see
 *	      dac_generate_embed_set in gen.c): π as MoG; each cluster an
 *	      anisotropic, randomly oriented Gaussian whose spectrum decays
 *	      geometrically, some bent, some heavy-tailed; means closer or
 *	      farther apart per set; half the sets put on a sphere.
 * DAC_ERR_NOMEM, or DAC_ERR_INTERRUPTED by the host's interrupt check
 * (every cluster and every 256 to 1,024 points).
 */
extern dac_status dac_generate(dac_gen_kind kind, dac_rng *r, int B, int n, int k_max,
							   int dim, dac_real *X, int *labels, int *k_true, dac_error *err);

/* Bytes of scratch dac_generate allocates for these sizes, at most (besides X and labels). */
extern double dac_generate_bytes(dac_gen_kind kind, int k_max, int dim);

/*
 * The same, and ll_true [B] (may be NULL): each set's mean log density under
 * the mixture that drew it (true π, μ, σ), the paper's oracle LL; NaN for
 * warped sets.
 */
extern dac_status dac_generate_oracle(dac_gen_kind kind, dac_rng *r, int B, int n, int k_max,
									  int dim, dac_real *X, int *labels, int *k_true,
									  double *ll_true, dac_error *err);

#endif							/* DAC_GEN_H */
