/*
 * image.h
 *	  The image model of the paper (§5.3): a mixture of neural statisticians.
 *	  Its network is the filtering network with an image encoder in front of
 *	  the set part and a per-image variational density as its head, as the
 *	  authors' FilteringNetwork of models/multi_emnist.py (1 channel here):
 *
 *	    h_enc  = enc(x)    Conv(1→F, s2) BN ReLU  Conv(F→2F, s2) BN ReLU
 *	                       Conv(2F→4F, s1), flattened channel-major [4F·16]
 *	    θ      = fc1(pma(isab1(h_enc)))                    the cluster context [C]
 *	    μ, σ   = post([h_enc, θ]):  μ = raw[:L], σ = softplus(raw[L:]) + 1e-5
 *	    z      = μ + σ ∘ ε,   log q = Σ_j (−ε_j²/2 − ½ log 2π − log σ_j)
 *	    log p  = a conditional MAF prior of z given θ (flow.h; invertible maps)
 *	    l      = dec([z, θ]):  Linear(L+C → 4F·16) ReLU, view [4F, 4, 4],
 *	             ConvT(4F→2F, s2, p1) BN ReLU  ConvT(2F→F, s2, p1) BN ReLU
 *	             ConvT(F→1, s2, p0, output padding 1)    Bernoulli logits [28·28]
 *	    log p(x|z) = Σ_pixels (x l − softplus(l)),   ll = (log p(x|z) − log q + log p) / 784
 *
 *	  A row of the network is an image and its noise: 784 pixel values (0..1)
 *	  then the L values of ε, so that a row carries its own draw wherever the
 *	  clustering moves it.  Training normalises with the batch's statistics
 *	  (every image of the call); inference with the running estimates.
 */
#ifndef DAC_IMAGE_H
#define DAC_IMAGE_H

#include "conv.h"
#include "core.h"
#include "flow.h"
#include "nn.h"
#include "rng.h"

#define DAC_IMAGE_SIDE 28
#define DAC_IMAGE_PIXELS (DAC_IMAGE_SIDE * DAC_IMAGE_SIDE)
#define DAC_MAX_FILTERS 256

typedef struct dac_ns
{
	int			F;				/* filters of the first layer */
	int			L;				/* latent width */
	int			C;				/* context width (θ) */
	int			pix;			/* pixels of an image */
	int			feat;			/* encoder output: 4F · 16 */
	dac_conv	enc[3];			/* enc.0, enc.3, enc.6 */
	dac_bn		ebn[2];			/* enc.1, enc.4 */
	dac_linear	post;			/* posterior.context_enc: feat + C -> 2L */
	dac_flow	prior;			/* prior.transform.transforms.* */
	dac_linear	dec0;			/* dec.0: L + C -> feat */
	dac_conv	dec[3];			/* dec.3, dec.6, dec.9 */
	dac_bn		dbn[2];			/* dec.4, dec.7 */
} dac_ns;

/* The encoder's pass. */
typedef struct dac_ns_enc_cache
{
	int			rows,
				train;
	dac_real   *x0;				/* [rows·784] pixels */
	dac_real   *c0,
			   *r0;				/* enc.0 output, after BN and ReLU [rows·169, F] */
	dac_real   *c1,
			   *r1;				/* enc.3 output, after BN and ReLU [rows·36, 2F] */
	dac_real   *c2;				/* enc.6 output [rows·16, 4F] */
	double	   *mean[2],
			   *var[2];			/* training: the batch statistics of enc.1, enc.4 */
	dac_real   *h;				/* h_enc [rows, feat], channel-major */
} dac_ns_enc_cache;

