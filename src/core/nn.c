/*
 * nn.c
 *	  Forward and backward passes of the Set-Transformer blocks.
 *
 * MAB(X, Y), exactly as the authors' code computes it:
 *	 Q = fc_q(X), K = fc_k(Y), V = fc_v(Y)
 *	 head j uses columns j*D/h .. (j+1)*D/h-1;  A_j = softmax(Q_j K_jᵀ / √D)
 *	 H = Q + concat_j(A_j V_j)			(residual on the projected query)
 *	 MAB = H + ReLU(fc_o(H))			(no LayerNorm, no output projection)
 */
#include "nn.h"
#include "linalg.h"

#include <math.h>
#include <string.h>

#ifdef DAC_DOUBLE
#define REXP exp
#else
#define REXP expf
#endif

#define OOM(what) dac_fail(NULL, DAC_ERR_NOMEM, what)

#ifndef DAC_DOUBLE
/*
 * exp for x <= 0 (softmax after subtracting the row max), written so that
 * the compiler vectorizes it: Cody-Waite reduction x = n·ln2 + r, a
 * degree-7 Taylor polynomial on |r| <= ln2/2 (relative error < 1e-8 before
 * rounding), and 2^n built in the exponent bits.  Below -87 it returns 0.
 */
static inline float
exp_nonpos(float x)
{
	const float shifter = 12582912.0f;	/* 1.5·2^23: adding it rounds to an integer */
	float		t,
				n,
				r,
				p;
	union
	{
		float		f;
		int32_t		i;
	}			bits,
				scale;

	x = x < -87.0f ? -87.0f : x;
	t = x * 1.44269504088896341f + shifter;
	n = t - shifter;			/* round(x / ln2), no branch, no libm call */
	bits.f = t;
	r = x - n * 0.693145751953125f;
	r = r - n * 1.42860682030941723212e-6f;
	p = 1.0f / 5040;
	p = p * r + 1.0f / 720;
	p = p * r + 1.0f / 120;
	p = p * r + 1.0f / 24;
	p = p * r + 1.0f / 6;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	p = p * r + 1.0f;
	scale.i = (bits.i - 0x4B400000 + 127) << 23;
	return p * scale.f;
}
#else
#define exp_nonpos(x) exp(x)
#endif

/*
 * Row-wise softmax in place.  Without fast-math a compiler may not reorder
 * a float reduction, so max and sum run over 16 fixed lanes folded in a
 * fixed tree (a deterministic order that vectorizes); indices are size_t
 * so that -fwrapv does not hide the contiguity from the vectorizer.
 */
#define LANES 16
#define FOLD(lane, OP) \
	do { \
		size_t		k_; \
		for (k_ = 0; k_ < 8; k_++) lane[k_] = OP(lane[k_], lane[k_ + 8]); \
		for (k_ = 0; k_ < 4; k_++) lane[k_] = OP(lane[k_], lane[k_ + 4]); \
		for (k_ = 0; k_ < 2; k_++) lane[k_] = OP(lane[k_], lane[k_ + 2]); \
		lane[0] = OP(lane[0], lane[1]); \
	} while (0)
#define MAX2(a, b) ((b) > (a) ? (b) : (a))
#define ADD2(a, b) ((a) + (b))

DAC_VECTOR_CLONES
static void
softmax_rows(dac_real *restrict S, int rows, int cols)
{
	size_t		nc = (size_t) cols,
				full = nc - nc % LANES,
				c,
				k;
	int			r;

	/* rows of up to 32 scores: two AVX-512 registers each, where the CPU has them */
	if (dac_softmax_rows_short(S, rows, cols))
		return;
	for (r = 0; r < rows; r++)
	{
		dac_real   *restrict row = S + (size_t) r * nc;
		dac_real	lane[LANES];
		dac_real	mx,
					sum,
					inv;

		mx = row[0];
		if (full)
		{
			for (k = 0; k < LANES; k++)
				lane[k] = row[k];
			for (c = LANES; c < full; c += LANES)
				for (k = 0; k < LANES; k++)
					lane[k] = MAX2(lane[k], row[c + k]);
			FOLD(lane, MAX2);
			mx = lane[0];
		}
		for (c = full; c < nc; c++)
			mx = MAX2(mx, row[c]);

		for (k = 0; k < LANES; k++)
			lane[k] = 0;
		for (c = 0; c < full; c += LANES)
			for (k = 0; k < LANES; k++)
			{
				dac_real	e = exp_nonpos(row[c + k] - mx);

				row[c + k] = e;
				lane[k] += e;
			}
		FOLD(lane, ADD2);
		sum = lane[0];
		for (c = full; c < nc; c++)
		{
			row[c] = exp_nonpos(row[c] - mx);
			sum += row[c];
		}

		inv = 1 / sum;
		for (c = 0; c < nc; c++)
			row[c] *= inv;
	}
}

