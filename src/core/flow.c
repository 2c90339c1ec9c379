/*
 * flow.c
 *	  The conditional MAF: MADE blocks, flips or invertible linear maps, a
 *	  standard normal base (see flow.h).
 */
#include "flow.h"
#include "linalg.h"

#include <math.h>
#include <string.h>

#ifdef DAC_DOUBLE
#define RLOG log
#define REXP exp
#define RLOG1P log1p
#else
#define RLOG logf
#define REXP expf
#define RLOG1P log1pf
#endif

/* rows of a chunk when the flow runs without keeping its activations */
#define FLOW_CHUNK 256

dac_real
dac_softplus(dac_real x)
{
	return x > 20 ? x : RLOG1P(REXP(x));
}

dac_real
dac_softplus_grad(dac_real x)
{
	return x > 20 ? 1 : 1 / (1 + REXP(-x));
}

/* ---------------------------------------------------------------- masks */

/* degrees of the reference MADE (d >= 2, checked with the configuration) */
int
dac_flow_mask(const dac_flow *f, int which, int o, int i)
{
	int			d = f->d;

	switch (which)
	{
		case 0:					/* in: hidden o sees input i */
			return o % (d - 1) >= i;
		case 1:					/* hid */
			return o % (d - 1) >= i % (d - 1);
		default:				/* out: output o sees hidden i */
			return o % d - 1 >= i % (d - 1);
	}
}

const dac_linear *
dac_flow_masked(const dac_flow *f, int block, int which)
{
	const dac_made *mb = &f->made[block];

	return which == 0 ? &mb->in : which == 1 ? &mb->hid : &mb->out;
}

void
dac_flow_mask_params(const dac_flow *f, dac_real *P)
{
	int			k,
				which,
				o,
				i,
				d = f->d;

	for (k = 0; k < f->nmade; k++)
	{
		for (which = 0; which < 3; which++)
		{
			const dac_linear *l = dac_flow_masked(f, k, which);

			for (o = 0; o < l->out; o++)
				for (i = 0; i < l->in; i++)
					if (!dac_flow_mask(f, which, o, i))
						P[l->w + (size_t) o * l->in + i] = 0;
		}
		if (f->perm != DAC_PERM_INVLIN)
			continue;
		/* only the strictly lower part of L and the strictly upper part of U are used */
		for (o = 0; o < d; o++)
			for (i = 0; i < d; i++)
			{
				if (i >= o)
					P[f->inv[k].lower + (size_t) o * d + i] = 0;
				if (i <= o)
					P[f->inv[k].upper + (size_t) o * d + i] = 0;
			}
	}
}

/* ---------------------------------------------------------------- invertible maps */

/* A = L ∘ M + I and Bm = U ∘ Mᵀ + diag(sign · e^{log_s}), each [d, d] */
static void
invlin_factors(const dac_flow *f, int k, const dac_real *P, dac_real *A, dac_real *Bm)
{
	const dac_invlin *v = &f->inv[k];
	int			d = f->d,
				o,
				i;

	for (o = 0; o < d; o++)
		for (i = 0; i < d; i++)
		{
			size_t		at = (size_t) o * d + i;

			A[at] = i < o ? P[v->lower + at] : (dac_real) (i == o);
			Bm[at] = i > o ? P[v->upper + at] :
				i == o ? P[v->sign + o] * REXP(P[v->log_s + o]) : 0;
		}
}

double
dac_invlin_weight(const dac_flow *f, int k, const dac_real *P, dac_real *W)
{
	int			d = f->d,
				j;
	size_t		dd = (size_t) d * d;
	dac_real   *A = dac_alloc(sizeof(dac_real) * 3 * dd);
	double		logdet = 0;

	for (j = 0; j < d; j++)
		logdet += P[f->inv[k].log_s + j];
	if (A == NULL)
		return NAN;
	invlin_factors(f, k, P, A, A + dd);
	dac_gemm(0, 0, d, d, d, 1, A, d, A + dd, d, 0, A + 2 * dd, d);
	dac_gemm(0, 0, d, d, d, 1, P + f->inv[k].perm, d, A + 2 * dd, d, 0, W, d);
	dac_free(A);
	return logdet;
}

/*
 * G of map k from dW = d loss / d W and S = Σ_rows dll (the log-det's
 * weight):  dT = Pᵀ dW, dA = dT Bmᵀ, dBm = Aᵀ dT.
 */
