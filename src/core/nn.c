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
	int			r,
				o;

	if (dX)
		dac_gemm(0, 0, rows, l->in, l->out, 1, dY, l->out, P + l->w, l->in, 1, dX, l->in);
	dac_gemm(1, 0, l->out, l->in, rows, 1, dY, l->out, X, l->in, 1, dW, l->in);
	for (r = 0; r < rows; r++)
	{
		const dac_real *row = dY + (size_t) r * l->out;

		for (o = 0; o < l->out; o++)
			db[o] += row[o];
	}
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* One binary, the widest vector unit the CPU has (resolved at load time). */
#define DAC_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DAC_VECTOR_CLONES
#endif

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
 * a float reduction, so max and sum run over 16 fixed lanes (a
 * deterministic order that vectorizes), and exp is a separate loop.
 */
#define LANES 16
DAC_VECTOR_CLONES
static void
softmax_rows(dac_real *restrict S, int rows, int cols)
{
	int			r,
				c,
				k;

	for (r = 0; r < rows; r++)
	{
		dac_real   *restrict row = S + (size_t) r * cols;
		dac_real	lane[LANES];
		dac_real	mx,
					sum,
					inv;
		int			full = cols - cols % LANES;

		mx = row[0];
		if (full)
		{
			for (k = 0; k < LANES; k++)
				lane[k] = row[k];
			for (c = LANES; c < full; c += LANES)
				for (k = 0; k < LANES; k++)
					lane[k] = row[c + k] > lane[k] ? row[c + k] : lane[k];
			for (k = 0; k < LANES; k++)
				mx = lane[k] > mx ? lane[k] : mx;
		}
		for (c = full; c < cols; c++)
			mx = row[c] > mx ? row[c] : mx;

		for (c = 0; c < cols; c++)
			row[c] = exp_nonpos(row[c] - mx);

		for (k = 0; k < LANES; k++)
			lane[k] = 0;
		for (c = 0; c < full; c += LANES)
			for (k = 0; k < LANES; k++)
				lane[k] += row[c + k];
		sum = 0;
		for (k = 0; k < LANES; k++)
			sum += lane[k];
		for (c = full; c < cols; c++)
			sum += row[c];

		inv = 1 / sum;
		for (c = 0; c < cols; c++)
			row[c] *= inv;
	}
}

/* out = H + ReLU(T) */
DAC_VECTOR_CLONES
static void
residual_relu(dac_real *restrict out, const dac_real *restrict H, const dac_real *restrict T,
			  size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		out[i] = H[i] + (T[i] > 0 ? T[i] : 0);
}

