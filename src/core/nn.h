/*
 * nn.h
 *	  Set-Transformer blocks (Linear, MAB, PMA, ISAB, stacked ISAB), each a
 *	  *_forward / *_backward pair in the style of llm.c.
 *
 * Parameters, gradients and optimiser state are each one contiguous buffer;
 * a block holds offsets into it, so the same block description indexes the
 * parameters P and the gradients G.  Tensors are row-major; a batch of B sets
 * of n rows is one [B*n, dim] matrix.  Gradients are accumulated (+=).
 */
#ifndef DAC_NN_H
#define DAC_NN_H

#include "core.h"

#define DAC_MAX_BLOCKS 16

/* y = x·Wᵀ + b, W stored [out, in] at P + w, b at P + b. */
typedef struct dac_linear
{
	size_t		w;
	size_t		b;
	int			in;
	int			out;
} dac_linear;

typedef struct dac_mab
{
	dac_linear	fc_q,
				fc_k,
				fc_v,
				fc_o;
	int			heads;
} dac_mab;

typedef struct dac_pma
{
	size_t		I;				/* [m, D] learned queries */
	size_t		Q;				/* fc_q(I) [m, D], at this offset of the
								 * network's derived buffer (dac_net_fixed) */
	int			m;
	dac_mab		mab;
} dac_pma;

typedef struct dac_isab
{
	dac_pma		pma;
	dac_mab		mab;
} dac_isab;

/* With shared blocks, blocks[1..L-1] hold the same offsets. */
typedef struct dac_stack
{
	int			L;
	dac_isab	blocks[DAC_MAX_BLOCKS];
} dac_stack;

/* What a MAB forward keeps for its backward. */
typedef struct dac_mab_cache
{
	int			B,
				nq,
				nk,
				q_shared,		/* X has nq rows used by every set (PMA) */
				keys_major;		/* A holds each head's scores as [nk, nq] */
	const dac_real *X;			/* [q_shared ? nq : B*nq, dx] */
	const dac_real *Y;			/* [B*nk, dy] */
	dac_real   *Q;				/* [rows(X), D] */
	dac_real   *K,
			   *V;				/* [B*nk, D] */
	dac_real   *A;				/* [B, heads, nq, nk] attention weights
								 * ([B, heads, nk, nq] when keys_major) */
	dac_real   *H;				/* [B*nq, D] Q + attention */
	dac_real   *T;				/* [B*nq, D] fc_o(H) before ReLU */
	dac_real   *out;			/* [B*nq, D] H + ReLU(T) */
} dac_mab_cache;

typedef struct dac_isab_cache
{
	dac_mab_cache pma;
	dac_mab_cache mab;
} dac_isab_cache;

typedef struct dac_stack_cache
{
	int			L;
	dac_isab_cache blocks[DAC_MAX_BLOCKS];
	dac_real   *out;
} dac_stack_cache;

/* ELU in place: a = a for a > 0, exp(a) − 1 otherwise (NaN stays NaN); vectorized. */
extern void dac_elu(dac_real *a, size_t count);

/* Linear: X [rows, in] -> Y [rows, out]. */
extern void linear_forward(const dac_linear *l, const dac_real *P, const dac_real *X,
						   int rows, dac_real *Y);
/* dX (may be NULL) += dY·W; dW += dYᵀ·X; db += Σ dY. */
extern void linear_backward(const dac_linear *l, const dac_real *P, dac_real *G,
							const dac_real *X, const dac_real *dY, int rows, dac_real *dX);

/*
 * The forward functions below take "infer": NULL for a pass that a backward
 * pass will follow (every activation is kept in ar, in the cache), or the
 * buffer that receives the output of an inference pass, which keeps nothing
 * else and leaves ar as it found it.  F is the network's derived buffer
 * (dac_net_fixed: the data-independent fc_q of the learned queries, computed
 * once per model) or NULL to compute those products in the pass; only an
 * inference pass reads it.
 */

/* MAB(X, Y) for B sets of nq queries and nk keys. */
extern dac_status mab_forward(const dac_mab *m, const dac_real *P, const dac_real *X,
							  const dac_real *Y, int B, int nq, int nk, int q_shared,
							  const dac_real *Qfixed, dac_real *infer, dac_arena *ar,
							  dac_mab_cache *c);
/* dX, dY (either may be NULL) += gradients of the inputs. */
extern dac_status mab_backward(const dac_mab *m, const dac_real *P, dac_real *G,
							   const dac_mab_cache *c, const dac_real *dout,
							   dac_real *dX, dac_real *dY, dac_arena *ar);

/* PMA(X) = MAB(I, X): X [B*n, dx] -> [B*m, D]. */
extern dac_status pma_forward(const dac_pma *p, const dac_real *P, const dac_real *F,
							  const dac_real *X, int B, int n, dac_real *infer, dac_arena *ar,
							  dac_mab_cache *c);
extern dac_status pma_backward(const dac_pma *p, const dac_real *P, dac_real *G,
							   const dac_mab_cache *c, const dac_real *dout,
							   dac_real *dX, dac_arena *ar);

/* ISAB(X) = MAB(X, PMA(X)): X [B*n, dx] -> [B*n, D]. */
extern dac_status isab_forward(const dac_isab *s, const dac_real *P, const dac_real *F,
							   const dac_real *X, int B, int n, dac_real *infer, dac_arena *ar,
							   dac_isab_cache *c);
extern dac_status isab_backward(const dac_isab *s, const dac_real *P, dac_real *G,
								const dac_isab_cache *c, const dac_real *dout,
								dac_real *dX, dac_arena *ar);

/* L ISABs in sequence. */
extern dac_status stack_forward(const dac_stack *s, const dac_real *P, const dac_real *F,
								const dac_real *X, int B, int n, dac_real *infer, dac_arena *ar,
								dac_stack_cache *c);
extern dac_status stack_backward(const dac_stack *s, const dac_real *P, dac_real *G,
								 const dac_stack_cache *c, const dac_real *dout,
								 dac_real *dX, dac_arena *ar);

#endif							/* DAC_NN_H */