static dac_status
invlin_backward(const dac_flow *f, int k, const dac_real *P, dac_real *G, const dac_real *dW,
				double S, dac_arena *ar)
{
	const dac_invlin *v = &f->inv[k];
	int			d = f->d,
				o,
				i;
	size_t		dd = (size_t) d * d;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *A = dac_arena_reals_raw(ar, 5 * dd);

	if (A == NULL)
		return DAC_ERR_NOMEM;
	{
		dac_real   *Bm = A + dd,
				   *dT = A + 2 * dd,
				   *dA = A + 3 * dd,
				   *dB = A + 4 * dd;

		invlin_factors(f, k, P, A, Bm);
		dac_gemm(1, 0, d, d, d, 1, P + v->perm, d, dW, d, 0, dT, d);
		dac_gemm(0, 1, d, d, d, 1, dT, d, Bm, d, 0, dA, d);
		dac_gemm(1, 0, d, d, d, 1, A, d, dT, d, 0, dB, d);
		for (o = 0; o < d; o++)
		{
			for (i = 0; i < d; i++)
			{
				size_t		at = (size_t) o * d + i;

				if (i < o)
					G[v->lower + at] += dA[at];
				else if (i > o)
					G[v->upper + at] += dB[at];
			}
			G[v->log_s + o] += dB[(size_t) o * d + o] * P[v->sign + o] * REXP(P[v->log_s + o]) +
				(dac_real) S;
		}
	}
	dac_arena_reset_to(ar, mark);
	return DAC_OK;
}

/* ---------------------------------------------------------------- MADE */

/*
 * One MADE block on rows x [rows, d]; the row r belongs to set (row0 + r) / n
 * and takes that set's context term ctx.  Writes a1, a2 [rows, H],
 * raw [rows, 2d], the block's output u into out [rows, d] (reversed when
 * flip), and adds the log-det to logdet [rows].
 */
static void
made_forward(const dac_flow *f, const dac_made *mb, const dac_real *P, const dac_real *x,
			 int rows, size_t row0, int n, const dac_real *ctx, dac_real *a1, dac_real *a2,
			 dac_real *raw, dac_real *out, int flip, dac_real *logdet)
{
	int			d = f->d,
				H = f->H,
				r,
				j;

	linear_forward(&mb->in, P, x, rows, a1);
	for (r = 0; r < rows; r++)
	{
		const dac_real *c = ctx + ((row0 + r) / n) * H;
		dac_real   *a = a1 + (size_t) r * H;

		for (j = 0; j < H; j++)
			a[j] += c[j];
	}
	dac_elu(a1, (size_t) rows * H);
	linear_forward(&mb->hid, P, a1, rows, a2);
	dac_elu(a2, (size_t) rows * H);
	linear_forward(&mb->out, P, a2, rows, raw);
	for (r = 0; r < rows; r++)
	{
		const dac_real *xr = x + (size_t) r * d;
		const dac_real *rr = raw + (size_t) r * 2 * d;
		dac_real   *nx = out + (size_t) r * d;
		dac_real	ld = 0;

		for (j = 0; j < d; j++)
		{
			dac_real	s = dac_softplus(rr[d + j]) + (dac_real) DAC_MAF_SCALE_EPS;

			nx[flip ? d - 1 - j : j] = (xr[j] - rr[j]) / s;
			ld -= RLOG(s);
		}
		logdet[r] += ld;
	}
}

/* block k's output u [rows, d] -> next [rows, d] and its log-det (invlin) */
static void
permute(const dac_flow *f, const dac_real *W, double logdet, const dac_real *u, int rows,
		dac_real *next, dac_real *ll)
{
	int			r;

	dac_gemm(0, 1, rows, f->d, f->d, 1, u, f->d, W, f->d, 0, next, f->d);
	for (r = 0; r < rows; r++)
		ll[r] += (dac_real) logdet;
}

/* base log-density of z [rows, d] added to ll; |z|² to z2 when given */
static void
base_normal(const dac_real *z, int rows, int d, dac_real *ll, double *z2)
{
	dac_real	c = (dac_real) (-0.5 * log(2.0 * M_PI));
	int			r,
				j;

	for (r = 0; r < rows; r++)
	{
		dac_real	s = 0;
		double		q = 0;

		for (j = 0; j < d; j++)
		{
			dac_real	v = z[(size_t) r * d + j];

			s += c - (dac_real) 0.5 * v * v;
			q += (double) v * v;
		}
		ll[r] += s;
		if (z2)
			z2[r] = q;
	}
}

