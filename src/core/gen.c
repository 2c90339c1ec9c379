/*
 * gen.c
 *	  Synthetic clustering data, following the authors' sample_mog and
 *	  sample_warped_mog.
 */
#include "gen.h"

#include <math.h>
#include <string.h>

int
dac_sample_n(dac_rng *r, int n_max)
{
	int			lo = (int) (0.3 * n_max);

	if (n_max - lo <= 0)
		return n_max;
	return lo + dac_rng_int(r, n_max - lo);
}

/* Mixture weights: Dirichlet(alpha), components after the first kept with p = ½. */
static void
sample_weights(dac_rng *r, int K, double alpha, double *pi)
{
	double		s = 0;
	int			j;

	for (j = 0; j < K; j++)
	{
		pi[j] = dac_rng_gamma(r, alpha);
		if (j > 0 && dac_rng_uniform(r) >= 0.5)
			pi[j] = 0;
		s += pi[j];
	}
	if (s <= 0)
	{
		/* all gamma draws underflowed: keep the first component alone */
		pi[0] = 1;
		s = 1;
	}
	for (j = 0; j < K; j++)
		pi[j] /= s;
}

static int
sample_categorical(dac_rng *r, const double *pi, int K)
{
	double		u = dac_rng_uniform(r),
				c = 0;
	int			j,
				last = 0;

	for (j = 0; j < K; j++)
	{
		if (pi[j] <= 0)
			continue;
		last = j;
		c += pi[j];
		if (u < c)
			return j;
	}
	return last;
}

dac_status
dac_generate(dac_gen_kind kind, dac_rng *r, int B, int n, int k_max, int dim,
			 dac_real *X, int *labels, int *k_true, dac_error *err)
{
	return dac_generate_oracle(kind, r, B, n, k_max, dim, X, labels, k_true, NULL, err);
}

/*
 * Mean log density of the set's points under the mixture that drew them.
 * lc [K] is scratch for each component's constant log π − Σ log σ − d/2·log 2π.
 */
static double
true_mixture_ll(const dac_real *X, int n, int dim, int K, const double *pi, const double *mu,
				const double *sg, double *lc)
{
	double		tot = 0;
	int			i,
				j,
				k;

	for (j = 0; j < K; j++)
	{
		lc[j] = pi[j] > 0 ? log(pi[j]) - 0.5 * dim * log(2 * M_PI) : -INFINITY;
		for (k = 0; k < dim; k++)
			lc[j] -= log(sg[j * dim + k]);
	}
	for (i = 0; i < n; i++)
	{
		double		mx = -INFINITY,
					acc = 0;

		/* logsumexp over components in one sweep, rescaling at a new maximum */
		for (j = 0; j < K; j++)
		{
			double		one = lc[j];

			if (pi[j] <= 0)
				continue;
			for (k = 0; k < dim; k++)
			{
				double		z = (X[(size_t) i * dim + k] - mu[j * dim + k]) / sg[j * dim + k];

				one -= 0.5 * z * z;
			}
			if (one > mx)
			{
				acc = acc * exp(mx - one) + 1;
				mx = one;
			}
			else
				acc += exp(one - mx);
		}
		tot += mx + log(acc);
	}
	return tot / n;
}

