/*
 * setnorm.h
 *	  Set normalisation: the input transform of models that take vectors of
 *	  any dimension.  A set of n vectors of dimension d becomes n vectors of
 *	  the network's width w:
 *
 *	    Z = (X − mean) V / R
 *
 *	  V [d, r] holds the set's r = min(w, d) leading principal directions
 *	  (exact for d <= w + 8, else from a seeded block power iteration), each
 *	  signed so that the third moment of its coordinate is not negative; R
 *	  is the root mean square length of the projected rows; columns r .. w−1
 *	  are zero.  Z depends only on the set of rows (not their order, up to
 *	  rounding), and not on a translation, rotation or scaling of the space,
 *	  so a network trained on it cannot learn where classes sit, only what
 *	  clusters look like.
 */
#ifndef DAC_SETNORM_H
#define DAC_SETNORM_H

#include "core.h"

/* Power iterations of the block method (d > w + 8). */
#define DAC_SETNORM_POWER_ITERS 4
/* Extra directions the block method carries (oversampling). */
#define DAC_SETNORM_OVERSAMPLE 8

/*
 * X [n, d] -> Z [n, w].  n >= 1, d >= 1, w >= 1.  DAC_ERR_NOMEM, or
 * DAC_ERR_INTERRUPTED from the host's interrupt check (between power
 * iterations, rows of the eigen-solver's rotations and columns of the
 * products over the set).  Z must not overlap X.
 */
extern dac_status dac_setnorm(const dac_real *X, int n, int d, int w, dac_real *Z,
							  dac_error *err);

/* Bytes of scratch dac_setnorm allocates for these sizes, at most. */
extern double dac_setnorm_bytes(int n, int d, int w);

/* Matrix FLOPs of dac_setnorm for these sizes (as dac_gemm counts them). */
extern double dac_setnorm_flops(int n, int d, int w);

/*
 * Eigen-decomposition of a symmetric p x p matrix A (double, row-major,
 * destroyed) by cyclic Jacobi rotations: eigenvalues in decreasing order in
 * ev [p], eigenvectors in the columns of V [p, p].  Returns nonzero when
 * the host's interrupt check (run between rows of rotations) asked to stop,
 * leaving ev and V undefined; 0 otherwise.
 */
extern int	dac_sym_eigen(double *A, int p, double *ev, double *V);

#endif							/* DAC_SETNORM_H */
