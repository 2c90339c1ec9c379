/*
 * whiten.h
 *	  A table's within-label whitening: the linear map a table's run may
 *	  attach to a set-normalised model (dac_train's "whiten").
 *
 *	  S_w = (1/N) Σ_i (x_i − μ_{y_i})(x_i − μ_{y_i})ᵀ is the scatter of the
 *	  table's rows about their labels' means.  With A = S_w + α·(tr S_w / d)·I
 *	  and A = L Lᵀ (Cholesky), the map is M = L⁻¹ (lower triangular): the
 *	  rows x ↦ M x have within-label scatter M S_w Mᵀ, the identity when
 *	  α = 0.  Directions in which the table's labels are tight grow, those in
 *	  which one label's rows spread shrink, so rows of other labels of the
 *	  same kind of embedding come apart along the directions that separated
 *	  the table's.  α (the ridge, in units of the mean variance) keeps the
 *	  map defined when S_w is singular and moves it towards a multiple of
 *	  the identity as it grows.  Set normalisation (setnorm.h) does not
 *	  depend on a rotation or scaling of the rows, so any W with
 *	  W A Wᵀ = I gives the same clusters as M.
 */
#ifndef DAC_WHITEN_H
#define DAC_WHITEN_H

#include "core.h"

struct dac_labelled;

/*
 * S [d, d] (double, row-major) = the within-label scatter of ds's rows.
 * DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED (the host's check every block of
 * rows), DAC_ERR_INVALID when ds has fewer than 2 rows.
 */
extern dac_status dac_within_scatter(const struct dac_labelled *ds, double *S, dac_error *err);

/*
 * M [d, d] (row-major; zero above the diagonal) = L⁻¹ for
 * S + alpha·(tr S / d)·I = L Lᵀ.  alpha > 0.  DAC_ERR_INVALID when S has
 * no spread (trace 0 or not finite) or A is not positive definite;
 * DAC_ERR_NOMEM; DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_whitening_map(const double *S, int d, double alpha, dac_real *M, dac_error *err);

/*
 * A table's projection onto the directions that separate its labels (LDA),
 * for groups of its own classes: G [d, d] = dac_whitening_map of ds's
 * within-label scatter at the ridge, means [L, d] its labels' means in G's
 * coordinates (the L labels with rows, in label order; room for ds's
 * labels), and P [d, d] whose first min(L − 1, d) rows are the leading
 * between-label directions of those means (centred, unit length in G's
 * coordinates) taken through G, the rest zero: a row x goes to P x.
 * *rows: how many of P's rows carry a direction (at least 1; the rest are
 * zero, so P's first *rows rows are the whole map).
 * scatter: ds's dac_within_scatter when the caller has it, else NULL.
 * *classes = L.  DAC_ERR_INVALID with fewer than 3 labels with rows,
 * DAC_ERR_TOO_LARGE over DAC_MAX_GATE_CLASSES, DAC_ERR_NOMEM,
 * DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_lda_map(const struct dac_labelled *ds, const double *scatter, double ridge, dac_real *P,
							  int *rows, dac_real *G, dac_real *means, int *classes, dac_error *err);

/* the projection's ridge: its gate's whitening (cluster.h: the gate) */
#define DAC_LDA_RIDGE 0.1

/* Bytes dac_within_scatter and dac_whitening_map allocate for width d, at most (S not counted). */
extern double dac_whitening_bytes(int d);

#endif							/* DAC_WHITEN_H */