/* The log-dets of the invertible maps (0 for flips). */
static void
invlin_logdets(const dac_flow *f, const dac_real *P, double *logdet)
{
	int			k,
				j;

	for (k = 0; k < f->nmade; k++)
	{
		logdet[k] = 0;
		if (f->perm == DAC_PERM_INVLIN)
			for (j = 0; j < f->d; j++)
				logdet[k] += P[f->inv[k].log_s + j];
	}
}

/*
 * The flow over rows X [total, d] (rows row0.. of the pass c was prepared
 * for) in chunks, keeping nothing: ll [total] (and z2).  Scratch from ar,
 * released.
 */
dac_status
dac_flow_rows(const dac_flow *f, const dac_real *P, const dac_flow_cache *c, const dac_real *X,
			  size_t total, size_t row0, dac_arena *ar, dac_real *ll, double *z2)
{
	int			d = f->d,
				H = f->H,
				inv = f->perm == DAC_PERM_INVLIN,
				k;
	size_t		r0,
				chunk = total < FLOW_CHUNK ? total : FLOW_CHUNK;
	double		logdet[DAC_MAX_MADE];
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *xa = dac_arena_reals_raw(ar, chunk * d),
			   *xb = dac_arena_reals_raw(ar, chunk * d),
			   *a1 = dac_arena_reals_raw(ar, chunk * H),
			   *a2 = dac_arena_reals_raw(ar, chunk * H),
			   *raw = dac_arena_reals_raw(ar, chunk * 2 * d),
			   *u = inv ? dac_arena_reals_raw(ar, chunk * d) : NULL;

	if (!xa || !xb || !a1 || !a2 || !raw || (inv && !u))
	{
		dac_arena_reset_to(ar, mark);
		return DAC_ERR_NOMEM;
	}
	invlin_logdets(f, P, logdet);
	for (r0 = 0; r0 < total; r0 += chunk)
	{
		int			rows = total - r0 < chunk ? (int) (total - r0) : (int) chunk;

		if (dac_interrupted())
		{
			dac_arena_reset_to(ar, mark);
			return DAC_ERR_INTERRUPTED;
		}
		memcpy(xa, X + r0 * d, sizeof(dac_real) * rows * d);
		memset(ll + r0, 0, sizeof(dac_real) * rows);
		for (k = 0; k < f->nmade; k++)
		{
			dac_real   *t;

			made_forward(f, &f->made[k], P, xa, rows, row0 + r0, c->n, c->ctx[k], a1, a2, raw,
						 inv ? u : xb, !inv, ll + r0);
			if (inv)
				permute(f, c->W[k], logdet[k], u, rows, xb, ll + r0);
			t = xa;
			xa = xb;
			xb = t;
		}
		base_normal(xa, rows, d, ll + r0, z2 ? z2 + r0 : NULL);
	}
	dac_arena_reset_to(ar, mark);
	return DAC_OK;
}

dac_status
dac_flow_prepare(const dac_flow *f, const dac_real *P, const dac_real *context, int B, int n,
				 dac_arena *ar, dac_flow_cache *c)
{
	int			k;

	memset(c, 0, sizeof(*c));
	c->B = B;
	c->n = n;
	c->context = context;
	for (k = 0; k < f->nmade; k++)
	{
		if ((c->ctx[k] = dac_arena_reals_raw(ar, (size_t) B * f->H)) == NULL)
			return DAC_ERR_NOMEM;
		dac_gemm(0, 1, B, f->H, f->C, 1, context, f->C, P + f->made[k].ctx, f->C, 0, c->ctx[k], f->H);
		if (f->perm == DAC_PERM_INVLIN)
		{
			if ((c->W[k] = dac_arena_reals_raw(ar, (size_t) f->d * f->d)) == NULL)
				return DAC_ERR_NOMEM;
			if (isnan(dac_invlin_weight(f, k, P, c->W[k])))
				return DAC_ERR_NOMEM;
		}
	}
	return DAC_OK;
}