dac_status
mab_forward(const dac_mab *m, const dac_real *P, const dac_real *X, const dac_real *Y,
			int B, int nq, int nk, int q_shared, dac_arena *ar, dac_mab_cache *c)
{
	int			D = m->fc_q.out;
	int			h = m->heads;
	int			dh = D / h;
	dac_real	scale = (dac_real) (1.0 / sqrt((double) D));
	int			rowsQ = q_shared ? nq : B * nq;
	size_t		nout = (size_t) B * nq * D;

	int			b,
				j;

	c->B = B;
	c->nq = nq;
	c->nk = nk;
	c->q_shared = q_shared;
	c->X = X;
	c->Y = Y;
	/* every buffer below is fully written before it is read */
	c->Q = dac_arena_reals_raw(ar, (size_t) rowsQ * D);
	c->K = dac_arena_reals_raw(ar, (size_t) B * nk * D);
	c->V = dac_arena_reals_raw(ar, (size_t) B * nk * D);
	c->A = dac_arena_reals_raw(ar, (size_t) B * h * nq * nk);
	c->H = dac_arena_reals_raw(ar, nout);
	c->T = dac_arena_reals_raw(ar, nout);
	c->out = dac_arena_reals_raw(ar, nout);
	if (!c->Q || !c->K || !c->V || !c->A || !c->H || !c->T || !c->out)
		return OOM("out of memory");

	linear_forward(&m->fc_q, P, X, rowsQ, c->Q);
	linear_forward(&m->fc_k, P, Y, B * nk, c->K);
	linear_forward(&m->fc_v, P, Y, B * nk, c->V);

	for (b = 0; b < B; b++)
	{
		const dac_real *Qb = c->Q + (q_shared ? 0 : (size_t) b * nq * D);
		const dac_real *Kb = c->K + (size_t) b * nk * D;
		const dac_real *Vb = c->V + (size_t) b * nk * D;
		dac_real   *Hb = c->H + (size_t) b * nq * D;

		memcpy(Hb, Qb, sizeof(dac_real) * (size_t) nq * D);
		for (j = 0; j < h; j++)
		{
			dac_real   *S = c->A + ((size_t) b * h + j) * nq * nk;

			dac_gemm(0, 1, nq, nk, dh, scale, Qb + j * dh, D, Kb + j * dh, D, 0, S, nk);
			softmax_rows(S, nq, nk);
			dac_gemm(0, 0, nq, dh, nk, 1, S, nk, Vb + j * dh, D, 1, Hb + j * dh, D);
		}
	}

	linear_forward(&m->fc_o, P, c->H, B * nq, c->T);
	residual_relu(c->out, c->H, c->T, nout);
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
				j,
				r,
				k;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *dH = dac_arena_reals_raw(ar, nout);
	dac_real   *dT = dac_arena_reals_raw(ar, nout);
	dac_real   *dQ = dac_arena_reals(ar, (size_t) rowsQ * D);
	dac_real   *dK = dac_arena_reals(ar, (size_t) B * nk * D);
	dac_real   *dV = dac_arena_reals(ar, (size_t) B * nk * D);
	dac_real   *dA = dac_arena_reals_raw(ar, (size_t) nq * nk);

	if (!dH || !dT || !dQ || !dK || !dV || !dA)
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
	for (b = 0; b < B; b++)
	{
		const dac_real *src = dH + (size_t) b * nq * D;
		dac_real   *dst = dQ + (c->q_shared ? 0 : (size_t) b * nq * D);

		for (i = 0; i < (size_t) nq * D; i++)
			dst[i] += src[i];
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

			/* dA = dO·Vᵀ, dV += Aᵀ·dO */
			dac_gemm(0, 1, nq, nk, dh, 1, dOb + j * dh, D, Vb + j * dh, D, 0, dA, nk);
			dac_gemm(1, 0, nk, dh, nq, 1, Abj, nk, dOb + j * dh, D, 1, dVb + j * dh, D);
			/* softmax backward, then the 1/√D scale */
			for (r = 0; r < nq; r++)
			{
				const dac_real *a = Abj + (size_t) r * nk;
				dac_real   *g = dA + (size_t) r * nk;
				dac_real	dot = 0;

				for (k = 0; k < nk; k++)
					dot += a[k] * g[k];
				for (k = 0; k < nk; k++)
					g[k] = a[k] * (g[k] - dot) * scale;
			}
			/* S = Q·Kᵀ: dQ += dS·K, dK += dSᵀ·Q */
			dac_gemm(0, 0, nq, dh, nk, 1, dA, nk, Kb + j * dh, D, 1, dQb + j * dh, D);
			dac_gemm(1, 0, nk, dh, nq, 1, dA, nk, Qb + j * dh, D, 1, dKb + j * dh, D);
		}
	}

	linear_backward(&m->fc_q, P, G, c->X, dQ, rowsQ, dX);
	linear_backward(&m->fc_k, P, G, c->Y, dK, B * nk, dY);
	linear_backward(&m->fc_v, P, G, c->Y, dV, B * nk, dY);
	dac_arena_reset_to(ar, mark);
	return DAC_OK;
}

dac_status
pma_forward(const dac_pma *p, const dac_real *P, const dac_real *X, int B, int n,
			dac_arena *ar, dac_mab_cache *c)
{
	return mab_forward(&p->mab, P, P + p->I, X, B, p->m, n, 1, ar, c);
}

dac_status
pma_backward(const dac_pma *p, const dac_real *P, dac_real *G, const dac_mab_cache *c,
			 const dac_real *dout, dac_real *dX, dac_arena *ar)
{
	return mab_backward(&p->mab, P, G, c, dout, G + p->I, dX, ar);
}

dac_status
isab_forward(const dac_isab *s, const dac_real *P, const dac_real *X, int B, int n,
			 dac_arena *ar, dac_isab_cache *c)
{
	dac_status	st = pma_forward(&s->pma, P, X, B, n, ar, &c->pma);

	if (st != DAC_OK)
		return st;
	return mab_forward(&s->mab, P, X, c->pma.out, B, n, s->pma.m, 0, ar, &c->mab);
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
stack_forward(const dac_stack *s, const dac_real *P, const dac_real *X, int B, int n,
			  dac_arena *ar, dac_stack_cache *c)
{
	const dac_real *in = X;
	int			i;

	c->L = s->L;
	for (i = 0; i < s->L; i++)
	{
		dac_status	st = isab_forward(&s->blocks[i], P, in, B, n, ar, &c->blocks[i]);

		if (st != DAC_OK)
			return st;
		in = c->blocks[i].mab.out;
		if (dac_interrupted())
			return dac_fail(NULL, DAC_ERR_INTERRUPTED, "interrupted");
	}
	c->out = (dac_real *) in;
	return DAC_OK;
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
