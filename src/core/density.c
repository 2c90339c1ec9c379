/*
 * density.c
 *	  The density heads: Gaussian (diagonal), none, and the conditional MAF.
 */
#include "density.h"
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
#define MAF_CHUNK 256

#define NOMEM(err) dac_fail(err, DAC_ERR_NOMEM, "out of memory in the density head")

dac_real
dac_softplus(dac_real x)
{
	return x > 20 ? x : RLOG1P(REXP(x));
}

static dac_real
softplus_grad(dac_real x)
{
	return x > 20 ? 1 : 1 / (1 + REXP(-x));
}

const char *
dac_density_name(dac_density kind)
{
	switch (kind)
	{
		case DAC_DENSITY_GAUSSIAN:
			return "gaussian_diag";
		case DAC_DENSITY_MAF:
			return "maf";
		default:
			return "none";
	}
}

int
dac_head_theta_dim(const dac_head *h)
{
	switch (h->kind)
	{
		case DAC_DENSITY_GAUSSIAN:
			return 2 * h->d;
		case DAC_DENSITY_MAF:
			return h->C;
		default:
			return h->D;
	}
}

int
dac_head_has_density(const dac_head *h)
{
	return h->kind != DAC_DENSITY_NONE;
}

double
dac_gauss_sqdist(const dac_real *x, const double *mu, const double *sd, int d)
{
	double		q = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		double		u = ((double) x[j] - mu[j]) / sd[j];

		q += u * u;
	}
	return q;
}

double
dac_gauss_lognorm(const double *sd, int d)
{
	double		c = -0.5 * d * log(2.0 * M_PI);
	int			j;

	for (j = 0; j < d; j++)
		c -= log(sd[j]);
	return c;
}

/* ---------------------------------------------------------------- masks */

