/*
 * optim.h
 *	  Adam (PyTorch's formulation), cosine learning-rate decay and global
 *	  gradient-norm clipping over flat buffers.
 */
#ifndef DAC_OPTIM_H
#define DAC_OPTIM_H

#include "core.h"

/* lr·½(1 + cos(π·step/total)) for step = 0, 1, … (PyTorch's CosineAnnealingLR). */
extern double dac_cosine_lr(double lr, long step, long total);

/* Scale G so that its 2-norm is at most max_norm; returns the norm before. */
extern double dac_clip_grad_norm(dac_real *G, size_t n, double max_norm);

/* One Adam update; t is the 1-based step number. */
extern void dac_adam_update(dac_real *P, const dac_real *G, dac_real *M, dac_real *V,
							size_t n, long t, double lr, const dac_adam_config *cfg);

#endif							/* DAC_OPTIM_H */