/*
 * Softmax down each column of S [rows, cols] in place (over the rows),
 * vectorized across columns; mx and sum are scratch of cols values.
 */
DAC_VECTOR_CLONES
static void
softmax_cols(dac_real *restrict S, int rows, int cols, dac_real *restrict mx,
			 dac_real *restrict sum)
{
	size_t		nc = (size_t) cols,
				c;
	int			r;

	memcpy(mx, S, sizeof(dac_real) * nc);
	for (r = 1; r < rows; r++)
	{
		const dac_real *restrict row = S + (size_t) r * nc;

		for (c = 0; c < nc; c++)
			mx[c] = MAX2(mx[c], row[c]);
	}
	for (c = 0; c < nc; c++)
		sum[c] = 0;
	for (r = 0; r < rows; r++)
	{
		dac_real   *restrict row = S + (size_t) r * nc;

		for (c = 0; c < nc; c++)
		{
			row[c] = exp_nonpos(row[c] - mx[c]);
			sum[c] += row[c];
		}
	}
	for (c = 0; c < nc; c++)
		sum[c] = 1 / sum[c];
	for (r = 0; r < rows; r++)
	{
		dac_real   *restrict row = S + (size_t) r * nc;

		for (c = 0; c < nc; c++)
			row[c] *= sum[c];
	}
}

/*
 * ELU in place.  Both branches are computed so that the loop vectorizes;
 * exp's argument is clamped to x <= 0, the domain exp_nonpos covers.
 */
DAC_VECTOR_CLONES
static void
elu_rows(dac_real *a, size_t count)
{
	size_t		i;

	for (i = 0; i < count; i++)
	{
		dac_real	x = a[i];
		dac_real	e = exp_nonpos(x <= 0 ? x : 0) - 1;

		a[i] = x <= 0 ? e : x;
	}
}

/* (the clones stay static: an extern target_clones function is exported by its resolver) */
void
dac_elu(dac_real *a, size_t count)
{
	elu_rows(a, count);
}

/* out = H + ReLU(T); out may be T */
DAC_VECTOR_CLONES
static void
residual_relu(dac_real *out, const dac_real *restrict H, const dac_real *T, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		out[i] = H[i] + (T[i] > 0 ? T[i] : 0);
}

/* db[o] += Σ_r dY[r, o] */
DAC_VECTOR_CLONES
static void
sum_rows(dac_real *restrict db, const dac_real *restrict dY, size_t rows, size_t cols)
{
	size_t		r,
				o;

	for (r = 0; r < rows; r++)
	{
		const dac_real *restrict row = dY + r * cols;

		for (o = 0; o < cols; o++)
			db[o] += row[o];
	}
}

/*
 * Softmax backward of rows of A [rows, cols] in place on G = dA:
 * G = A ⊙ (G − Σ_k A·G) · scale.  The dot runs over 16 fixed lanes.
 */
DAC_VECTOR_CLONES
static void
softmax_backward_rows(const dac_real *restrict A, dac_real *restrict G, size_t rows,
					  size_t cols, dac_real scale)
{
	size_t		r,
				c,
				k,
				full = cols - cols % LANES;

	for (r = 0; r < rows; r++)
	{
		const dac_real *restrict a = A + r * cols;
		dac_real   *restrict g = G + r * cols;
		dac_real	lane[LANES];
		dac_real	dot;

		for (k = 0; k < LANES; k++)
			lane[k] = 0;
		for (c = 0; c < full; c += LANES)
			for (k = 0; k < LANES; k++)
				lane[k] += a[c + k] * g[c + k];
		FOLD(lane, ADD2);
		dot = lane[0];
		for (c = full; c < cols; c++)
			dot += a[c] * g[c];
		for (c = 0; c < cols; c++)
			g[c] = a[c] * (g[c] - dot) * scale;
	}
}