/* The per-image density's pass. */
typedef struct dac_ns_cache
{
	int			B,
				n,
				train;
	const dac_real *X;			/* [B·n, pix + L] */
	const dac_real *feat;		/* h_enc [B·n, feat] */
	const dac_real *theta;		/* [B, C] */
	dac_real   *raw;			/* [B·n, 2L] posterior output */
	dac_real   *z;				/* [B·n, L] */
	dac_real   *logq,
			   *logp,
			   *log_px;			/* [B·n] */
	dac_flow_cache prior;
	dac_real   *d0;				/* dec.0 output [B·n, feat], channel-major */
	dac_real   *d0r;			/* after ReLU, channel-last [B·n·16, 4F] */
	dac_real   *c3,
			   *r3;				/* dec.3 output, after BN and ReLU [B·n·49, 2F] */
	dac_real   *c6,
			   *r6;				/* dec.6 output, after BN and ReLU [B·n·169, F] */
	dac_real   *logit;			/* dec.9 output [B·n, 784] */
	double	   *mean[2],
			   *var[2];			/* training: the batch statistics of dec.4, dec.7 */
} dac_ns_cache;

/*
 * h_enc [rows, feat] of images X [rows, stride] (pixels first).  train:
 * batch statistics, everything kept for dac_ns_encode_backward; otherwise the
 * running estimates, in chunks, only h_enc kept.
 */
extern dac_status dac_ns_encode(const dac_ns *ns, const dac_real *P, const dac_real *X, int stride,
								int rows, int train, dac_arena *ar, dac_ns_enc_cache *c);
/* Inference alone: the features h [rows, feat] (the caller's buffer), chunk by chunk. */
extern dac_status dac_ns_features(const dac_ns *ns, const dac_real *P, const dac_real *X, int stride,
								  int rows, dac_arena *ar, dac_real *h);
extern dac_status dac_ns_encode_backward(const dac_ns *ns, const dac_real *P, dac_real *G,
										 const dac_ns_enc_cache *c, const dac_real *dh,
										 dac_arena *ar);

/*
 * ll [B·n] (written) of the rows X [B·n, pix + L] with their features
 * feat [B·n, feat] (NULL: computed here, inference only) under their sets'
 * contexts theta [B, C].  train: everything kept for dac_ns_backward.
 */
extern dac_status dac_ns_forward(const dac_ns *ns, const dac_real *P, const dac_real *theta,
								 const dac_real *X, const dac_real *feat, int B, int n, int train,
								 dac_arena *ar, dac_ns_cache *c, dac_real *ll);
/*
 * ll [K, n] (written) of the rows X [n, pix + L] under each of K contexts
 * theta [K, C], the images encoded once (inference, in chunks).
 */
extern dac_status dac_ns_ll_thetas(const dac_ns *ns, const dac_real *P, const dac_real *theta, int K,
								   const dac_real *X, int n, dac_arena *ar, dac_real *ll);
/* G += gradients given dll [B·n]; dfeat [B·n, feat] and dtheta [B, C] += theirs. */
extern dac_status dac_ns_backward(const dac_ns *ns, const dac_real *P, dac_real *G,
								  const dac_ns_cache *c, const dac_real *dll, dac_real *dfeat,
								  dac_real *dtheta, dac_arena *ar);

/* After a training step: the running estimates from the pass's batch statistics. */
extern void dac_ns_update_running(const dac_ns *ns, dac_real *P, const dac_ns_enc_cache *e,
								  const dac_ns_cache *c);

/*
 * The network's rows Z [n, pix + L] of images X [n, pix]: each image's
 * pixels, then L draws of N(0, 1) (a clustering's noise, the same for the
 * same seed).  DAC_ERR_INTERRUPTED when the host asks to stop.
 */
extern dac_status dac_ns_rows(const dac_ns *ns, const dac_real *X, int n, uint64_t seed, dac_real *Z);
/* The seed of every clustering's noise: a clustering is a function of its rows. */
#define DAC_NS_CLUSTER_SEED 0

/* Whether every value of X [count] is a pixel value between 0 and 1 (else an error). */
extern dac_status dac_ns_check_pixels(const dac_real *X, size_t count, dac_error *err);

/* Matrix FLOPs of the encoder and of the density for m images. */
extern double dac_ns_encode_flops(const dac_ns *ns, int m);
extern double dac_ns_flops(const dac_ns *ns, int B, int n);
/* Arena bytes of an inference pass over B·n rows: kept (returned) and held while it runs. */
extern double dac_ns_infer_bytes(const dac_ns *ns, int B, int n, double *scratch);

#endif							/* DAC_IMAGE_H */
