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

/* Renumber the components that got points 0 .. k-1 in index order; returns k. */
static int
renumber_components(int *y, int n, int k_max, int *remap)
{
	int			i,
				j,
				k = 0;

	for (j = 0; j < k_max; j++)
		remap[j] = -1;
	for (i = 0; i < n; i++)
		remap[y[i]] = 0;
	for (j = 0; j < k_max; j++)
		if (remap[j] == 0)
			remap[j] = k++;
	for (i = 0; i < n; i++)
		y[i] = remap[y[i]];
	return k;
}

/* Leading directions an embed cluster spreads along (the rest: a floor). */
#define EMBED_RANK 24
/* Most lumps (sub-clusters) of one embed cluster; the share of clusters
 * that have one; how far lumps lie apart (in cluster radii). */
#define EMBED_SUBS 3
#ifndef EMBED_SOLID
#define EMBED_SOLID 0.5
#endif
#ifndef EMBED_LUMP_LO
#define EMBED_LUMP_LO 0.5
#endif
#ifndef EMBED_LUMP_HI
#define EMBED_LUMP_HI 1.2
#endif

/*
 * One embed set of n points of dimension dim, from the k_max weights pi.
 * Per set: the spread of the means, sep ~ exp U(log 0.4, log 2.5) (a
 * cluster's own RMS radius is about 1), so neighbours overlap in some sets
 * and stand apart in others; a share a ~ U(0, 0.9) of every cluster's
 * directions drawn from one basis of the set's (clusters of real
 * embeddings share much of their shape, and must be told apart by where
 * they sit more than by how they are oriented); Student-t tails (ν in 3..8) in a third of the
 * sets; on the unit sphere in half of them (the offset to the sphere's
 * centre 1.5 to 4 times the set's spread).  Per cluster: variance along
 * EMBED_RANK random directions decaying as ρ^m, ρ ~ U(0.35, 0.85), plus a
 * 2% floor in every direction, scaled by exp(0.25 ε); a third bent along a
 * random direction by β(z₀² − 1).  ws: scratch of embed_scratch doubles.
 * Each cluster's directions are √a·S + √(1−a)·G, S the set's, G its own.
 * Half the clusters are lumpy (classes of real embeddings have sub-modes):
 * 2 or 3 lumps, offset along the cluster's own directions by s·A·g, s ~
 * U(0.5, 1.2), g standard normal; a point picks a lump at random.
 */
static size_t
embed_scratch(int k_max, int dim)
{
	int			r = dim < EMBED_RANK ? dim : EMBED_RANK;

	/* per cluster: μ, A, u, lumps [dim each, A dim·r], β, floor σ, lump count; per set: offset, z, S */
	return (size_t) k_max * ((size_t) dim * (r + 2 + EMBED_SUBS) + 3) + (size_t) dim * (r + 1) + r;
}