/*
 * The same down the columns of A [rows, cols] (each column one softmax),
 * vectorized across columns; dot is scratch of cols values.
 */
DAC_VECTOR_CLONES
static void
softmax_backward_cols(const dac_real *restrict A, dac_real *restrict G, size_t rows,
					  size_t cols, dac_real scale, dac_real *restrict dot)
{
	size_t		r,
				c;

	for (c = 0; c < cols; c++)
		dot[c] = 0;
	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++)
			dot[c] += A[r * cols + c] * G[r * cols + c];
	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++)
			G[r * cols + c] = A[r * cols + c] * (G[r * cols + c] - dot[c]) * scale;
}

/*
 * Where one head's scores lie: [nq, nk] (softmax along rows), or [nk, nq]
 * (softmax down columns).  With more keys than queries (the inducing points
 * over a set) the keys run down the rows, so every product reads its
 * operands where they lie (dac_gemm_direct) with only the queries' 32-column
 * slice transposed; with few keys for many queries (a set over 8 inducing
 * points) the softmax runs down columns across the queries, as a row of 8
 * would fill a vector by half.  A handful of queries (a pooling seed) keeps
 * the row layout.
 */
static int
keys_major(int nq, int nk, int dh)
{
	if (nk > nq)
		return nq >= 16 && (size_t) nq * dh <= DAC_DIRECT_MAX_PACK;
	return nk < 16 && nq >= 4 * nk;
}

void
linear_forward(const dac_linear *l, const dac_real *P, const dac_real *X, int rows,
			   dac_real *Y)
{
	const dac_real *W = P + l->w;
	const dac_real *b = P + l->b;
	int			r;

	for (r = 0; r < rows; r++)
		memcpy(Y + (size_t) r * l->out, b, sizeof(dac_real) * l->out);
	dac_gemm(0, 1, rows, l->out, l->in, 1, X, l->in, W, l->in, 1, Y, l->out);
}

void
linear_backward(const dac_linear *l, const dac_real *P, dac_real *G, const dac_real *X,
				const dac_real *dY, int rows, dac_real *dX)
{
	dac_real   *dW = G + l->w;
	dac_real   *db = G + l->b;

	if (dX)
		dac_gemm_direct(0, 0, rows, l->in, l->out, 1, dY, l->out, P + l->w, l->in, 1, dX, l->in);
	dac_gemm_direct(1, 0, l->out, l->in, rows, 1, dY, l->out, X, l->in, 1, dW, l->in);
	sum_rows(db, dY, (size_t) rows, (size_t) l->out);
}

/*
 * With "infer" set (inference: no backward will follow), the output goes to
 * infer, Q is computed straight into H, one score matrix serves every head,
 * fc_o writes into the output, and every temporary is released before
 * returning: the pass keeps a small working set that stays in cache.  The
 * scores lie as keys_major() says, in training and inference alike.
 */
