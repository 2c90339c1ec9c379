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

#define NOMEM(err) dac_fail(err, DAC_ERR_NOMEM, "out of memory in the density head")

const char *
dac_density_name(dac_density kind)
{
	switch (kind)
	{
		case DAC_DENSITY_GAUSSIAN:
			return "gaussian_diag";
		case DAC_DENSITY_MAF:
			return "maf";
		case DAC_DENSITY_NS:
			return "ns";
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
			return h->flow.C;
		case DAC_DENSITY_NS:
			return h->ns.C;
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

const dac_flow *
dac_head_flow(const dac_head *h)
{
	return h->kind == DAC_DENSITY_MAF ? &h->flow : h->kind == DAC_DENSITY_NS ? &h->ns.prior : NULL;
}

void
dac_head_mask_params(const dac_head *h, dac_real *P)
{
	const dac_flow *f = dac_head_flow(h);

	if (f)
		dac_flow_mask_params(f, P);
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
				 const dac_real *feat, int B, int n, int infer, dac_arena *ar, dac_head_cache *c)
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
		return dac_flow_forward(&h->flow, P, c->theta, X, B, n, infer, ar, &c->flow, c->ll, NULL);
	}
	if (h->kind == DAC_DENSITY_NS)
	{
		c->theta = c->raw;
		if (infer == DAC_INFER_NO_LL)
		{
			c->ll = NULL;		/* the images' evidence bound: not asked for */
			return DAC_OK;
		}
		return dac_ns_forward(&h->ns, P, c->theta, X, feat, B, n, !infer, ar, &c->ns, c->ll);
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
				  const dac_real *dll, dac_real *dHt, dac_real *dfeat, dac_arena *ar)
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
		st = dac_flow_backward(&h->flow, P, G, &c->flow, dll, NULL, draw, ar);
	else if (h->kind == DAC_DENSITY_NS)
		st = dac_ns_backward(&h->ns, P, G, &c->ns, dll, dfeat, draw, ar);
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
				dr[d + k] = (dac_real) gsg * dac_softplus_grad(raw[d + k]);
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
		dac_flow_cache fc;
		dac_ns_cache nc;
		dac_status	st;
		unsigned	csr = dac_fpu_enter();
		double		scratch,
					kept = dac_head_infer_bytes(h, 1, n, &scratch);

		dac_arena_init(&ar, (size_t) (kept + scratch));
		if (h->kind == DAC_DENSITY_NS)
			st = dac_ns_forward(&h->ns, P, theta, X, NULL, 1, n, 0, &ar, &nc, ll);
		else
			st = dac_flow_forward(&h->flow, P, theta, X, 1, n, 1, &ar, &fc, ll, z2);
		if (st == DAC_OK && z2 && h->kind == DAC_DENSITY_NS)
			for (i = 0; i < n; i++)
				z2[i] = 0;
		dac_arena_free(&ar);
		dac_fpu_leave(csr);
		return st;
	}
}

dac_status
dac_head_ll_many(const dac_head *h, const dac_real *P, const dac_real *theta, int K, const dac_real *X,
				 int n, dac_real *ll)
{
	int			tdim = dac_head_theta_dim(h),
				k;
	dac_status	st = DAC_OK;

	if (h->kind == DAC_DENSITY_NS)
	{
		dac_arena	ar;
		unsigned	csr = dac_fpu_enter();
		double		scratch,
					kept = dac_head_infer_bytes(h, K, 64, &scratch);

		dac_arena_init(&ar, (size_t) (kept + scratch));
		st = dac_ns_ll_thetas(&h->ns, P, theta, K, X, n, &ar, ll);
		dac_arena_free(&ar);
		dac_fpu_leave(csr);
		return st;
	}
	for (k = 0; k < K && st == DAC_OK; k++)
		st = dac_head_ll(h, P, theta + (size_t) k * tdim, X, n, ll + (size_t) k * n, NULL);
	return st;
}

double
dac_head_flops(const dac_head *h, int n)
{
	double		d = h->d;

	switch (h->kind)
	{
		case DAC_DENSITY_GAUSSIAN:
			return 2.0 * h->D * 2 * d;
		case DAC_DENSITY_MAF:
			return 2.0 * h->D * h->flow.C + dac_flow_flops(&h->flow, 1, n);
		case DAC_DENSITY_NS:
			return 2.0 * h->D * h->ns.C + dac_ns_flops(&h->ns, 1, n);
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
			reals = (double) B * h->flow.C + rows;
			allocs = 2;
			return reals * sizeof(dac_real) + allocs * 64 + dac_flow_infer_bytes(&h->flow, B, n, scratch);
		case DAC_DENSITY_NS:
			reals = (double) B * h->ns.C + rows;
			allocs = 2;
			return reals * sizeof(dac_real) + allocs * 64 + dac_ns_infer_bytes(&h->ns, B, n, scratch);
		default:
			break;
	}
	return reals * sizeof(dac_real) + allocs * 64;
}