dac_status
dac_flow_forward(const dac_flow *f, const dac_real *P, const dac_real *context, const dac_real *X,
				 int B, int n, int infer, dac_arena *ar, dac_flow_cache *c, dac_real *ll,
				 double *z2)
{
	int			d = f->d,
				H = f->H,
				inv = f->perm == DAC_PERM_INVLIN,
				k;
	size_t		rows = (size_t) B * n;
	double		logdet[DAC_MAX_MADE];
	dac_status	st;

	if ((st = dac_flow_prepare(f, P, context, B, n, ar, c)) != DAC_OK)
		return st;
	if (infer)
		return dac_flow_rows(f, P, c, X, rows, 0, ar, ll, z2);

	for (k = 0; k < f->nmade; k++)
	{
		c->a1[k] = dac_arena_reals_raw(ar, rows * H);
		c->a2[k] = dac_arena_reals_raw(ar, rows * H);
		c->mraw[k] = dac_arena_reals_raw(ar, rows * 2 * d);
		c->u[k] = inv ? dac_arena_reals_raw(ar, rows * d) : NULL;
		if (!c->a1[k] || !c->a2[k] || !c->mraw[k] || (inv && !c->u[k]))
			return DAC_ERR_NOMEM;
	}
	c->xin[0] = (dac_real *) X;
	for (k = 1; k < f->nmade; k++)
		if ((c->xin[k] = dac_arena_reals_raw(ar, rows * d)) == NULL)
			return DAC_ERR_NOMEM;
	if ((c->z = dac_arena_reals_raw(ar, rows * d)) == NULL)
		return DAC_ERR_NOMEM;
	invlin_logdets(f, P, logdet);
	memset(ll, 0, sizeof(dac_real) * rows);
	for (k = 0; k < f->nmade; k++)
	{
		dac_real   *next = k + 1 < f->nmade ? c->xin[k + 1] : c->z;

		made_forward(f, &f->made[k], P, c->xin[k], (int) rows, 0, n, c->ctx[k], c->a1[k],
					 c->a2[k], c->mraw[k], inv ? c->u[k] : next, !inv, ll);
		if (inv)
			permute(f, c->W[k], logdet[k], c->u[k], (int) rows, next, ll);
	}
	base_normal(c->z, (int) rows, d, ll, z2);
	return DAC_OK;
}

/* A masked linear's backward; with G NULL, only its input's gradient. */
static void
flow_linear_backward(const dac_linear *l, const dac_real *P, dac_real *G, const dac_real *X,
					 const dac_real *dY, int rows, dac_real *dX)
{
	if (G)
		linear_backward(l, P, G, X, dY, rows, dX);
	else if (dX)
		dac_gemm_direct(0, 0, rows, l->in, l->out, 1, dY, l->out, P + l->w, l->in, 1, dX, l->in);
}

/*
 * Backward through the flow.  The gradient g of the loss w.r.t. a block's
 * permuted output (the next block's input; z after the last) gives du, the
 * gradient w.r.t. the block's output u (g reversed for a flip; g W for an
 * invertible map, whose W gets gᵀ u).  Per row and coordinate j, with s_j
 * and u_j of the block:
 *	 dx_j = du_j / s_j (directly), dshift_j = −du_j / s_j,
 *	 ds_j = −du_j u_j / s_j − dll / s_j (from the log-det −Σ log s),
 * then back through the masked linears and ELUs into the input and context.
 */