dac_status
mab_forward(const dac_mab *m, const dac_real *P, const dac_real *X, const dac_real *Y,
			int B, int nq, int nk, int q_shared, const dac_real *Qfixed, dac_real *infer,
			dac_arena *ar, dac_mab_cache *c)
{
	int			D = m->fc_q.out;
	int			h = m->heads;
	int			dh = D / h;
	dac_real	scale = (dac_real) (1.0 / sqrt((double) D));
	int			rowsQ = q_shared ? nq : B * nq;
	size_t		nout = (size_t) B * nq * D;
	int			kmaj = keys_major(nq, nk, dh);
	int			fixed = infer != NULL && q_shared && Qfixed != NULL;
	dac_real   *colmax = NULL,
			   *colsum = NULL;
	dac_arena_mark mark;
	int			b,
				j;

	c->B = B;
	c->nq = nq;
	c->nk = nk;
	c->q_shared = q_shared;
	c->keys_major = kmaj;
	c->X = X;
	c->Y = Y;
	c->out = infer ? infer : dac_arena_reals_raw(ar, nout);
	mark = dac_arena_get_mark(ar);
	/* every buffer below is fully written before it is read */
	c->H = dac_arena_reals_raw(ar, nout);
	if (fixed)
		c->Q = (dac_real *) Qfixed; /* read only */
	else
		c->Q = (infer && !q_shared) ? c->H : dac_arena_reals_raw(ar, (size_t) rowsQ * D);
	c->K = dac_arena_reals_raw(ar, (size_t) B * nk * D);
	c->V = dac_arena_reals_raw(ar, (size_t) B * nk * D);
	c->A = dac_arena_reals_raw(ar, (infer ? 1 : (size_t) B * h) * nq * nk);
	c->T = infer ? c->out : dac_arena_reals_raw(ar, nout);
	if (kmaj)
	{
		colmax = dac_arena_reals_raw(ar, nq);
		colsum = dac_arena_reals_raw(ar, nq);
	}
	if (!c->Q || !c->K || !c->V || !c->A || !c->H || !c->T || !c->out ||
		(kmaj && (!colmax || !colsum)))
	{
		dac_arena_reset_to(ar, mark);
		return OOM("out of memory");
	}

	if (!fixed)
		linear_forward(&m->fc_q, P, X, rowsQ, c->Q);
	linear_forward(&m->fc_k, P, Y, B * nk, c->K);
	linear_forward(&m->fc_v, P, Y, B * nk, c->V);

	for (b = 0; b < B; b++)
	{
		const dac_real *Qb = c->Q + (q_shared ? 0 : (size_t) b * nq * D);
		const dac_real *Kb = c->K + (size_t) b * nk * D;
		const dac_real *Vb = c->V + (size_t) b * nk * D;
		dac_real   *Hb = c->H + (size_t) b * nq * D;

		/*
		 * H = Q + attention.  Heads are disjoint column slices, so when Q
		 * lives in H, head j's scores read columns no earlier head changed.
		 */
		if (Hb != Qb)
			memcpy(Hb, Qb, sizeof(dac_real) * (size_t) nq * D);
		for (j = 0; j < h; j++)
		{
			dac_real   *S = c->A + (infer ? 0 : ((size_t) b * h + j) * nq * nk);

			if (kmaj)
			{
				/* Sᵀ = K·Qᵀ [nk, nq], softmax down columns, H += (Sᵀ)ᵀ·V */
				dac_gemm_direct(0, 1, nk, nq, dh, scale, Kb + j * dh, D, Qb + j * dh, D,
								0, S, nq);
				softmax_cols(S, nk, nq, colmax, colsum);
				dac_gemm_direct(1, 0, nq, dh, nk, 1, S, nq, Vb + j * dh, D, 1, Hb + j * dh, D);
				continue;
			}
			dac_gemm_direct(0, 1, nq, nk, dh, scale, Qb + j * dh, D, Kb + j * dh, D, 0, S, nk);
			softmax_rows(S, nq, nk);
			dac_gemm_direct(0, 0, nq, dh, nk, 1, S, nk, Vb + j * dh, D, 1, Hb + j * dh, D);
		}
	}

	linear_forward(&m->fc_o, P, c->H, B * nq, c->T);
	residual_relu(c->out, c->H, c->T, nout);
	if (infer)
	{
		dac_arena_reset_to(ar, mark);
		c->Q = c->K = c->V = c->A = c->H = c->T = NULL;
	}
	return DAC_OK;
}

