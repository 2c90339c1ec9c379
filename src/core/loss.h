/*
 * loss.h
 *	  The DAC training losses and their gradients with respect to the
 *	  network's logits and log-likelihoods.
 *
 *	  BCE(l, t) = max(l, 0) − l·t + log(1 + e^−|l|)
 *	  MLF: per set, min over its non-empty true clusters j of
 *	       mean_i BCE(l_i, 1[y_i=j]) − Σ_{y_i=j} ll_i / (n_j + 1e-8);
 *	       only the arg-min cluster gets gradient.
 *	  AF:  t_i = 1[y_i = y_anchor];  mean over all B·n of BCE −
 *	       mean over sets of Σ t_i ll_i / (Σ t_i + 1e-8).
 *	  The batch loss is the mean over sets.  Without a density head
 *	  (ll == NULL) the ll terms vanish.
 */
#ifndef DAC_LOSS_H
#define DAC_LOSS_H

#include "core.h"

extern double dac_bce_logits(double l, double t);

/*
 * labels: [B*n] in 0..k-1 (any non-negative ints).  dlogits/dll: [B*n],
 * overwritten (dll may be NULL).  argmin (optional): [B] chosen cluster.
 */
extern dac_status dac_mlf_loss(const dac_real *logits, const dac_real *ll, const int *labels,
							   int B, int n, dac_loss_parts *out, dac_real *dlogits,
							   dac_real *dll, int *argmin, dac_error *err);
extern dac_status dac_af_loss(const dac_real *logits, const dac_real *ll, const int *labels,
							  const int *anchors, int B, int n, dac_loss_parts *out,
							  dac_real *dlogits, dac_real *dll, dac_error *err);

#endif							/* DAC_LOSS_H */