static int
embed_set(dac_rng *r, int n, int k_max, int dim, const double *pi, dac_real *X, int *y, double *ws)
{
	int			rank = dim < EMBED_RANK ? dim : EMBED_RANK;
	double	   *mu = ws,
			   *A = mu + (size_t) k_max * dim,
			   *u = A + (size_t) k_max * dim * rank,
			   *beta = u + (size_t) k_max * dim,
			   *floor_sd = beta + k_max,
			   *off = floor_sd + k_max,
			   *z = off + dim,
			   *S = z + rank,
			   *sub = S + (size_t) dim * rank,	/* [k_max, EMBED_SUBS, dim] lump offsets */
			   *nsub = sub + (size_t) k_max * EMBED_SUBS * dim;
	double		sep = exp(log(0.4) + (log(2.5) - log(0.4)) * dac_rng_uniform(r));
	double		shared = 0.9 * dac_rng_uniform(r);
	int			tails = dac_rng_uniform(r) < 1.0 / 3;
	double		nu = 3 + dac_rng_int(r, 6);
	int			sphere = dac_rng_uniform(r) < 0.5;
	double		radius = (1.5 + 2.5 * dac_rng_uniform(r)) * sqrt(1 + sep * sep);
	int			i,
				j,
				k,
				m;

	for (k = 0; k < dim; k++)
		off[k] = dac_rng_normal(r);
	for (k = 0; k < dim * rank; k++)
		S[k] = dac_rng_normal(r);
	{
		double		nrm = 0;

		for (k = 0; k < dim; k++)
			nrm += off[k] * off[k];
		nrm = sqrt(nrm) > 0 ? sqrt(nrm) : 1;
		for (k = 0; k < dim; k++)
			off[k] *= radius / nrm;
	}
	for (j = 0; j < k_max; j++)
	{
		double		rho,
					scale,
					tot = 0,
					lam = 1,
					nrm = 0;

		/* a cluster costs O(dim · rank): the host may stop us between them */
		if (dac_interrupted())
			return 1;
		rho = 0.35 + 0.5 * dac_rng_uniform(r);
		scale = exp(0.25 * dac_rng_normal(r));
		for (m = 0; m < rank; m++, lam *= rho)
			tot += lam;
		lam = 1;
		for (m = 0; m < rank; m++, lam *= rho)
		{
			/* a random direction of variance 0.98·λ_m/Σλ·scale² (columns nearly orthogonal) */
			double		sd = scale * sqrt(0.98 * lam / tot / dim);

			for (k = 0; k < dim; k++)
				A[((size_t) j * dim + k) * rank + m] =
					sd * (sqrt(shared) * S[(size_t) k * rank + m] + sqrt(1 - shared) * dac_rng_normal(r));
		}
		floor_sd[j] = scale * sqrt(0.02 / dim);
		for (k = 0; k < dim; k++)
		{
			mu[(size_t) j * dim + k] = sep * dac_rng_normal(r) / sqrt(dim);
			u[(size_t) j * dim + k] = dac_rng_normal(r);
			nrm += u[(size_t) j * dim + k] * u[(size_t) j * dim + k];
		}
		nrm = sqrt(nrm) > 0 ? sqrt(nrm) : 1;
		beta[j] = dac_rng_uniform(r) < 1.0 / 3 ? 0.5 * scale * dac_rng_normal(r) / nrm : 0;
		for (k = 0; k < dim; k++)
			u[(size_t) j * dim + k] *= beta[j];
		/* half the clusters are lumpy: 2 or 3 lumps along their own directions */
		nsub[j] = dac_rng_uniform(r) < EMBED_SOLID ? 1 : 2 + dac_rng_int(r, EMBED_SUBS - 1);
		{
			double		spread = EMBED_LUMP_LO + (EMBED_LUMP_HI - EMBED_LUMP_LO) * dac_rng_uniform(r);
			int			q;

			for (q = 0; q < EMBED_SUBS; q++)
			{
				double	   *o = sub + ((size_t) j * EMBED_SUBS + q) * dim;

				for (m = 0; m < rank; m++)
					z[m] = q < nsub[j] ? spread * dac_rng_normal(r) : 0;
				for (k = 0; k < dim; k++)
				{
					double		v = 0;

					for (m = 0; m < rank; m++)
						v += A[((size_t) j * dim + k) * rank + m] * z[m];
					o[k] = v;
				}
			}
		}
	}
	for (i = 0; i < n; i++)
	{
		int			c;
		double		t,
					sq = 0;
		dac_real   *x = X + (size_t) i * dim;
		const double *lump;

		if ((i & 255) == 0 && dac_interrupted())
			return 1;
		c = sample_categorical(r, pi, k_max);
		t = tails ? sqrt(nu / (2 * dac_rng_gamma(r, nu / 2))) : 1;
		lump = sub + ((size_t) c * EMBED_SUBS + dac_rng_int(r, (int) nsub[c])) * dim;
		y[i] = c;
		for (m = 0; m < rank; m++)
			z[m] = t * dac_rng_normal(r);
		for (k = 0; k < dim; k++)
		{
			const double *a = A + ((size_t) c * dim + k) * rank;
			double		v = mu[(size_t) c * dim + k] + lump[k] + floor_sd[c] * t * dac_rng_normal(r) +
				u[(size_t) c * dim + k] * (z[0] * z[0] - 1);

			for (m = 0; m < rank; m++)
				v += a[m] * z[m];
			if (sphere)
				v += off[k];
			x[k] = (dac_real) v;
			sq += v * v;
		}
		if (sphere && sq > 0)
			for (k = 0; k < dim; k++)
				x[k] = (dac_real) (x[k] / sqrt(sq));
	}
	return 0;
}

dac_status
dac_generate(dac_gen_kind kind, dac_rng *r, int B, int n, int k_max, int dim,
			 dac_real *X, int *labels, int *k_true, dac_error *err)
{
	return dac_generate_oracle(kind, r, B, n, k_max, dim, X, labels, k_true, NULL, err);
}

double
dac_generate_bytes(dac_gen_kind kind, int k_max, int dim)
{
	if (kind == DAC_GEN_EMBED)
		return sizeof(double) * ((double) embed_scratch(k_max, dim) + k_max) + sizeof(int) * (double) k_max + 64;
	return sizeof(double) * (double) k_max * (7 + 2.0 * dim) + sizeof(int) * (double) k_max + 64;
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
		dac_lse		s = {0, 0};

		/* O(K · dim) a point: the host may stop us (NaN then) */
		if ((i & 255) == 0 && dac_interrupted())
			return NAN;
		/* log Σ_j π_j N(x; μ_j, σ_j), the components one at a time */
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
			dac_lse_add(&s, one);
		}
		tot += dac_lse_value(&s);
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
	if (kind == DAC_GEN_EMBED)
	{
		double	   *ws = dac_alloc(sizeof(double) * embed_scratch(k_max, dim));

		pi = dac_alloc(sizeof(double) * (size_t) k_max);
		remap = dac_alloc(sizeof(int) * (size_t) k_max);
		if (ws == NULL || pi == NULL || remap == NULL)
		{
			dac_free(ws);
			dac_free(pi);
			dac_free(remap);
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory generating data");
		}
		for (b = 0; b < B; b++)
		{
			sample_weights(r, k_max, 1.0, pi);
			if (embed_set(r, n, k_max, dim, pi, X + (size_t) b * n * dim, labels + (size_t) b * n, ws))
			{
				dac_free(ws);
				dac_free(pi);
				dac_free(remap);
				return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			}
			if (ll_true)
				ll_true[b] = NAN;
			k = renumber_components(labels + (size_t) b * n, n, k_max, remap);
			if (k_true)
				k_true[b] = k;
		}
		dac_free(ws);
		dac_free(pi);
		dac_free(remap);
		return DAC_OK;
	}
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
			int			y;

			if ((i & 1023) == 0 && dac_interrupted())
			{
				dac_free(pi);
				dac_free(remap);
				return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			}
			y = sample_categorical(r, pi, k_max);
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
		k = renumber_components(yb, n, k_max, remap);
		if (k_true)
			k_true[b] = k;
	}
	dac_free(pi);
	dac_free(remap);
	return DAC_OK;
}
