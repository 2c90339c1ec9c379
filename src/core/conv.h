/*
 * conv.h
 *	  Convolutions, transposed convolutions and batch normalisation of
 *	  images, as PyTorch's Conv2d, ConvTranspose2d and BatchNorm2d compute
 *	  them, each a forward/backward pair.
 *
 *	  Images lie channel-last: a batch of m images of h×w pixels and c
 *	  channels is one [m·h·w, c] matrix (row = pixel), so a layer over all
 *	  images is one matrix product.  Weights keep PyTorch's layouts:
 *	    Conv2d           W [out, in, k, k]:  y[o, i, j] = b[o] +
 *	                     Σ_{c,a,e} W[o, c, a, e] x[c, s·i − p + a, s·j − p + e]
 *	    ConvTranspose2d  W [in, out, k, k]:  input pixel (h, w) adds
 *	                     W[c, o, a, e] x[c, h, w] to output (s·h − p + a, s·w − p + e)
 *	  (a cross-correlation, no kernel flip; out-of-range positions dropped).
 *	    BatchNorm2d      y = (x − m_c) / √(v_c + 1e-5) · γ_c + β_c: in training
 *	                     m, v are the batch's mean and biased variance per
 *	                     channel over every image and pixel; otherwise the
 *	                     running estimates.
 */
#ifndef DAC_CONV_H
#define DAC_CONV_H

#include "core.h"

typedef struct dac_conv
{
	size_t		w,
				b;				/* offsets of the weight and bias */
	int			cin,
				cout,
				k,
				stride,
				pad,
				out_pad,		/* transposed only: extra rows/columns at the end */
				transposed;
	int			hin,
				win,
				hout,
				wout;
} dac_conv;

typedef struct dac_bn
{
	size_t		gamma,
				beta,
				mean,			/* buffers: the running estimates */
				var;
	int			C;
} dac_bn;

#define DAC_BN_EPS 1e-5
#define DAC_BN_MOMENTUM 0.1

/* Output size of a layer (0 when the sizes make none); sets hout, wout. */
extern int	dac_conv_shape(dac_conv *cv);

/* y [m·hout·wout, cout] (written) from x [m·hin·win, cin]; scratch from ar, released. */
extern dac_status dac_conv_forward(const dac_conv *cv, const dac_real *P, const dac_real *x, int m,
								   dac_real *y, dac_arena *ar);
/* G += weight and bias gradients; dx (may be NULL) += d loss / d x. */
extern dac_status dac_conv_backward(const dac_conv *cv, const dac_real *P, dac_real *G,
									const dac_real *x, const dac_real *dy, int m, dac_real *dx,
									dac_arena *ar);

/* Training: y from the batch's statistics, written to mean and var [C] (biased). */
extern void dac_bn_forward_batch(const dac_bn *bn, const dac_real *P, const dac_real *x, size_t rows,
								 dac_real *y, double *mean, double *var);
/* Inference: y from the running estimates in P. */
extern void dac_bn_forward_running(const dac_bn *bn, const dac_real *P, const dac_real *x,
								   size_t rows, dac_real *y);
/* Training's backward: G += dγ, dβ; dx (written) = d loss / d x. */
extern void dac_bn_backward(const dac_bn *bn, const dac_real *P, dac_real *G, const dac_real *x,
							const double *mean, const double *var, const dac_real *dy, size_t rows,
							dac_real *dx);
/* running ← (1 − momentum) running + momentum batch (the variance unbiased: count / (count − 1)). */
extern void dac_bn_update_running(const dac_bn *bn, dac_real *P, const double *mean,
								  const double *var, size_t rows);

extern double dac_conv_flops(const dac_conv *cv, int m);

#endif							/* DAC_CONV_H */