dac_status
dac_flow_backward(const dac_flow *f, const dac_real *P, dac_real *G, const dac_flow_cache *c,
				  const dac_real *dll, dac_real *dX, dac_real *dcontext, dac_arena *ar)
{
	int			d = f->d,
				H = f->H,
				B = c->B,
				n = c->n,
				inv = f->perm == DAC_PERM_INVLIN,
				k,
				j,
				b;
	size_t		rows = (size_t) B * n,
				r;
	double		S = 0;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *g = dac_arena_reals(ar, rows * d),
			   *dx = dac_arena_reals(ar, rows * d),
			   *du = dac_arena_reals(ar, rows * d),
			   *draw = dac_arena_reals(ar, rows * 2 * d),
			   *da2 = dac_arena_reals(ar, rows * H),
			   *da1 = dac_arena_reals(ar, rows * H),
			   *dctx = dac_arena_reals(ar, (size_t) B * H),
			   *dW = inv ? dac_arena_reals(ar, (size_t) d * d) : NULL;
	dac_status	st = DAC_OK;

	if (!g || !dx || !du || !draw || !da2 || !da1 || !dctx || (inv && !dW))
	{
		dac_arena_reset_to(ar, mark);
		return DAC_ERR_NOMEM;
	}
	for (r = 0; r < rows; r++)
		S += dll[r];
	/* d ll / d z = −z */
	for (r = 0; r < rows; r++)
		for (j = 0; j < d; j++)
			g[r * d + j] = -dll[r] * c->z[r * d + j];

	for (k = f->nmade - 1; k >= 0 && st == DAC_OK; k--)
	{
		const dac_made *mb = &f->made[k];
		const dac_real *x = c->xin[k];
		const dac_real *raw = c->mraw[k];
		dac_real   *t;

		if (inv)
		{
			dac_gemm(0, 0, (int) rows, d, d, 1, g, d, c->W[k], d, 0, du, d);
			if (G)
			{
				dac_gemm(1, 0, d, d, (int) rows, 1, g, d, c->u[k], d, 0, dW, d);
				if ((st = invlin_backward(f, k, P, G, dW, S, ar)) != DAC_OK)
					break;
			}
		}
		else
			for (r = 0; r < rows; r++)
				for (j = 0; j < d; j++)
					du[r * d + j] = g[r * d + d - 1 - j];
		for (r = 0; r < rows; r++)
			for (j = 0; j < d; j++)
			{
				dac_real	gu = du[r * d + j];
				dac_real	pre = raw[r * 2 * d + d + j];
				dac_real	s = dac_softplus(pre) + (dac_real) DAC_MAF_SCALE_EPS;
				dac_real	u = (x[r * d + j] - raw[r * 2 * d + j]) / s;
				dac_real	ds = -gu * u / s - dll[r] / s;

				dx[r * d + j] = gu / s;
				draw[r * 2 * d + j] = -gu / s;
				draw[r * 2 * d + d + j] = ds * dac_softplus_grad(pre);
			}
		memset(da2, 0, sizeof(dac_real) * rows * H);
		flow_linear_backward(&mb->out, P, G, c->a2[k], draw, (int) rows, da2);
		for (r = 0; r < rows * H; r++)
			if (c->a2[k][r] <= 0)
				da2[r] *= c->a2[k][r] + 1;
		memset(da1, 0, sizeof(dac_real) * rows * H);
		flow_linear_backward(&mb->hid, P, G, c->a1[k], da2, (int) rows, da1);
		for (r = 0; r < rows * H; r++)
			if (c->a1[k][r] <= 0)
				da1[r] *= c->a1[k][r] + 1;
		/* the first block's input: passed on only when the caller asks */
		flow_linear_backward(&mb->in, P, G, x, da1, (int) rows, k > 0 || dX ? dx : NULL);
		if (k == 0 && dX)
			for (r = 0; r < rows * d; r++)
				dX[r] += dx[r];
		/* the context: one vector per set, added to every row */
		memset(dctx, 0, sizeof(dac_real) * B * H);
		for (b = 0; b < B; b++)
			for (r = 0; r < (size_t) n; r++)
			{
				const dac_real *a = da1 + ((size_t) b * n + r) * H;

				for (j = 0; j < H; j++)
					dctx[(size_t) b * H + j] += a[j];
			}
		if (G)
			dac_gemm(1, 0, H, f->C, B, 1, dctx, H, c->context, f->C, 1, G + mb->ctx, f->C);
		dac_gemm(0, 0, B, f->C, H, 1, dctx, H, P + mb->ctx, f->C, 1, dcontext, f->C);
		t = g;
		g = dx;
		dx = t;
	}
	/* the masked-out weights have no gradient */
	if (G)
		dac_flow_mask_params(f, G);
	dac_arena_reset_to(ar, mark);
	return st;
}

double
dac_flow_flops(const dac_flow *f, int B, int n)
{
	double		d = f->d,
				H = f->H,
				rows = (double) B * n;
	double		per = 2.0 * B * f->C * H + rows * (2.0 * d * H + 2.0 * H * H + 2.0 * H * 2 * d);

	if (f->perm == DAC_PERM_INVLIN)
		per += rows * 2.0 * d * d + 4.0 * d * d * d;
	return f->nmade * per;
}

double
dac_flow_infer_bytes(const dac_flow *f, int B, int n, double *scratch)
{
	double		rows = (double) B * n,
				inv = f->perm == DAC_PERM_INVLIN,
				kept = (double) f->nmade * (B * f->H + inv * f->d * f->d);

	*scratch = fmin(rows, FLOW_CHUNK) * ((2.0 + inv) * f->d + 2.0 * f->H + 2.0 * f->d) * sizeof(dac_real)
		+ 6 * 64;
	return kept * sizeof(dac_real) + f->nmade * (1 + inv) * 64.0;
}