dac_status
mab_backward(const dac_mab *m, const dac_real *P, dac_real *G, const dac_mab_cache *c,
			 const dac_real *dout, dac_real *dX, dac_real *dY, dac_arena *ar)
{
	int			D = m->fc_q.out;
	int			h = m->heads;
	int			dh = D / h;
	dac_real	scale = (dac_real) (1.0 / sqrt((double) D));
	int			B = c->B,
				nq = c->nq,
				nk = c->nk;
	int			rowsQ = c->q_shared ? nq : B * nq;
	size_t		nout = (size_t) B * nq * D;
	size_t		i;
	int			b,
				j;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *dH = dac_arena_reals_raw(ar, nout);
	dac_real   *dT = dac_arena_reals_raw(ar, nout);
	/*
	 * dQ starts as dH (the residual H = Q + attention); queries of their own
	 * take it in place, shared ones sum it over the sets.  Each head writes
	 * its columns of dK and dV once per set, so they need no zeroing.
	 */
	dac_real   *dQ = c->q_shared ? dac_arena_reals(ar, (size_t) rowsQ * D) : dH;
	dac_real   *dK = dac_arena_reals_raw(ar, (size_t) B * nk * D);
	dac_real   *dV = dac_arena_reals_raw(ar, (size_t) B * nk * D);
	dac_real   *dA = dac_arena_reals_raw(ar, (size_t) nq * nk);
	dac_real   *dot = dac_arena_reals_raw(ar, nq);

	if (!dH || !dT || !dQ || !dK || !dV || !dA || !dot)
	{
		dac_arena_reset_to(ar, mark);
		return OOM("out of memory");
	}

	/* out = H + ReLU(T), T = fc_o(H) */
	for (i = 0; i < nout; i++)
	{
		dH[i] = dout[i];
		dT[i] = c->T[i] > 0 ? dout[i] : 0;
	}
	linear_backward(&m->fc_o, P, G, c->H, dT, B * nq, dH);

	/* H = Q + attention: the residual passes dH to Q (summed over sets if shared) */
	for (b = 0; c->q_shared && b < B; b++)
	{
		const dac_real *src = dH + (size_t) b * nq * D;

		for (i = 0; i < (size_t) nq * D; i++)
			dQ[i] += src[i];
	}

	for (b = 0; b < B; b++)
	{
		const dac_real *Qb = c->Q + (c->q_shared ? 0 : (size_t) b * nq * D);
		const dac_real *Kb = c->K + (size_t) b * nk * D;
		const dac_real *Vb = c->V + (size_t) b * nk * D;
		dac_real   *dQb = dQ + (c->q_shared ? 0 : (size_t) b * nq * D);
		dac_real   *dKb = dK + (size_t) b * nk * D;
		dac_real   *dVb = dV + (size_t) b * nk * D;
		const dac_real *dOb = dH + (size_t) b * nq * D;

		for (j = 0; j < h; j++)
		{
			const dac_real *Abj = c->A + ((size_t) b * h + j) * nq * nk;

			if (c->keys_major)
			{
				/* the same with A and dA held as [nk, nq] */
				dac_gemm_direct(0, 1, nk, nq, dh, 1, Vb + j * dh, D, dOb + j * dh, D, 0, dA, nq);
				dac_gemm_direct(0, 0, nk, dh, nq, 1, Abj, nq, dOb + j * dh, D, 0, dVb + j * dh, D);
				softmax_backward_cols(Abj, dA, (size_t) nk, (size_t) nq, scale, dot);
				dac_gemm_direct(1, 0, nq, dh, nk, 1, dA, nq, Kb + j * dh, D, 1, dQb + j * dh, D);
				dac_gemm_direct(0, 0, nk, dh, nq, 1, dA, nq, Qb + j * dh, D, 0, dKb + j * dh, D);
				continue;
			}
			/* dA = dO·Vᵀ, dV = Aᵀ·dO */
			dac_gemm_direct(0, 1, nq, nk, dh, 1, dOb + j * dh, D, Vb + j * dh, D, 0, dA, nk);
			dac_gemm_direct(1, 0, nk, dh, nq, 1, Abj, nk, dOb + j * dh, D, 0, dVb + j * dh, D);
			/* softmax backward, then the 1/√D scale */
			softmax_backward_rows(Abj, dA, (size_t) nq, (size_t) nk, scale);
			/* S = Q·Kᵀ: dQ += dS·K, dK = dSᵀ·Q */
			dac_gemm_direct(0, 0, nq, dh, nk, 1, dA, nk, Kb + j * dh, D, 1, dQb + j * dh, D);
			dac_gemm_direct(1, 0, nk, dh, nq, 1, dA, nk, Qb + j * dh, D, 0, dKb + j * dh, D);
		}
	}

	linear_backward(&m->fc_q, P, G, c->X, dQ, rowsQ, dX);
	linear_backward(&m->fc_k, P, G, c->Y, dK, B * nk, dY);
	linear_backward(&m->fc_v, P, G, c->Y, dV, B * nk, dY);
	dac_arena_reset_to(ar, mark);
	return DAC_OK;
}

dac_status
pma_forward(const dac_pma *p, const dac_real *P, const dac_real *F, const dac_real *X,
			int B, int n, dac_real *infer, dac_arena *ar, dac_mab_cache *c)
{
	return mab_forward(&p->mab, P, P + p->I, X, B, p->m, n, 1, F ? F + p->Q : NULL, infer, ar, c);
}