dac_status
dac_generate_oracle(dac_gen_kind kind, dac_rng *r, int B, int n, int k_max, int dim,
					dac_real *X, int *labels, int *k_true, double *ll_true, dac_error *err)
{
	double	   *pi,
			   *mu,
			   *sg,
			   *extra,
			   *lconst;
	int		   *remap;
	int			b,
				i,
				j,
				k;

	if (B < 1 || n < 1 || k_max < 1 || dim < 1)
		return dac_fail(err, DAC_ERR_INVALID, "generator sizes must be positive");
	if (kind == DAC_GEN_WARPED && dim != 2)
		return dac_fail(err, DAC_ERR_INVALID, "the warped generator makes 2-D points");
	/* per component: π, μ [dim], σ [dim], warped extras [5], oracle constant */
	pi = dac_alloc(sizeof(double) * (size_t) k_max * (7 + 2 * (size_t) dim));
	remap = dac_alloc(sizeof(int) * (size_t) k_max);
	if (pi == NULL || remap == NULL)
	{
		dac_free(pi);
		dac_free(remap);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory generating data");
	}
	mu = pi + k_max;
	sg = mu + (size_t) k_max * dim;
	extra = sg + (size_t) k_max * dim;	/* warped: a, b, ρ, shift (2) */
	lconst = extra + (size_t) k_max * 5;

	for (b = 0; b < B; b++)
	{
		dac_real   *Xb = X + (size_t) b * n * dim;
		int		   *yb = labels + (size_t) b * n;
		int			pd = kind == DAC_GEN_WARPED ? 1 : dim;	/* dimension of the base MoG */

		sample_weights(r, k_max, kind == DAC_GEN_WARPED ? 5.0 : 1.0, pi);
		for (j = 0; j < k_max; j++)
			for (k = 0; k < pd; k++)
			{
				mu[j * pd + k] = 3.0 * dac_rng_normal(r);
				sg[j * pd + k] = exp(log(0.25) + 0.1 * dac_rng_normal(r));
			}
		if (kind == DAC_GEN_WARPED)
		{
			double		spread = k_max < 4 ? k_max : 4;

			for (j = 0; j < k_max; j++)
			{
				extra[j * 5 + 0] = 2.0 * dac_rng_normal(r);
				extra[j * 5 + 1] = 2.0 * dac_rng_normal(r);
				extra[j * 5 + 2] = 2.0 * M_PI * dac_rng_uniform(r);
				extra[j * 5 + 3] = spread * dac_rng_normal(r);
				extra[j * 5 + 4] = spread * dac_rng_normal(r);
			}
		}
		for (i = 0; i < n; i++)
		{
			int			y = sample_categorical(r, pi, k_max);

			yb[i] = y;
			if (kind == DAC_GEN_MOG)
			{
				for (k = 0; k < dim; k++)
					Xb[(size_t) i * dim + k] =
						(dac_real) (mu[y * dim + k] + sg[y * dim + k] * dac_rng_normal(r));
			}
			else
			{
				const double *e = extra + y * 5;
				double		t = 2.0 * M_PI * 0.4 * (mu[y] + sg[y] * dac_rng_normal(r));
				double		ca = cos(t),
							sa = sin(t);
				double		x = e[0] * ca,
							z = e[1] * sa;
				double		dx = e[1] * ca,
							dz = e[0] * sa;
				double		norm = sqrt(dx * dx + dz * dz);
				double		off = 0.1 * dac_rng_normal(r);
				double		cr = cos(e[2]),
							sr = sin(e[2]);

				if (norm > 0)
				{
					x += off * dx / norm;
					z += off * dz / norm;
				}
				Xb[(size_t) i * 2 + 0] = (dac_real) (x * cr + z * sr + e[3]);
				Xb[(size_t) i * 2 + 1] = (dac_real) (-x * sr + z * cr + e[4]);
			}
		}
		if (ll_true)
			ll_true[b] = kind == DAC_GEN_MOG ? true_mixture_ll(Xb, n, dim, k_max, pi, mu, sg, lconst) : NAN;
		/* renumber the components that got points: 0 .. k-1 in index order */
		for (j = 0; j < k_max; j++)
			remap[j] = -1;
		for (i = 0; i < n; i++)
			remap[yb[i]] = 0;
		k = 0;
		for (j = 0; j < k_max; j++)
			if (remap[j] == 0)
				remap[j] = k++;
		for (i = 0; i < n; i++)
			yb[i] = remap[yb[i]];
		if (k_true)
			k_true[b] = k;
	}
	dac_free(pi);
	dac_free(remap);
	return DAC_OK;
}