/* degrees of the reference MADE (d >= 2, checked with the configuration) */
int
dac_made_mask(const dac_head *h, int which, int o, int i)
{
	int			d = h->d;

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

static void
mask_weights(const dac_head *h, dac_real *W, const dac_linear *l, int which)
{
	int			o,
				i;

	for (o = 0; o < l->out; o++)
		for (i = 0; i < l->in; i++)
			if (!dac_made_mask(h, which, o, i))
				W[l->w + (size_t) o * l->in + i] = 0;
}

void
dac_head_mask_params(const dac_head *h, dac_real *P)
{
	int			k;

	if (h->kind != DAC_DENSITY_MAF)
		return;
	for (k = 0; k < h->nmade; k++)
	{
		mask_weights(h, P, &h->made[k].in, 0);
		mask_weights(h, P, &h->made[k].hid, 1);
		mask_weights(h, P, &h->made[k].out, 2);
	}
}

/* ---------------------------------------------------------------- flow */

static void
elu_inplace(dac_real *a, size_t count)
{
	size_t		i;

	for (i = 0; i < count; i++)
		if (a[i] <= 0)
			a[i] = REXP(a[i]) - 1;
}

/* W_ctx θ for every set: ctx [B, H] */
static void
made_context(const dac_head *h, const dac_made *mb, const dac_real *P, const dac_real *theta,
			 int B, dac_real *ctx)
{
	dac_gemm(0, 1, B, h->H, h->C, 1, theta, h->C, P + mb->ctx, h->C, 0, ctx, h->H);
}

/*
 * One MADE block on rows x [rows, d]; the row r belongs to set (row0 + r) / n
 * and takes that set's context.  Writes a1, a2 [rows, H], raw [rows, 2d],
 * the block's output already flipped into next [rows, d], and adds the
 * log-det to logdet [rows].
 */
static void
made_forward(const dac_head *h, const dac_made *mb, const dac_real *P, const dac_real *x,
			 int rows, size_t row0, int n, const dac_real *ctx, dac_real *a1, dac_real *a2,
			 dac_real *raw, dac_real *next, dac_real *logdet)
{
	int			d = h->d,
				H = h->H,
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
	elu_inplace(a1, (size_t) rows * H);
	linear_forward(&mb->hid, P, a1, rows, a2);
	elu_inplace(a2, (size_t) rows * H);
	linear_forward(&mb->out, P, a2, rows, raw);
	for (r = 0; r < rows; r++)
	{
		const dac_real *xr = x + (size_t) r * d;
		const dac_real *rr = raw + (size_t) r * 2 * d;
		dac_real   *nx = next + (size_t) r * d;
		dac_real	ld = 0;

		for (j = 0; j < d; j++)
		{
			dac_real	s = dac_softplus(rr[d + j]) + (dac_real) DAC_MAF_SCALE_EPS;

			nx[d - 1 - j] = (xr[j] - rr[j]) / s;
			ld -= RLOG(s);
		}
		logdet[r] += ld;
	}
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

/*
 * The flow over rows [total, d] in chunks, keeping nothing: ll [total] (and
 * z2), with contexts ctx[k] [sets, H] per block.  Scratch from ar, released.
 */
static dac_status
flow_chunks(const dac_head *h, const dac_real *P, const dac_real *X, size_t total, int n,
			dac_real *const *ctx, dac_arena *ar, dac_real *ll, double *z2)
{
	int			d = h->d,
				H = h->H,
				k;
	size_t		r0,
				chunk = total < MAF_CHUNK ? total : MAF_CHUNK;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *xa = dac_arena_reals_raw(ar, chunk * d),
			   *xb = dac_arena_reals_raw(ar, chunk * d),
			   *a1 = dac_arena_reals_raw(ar, chunk * H),
			   *a2 = dac_arena_reals_raw(ar, chunk * H),
			   *raw = dac_arena_reals_raw(ar, chunk * 2 * d);

	if (!xa || !xb || !a1 || !a2 || !raw)
	{
		dac_arena_reset_to(ar, mark);
		return DAC_ERR_NOMEM;
	}
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
		for (k = 0; k < h->nmade; k++)
		{
			dac_real   *t;

			made_forward(h, &h->made[k], P, xa, rows, r0, n, ctx[k], a1, a2, raw, xb, ll + r0);
			t = xa;
			xa = xb;
			xb = t;
		}
		base_normal(xa, rows, d, ll + r0, z2 ? z2 + r0 : NULL);
	}
	dac_arena_reset_to(ar, mark);
	return DAC_OK;
}

static dac_status
maf_forward(const dac_head *h, const dac_real *P, const dac_real *X, int B, int n, int infer,
			dac_arena *ar, dac_head_cache *c)
{
	int			d = h->d,
				H = h->H,
				k;
	size_t		rows = (size_t) B * n;

	for (k = 0; k < h->nmade; k++)
	{
		if ((c->ctx[k] = dac_arena_reals_raw(ar, (size_t) B * H)) == NULL)
			return DAC_ERR_NOMEM;
		made_context(h, &h->made[k], P, c->theta, B, c->ctx[k]);
	}
	if (infer)
		return flow_chunks(h, P, X, rows, n, c->ctx, ar, c->ll, NULL);

	for (k = 0; k < h->nmade; k++)
	{
		c->a1[k] = dac_arena_reals_raw(ar, rows * H);
		c->a2[k] = dac_arena_reals_raw(ar, rows * H);
		c->mraw[k] = dac_arena_reals_raw(ar, rows * 2 * d);
		if (!c->a1[k] || !c->a2[k] || !c->mraw[k])
			return DAC_ERR_NOMEM;
	}
	c->xin[0] = (dac_real *) X;
	for (k = 1; k < h->nmade; k++)
		if ((c->xin[k] = dac_arena_reals_raw(ar, rows * d)) == NULL)
			return DAC_ERR_NOMEM;
	if ((c->z = dac_arena_reals_raw(ar, rows * d)) == NULL)
		return DAC_ERR_NOMEM;
	for (k = 0; k < h->nmade; k++)
		made_forward(h, &h->made[k], P, c->xin[k], (int) rows, 0, n, c->ctx[k], c->a1[k],
					 c->a2[k], c->mraw[k], k + 1 < h->nmade ? c->xin[k + 1] : c->z, c->ll);
	base_normal(c->z, (int) rows, d, c->ll, NULL);
	return DAC_OK;
}

/*
 * Backward through the flow.  The gradient g of the loss w.r.t. a block's
 * flipped output (the next block's input; z after the last) gives, per row
 * and coordinate j, with du_j = g[d−1−j], s_j and u_j of the block:
 *	 dx_j = du_j / s_j (directly), dshift_j = −du_j / s_j,
 *	 ds_j = −du_j u_j / s_j − dll / s_j (from the log-det −Σ log s),
 * then back through the masked linears and ELUs into the input and context.
 */
static dac_status
maf_backward(const dac_head *h, const dac_real *P, dac_real *G, const dac_head_cache *c,
			 const dac_real *dll, dac_real *dtheta, dac_arena *ar)
{
	int			d = h->d,
				H = h->H,
				B = c->B,
				n = c->n,
				k,
				j,
				b;
	size_t		rows = (size_t) B * n,
				r;
	dac_real   *g = dac_arena_reals(ar, rows * d),
			   *dx = dac_arena_reals(ar, rows * d),
			   *draw = dac_arena_reals(ar, rows * 2 * d),
			   *da2 = dac_arena_reals(ar, rows * H),
			   *da1 = dac_arena_reals(ar, rows * H),
			   *dctx = dac_arena_reals(ar, (size_t) B * H);

	if (!g || !dx || !draw || !da2 || !da1 || !dctx)
		return DAC_ERR_NOMEM;
	/* d ll / d z = −z */
	for (r = 0; r < rows; r++)
		for (j = 0; j < d; j++)
			g[r * d + j] = -dll[r] * c->z[r * d + j];

	for (k = h->nmade - 1; k >= 0; k--)
	{
		const dac_made *mb = &h->made[k];
		const dac_real *x = c->xin[k];
		const dac_real *raw = c->mraw[k];
		dac_real   *t;

		for (r = 0; r < rows; r++)
			for (j = 0; j < d; j++)
			{
				dac_real	du = g[r * d + d - 1 - j];
				dac_real	pre = raw[r * 2 * d + d + j];
				dac_real	s = dac_softplus(pre) + (dac_real) DAC_MAF_SCALE_EPS;
				dac_real	u = (x[r * d + j] - raw[r * 2 * d + j]) / s;
				dac_real	ds = -du * u / s - dll[r] / s;

				dx[r * d + j] = du / s;
				draw[r * 2 * d + j] = -du / s;
				draw[r * 2 * d + d + j] = ds * softplus_grad(pre);
			}
		memset(da2, 0, sizeof(dac_real) * rows * H);
		linear_backward(&mb->out, P, G, c->a2[k], draw, (int) rows, da2);
		for (r = 0; r < rows * H; r++)
			if (c->a2[k][r] <= 0)
				da2[r] *= c->a2[k][r] + 1;
		memset(da1, 0, sizeof(dac_real) * rows * H);
		linear_backward(&mb->hid, P, G, c->a1[k], da2, (int) rows, da1);
		for (r = 0; r < rows * H; r++)
			if (c->a1[k][r] <= 0)
				da1[r] *= c->a1[k][r] + 1;
		/* the first block's input is the data: no gradient to pass on */
		linear_backward(&mb->in, P, G, x, da1, (int) rows, k > 0 ? dx : NULL);
		/* the context: one vector per set, added to every row */
		memset(dctx, 0, sizeof(dac_real) * B * H);
		for (b = 0; b < B; b++)
			for (r = 0; r < (size_t) n; r++)
			{
				const dac_real *a = da1 + ((size_t) b * n + r) * H;

				for (j = 0; j < H; j++)
					dctx[(size_t) b * H + j] += a[j];
			}
		dac_gemm(1, 0, H, h->C, B, 1, dctx, H, c->theta, h->C, 1, G + mb->ctx, h->C);
		dac_gemm(0, 0, B, h->C, H, 1, dctx, H, P + mb->ctx, h->C, 1, dtheta, h->C);
		t = g;
		g = dx;
		dx = t;
	}
	/* the masked-out weights have no gradient */
	dac_head_mask_params(h, G);
	return DAC_OK;
}

/* ---------------------------------------------------------------- the head */

static void
gauss_theta_ll(const dac_head *h, const dac_real *raw, const dac_real *X, int n, dac_real *th,
			   dac_real *ll)
{
	int			d = h->d,
				k;

	for (k = 0; k < d; k++)
	{
		th[k] = raw[k];
		th[d + k] = dac_softplus(raw[d + k]);
	}
	if (ll)
	{
		dac_real	c = (dac_real) (-0.5 * log(2.0 * M_PI));
		int			i;

		for (i = 0; i < n; i++)
		{
			const dac_real *x = X + (size_t) i * d;
			dac_real	s = 0;

			for (k = 0; k < d; k++)
			{
				dac_real	z = (x[k] - th[k]) / th[d + k];

				s += c - RLOG(th[d + k]) - (dac_real) 0.5 * z * z;
			}
			ll[i] = s;
		}
	}
}

dac_status
dac_head_forward(const dac_head *h, const dac_real *P, const dac_real *Ht, const dac_real *X,
				 int B, int n, int infer, dac_arena *ar, dac_head_cache *c)
{
	int			tdim = dac_head_theta_dim(h),
				b;

	memset(c, 0, sizeof(*c));
	c->B = B;
	c->n = n;
	c->X = X;
	c->Ht = Ht;
	if (h->kind == DAC_DENSITY_NONE)
	{
		c->theta = (dac_real *) Ht;
		return DAC_OK;
	}
	c->raw = dac_arena_reals(ar, (size_t) B * h->fc1.out);
	c->ll = dac_arena_reals(ar, (size_t) B * n);
	if (!c->raw || !c->ll)
		return DAC_ERR_NOMEM;
	linear_forward(&h->fc1, P, Ht, B, c->raw);
	if (h->kind == DAC_DENSITY_MAF)
	{
		c->theta = c->raw;		/* the context is fc1's output as it is */
		return maf_forward(h, P, X, B, n, infer, ar, c);
	}
	if ((c->theta = dac_arena_reals(ar, (size_t) B * tdim)) == NULL)
		return DAC_ERR_NOMEM;
	for (b = 0; b < B; b++)
		gauss_theta_ll(h, c->raw + (size_t) b * tdim, X + (size_t) b * n * h->d, n,
					   c->theta + (size_t) b * tdim, c->ll + (size_t) b * n);
	return DAC_OK;
}

dac_status
dac_head_backward(const dac_head *h, const dac_real *P, dac_real *G, const dac_head_cache *c,
				  const dac_real *dll, dac_real *dHt, dac_arena *ar)
{
	int			d = h->d,
				B = c->B,
				n = c->n,
				b,
				i,
				k;
	dac_arena_mark mark;
	dac_real   *draw;
	dac_status	st = DAC_OK;

	if (h->kind == DAC_DENSITY_NONE || dll == NULL)
		return DAC_OK;
	mark = dac_arena_get_mark(ar);
	if ((draw = dac_arena_reals(ar, (size_t) B * h->fc1.out)) == NULL)
		return DAC_ERR_NOMEM;
	if (h->kind == DAC_DENSITY_MAF)
		st = maf_backward(h, P, G, c, dll, draw, ar);
	else
		for (b = 0; b < B; b++)
		{
			const dac_real *th = c->theta + (size_t) b * 2 * d;
			const dac_real *raw = c->raw + (size_t) b * 2 * d;
			dac_real   *dr = draw + (size_t) b * 2 * d;

			for (k = 0; k < d; k++)
			{
				double		mu = th[k],
							sg = th[d + k];
				double		gmu = 0,
							gsg = 0;

				for (i = 0; i < n; i++)
				{
					double		g = dll[(size_t) b * n + i];
					double		z = (c->X[((size_t) b * n + i) * d + k] - mu) / sg;

					gmu += g * z / sg;
					gsg += g * (z * z - 1.0) / sg;
				}
				dr[k] = (dac_real) gmu;
				dr[d + k] = (dac_real) gsg * softplus_grad(raw[d + k]);
			}
		}
	if (st == DAC_OK)
		linear_backward(&h->fc1, P, G, c->Ht, draw, B, dHt);
	dac_arena_reset_to(ar, mark);
	return st;
}

dac_status
dac_head_ll(const dac_head *h, const dac_real *P, const dac_real *theta, const dac_real *X,
			int n, dac_real *ll, double *z2)
{
	int			d = h->d,
				i,
				k;

	if (h->kind == DAC_DENSITY_NONE)
		return DAC_ERR_INVALID;
	if (h->kind == DAC_DENSITY_GAUSSIAN)
	{
		double	   *mu = dac_alloc(sizeof(double) * 2 * (size_t) d),
				   *sd;
		double		c0;

		if (mu == NULL)
			return DAC_ERR_NOMEM;
		sd = mu + d;
		for (k = 0; k < d; k++)
		{
			mu[k] = theta[k];
			sd[k] = theta[d + k];
		}
		c0 = dac_gauss_lognorm(sd, d);
		for (i = 0; i < n; i++)
		{
			double		q = dac_gauss_sqdist(X + (size_t) i * d, mu, sd, d);

			if (i % 8192 == 8191 && dac_interrupted())
			{
				dac_free(mu);
				return DAC_ERR_INTERRUPTED;
			}
			ll[i] = (dac_real) (c0 - 0.5 * q);
			if (z2)
				z2[i] = q;
		}
		dac_free(mu);
		return DAC_OK;
	}
	else
	{
		dac_arena	ar;
		dac_real   *ctx[DAC_MAX_MADE];
		dac_status	st = DAC_OK;
		unsigned	csr = dac_fpu_enter();

		double		scratch,
					kept = dac_head_infer_bytes(h, 1, n > MAF_CHUNK ? MAF_CHUNK : n, &scratch);

		dac_arena_init(&ar, (size_t) (kept + scratch));
		for (k = 0; k < h->nmade && st == DAC_OK; k++)
		{
			if ((ctx[k] = dac_arena_reals_raw(&ar, (size_t) h->H)) == NULL)
				st = DAC_ERR_NOMEM;
			else
				made_context(h, &h->made[k], P, theta, 1, ctx[k]);
		}
		if (st == DAC_OK)
			st = flow_chunks(h, P, X, (size_t) n, n, ctx, &ar, ll, z2);
		dac_arena_free(&ar);
		dac_fpu_leave(csr);
		return st;
	}
}

double
dac_head_flops(const dac_head *h, int n)
{
	double		d = h->d,
				H = h->H,
				f;

	switch (h->kind)
	{
		case DAC_DENSITY_GAUSSIAN:
			return 2.0 * h->D * 2 * d;
		case DAC_DENSITY_MAF:
			f = 2.0 * h->D * h->C;
			f += h->nmade * (2.0 * h->C * H + n * (2.0 * d * H + 2.0 * H * H + 2.0 * H * 2 * d));
			return f;
		default:
			return 0;
	}
}

/*
 * What the head keeps for the rest of an inference pass (θ and raw, ll; for
 * the flow, the contexts), and in *scratch what it holds only while it runs
 * (one chunk's rows).
 */
double
dac_head_infer_bytes(const dac_head *h, int B, int n, double *scratch)
{
	double		rows = (double) B * n,
				reals = 0,
				allocs = 0;

	*scratch = 0;
	switch (h->kind)
	{
		case DAC_DENSITY_GAUSSIAN:
			reals = 2.0 * B * 2 * h->d + rows;
			allocs = 3;
			break;
		case DAC_DENSITY_MAF:
			reals = (double) B * h->C + rows + (double) h->nmade * B * h->H;
			allocs = 2 + h->nmade;
			*scratch = fmin(rows, MAF_CHUNK) * (2.0 * h->d + 2.0 * h->H + 2.0 * h->d) * sizeof(dac_real)
				+ 5 * 64;
			break;
		default:
			break;
	}
	return reals * sizeof(dac_real) + allocs * 64;
}
