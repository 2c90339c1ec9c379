/*
 * gen.h
 *	  The paper's synthetic data: mixtures of Gaussians and warped mixtures.
 */
#ifndef DAC_GEN_H
#define DAC_GEN_H

#include "core.h"
#include "rng.h"

/*
 * dac_generate (dac.h) in full.
 *
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


#endif							/* DAC_GEN_H */