dac_status
pma_backward(const dac_pma *p, const dac_real *P, dac_real *G, const dac_mab_cache *c,
			 const dac_real *dout, dac_real *dX, dac_arena *ar)
{
	return mab_backward(&p->mab, P, G, c, dout, G + p->I, dX, ar);
}

dac_status
isab_forward(const dac_isab *s, const dac_real *P, const dac_real *F, const dac_real *X,
			 int B, int n, dac_real *infer, dac_arena *ar, dac_isab_cache *c)
{
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *ind = NULL;
	dac_status	st;

	if (infer)
	{
		ind = dac_arena_reals_raw(ar, (size_t) B * s->pma.m * s->pma.mab.fc_q.out);
		if (ind == NULL)
			return OOM("out of memory");
	}
	st = pma_forward(&s->pma, P, F, X, B, n, ind, ar, &c->pma);
	if (st == DAC_OK)
		st = mab_forward(&s->mab, P, X, c->pma.out, B, n, s->pma.m, 0, NULL, infer, ar, &c->mab);
	if (infer)
	{
		dac_arena_reset_to(ar, mark);
		c->pma.out = NULL;
	}
	return st;
}

dac_status
isab_backward(const dac_isab *s, const dac_real *P, dac_real *G, const dac_isab_cache *c,
			  const dac_real *dout, dac_real *dX, dac_arena *ar)
{
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *dInd = dac_arena_reals(ar, (size_t) c->mab.B * s->pma.m * s->pma.mab.fc_q.out);
	dac_status	st;

	if (dInd == NULL)
		return OOM("out of memory");
	st = mab_backward(&s->mab, P, G, &c->mab, dout, dX, dInd, ar);
	if (st == DAC_OK)
		st = pma_backward(&s->pma, P, G, &c->pma, dInd, dX, ar);
	dac_arena_reset_to(ar, mark);
	return st;
}

dac_status
stack_forward(const dac_stack *s, const dac_real *P, const dac_real *F, const dac_real *X,
			  int B, int n, dac_real *infer, dac_arena *ar, dac_stack_cache *c)
{
	const dac_real *in = X;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *scratch = NULL;
	int			i;
	dac_status	st = DAC_OK;

	c->L = s->L;
	/* inference: blocks alternate between scratch and infer, ending in infer */
	if (infer && s->L > 1)
	{
		scratch = dac_arena_reals_raw(ar, (size_t) B * n * s->blocks[0].mab.fc_o.out);
		if (scratch == NULL)
			return OOM("out of memory");
	}
	for (i = 0; i < s->L && st == DAC_OK; i++)
	{
		dac_real   *dst = infer ? ((s->L - 1 - i) % 2 == 0 ? infer : scratch) : NULL;

		st = isab_forward(&s->blocks[i], P, F, in, B, n, dst, ar, &c->blocks[i]);
		if (st == DAC_OK)
			in = c->blocks[i].mab.out;
		if (st == DAC_OK && dac_interrupted())
			st = dac_fail(NULL, DAC_ERR_INTERRUPTED, "interrupted");
	}
	if (infer)
		dac_arena_reset_to(ar, mark);
	c->out = (dac_real *) in;
	return st;
}

dac_status
stack_backward(const dac_stack *s, const dac_real *P, dac_real *G, const dac_stack_cache *c,
			   const dac_real *dout, dac_real *dX, dac_arena *ar)
{
	dac_arena_mark mark = dac_arena_get_mark(ar);
	const dac_real *d = dout;
	int			i;
	dac_status	st = DAC_OK;

	for (i = s->L - 1; i >= 0; i--)
	{
		dac_real   *din;

		if (i == 0)
			din = dX;
		else
		{
			/* the input of block i is the output of block i-1: [B*n, D] */
			const dac_mab_cache *prev = &c->blocks[i - 1].mab;

			din = dac_arena_reals(ar, (size_t) prev->B * prev->nq * s->blocks[i - 1].mab.fc_o.out);
			if (din == NULL)
			{
				st = OOM("out of memory");
				break;
			}
		}
		st = isab_backward(&s->blocks[i], P, G, &c->blocks[i], d, din, ar);
		if (st != DAC_OK)
			break;
		d = din;
		if (dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			break;
		}
	}
	dac_arena_reset_to(ar, mark);
	return st;
}
