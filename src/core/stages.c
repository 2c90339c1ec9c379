/*
 * stages.c
 *	  The clustering's stages after the network's passes (stages.h): each a
 *	  function that changes the clustering in place, called in order by the
 *	  pass loop (cluster.c).
 */
#include "stages.h"

#include "linalg.h"
#include "rng.h"
#include "graph.h"
#include "labels.h"
#include "frame.h"
#include "setnorm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * θ of a diagonal Gaussian fitted to rows idx[0..m) of X: mean and standard
 * deviation per coordinate.  Each σ is at least the smallest σ among the
 * nfound θ given (found clusters), and at least 1e-6.
 */
void
dac_fit_theta(const dac_real *X, const int *idx, int m, int d, const dac_real *found, int nfound,
		  dac_real *th)
{
	int			i,
				j,
				k;

	for (k = 0; k < d; k++)
	{
		double		s = 0,
					ss = 0,
					mu,
					floor_sd = 1e-6;

		for (i = 0; i < m; i++)
			s += X[(size_t) idx[i] * d + k];
		mu = s / m;
		for (i = 0; i < m; i++)
			ss += (X[(size_t) idx[i] * d + k] - mu) * (X[(size_t) idx[i] * d + k] - mu);
		for (j = 0; j < nfound; j++)
			floor_sd = j == 0 ? found[d + k] : fmin(floor_sd, found[(size_t) j * 2 * d + d + k]);
		floor_sd = fmax(floor_sd, 1e-6);
		th[k] = (dac_real) mu;
		th[d + k] = (dac_real) fmax(sqrt(ss / m), floor_sd);
	}
}

/*
 * The rows of labels lab [n] grouped by cluster in one pass (a counting
 * sort, in row order within a cluster): cluster k's (1 .. K) are idx
 * [at [k] .. at [k + 1]); rows of other labels (0: none) are left out.
 * idx [n], at [K + 2].
 */
static void
group_members(const int *lab, int n, int K, int *idx, int *at)
{
	int			i,
				k;

	memset(at, 0, sizeof(int) * ((size_t) K + 2));
	for (i = 0; i < n; i++)
		if (lab[i] >= 1 && lab[i] <= K)
			at[lab[i] + 1]++;
	for (k = 1; k <= K; k++)
		at[k + 1] += at[k];
	for (i = 0; i < n; i++)
		if (lab[i] >= 1 && lab[i] <= K)
			idx[at[lab[i]]++] = i;
	for (k = K; k >= 1; k--)
		at[k] = at[k - 1];
	at[0] = 0;
}

/*
 * θ [K, 2d] of every cluster of labels lab [n] (1 .. K; 0: none), each a
 * diagonal Gaussian of its members (dac_fit_theta, σ floored by the nfound θ
 * of found).  Members grouped by cluster in one pass: idx [n] and at [K + 2]
 * scratch.  DAC_ERR_INTERRUPTED.
 */
static dac_status
fit_thetas(const dac_real *X, int n, int d, const int *lab, int K, const dac_real *found, int nfound,
		   dac_real *theta, int *idx, int *at)
{
	int			k;

	group_members(lab, n, K, idx, at);
	for (k = 1; k <= K; k++)
	{
		if (dac_interrupted())
			return DAC_ERR_INTERRUPTED;
		dac_fit_theta(X, idx + at[k], at[k + 1] - at[k], d, found, nfound, theta + (size_t) (k - 1) * 2 * d);
	}
	return DAC_OK;
}

dac_status
dac_clustering_fit_theta(const dac_real *X, int d, dac_clustering *c)
{
	int		   *idx = dac_alloc(sizeof(int) * ((size_t) c->n + (size_t) c->num_clusters + 2));
	dac_status	st;

	if (idx == NULL)
		return DAC_ERR_NOMEM;
	st = c->theta_dim == 2 * d ? fit_thetas(X, c->n, d, c->labels, c->num_clusters, NULL, 0, c->theta, idx,
											idx + c->n) : DAC_OK;
	dac_free(idx);
	return st;
}


/*
 * Put points idx[0..m) (idx NULL: points 0..m) each into the cluster that
 * fits it best among those with allowed[k] (NULL: all): under whose θ it is
 * most likely (the head's density, one cluster at a time over all the
 * points), plus logw[k] when given (log mixture weights), or without a
 * density head the nearest centroid of the allowed clusters' current members
 * (the points being placed excluded).  DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED.
 */
dac_status
dac_place_points(const dac_density_ref *dr, const dac_real *X, int d, dac_clustering *out,
			 const int *idx, int m, const char *allowed, const double *logw)
{
	int			K = out->num_clusters,
				i,
				j,
				k;
	double	   *cen = NULL,
			   *cnt = NULL,
			   *score = NULL;
	char	   *moving = NULL;
	int		   *best = NULL;
	dac_real   *rows = NULL,
			   *ll = NULL;
	dac_status	st = DAC_OK;

	if (dr->h != NULL)
	{
		/* the points' rows, then each cluster's density over all of them */
		score = dac_alloc(sizeof(double) * (size_t) (m ? m : 1));
		best = dac_alloc(sizeof(int) * (size_t) (m ? m : 1));
		ll = dac_alloc(sizeof(dac_real) * (size_t) (m ? m : 1));
		rows = idx ? dac_alloc(sizeof(dac_real) * (size_t) (m ? m : 1) * d) : NULL;
		if (!score || !best || !ll || (idx && !rows))
		{
			st = DAC_ERR_NOMEM;
			goto done;
		}
		for (i = 0; i < m; i++)
		{
			best[i] = -1;
			score[i] = -INFINITY;
			if (idx)
				memcpy(rows + (size_t) i * d, X + (size_t) idx[i] * d, sizeof(dac_real) * d);
		}
		for (k = 0; k < K; k++)
		{
			if (allowed && !allowed[k])
				continue;
			st = dac_head_ll(dr->h, dr->P, out->theta + (size_t) k * out->theta_dim,
							 idx ? rows : X, m, ll, NULL);
			if (st != DAC_OK)
				goto done;
			for (i = 0; i < m; i++)
			{
				double		v = (double) ll[i] + (logw ? logw[k] : 0);

				if (best[i] < 0 || v > score[i])
				{
					score[i] = v;
					best[i] = k;
				}
			}
		}
		for (i = 0; i < m; i++)
			if (best[i] >= 0)
				out->labels[idx ? idx[i] : i] = best[i] + 1;
		goto done;
	}

	cen = dac_alloc_zero(sizeof(double) * ((size_t) K * d + K));
	moving = dac_alloc_zero((size_t) out->n);
	if (cen == NULL || moving == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	cnt = cen + (size_t) K * d;
	for (i = 0; i < m; i++)
		moving[idx ? idx[i] : i] = 1;
	for (i = 0; i < out->n; i++)
		if (out->labels[i] > 0 && !moving[i])
		{
			k = out->labels[i] - 1;
			cnt[k] += 1;
			for (j = 0; j < d; j++)
				cen[(size_t) k * d + j] += X[(size_t) i * d + j];
		}
	for (i = 0; i < m; i++)
	{
		int			p = idx ? idx[i] : i;
		const dac_real *x = X + (size_t) p * d;
		int			bk = -1;
		double		sc = -INFINITY;

		if (i % 8192 == 8191 && dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		for (k = 0; k < K; k++)
		{
			double		v = 0;

			if ((allowed && !allowed[k]) || cnt[k] == 0)
				continue;
			for (j = 0; j < d; j++)
			{
				double		diff = x[j] - cen[(size_t) k * d + j] / cnt[k];

				v -= diff * diff;
			}
			if (bk < 0 || v > sc)
			{
				sc = v;
				bk = k;
			}
		}
		if (bk >= 0)
			out->labels[p] = bk + 1;
	}
done:
	dac_free(cen);
	dac_free(moving);
	dac_free(score);
	dac_free(best);
	dac_free(rows);
	dac_free(ll);
	return st;
}

/*
 * Keep the clusters with keep[k] (every point's cluster among them),
 * renumbered 1, 2, ... in their order, with their θ; newid [num_clusters] is
 * scratch.
 */
static void
renumber_kept(dac_clustering *out, const char *keep, int *newid)
{
	int			next = 0,
				i,
				k;

	for (k = 0; k < out->num_clusters; k++)
		if (keep[k])
		{
			if (next != k)
				memmove(out->theta + (size_t) next * out->theta_dim,
						out->theta + (size_t) k * out->theta_dim, sizeof(dac_real) * out->theta_dim);
			newid[k] = ++next;
		}
	for (i = 0; i < out->n; i++)
		out->labels[i] = newid[out->labels[i] - 1];
	out->num_clusters = next;
}

/*
 * For the points idx[0..m), each now in some cluster: log of the χ²_d tail
 * beyond its squared distance z² in that cluster's normal coordinates, plus
 * the log of that cluster's size (how many of the cluster's own points would
 * be expected that far out).
 */
static dac_status
fringe_scores(const dac_density_ref *dr, const dac_real *X, int d, const dac_clustering *out,
			  const int *idx, int m, double *score)
{
	int		   *size = dac_alloc_zero(sizeof(int) * (size_t) out->num_clusters);
	int			i;
	dac_status	st;

	if (size == NULL)
		return DAC_ERR_NOMEM;
	for (i = 0; i < out->n; i++)
		size[out->labels[i] - 1]++;
	st = dac_own_sqdist(dr, X, d, out, idx, m, score);
	for (i = 0; i < m && st == DAC_OK; i++)
		score[i] = dac_chi2_log_sf(score[i], d) + log((double) size[out->labels[idx[i]] - 1]);
	dac_free(size);
	return st;
}

/*
 * Clusters of fewer than min_size points give their points to the remaining
 * clusters (dac_place_points), which are renumbered 1, 2, ... in discovery order
 * with their θ.  Nothing changes when no cluster is that large.
 *
 * With tail > 0 (absorb_size; a density whose θ gives each point its squared
 * distance z² in normal coordinates: the Gaussian, the flow), a small cluster
 * joins the others only when none of its points is an outlier of the cluster
 * it would join: the χ²_d tail beyond the point's z² there, times that
 * cluster's size, is at least tail.  A point a pass missed in a cluster's
 * fringe, left a cluster of its own, is absorbed; a small cluster far from
 * the rest keeps its points.  *moved counts the points that changed cluster.
 */
dac_status
dac_dissolve_small(const dac_density_ref *dr, const dac_real *X, int n, int d, dac_clustering *out,
				   int min_size, double tail, int *moved)
{
	int			K = out->num_clusters,
				i,
				k,
				m = 0,
				kept = 0;
	int		   *size = dac_alloc_zero(sizeof(int) * (size_t) K * 2),
			   *idx = dac_alloc(sizeof(int) * (size_t) n * 2);
	char	   *keep = dac_alloc_zero((size_t) K);
	double	   *score = NULL,
			   *worst = NULL;
	int		   *newid,
			   *home;
	dac_status	st = DAC_OK;

	*moved = 0;
	if (tail > 0 && dr->h == NULL)
		goto done;				/* no density to test the points under: nothing moves */
	if (size == NULL || idx == NULL || keep == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	newid = size + K;
	home = idx + n;
	for (i = 0; i < n; i++)
		size[out->labels[i] - 1]++;
	for (k = 0; k < K; k++)
		if ((keep[k] = size[k] >= min_size))
			kept++;
	if (kept == 0 || kept == K)
		goto done;
	for (i = 0; i < n; i++)
		if (!keep[out->labels[i] - 1])
		{
			home[m] = out->labels[i];
			idx[m++] = i;
		}
	if ((st = dac_place_points(dr, X, d, out, idx, m, keep, NULL)) != DAC_OK)
		goto done;
	if (tail > 0)
	{
		int			back = 0;
		double		lim = log(tail);

		if ((score = dac_alloc(sizeof(double) * ((size_t) m + K))) == NULL)
		{
			st = DAC_ERR_NOMEM;
			goto done;
		}
		worst = score + m;
		if ((st = fringe_scores(dr, X, d, out, idx, m, score)) != DAC_OK)
			goto done;
		for (k = 0; k < K; k++)
			worst[k] = INFINITY;
		for (i = 0; i < m; i++)
			if (score[i] < worst[home[i] - 1])
				worst[home[i] - 1] = score[i];
		/* a small cluster with an outlier keeps its points where they were */
		for (k = 0; k < K; k++)
			if (!keep[k] && worst[k] < lim)
				keep[k] = 1;
		for (i = 0; i < m; i++)
		{
			if (keep[home[i] - 1])
				out->labels[idx[i]] = home[i];
			else
				back++;
		}
		m = back;
	}
	renumber_kept(out, keep, newid);
	*moved = m;
done:
	dac_free(size);
	dac_free(idx);
	dac_free(keep);
	dac_free(score);
	return st;
}

/*
 * Up to max_steps EM steps on the found mixture, from θ_k and π_k = the
 * share of cluster k; then each point to the component under which it is
 * likeliest (dac_place_points), clusters left empty dropped and the rest
 * renumbered in order, θ with them.
 *
 * A step takes every point's responsibilities r_ik ∝ π_k N(x_i; μ_k, σ_k)
 * and sets N_k = Σ_i r_ik, π_k = N_k / n, μ_k and σ_k² to the r-weighted
 * mean and variance (sums taken about the old μ_k, in double).  Each σ stays
 * at least the smallest the network gave any cluster in that dimension (and
 * above 0, the starting σ too), so a component cannot shrink onto one point
 * (the likelihood has no maximum there).  A component whose N_k falls to
 * 1e-9 is dropped from the mixture.  The steps stop early once the mean
 * log-likelihood per point, which EM never lowers (the floor included),
 * rises by less than 1e-7.  With no step θ is kept, but for a σ under
 * 1e-30 (underflow), which is raised to it.
 */
dac_status
dac_clustering_em(const dac_real *X, int d, dac_clustering *out, int max_steps)
{
	int			K = out->num_clusters,
				n = out->n,
				tdim = out->theta_dim,
				i,
				j,
				k,
				t;
	size_t		kd = (size_t) K * d;
	double	   *buf = dac_alloc_zero(sizeof(double) * (5 * (size_t) K + 4 * kd + d));
	int		   *was = dac_alloc(sizeof(int) * (size_t) n),
			   *newid = dac_alloc(sizeof(int) * (size_t) K);
	char	   *keep = dac_alloc_zero((size_t) K);
	double	   *logpi,
			   *nk,
			   *lp,
			   *r,
			   *c0,
			   *mu,
			   *sd,
			   *s1,
			   *s2,
			   *floor_sd,
			   prev = -INFINITY;
	dac_status	st = DAC_OK;

	if (buf == NULL || was == NULL || newid == NULL || keep == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	logpi = buf;
	nk = logpi + K;
	lp = nk + K;
	r = lp + K;
	c0 = r + K;
	mu = c0 + K;
	sd = mu + kd;
	s1 = sd + kd;
	s2 = s1 + kd;
	floor_sd = s2 + kd;
	for (i = 0; i < n; i++)
		logpi[out->labels[i] - 1] += 1;
	for (k = 0; k < K; k++)
		logpi[k] = log(logpi[k] / n);
	for (k = 0; k < K; k++)
		for (j = 0; j < d; j++)
		{
			mu[(size_t) k * d + j] = out->theta[(size_t) k * tdim + j];
			sd[(size_t) k * d + j] = out->theta[(size_t) k * tdim + d + j];
			floor_sd[j] = k == 0 ? sd[j] : fmin(floor_sd[j], sd[(size_t) k * d + j]);
		}
	/* a σ that underflowed to 0 would make 0/0 of its own points */
	for (j = 0; j < d; j++)
		floor_sd[j] = fmax(floor_sd[j], 1e-30);
	for (k = 0; k < K; k++)
		for (j = 0; j < d; j++)
			sd[(size_t) k * d + j] = fmax(sd[(size_t) k * d + j], floor_sd[j]);
	out->em_steps = 0;
	for (t = 0; t < max_steps; t++)
	{
		double		ll = 0;

		memset(nk, 0, sizeof(double) * K);
		memset(s1, 0, sizeof(double) * 2 * kd);
		/* log π_k N(x; μ_k, σ_k) = c0_k - Σ_j ((x_j - μ_kj) / σ_kj)² / 2 */
		for (k = 0; k < K; k++)
			c0[k] = logpi[k] + dac_gauss_lognorm(sd + (size_t) k * d, d);
		for (i = 0; i < n; i++)
		{
			const dac_real *x = X + (size_t) i * d;

			/* a step over many points of many dimensions takes a while */
			if (i % 8192 == 0 && dac_interrupted())
			{
				st = DAC_ERR_INTERRUPTED;
				goto done;
			}
			for (k = 0; k < K; k++)
				lp[k] = c0[k] - 0.5 * dac_gauss_sqdist(x, mu + (size_t) k * d, sd + (size_t) k * d, d);
			/* the responsibilities r; below e^-40 of the likeliest one is taken as 0 */
			ll += dac_logsumexp(lp, K, -40, r);
			for (k = 0; k < K; k++)
			{
				double		w = r[k];

				if (w == 0)
					continue;
				nk[k] += w;
				for (j = 0; j < d; j++)
				{
					double		dx = x[j] - mu[(size_t) k * d + j];

					s1[(size_t) k * d + j] += w * dx;
					s2[(size_t) k * d + j] += w * dx * dx;
				}
			}
		}
		for (k = 0; k < K; k++)
		{
			if (nk[k] <= 1e-9)
			{
				logpi[k] = -INFINITY;
				continue;
			}
			logpi[k] = log(nk[k] / n);
			for (j = 0; j < d; j++)
			{
				size_t		q = (size_t) k * d + j;
				double		m1 = s1[q] / nk[k];

				mu[q] += m1;
				sd[q] = fmax(sqrt(fmax(s2[q] / nk[k] - m1 * m1, 0)), floor_sd[j]);
			}
		}
		out->em_steps++;
		ll /= n;
		if (ll - prev < 1e-7)
			break;
		prev = ll;
	}
	for (k = 0; k < K; k++)
		for (j = 0; j < d; j++)
		{
			out->theta[(size_t) k * tdim + j] = (dac_real) mu[(size_t) k * d + j];
			out->theta[(size_t) k * tdim + d + j] = (dac_real) sd[(size_t) k * d + j];
		}
	memcpy(was, out->labels, sizeof(int) * (size_t) n);
	{
		dac_head	gh;
		dac_density_ref dr;

		memset(&gh, 0, sizeof(gh));
		gh.kind = DAC_DENSITY_GAUSSIAN;
		gh.d = d;
		dr.h = &gh;
		dr.P = NULL;
		if ((st = dac_place_points(&dr, X, d, out, NULL, n, NULL, logpi)) != DAC_OK)
			goto done;
	}
	out->reassigned = 0;
	for (i = 0; i < n; i++)
	{
		keep[out->labels[i] - 1] = 1;
		out->reassigned += out->labels[i] != was[i];
	}
	renumber_kept(out, keep, newid);
done:
	dac_free(buf);
	dac_free(was);
	dac_free(newid);
	dac_free(keep);
	return st;
}

/* dac_centroids' work, in the widest vector unit (static: a clone's resolver is never exported) */
DAC_VECTOR_CLONES
static void
centroids_of(const dac_real *X, int n, int d, const int *lab, int K, double *cen, int *cnt)
{
	int			i,
				j,
				k;

	memset(cen, 0, sizeof(double) * (size_t) K * d);
	memset(cnt, 0, sizeof(int) * (size_t) K);
	for (i = 0; i < n; i++)
	{
		int			c = lab[i] - 1;

		if (c < 0)
			continue;
		cnt[c]++;
		for (j = 0; j < d; j++)
			cen[(size_t) c * d + j] += X[(size_t) i * d + j];
	}
	for (k = 0; k < K; k++)
		for (j = 0; j < d; j++)
			cen[(size_t) k * d + j] /= cnt[k] > 0 ? cnt[k] : 1;
}

/* dac_centroids [K, d] of the points labelled 1 .. K; cnt [K] */
void
dac_centroids(const dac_real *X, int n, int d, const int *lab, int K, double *cen, int *cnt)
{
	centroids_of(X, n, d, lab, K, cen, cnt);
}

double
dac_centroid_sqdist(const double *cen, int a, int b, int d)
{
	double		t = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		double		u = cen[(size_t) a * d + j] - cen[(size_t) b * d + j];

		t += u * u;
	}
	return t;
}

static double
sqdist_to(const dac_real *x, const double *c, int d)
{
	double		s = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		double		t = x[j] - c[j];

		s += t * t;
	}
	return s;
}

/*
 * 1 + the index of the mean nearest x among the K with members (cnt > 0;
 * every one when cnt is NULL); 0 if none
 */
int
dac_nearest_mean(const dac_real *x, const double *cen, const int *cnt, int K, int d)
{
	int			best = 0,
				k = 0;
	double		bd = INFINITY;

	/*
	 * Four means at a time: four sums, each adding its terms in sqdist_to's
	 * order (the same distances to the bit), that the processor can overlap.
	 */
	for (; k + 4 <= K; k += 4)
	{
		const double *c0 = cen + (size_t) k * d,
				   *c1 = c0 + d,
				   *c2 = c1 + d,
				   *c3 = c2 + d;
		double		s[4] = {0, 0, 0, 0};
		int			j,
					t;

		for (j = 0; j < d; j++)
		{
			double		u0 = x[j] - c0[j],
						u1 = x[j] - c1[j],
						u2 = x[j] - c2[j],
						u3 = x[j] - c3[j];

			s[0] += u0 * u0;
			s[1] += u1 * u1;
			s[2] += u2 * u2;
			s[3] += u3 * u3;
		}
		for (t = 0; t < 4; t++)
			if ((cnt == NULL || cnt[k + t] > 0) && s[t] < bd)
			{
				bd = s[t];
				best = k + t + 1;
			}
	}
	for (; k < K; k++)
	{
		double		dist;

		if (cnt != NULL && cnt[k] == 0)
			continue;
		dist = sqdist_to(x, cen + (size_t) k * d, d);
		if (dist < bd)
		{
			bd = dist;
			best = k + 1;
		}
	}
	return best;
}

/*
 * Eight rows' nearest means at once (DAC_NEAREST_TILE): tile [d, 8] the
 * rows' columns side by side (as doubles), best [8] their answers.  Each
 * row's sum adds its terms in sqdist_to's order, each product rounded
 * before its sum, and the means are compared in order as dac_nearest_mean
 * compares them: its answers to the bit, the eight rows in the lanes of one
 * vector, four means at a time.
 */
typedef double rows8 __attribute__((vector_size(8 * sizeof(double))));
typedef int64_t lanes8 __attribute__((vector_size(8 * sizeof(int64_t))));

static DAC_EXACT_INLINE void
nearest_of_eight_body(const double *tile, int d, const double *cen, const int *cnt, int K, int *best)
{
	rows8		bd = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
	lanes8		at = {0};
	int			k,
				r;

	for (k = 0; k < K; k += 4)
	{
		/* fewer than four means left: the last one stands in for the rest, its sums unread */
		int			nk = K - k < 4 ? K - k : 4,
					j,
					t;
		const double *c0 = cen + (size_t) k * d,
				   *c1 = c0 + (size_t) (nk > 1) * d,
				   *c2 = c0 + (size_t) (nk > 2 ? 2 : nk - 1) * d,
				   *c3 = c0 + (size_t) (nk - 1) * d;
		rows8		s[4],
					s0 = {0},
					s1 = {0},
					s2 = {0},
					s3 = {0};

		for (j = 0; j < d; j++)
		{
			rows8		x,
						u0,
						u1,
						u2,
						u3;

			memcpy(&x, tile + (size_t) j * DAC_NEAREST_TILE, sizeof(x));
			u0 = x - c0[j];
			u1 = x - c1[j];
			u2 = x - c2[j];
			u3 = x - c3[j];
			s0 += u0 * u0;
			s1 += u1 * u1;
			s2 += u2 * u2;
			s3 += u3 * u3;
		}
		s[0] = s0;
		s[1] = s1;
		s[2] = s2;
		s[3] = s3;
		/* in order, a strictly smaller sum replaces the best (a NaN never does) */
		for (t = 0; t < nk; t++)
		{
			lanes8		lt;

			if (cnt != NULL && cnt[k + t] == 0)
				continue;
			lt = s[t] < bd;
			bd = (rows8) (((lanes8) s[t] & lt) | ((lanes8) bd & ~lt));
			at = ((k + t + 1) & lt) | (at & ~lt);
		}
	}
	for (r = 0; r < DAC_NEAREST_TILE; r++)
		best[r] = (int) at[r];
}

/*
 * Eight rows' squared distances to one centre c [d], to out [8]: each
 * sqdist_to's sum to the bit (as nearest_of_eight_body adds them).
 */
static DAC_EXACT_INLINE void
sqdist_of_eight_body(const double *tile, int d, const double *c, double *out)
{
	rows8		s = {0};
	int			j;

	for (j = 0; j < d; j++)
	{
		rows8		x,
					u;

		memcpy(&x, tile + (size_t) j * DAC_NEAREST_TILE, sizeof(x));
		u = x - c[j];
		s += u * u;
	}
	memcpy(out, &s, sizeof(s));
}

#ifdef DAC_EXACT_VARIANTS
DAC_EXACT_AVX512 static void
nearest_of_eight_avx512(const double *tile, int d, const double *cen, const int *cnt, int K, int *best)
{
	nearest_of_eight_body(tile, d, cen, cnt, K, best);
}

DAC_EXACT_AVX2 static void
nearest_of_eight_avx2(const double *tile, int d, const double *cen, const int *cnt, int K, int *best)
{
	nearest_of_eight_body(tile, d, cen, cnt, K, best);
}

DAC_EXACT_AVX512 static void
sqdist_of_eight_avx512(const double *tile, int d, const double *c, double *out)
{
	sqdist_of_eight_body(tile, d, c, out);
}

DAC_EXACT_AVX2 static void
sqdist_of_eight_avx2(const double *tile, int d, const double *c, double *out)
{
	sqdist_of_eight_body(tile, d, c, out);
}
#endif

DAC_EXACT_PLAIN static void
nearest_of_eight_plain(const double *tile, int d, const double *cen, const int *cnt, int K, int *best)
{
	nearest_of_eight_body(tile, d, cen, cnt, K, best);
}

DAC_EXACT_PLAIN static void
sqdist_of_eight_plain(const double *tile, int d, const double *c, double *out)
{
	sqdist_of_eight_body(tile, d, c, out);
}

typedef void (*nearest_of_eight_fn) (const double *tile, int d, const double *cen, const int *cnt, int K, int *best);
typedef void (*sqdist_of_eight_fn) (const double *tile, int d, const double *c, double *out);

/* nearest_of_eight_body and sqdist_of_eight_body on the widest vector unit dac_vector_level allows */
static nearest_of_eight_fn
nearest_of_eight(void)
{
#ifdef DAC_EXACT_VARIANTS
	int			level = dac_vector_level();

	if (level == 2)
		return nearest_of_eight_avx512;
	if (level == 1)
		return nearest_of_eight_avx2;
#endif
	return nearest_of_eight_plain;
}

static sqdist_of_eight_fn
sqdist_of_eight(void)
{
#ifdef DAC_EXACT_VARIANTS
	int			level = dac_vector_level();

	if (level == 2)
		return sqdist_of_eight_avx512;
	if (level == 1)
		return sqdist_of_eight_avx2;
#endif
	return sqdist_of_eight_plain;
}

/* Rows of X [n, d] by eight (n rounded up, the last block's spare rows 0), each block [d, 8]: Xt */
static void
tile_rows(const dac_real *X, int n, int d, double *Xt)
{
	int			i,
				r,
				j;

	for (i = 0; i < n; i += DAC_NEAREST_TILE)
	{
		double	   *t = Xt + (size_t) i * d;

		for (r = 0; r < DAC_NEAREST_TILE; r++)
			for (j = 0; j < d; j++)
				t[(size_t) j * DAC_NEAREST_TILE + r] = i + r < n ? X[(size_t) (i + r) * d + j] : 0;
	}
}

/* The doubles tile_rows fills for n rows of width d */
static size_t
tiled_size(int n, int d)
{
	return ((size_t) n + DAC_NEAREST_TILE - 1) / DAC_NEAREST_TILE * DAC_NEAREST_TILE * (size_t) d;
}

/*
 * dac_nearest_means, each block of eight rows read from Xt (tile_rows'),
 * or, where Xt is NULL, copied there from X through tile [8·d]
 */
static dac_status
assign_nearest(const dac_real *X, const double *Xt, int n, int d, const double *cen, const int *cnt, int K,
			   double *tile, int *lab, int *moved)
{
	nearest_of_eight_fn near8 = nearest_of_eight();
	int			i;

	*moved = 0;
	for (i = 0; i < n; i += DAC_NEAREST_TILE)
	{
		int			rows = n - i < DAC_NEAREST_TILE ? n - i : DAC_NEAREST_TILE,
					best[DAC_NEAREST_TILE],
					r;

		if ((i & 8191) == 0 && dac_interrupted())
			return DAC_ERR_INTERRUPTED;
		if (Xt == NULL)
			tile_rows(X + (size_t) i * d, rows, d, tile);
		near8(Xt != NULL ? Xt + (size_t) i * d : tile, d, cen, cnt, K, best);
		for (r = 0; r < rows; r++)
			if (lab[i + r] > 0 && best[r] > 0 && best[r] != lab[i + r])
			{
				lab[i + r] = best[r];
				++*moved;
			}
	}
	return DAC_OK;
}

dac_status
dac_nearest_means(const dac_real *X, int n, int d, const double *cen, const int *cnt, int K, double *tile,
				  int *lab, int *moved)
{
	return assign_nearest(X, NULL, n, d, cen, cnt, K, tile, lab, moved);
}

/* dac_clustering_kmeans, its rows also as tile_rows' Xt (NULL: copied block by block) */
static dac_status
kmeans_run(const dac_real *X, const double *Xt, int d, dac_clustering *out, int max_steps)
{
	int			K = out->num_clusters,
				n = out->n,
				step,
				i,
				k;
	double	   *cen,
			   *tile;
	int		   *cnt,
			   *newid;
	char	   *keep;
	dac_status	st = DAC_OK;

	if (K < 2 || max_steps < 1)
		return DAC_OK;
	cen = dac_alloc(sizeof(double) * ((size_t) K * d + DAC_NEAREST_TILE * (size_t) d));
	cnt = dac_alloc(sizeof(int) * (size_t) K * 2);
	keep = dac_alloc((size_t) K);
	if (cen == NULL || cnt == NULL || keep == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	tile = cen + (size_t) K * d;
	newid = cnt + K;
	for (step = 0; step < max_steps; step++)
	{
		int			moved;

		dac_centroids(X, n, d, out->labels, K, cen, cnt);
		if ((st = assign_nearest(X, Xt, n, d, cen, cnt, K, tile, out->labels, &moved)) != DAC_OK)
			goto done;
		out->kmeans_steps = step + 1;
		out->reassigned += moved;
		if (moved == 0)
			break;
	}
	/* clusters the steps emptied are dropped, the rest renumbered in order */
	memset(cnt, 0, sizeof(int) * (size_t) K);
	for (i = 0; i < n; i++)
		if (out->labels[i] > 0)
			cnt[out->labels[i] - 1]++;
	for (k = 0; k < K; k++)
		keep[k] = cnt[k] > 0;
	renumber_kept(out, keep, newid);
done:
	dac_free(cen);
	dac_free(cnt);
	dac_free(keep);
	return st;
}

dac_status
dac_clustering_kmeans(const dac_real *X, int d, dac_clustering *out, int max_steps)
{
	return kmeans_run(X, NULL, d, out, max_steps);
}

/* ---------------------------------------------------------------- k search */

/*
 * The labels lab [n] (1 .. K) moved to `target` clusters, deterministically:
 * fewer, by merging the two clusters whose means are closest, one pair at a
 * time; more, by splitting the cluster of the largest squared error: its
 * member farthest from its mean starts a new cluster, and each of its
 * members joins the nearer of the two.  Returns the number of clusters, or
 * −1 when the host's interrupt check (once a merge or split) asked to stop.
 */
static int
move_count(const dac_real *X, int n, int d, int *lab, int K, int target, double *cen, int *cnt)
{
	int			i,
				a,
				b;

	while (K > target && K > 1)
	{
		int			ba = 0,
					bb = 1;
		double		best = INFINITY;

		if (dac_interrupted())
			return -1;
		dac_centroids(X, n, d, lab, K, cen, cnt);
		for (a = 0; a < K; a++)
			for (b = a + 1; b < K; b++)
			{
				double		t = dac_centroid_sqdist(cen, a, b, d);

				if (t < best)
				{
					best = t;
					ba = a;
					bb = b;
				}
			}
		/* bb joins ba; the last cluster takes bb's number */
		for (i = 0; i < n; i++)
		{
			if (lab[i] == bb + 1)
				lab[i] = ba + 1;
			else if (lab[i] == K)
				lab[i] = bb + 1;
		}
		K--;
	}
	while (K < target)
	{
		double	   *sse = cen + (size_t) (K + 1) * d;	/* [K] after the dac_centroids, then a mean */
		int			worst = 0,
					far = -1;
		double		fd = -1;

		if (dac_interrupted())
			return -1;
		dac_centroids(X, n, d, lab, K, cen, cnt);
		memset(sse, 0, sizeof(double) * (size_t) K);
		for (i = 0; i < n; i++)
			if (lab[i] > 0)
				sse[lab[i] - 1] += sqdist_to(X + (size_t) i * d, cen + (size_t) (lab[i] - 1) * d, d);
		for (a = 1; a < K; a++)
			if (sse[a] > sse[worst])
				worst = a;
		for (i = 0; i < n; i++)
			if (lab[i] == worst + 1)
			{
				double		t = sqdist_to(X + (size_t) i * d, cen + (size_t) worst * d, d);

				if (t > fd)
				{
					fd = t;
					far = i;
				}
			}
		if (far < 0 || cnt[worst] < 2)
			break;
		for (i = 0; i < n; i++)
			if (lab[i] == worst + 1 && i != far)
			{
				double		to_old = sqdist_to(X + (size_t) i * d, cen + (size_t) worst * d, d),
							to_new;
				int			j;

				/* the far member's coordinates as the new cluster's mean */
				for (j = 0; j < d; j++)
					sse[K + j] = X[(size_t) far * d + j];
				to_new = sqdist_to(X + (size_t) i * d, sse + K, d);
				if (to_new < to_old)
					lab[i] = K + 1;
			}
		lab[far] = K + 1;
		K++;
	}
	return K;
}

/* Clusters up to which dac_silhouette reads four rows at a time */
#define SILHOUETTE_KMAX 64

/* Row r's silhouette term from its sums to each cluster (sum [K]); 0 when it counts none */
static double
silhouette_term(const double *sum, int own, int K, const int *cnt, int *counted)
{
	double		a,
				b = INFINITY;
	int			k;

	*counted = 0;
	if (cnt[own] < 2)
		return 0;
	a = sum[own] / (cnt[own] - 1);
	for (k = 0; k < K; k++)
		if (k != own && cnt[k] > 0 && sum[k] / cnt[k] < b)
			b = sum[k] / cnt[k];
	if (!(isfinite(b) && (a > 0 || b > 0)))
		return 0;
	*counted = 1;
	return (b - a) / (a > b ? a : b);
}

/*
 * The mean silhouette of the labels lab over the sample rows smp [m], from
 * their distance matrix D [m, m] (lab of sample row r is lab[smp[r]]).
 * Points alone in their cluster count 0.  sum [K] scratch.  Eight rows'
 * sums are gathered a cluster at a time, over its columns listed together,
 * then four rows' in one sweep of the labels: each sum still adds its
 * distances in column order, so the result is the same to the bit.
 */
double
dac_silhouette(const float *D, const int *smp, int m, const int *lab, int K, double *sum, int *cnt)
{
	int			ls[DAC_KSEARCH_SAMPLE];
	double		acc[8 * SILHOUETTE_KMAX],
				tot = 0;
	int			r = 0,
				q,
				t,
				counted;

	memset(cnt, 0, sizeof(int) * (size_t) K);
	for (q = 0; q < m; q++)
		cnt[lab[smp[q]] - 1]++;
	if (m <= DAC_KSEARCH_SAMPLE && K <= SILHOUETTE_KMAX)
	{
		int			ord[DAC_KSEARCH_SAMPLE],
					from[SILHOUETTE_KMAX + 1];

		for (q = 0; q < m; q++)
			ls[q] = lab[smp[q]] - 1;
		/* the columns of each cluster together, in column order (a counting sort) */
		memset(from, 0, sizeof(from));
		for (q = 0; q < m; q++)
			from[ls[q] + 1]++;
		for (t = 0; t < K; t++)
			from[t + 1] += from[t];
		for (q = 0; q < m; q++)
			ord[from[ls[q]]++] = q;
		for (t = K; t > 0; t--)
			from[t] = from[t - 1];
		from[0] = 0;
		/* eight rows at a time, each cluster's sum of a row added in column order as below */
		for (; r + 8 <= m; r += 8)
		{
			const float *d0 = D + (size_t) r * m;
			int			c;

			for (c = 0; c < K; c++)
			{
				double		s0 = 0,
							s1 = 0,
							s2 = 0,
							s3 = 0,
							s4 = 0,
							s5 = 0,
							s6 = 0,
							s7 = 0;
				int			i;

				for (i = from[c]; i < from[c + 1]; i++)
				{
					const float *col = d0 + ord[i];

					s0 += col[0];
					s1 += col[(size_t) m];
					s2 += col[2 * (size_t) m];
					s3 += col[3 * (size_t) m];
					s4 += col[4 * (size_t) m];
					s5 += col[5 * (size_t) m];
					s6 += col[6 * (size_t) m];
					s7 += col[7 * (size_t) m];
				}
				acc[c] = s0;
				acc[K + c] = s1;
				acc[2 * K + c] = s2;
				acc[3 * K + c] = s3;
				acc[4 * K + c] = s4;
				acc[5 * K + c] = s5;
				acc[6 * K + c] = s6;
				acc[7 * K + c] = s7;
			}
			for (t = 0; t < 8; t++)
			{
				double		v = silhouette_term(acc + (size_t) t * K, ls[r + t], K, cnt, &counted);

				if (counted)
					tot += v;
			}
		}
		for (; r + 4 <= m; r += 4)
		{
			const float *d0 = D + (size_t) r * m,
					   *d1 = d0 + m,
					   *d2 = d1 + m,
					   *d3 = d2 + m;

			memset(acc, 0, sizeof(double) * 4 * (size_t) K);
			for (q = 0; q < m; q++)
			{
				int			c = ls[q];

				acc[c] += d0[q];
				acc[K + c] += d1[q];
				acc[2 * K + c] += d2[q];
				acc[3 * K + c] += d3[q];
			}
			for (t = 0; t < 4; t++)
			{
				double		v = silhouette_term(acc + (size_t) t * K, ls[r + t], K, cnt, &counted);

				if (counted)
					tot += v;
			}
		}
	}
	for (; r < m; r++)
	{
		double		v;

		memset(sum, 0, sizeof(double) * (size_t) K);
		for (q = 0; q < m; q++)
			sum[lab[smp[q]] - 1] += D[(size_t) r * m + q];
		v = silhouette_term(sum, lab[smp[r]] - 1, K, cnt, &counted);
		if (counted)
			tot += v;
	}
	return tot / m;
}

/*
 * The sample of m rows of X [n, d] the count search and the graph stage
 * measure (every (n/m)-th: smp [m]), copied to S [m, d] (and their squared
 * lengths to S + m·d), and their distances D [m, m], through one product.
 * DAC_ERR_INTERRUPTED.
 */
static dac_status
sample_distances(const dac_real *X, int n, int d, int m, float *D, dac_real *S, int *smp)
{
	dac_real   *nrm = S + (size_t) m * d;
	int			r;

	for (r = 0; r < m; r++)
	{
		double		q = 0;
		int			j;

		smp[r] = (int) ((int64_t) r * n / m);
		for (j = 0; j < d; j++)
		{
			S[(size_t) r * d + j] = X[(size_t) smp[r] * d + j];
			q += (double) S[(size_t) r * d + j] * S[(size_t) r * d + j];
		}
		nrm[r] = (dac_real) q;
	}
	if (sizeof(dac_real) == sizeof(float))
	{
		dac_gemm(0, 1, m, m, d, 1, S, d, S, d, 0, (dac_real *) D, m);
		for (r = 0; r < m; r++)
		{
			if ((r & 255) == 0 && dac_interrupted())
				return DAC_ERR_INTERRUPTED;
			dac_distances_from_gram((dac_real *) D + (size_t) r * m, nrm, m, r);
		}
		return DAC_OK;
	}
	for (r = 0; r < m; r++)
	{
		int			q;

		if ((r & 255) == 0 && dac_interrupted())
			return DAC_ERR_INTERRUPTED;
		for (q = 0; q < m; q++)
		{
			double		t = 0;
			int			j;

			for (j = 0; j < d; j++)
			{
				double		u = (double) S[(size_t) r * d + j] - S[(size_t) q * d + j];

				t += u * u;
			}
			D[(size_t) r * m + q] = (float) sqrt(t);
		}
	}
	return DAC_OK;
}

/*
 * c takes the labels lab [c->n] (1 .. K) as its own, ids renumbered in order
 * of first appearance; θ of a count other than c's is zero (no pass found
 * those clusters).  newid [K] scratch.  DAC_ERR_NOMEM.
 */
static dac_status
adopt_labels(dac_clustering *c, const int *lab, int K, int *newid)
{
	int			next = 0,
				i,
				k;

	for (k = 0; k < K; k++)
		newid[k] = 0;
	if (K != c->num_clusters)
	{
		dac_real   *theta = dac_alloc_zero(sizeof(dac_real) * (size_t) K * (c->theta_dim > 0 ? c->theta_dim : 1));

		if (theta == NULL)
			return DAC_ERR_NOMEM;
		dac_free(c->theta);
		c->theta = theta;
	}
	for (i = 0; i < c->n; i++)
	{
		if (newid[lab[i] - 1] == 0)
			newid[lab[i] - 1] = ++next;
		c->labels[i] = newid[lab[i] - 1];
	}
	c->num_clusters = K;
	return DAC_OK;
}


void
dac_sample_set_free(dac_sample_set *ss)
{
	dac_free(ss->smp);
	dac_free(ss->S);
	dac_free(ss->D);
	memset(ss, 0, sizeof(*ss));
}

/* A sample of m rows of X [n, d] (m <= n) and its distances into ss, unless it holds one already */
static dac_status
sample_set_of(const dac_real *X, int n, int d, int m, dac_sample_set *ss)
{
	dac_status	st;

	if (ss->m > 0)
		return DAC_OK;
	ss->D = dac_alloc(sizeof(float) * (size_t) m * m);
	ss->S = dac_alloc(sizeof(dac_real) * (size_t) m * (d + 1));
	ss->smp = dac_alloc(sizeof(int) * (size_t) m);
	if (!ss->D || !ss->S || !ss->smp)
	{
		dac_sample_set_free(ss);
		return DAC_ERR_NOMEM;
	}
	if ((st = sample_distances(X, n, d, m, ss->D, ss->S, ss->smp)) != DAC_OK)
	{
		dac_sample_set_free(ss);
		return st;
	}
	ss->m = m;
	return DAC_OK;
}

/* The sample of at most DAC_KSEARCH_SAMPLE rows (sample_set_of) */
static dac_status
dac_sample_set_make(const dac_real *X, int n, int d, dac_sample_set *ss)
{
	return sample_set_of(X, n, d, n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE, ss);
}

double
dac_ksearch_bytes(int n, int d, int window, int K)
{
	double		m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE,
				kmax = (double) K + window + 1;

	if (window < 1)
		return 0;
	return sizeof(float) * m * m + sizeof(dac_real) * (m * d + m) + sizeof(int) * (3.0 * n + m + 2 * kmax) +
		sizeof(double) * (kmax * (2.0 * d + 2) + 2.0 * DAC_NEAREST_TILE * d) + 256;
}

/*
 * k labels for the n rows of X [n, d] by k-means++ seeding (first centre a
 * random row, each next one a row drawn by its squared distance to the
 * nearest centre so far), then Lloyd's steps; of `starts` such runs, the one
 * of the least squared error to best [n].  rng: the draws; lab [n], cen
 * [k, d + 2], cnt [k], dist [n + 8] scratch; Xt: X's rows as tile_rows
 * lays them out.  *got: the count reached (fewer than k when rows
 * coincide).  DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED.
 */
static dac_status
seeded_count(const dac_real *X, int n, int d, int k, int starts, int steps, dac_rng *rng, int *lab, int *best,
			 double *cen, int *cnt, double *dist, const double *Xt, int *got)
{
	sqdist_of_eight_fn sq8 = sqdist_of_eight();
	double		best_sse = INFINITY;
	int			t,
				i,
				c,
				moved;
	dac_status	st;

	*got = 0;

	for (t = 0; t < starts; t++)
	{
		dac_clustering cl;
		dac_real	dummy = 0;
		double		sse = 0;
		int			first = dac_rng_int(rng, n);

		for (i = 0; i < d; i++)
			cen[i] = X[(size_t) first * d + i];
		for (i = 0; i < n; i += DAC_NEAREST_TILE)
			sq8(Xt + (size_t) i * d, d, cen, dist + i);
		for (c = 1; c < k; c++)
		{
			double		tot = 0,
						u;
			int			pick = n - 1;

			/* each centre is a pass over the rows: the interrupt hook between them */
			if (dac_interrupted())
				return DAC_ERR_INTERRUPTED;
			for (i = 0; i < n; i++)
				tot += dist[i];
			if (!(tot > 0))
				break;
			u = dac_rng_uniform(rng) * tot;
			for (i = 0; i < n; i++)
				if ((u -= dist[i]) < 0)
				{
					pick = i;
					break;
				}
			for (i = 0; i < d; i++)
				cen[(size_t) c * d + i] = X[(size_t) pick * d + i];
			for (i = 0; i < n; i += DAC_NEAREST_TILE)
			{
				double		q[DAC_NEAREST_TILE];
				int			r;

				sq8(Xt + (size_t) i * d, d, cen + (size_t) c * d, q);
				for (r = 0; r < DAC_NEAREST_TILE && i + r < n; r++)
					if (q[r] < dist[i + r])
						dist[i + r] = q[r];
			}
		}
		if (dac_interrupted())
			return DAC_ERR_INTERRUPTED;
		/* each row to its nearest centre, then Lloyd's steps on a clustering of its own */
		for (i = 0; i < n; i++)
			lab[i] = 1;
		if ((st = assign_nearest(X, Xt, n, d, cen, NULL, c, NULL, lab, &moved)) != DAC_OK)
			return st;
		memset(&cl, 0, sizeof(cl));
		cl.n = n;
		cl.labels = lab;
		cl.num_clusters = c;
		cl.theta = &dummy;
		if ((st = kmeans_run(X, Xt, d, &cl, steps)) != DAC_OK)
			return st;
		dac_centroids(X, n, d, lab, cl.num_clusters, cen, cnt);
		for (i = 0; i < n; i++)
			sse += sqdist_to(X + (size_t) i * d, cen + (size_t) (lab[i] - 1) * d, d);
		if (sse < best_sse)
		{
			best_sse = sse;
			*got = cl.num_clusters;
			memcpy(best, lab, sizeof(int) * (size_t) n);
		}
	}
	return DAC_OK;
}

/*
 * k-means from the labels lab0 [n] (K0 clusters) at every count kfrom ..
 * kto (moved there by move_count, then Lloyd's steps), each scored by its
 * mean silhouette over the sample (D [m, m] of rows smp [m]): the best
 * labels to best [n], their count and silhouette to *bestk and *bests (ties
 * to K0, then to fewer; *bestk 0 when no count was reached).  lab [n], cen
 * and cnt (kto + 2 clusters) are scratch.
 */
static dac_status
best_count(const dac_real *X, int n, int d, const int *lab0, int K0, int kfrom, int kto, int kmeans_steps,
		   dac_rng *rng, int starts, const float *D, const int *smp, int m, int *lab, int *best, double *cen, int *cnt,
		   int *bestk, double *bests)
{
	dac_real	dummy = 0;
	int			k,
			   *tmp = NULL;
	double	   *dist = NULL;
	dac_status	st = DAC_OK;

	*bestk = 0;
	*bests = -INFINITY;
	if (rng && ((tmp = dac_alloc(sizeof(int) * (size_t) n)) == NULL ||
				(dist = dac_alloc(sizeof(double) * ((size_t) n + DAC_NEAREST_TILE + tiled_size(n, d)))) == NULL))
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	if (rng)
		tile_rows(X, n, d, dist + n + DAC_NEAREST_TILE);
	for (k = kfrom; k <= kto; k++)
	{
		dac_clustering t;
		int			got;
		double		sil;

		if (dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		if (rng)
		{
			/* k-means++ starts, the least squared error kept */
			if ((st = seeded_count(X, n, d, k, starts, kmeans_steps > 0 ? kmeans_steps : 10, rng,
								   tmp, lab, cen, cnt, dist, dist + n + DAC_NEAREST_TILE, &got)) != DAC_OK)
				goto done;
			if (got != k)
				continue;
			t.num_clusters = got;
		}
		else
		{
			memcpy(lab, lab0, sizeof(int) * (size_t) n);
			if ((got = move_count(X, n, d, lab, K0, k, cen, cnt)) < 0)
			{
				st = DAC_ERR_INTERRUPTED;
				goto done;
			}
			if (got != k)
				continue;
			/* Lloyd's steps from there, on a clustering of its own */
			memset(&t, 0, sizeof(t));
			t.n = n;
			t.labels = lab;
			t.num_clusters = k;
			t.theta = &dummy;
			t.theta_dim = 0;
			if ((st = dac_clustering_kmeans(X, d, &t, kmeans_steps > 0 ? kmeans_steps : 10)) != DAC_OK)
				goto done;
		}
		if (t.num_clusters < 2)
			continue;
		sil = dac_silhouette(D, smp, m, lab, t.num_clusters, cen, cnt);
		if (sil > *bests + 1e-12 || (k == K0 && sil >= *bests - 1e-12))
		{
			*bests = sil;
			*bestk = t.num_clusters;
			memcpy(best, lab, sizeof(int) * (size_t) n);
		}
	}
done:
	dac_free(tmp);
	dac_free(dist);
	return st;
}

dac_status
dac_ksearch_on(const dac_real *X, int d, dac_clustering *c, int window, int kmeans_steps, dac_sample_set *ss)
{
	int			n = c->n,
				K0 = c->num_clusters,
				m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE,
				kmax = K0 + window,
				bestk;
	int		   *lab = NULL,
			   *best,
			   *cnt = NULL;
	double	   *cen = NULL,
				bests;
	dac_status	st = DAC_OK;

	if (window < 1 || K0 < 2 || n < 4)
		return DAC_OK;			/* one cluster found: the network's count stands */
	if (kmax > m - 1)
		kmax = m - 1;
	if ((st = dac_sample_set_make(X, n, d, ss)) != DAC_OK)
		return st;
	lab = dac_alloc(sizeof(int) * (size_t) n * 2);
	cnt = dac_alloc(sizeof(int) * (size_t) (kmax + 2) * 2);
	cen = dac_alloc(sizeof(double) * (size_t) (kmax + 2) * (d + 2));
	if (!lab || !cnt || !cen)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	best = lab + n;
	if ((st = best_count(X, n, d, c->labels, K0, K0 - window > 2 ? K0 - window : 2, kmax, kmeans_steps, NULL, 0,
						 ss->D, ss->smp, m, lab, best, cen, cnt, &bestk, &bests)) != DAC_OK)
		goto done;
	if (bestk == 0)
		bestk = K0;
	if ((bestk != K0 || (bests > -INFINITY && memcmp(best, c->labels, sizeof(int) * (size_t) n) != 0)) &&
		(st = adopt_labels(c, best, bestk, cnt)) != DAC_OK)
		goto done;
	c->k_searched = 1;
done:
	dac_free(lab);
	dac_free(cnt);
	dac_free(cen);
	return st;
}

/*
 * Whether a Gaussian draw of m rows of width d is cheaper through the
 * covariance's square root (an eigen-decomposition, d³, and m·d normals)
 * than through m² normals times the rows (m²·d): counted in multiplies, a
 * normal as 40.
 */
static int
draw_by_root(int m, int d)
{
	return 10.0 * d * d * d + (double) m * d * (d + 40.0) < (double) m * m * (d + 40.0);
}

/*
 * The widest draw of m rows, at most d wide, that goes through the square
 * root (0: none); every narrower one does too
 */
static int
root_width(int m, int d)
{
	int			w = 0;

	while (w < d && draw_by_root(m, w + 1))
		w++;
	return w;
}

double
dac_one_check_bytes(int n, int d, int ranks, int graph)
{
	double		m = n < DAC_ONE_CHECK_SAMPLE ? n : DAC_ONE_CHECK_SAMPLE,
				kmax = DAC_ONE_CHECK_KMAX + 1,
				w = root_width((int) m, d);

	/*
	 * the group's sample and distances; one Gaussian draw's buffers, which
	 * every reference shares (gauss_draw: m² normals where w < d, the
	 * square root's 3w² + 2w); labels, means
	 */
	return dac_ksearch_bytes(n, d, DAC_ONE_CHECK_KMAX, 0) + sizeof(dac_real) * ((w < d ? m * m : 0) + 3.0 * m * d + m) +
		sizeof(double) * (3.0 * w * w + 2.0 * w + 1) +
		sizeof(float) * m * m + sizeof(int) * (4.0 * m) + sizeof(double) * kmax * (2.0 * d + 2) +
		(sizeof(dac_real) * (double) d + sizeof(int) * 2.0 + sizeof(double) * 2.0) * n + sizeof(double) * (double) d +
	/* the sample's own row numbers; its split spread to every row (means) and Lloyd's steps there */
		sizeof(int) * m + sizeof(double) * 2.0 * kmax * d + sizeof(int) * 2.0 * kmax + kmax +
	/* k-means' rows by eight (tile_rows) */
		sizeof(double) * ((double) tiled_size((int) m, d) + DAC_NEAREST_TILE) +
	/* the normal scores: their rows, sample and distances, ranks, quantiles, labels and means */
		(ranks ? sizeof(dac_real) * m * (3.0 * d + 1) + sizeof(float) * m * m + sizeof(int) * (5.0 * m) +
		 sizeof(dac_axis_key) * m + sizeof(double) * (2.0 * m + 1) + sizeof(double) * kmax * (d + 2) +
		 sizeof(int) * kmax * 2 : 0) +
	/*
	 * the graph's test: labels and repeats; the graph; its communities as a
	 * candidate (labels, counts, means)
	 */
		(graph ? sizeof(int) * (3.0 * m) + dac_graph_bytes((int) m, DAC_ONE_CHECK_NEIGHBORS) +
		 sizeof(int) * (2.0 * n + 2 * kmax + 2) + sizeof(double) * ((kmax + 1) * (d + 2) + kmax * d) : 0);
}

/* A Gaussian draw's buffers for m rows of width d: see gaussian_draw */
typedef struct
{
	dac_real   *G;				/* [m, m] standard normal, over sqrt(m − 1) */
	dac_real   *C;				/* [m, d] the rows less their mean */
	dac_real   *R;				/* [m, d] the draw */
	dac_real   *Sr;				/* [m, d + 1] its rows and squared lengths */
	float	   *Dr;				/* [m, m] its distances */
	int		   *smp;			/* [m] its sample: every row */
	double	   *F;				/* [3 w² + 2 w] the covariance, its eigenvectors and square root; eigenvalues; a row's normals */
	int			w;				/* the widest draw F serves (root_width) */
	int			m,
				d,				/* the prepared rows' count and width */
				rooted;			/* drawn through Σ^½ (in F) */
} gauss_draw;

static void
gauss_draw_free(gauss_draw *b)
{
	dac_free(b->G);
	dac_free(b->C);
	dac_free(b->R);
	dac_free(b->Sr);
	dac_free(b->Dr);
	dac_free(b->smp);
	dac_free(b->F);
	memset(b, 0, sizeof(*b));
}

/* DAC_ERR_NOMEM (nothing left allocated) or DAC_OK */
static dac_status
gauss_draw_alloc(gauss_draw *b, int m, int d)
{
	b->w = root_width(m, d);
	/* the m² normals only where a width the square root does not serve can be drawn */
	b->G = b->w < d ? dac_alloc(sizeof(dac_real) * (size_t) m * m) : NULL;
	b->C = dac_alloc(sizeof(dac_real) * (size_t) m * d);
	b->R = dac_alloc(sizeof(dac_real) * (size_t) m * d);
	b->Sr = dac_alloc(sizeof(dac_real) * (size_t) m * (d + 1));
	b->Dr = dac_alloc(sizeof(float) * (size_t) m * m);
	b->smp = dac_alloc(sizeof(int) * (size_t) m);
	b->F = dac_alloc(sizeof(double) * ((size_t) 3 * b->w * b->w + 2 * b->w + 1));
	if ((b->G || b->w >= d) && b->C && b->R && b->Sr && b->Dr && b->smp && b->F)
		return DAC_OK;
	gauss_draw_free(b);
	return DAC_ERR_NOMEM;
}

/*
 * Gaussians of the m rows of S [m, d]'s own covariance Σ (gaussian_draw
 * makes them): the rows less their mean into b->C and, where drawing through
 * it is cheaper (d at most b->w, root_width's), Σ's symmetric square root,
 * once for every draw.  m and d at most gauss_draw_alloc's.
 * DAC_ERR_INTERRUPTED.
 */
static dac_status
gauss_draw_prepare(const dac_real *S, int m, int d, gauss_draw *b)
{
	int			i,
				j,
				k;

	b->m = m;
	b->d = d;
	b->rooted = 0;
	for (j = 0; j < d; j++)
	{
		double		mean = 0;

		for (i = 0; i < m; i++)
			mean += S[(size_t) i * d + j];
		mean /= m;
		for (i = 0; i < m; i++)
			b->C[(size_t) i * d + j] = (dac_real) (S[(size_t) i * d + j] - mean);
	}
	if (d <= b->w)
	{
		double	   *cov = b->F,
				   *V = cov + (size_t) d * d,
				   *root = V + (size_t) d * d,
				   *ev = root + (size_t) d * d;

		for (j = 0; j < d; j++)
			for (k = j; k < d; k++)
			{
				double		t = 0;

				for (i = 0; i < m; i++)
					t += (double) b->C[(size_t) i * d + j] * b->C[(size_t) i * d + k];
				cov[(size_t) j * d + k] = cov[(size_t) k * d + j] = t / (m - 1);
			}
		if (dac_sym_eigen(cov, d, ev, V))
			return DAC_ERR_INTERRUPTED;
		for (j = 0; j < d; j++)
			for (k = j; k < d; k++)
			{
				double		t = 0;
				int			e;

				for (e = 0; e < d; e++)
					t += V[(size_t) j * d + e] * (ev[e] > 0 ? sqrt(ev[e]) : 0) * V[(size_t) k * d + e];
				root[(size_t) j * d + k] = root[(size_t) k * d + j] = t;
			}
		b->rooted = 1;
	}
	return DAC_OK;
}

/*
 * One Gaussian of the prepared rows' covariance Σ (gauss_draw_prepare), m
 * rows into b->R [m, d], and its distances into b->Dr: Z Σ^½, Z [m, d]
 * standard normal from a fixed seed (draw picks it: the same group, the same
 * draws), where Σ^½ was prepared; otherwise G (S − mean) / sqrt(m − 1), G
 * [m, m] standard normal from the same seed.  Either way the rows are
 * independent draws of N(0, Σ), and the draw moves continuously with S.  The
 * mean is left out (a silhouette or a neighbour graph does not move with
 * it).  The normals are read through dac_normals: every group's draw i
 * reads the same ones, made once.  DAC_ERR_INTERRUPTED.
 */
static dac_status
gaussian_draw(int draw, gauss_draw *b)
{
	dac_normals r;
	int			m = b->m,
				d = b->d,
				i,
				j,
				k;

	dac_normals_open(&r, 1 + 2 * (uint64_t) draw);
	if (b->rooted)
	{
		const double *root = b->F + 2 * (size_t) d * d;
		double	   *z = b->F + 3 * (size_t) d * d + d;

		for (i = 0; i < m; i++)
		{
			for (j = 0; j < d; j++)
				z[j] = dac_normals_next(&r);
			for (k = 0; k < d; k++)
			{
				double		t = 0;

				for (j = 0; j < d; j++)
					t += z[j] * root[(size_t) j * d + k];
				b->R[(size_t) i * d + k] = (dac_real) t;
			}
		}
	}
	else
	{
		double		root_m1 = sqrt((double) (m - 1));

		for (i = 0; i < m * m; i++)
			b->G[i] = (dac_real) (dac_normals_next(&r) / root_m1);
		dac_gemm(0, 0, m, d, m, 1, b->G, m, b->C, d, 0, b->R, d);
	}
	return sample_distances(b->R, m, d, m, b->Dr, b->Sr, b->smp);
}

dac_status
dac_gaussian_reference(const dac_real *S, int m, int d, int draw, dac_real *R)
{
	gauss_draw	b;
	dac_status	st;

	memset(&b, 0, sizeof(b));
	if ((st = gauss_draw_alloc(&b, m, d)) == DAC_OK && (st = gauss_draw_prepare(S, m, d, &b)) == DAC_OK &&
		(st = gaussian_draw(draw, &b)) == DAC_OK)
		memcpy(R, b.R, sizeof(dac_real) * (size_t) m * d);
	gauss_draw_free(&b);
	return st;
}

/*
 * The silhouette k-means reaches on a Gaussian of the sample's own mean and
 * covariance (gaussian_draw's draw, in b), over the counts 2 .. kto as
 * best_count scores them.
 */
static dac_status
reference_silhouette(int kto, int kmeans_steps, int draw, gauss_draw *b, double *sref)
{
	int			m = b->m,
				d = b->d,
			   *lab = dac_alloc(sizeof(int) * (size_t) m * 3),
			   *cnt = dac_alloc(sizeof(int) * (size_t) (kto + 2) * 2),
				bestk,
				i;
	double	   *cen = dac_alloc(sizeof(double) * (size_t) (kto + 2) * (d + 2));
	dac_status	st = DAC_ERR_NOMEM;
	dac_rng		r;

	*sref = -INFINITY;
	if (!lab || !cnt || !cen)
		goto done;
	for (i = 0; i < m; i++)
		lab[i] = 1;
	if ((st = gaussian_draw(draw, b)) != DAC_OK)
		goto done;
	dac_rng_seed(&r, 2 + 2 * (uint64_t) draw);
	st = best_count(b->R, m, d, lab, 1, 2, kto, kmeans_steps, &r, DAC_ONE_CHECK_REF_STARTS, b->Dr, b->smp, m, lab + m,
					lab + 2 * m, cen, cnt, &bestk, sref);
done:
	dac_free(lab);
	dac_free(cnt);
	dac_free(cen);
	return st;
}

/*
 * The mean of `draws` references' silhouettes (reference_silhouette, draws
 * 0 .. draws − 1): a row more or less moves it little; with largest, their
 * largest instead, the draws stopped once it is within margin of best (a
 * split of silhouette best is then not beyond them all).  NAN when a draw
 * has no split to read (no Gaussian to compare with).
 */
static dac_status
mean_reference(int kto, int kmeans_steps, int draws, int largest, double best, double margin, gauss_draw *b,
			   double *mean)
{
	double		sum = 0,
				top = -INFINITY,
				sref;
	int			i;
	dac_status	st;

	*mean = NAN;
	for (i = 0; i < draws; i++)
	{
		if ((st = reference_silhouette(kto, kmeans_steps, i, b, &sref)) != DAC_OK)
			return st;
		if (!isfinite(sref))
			return DAC_OK;
		sum += sref;
		top = fmax(top, sref);
		if (largest && !(best >= top + margin))
			break;
	}
	*mean = largest ? top : sum / draws;
	return DAC_OK;
}

/*
 * The modularity (Q at resolution 1) of the Leiden communities of the
 * DAC_ONE_CHECK_NEIGHBORS-nearest-neighbour graph of m rows whose distances
 * are D [m, m]; dup [m] (or NULL) as dac_knn_graph reads it.  The
 * communities to lab [m] (1 .. *K).
 */
static dac_status
graph_modularity(const float *D, int m, const int *dup, int *lab, int *K, double *q)
{
	dac_graph	g;
	dac_status	st;

	memset(&g, 0, sizeof(g));
	*q = NAN;
	if ((st = dac_knn_graph(D, m, DAC_ONE_CHECK_NEIGHBORS, dup, &g)) == DAC_OK &&
		(st = dac_graph_partition(&g, 1.0, 0, lab, K)) == DAC_OK)
		*q = dac_graph_quality(&g, lab, 1.0);
	dac_graph_free(&g);
	return st == DAC_OK && isnan(*q) ? DAC_ERR_NOMEM : st;
}

/*
 * The one-cluster test read in the neighbour graph: *apart when the
 * modularity of the graph of the m rows of a sample (distances D, dup its
 * repeated rows) exceeds the mean of DAC_ONE_CHECK_GRAPH_DRAWS Gaussians'
 * of its own covariance by margin or more.  Any cloud's neighbour graph has
 * communities, and a low-dimensional one's as many as a Gaussian's; classes
 * apart in many dimensions are what leave few links between them where a
 * Gaussian of the same spread leaves many, however low their silhouette.
 * The sample's communities to glab [m] (1 .. *gK); b: its draws, prepared
 * with the sample's rows (gauss_draw_prepare).
 */
static dac_status
apart_in_graph(const float *D, const int *dup, int m, double margin, gauss_draw *b,
			   int *apart, int *glab, int *gK)
{
	int		   *lab = dac_alloc(sizeof(int) * (size_t) m),
				K,
				i;
	double		q,
				qr,
				sum = 0;
	dac_status	st = DAC_ERR_NOMEM;

	*apart = 0;
	if (lab == NULL)
		goto done;
	if ((st = graph_modularity(D, m, dup, glab, gK, &q)) != DAC_OK)
		goto done;
	for (i = 0; i < DAC_ONE_CHECK_GRAPH_DRAWS; i++)
	{
		if ((st = gaussian_draw(i, b)) != DAC_OK ||
			(st = graph_modularity(b->Dr, m, NULL, lab, &K, &qr)) != DAC_OK)
			goto done;
		sum += qr;
	}
	*apart = q >= sum / DAC_ONE_CHECK_GRAPH_DRAWS + margin;
done:
	dac_free(lab);
	return st;
}

/*
 * The normal scores of the m rows of S [m, d], column by column, into Z
 * [m, d]: Φ⁻¹((r − ½) / m) for a value of (mid-)rank r.  A rank is unchanged
 * by any increasing map of its column, so a column's skew, its units and its
 * ties' spacing are gone; what is left of the rows' structure is how their
 * columns move together.
 */
static dac_status
normal_scores(const dac_real *S, int m, int d, dac_real *Z)
{
	dac_axis_key *ak = dac_alloc(sizeof(dac_axis_key) * (size_t) m);
	int		   *rank = dac_alloc(sizeof(int) * (size_t) m);
	double	   *q = dac_alloc(sizeof(double) * (size_t) (2 * m + 1));
	int			i,
				j;
	dac_status	st = DAC_OK;

	if (!ak || !rank || !q)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	/* twice a mid-rank is an integer in 2 .. 2m */
	for (i = 2; i <= 2 * m; i++)
		q[i] = dac_normal_quantile((i - 1) / (2.0 * m));
	for (j = 0; j < d; j++)
	{
		if (dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		for (i = 0; i < m; i++)
		{
			ak[i].v = S[(size_t) i * d + j];
			ak[i].idx = i;
		}
		dac_rank_column(ak, m, 1, rank, 1);
		for (i = 0; i < m; i++)
			Z[(size_t) i * d + j] = (dac_real) q[rank[i]];
	}
done:
	dac_free(ak);
	dac_free(rank);
	dac_free(q);
	return st;
}

/*
 * The one-cluster test read in normal scores (a Gaussian copula): *apart
 * when k-means at 2 .. kto separates the normal scores of the sample S [m, d]
 * with some structure (mean silhouette DAC_ONE_CHECK_STRUCTURE or more)
 * and by margin / sqrt(m) more mean silhouette than it separates a
 * Gaussian of their own covariance: a mean silhouette over m rows varies
 * from draw to draw as about 1 / sqrt(m) (as m^-0.7 over the kinds
 * benchmark's groups), so a split of a large group need beat it by less.
 * One class of skewed, heavy-tailed or coarsely measured columns is near a
 * Gaussian there; classes apart stay apart.  b: the draws' buffers (for d
 * columns or more).
 */
static dac_status
apart_in_ranks(const dac_real *S, int m, int d, int kto, int kmeans_steps, double margin, gauss_draw *b,
			   int *apart)
{
	dac_real   *Z = dac_alloc(sizeof(dac_real) * (size_t) m * d);
	int		   *lab = dac_alloc(sizeof(int) * (size_t) m * 3),
			   *cnt = dac_alloc(sizeof(int) * (size_t) (kto + 2) * 2),
				bestk,
				i;
	double	   *cen = dac_alloc(sizeof(double) * (size_t) (kto + 2) * (d + 2)),
				bests,
				sref;
	dac_sample_set zs;
	dac_rng		r;
	dac_status	st;

	*apart = 0;
	memset(&zs, 0, sizeof(zs));
	if (!Z || !lab || !cnt || !cen)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	if ((st = normal_scores(S, m, d, Z)) != DAC_OK || (st = dac_sample_set_make(Z, m, d, &zs)) != DAC_OK)
		goto done;
	for (i = 0; i < m; i++)
		lab[2 * m + i] = 1;
	dac_rng_seed(&r, 2);
	if ((st = best_count(Z, m, d, lab + 2 * m, 1, 2, kto, kmeans_steps, &r, DAC_ONE_CHECK_STARTS, zs.D, zs.smp, m, lab,
						 lab + m, cen, cnt, &bestk, &bests)) != DAC_OK || bestk == 0)
		goto done;
	/* a split of less structure is never adopted: no Gaussian need be drawn */
	if (bests < DAC_ONE_CHECK_STRUCTURE)
		goto done;
	/* the mean of DAC_ONE_CHECK_DRAWS Gaussians' silhouettes: a row more or less moves it little */
	if ((st = gauss_draw_prepare(zs.S, m, d, b)) != DAC_OK ||
		(st = mean_reference(kto, kmeans_steps, DAC_ONE_CHECK_DRAWS, 0, 0, 0, b, &sref)) != DAC_OK)
		goto done;
	/* no Gaussian to compare with (sref NAN): no split */
	*apart = bests >= sref + margin / sqrt((double) m);
done:
	dac_sample_set_free(&zs);
	dac_free(Z);
	dac_free(lab);
	dac_free(cnt);
	dac_free(cen);
	return st;
}

static dac_status sample_to_rows(const dac_real *X, int n, int d, const dac_real *S, const int *smp, int m,
								 int *lab, int K, int *cnt);

/*
 * The graph's communities lab [n] (1 .. K on the sample's rows lab [0, m),
 * spread to every row of X [n, d] in place), then k-means steps from them,
 * as a candidate against the best split so far (best [n], *bestk clusters,
 * mean silhouette *bests over the sample ss): kept there (*kept 1) when
 * their mean silhouette is higher.  DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED.
 */
static dac_status
graph_candidate(const dac_real *X, int n, int d, const dac_sample_set *ss, int *lab, int K, int kmeans_steps,
				int *best, int *bestk, double *bests, int *kept)
{
	int		   *tmp = dac_alloc(sizeof(int) * (size_t) n * 2),
			   *cnt = dac_alloc(sizeof(int) * (size_t) (K + 2) * 2),
				gk;
	double	   *cen = dac_alloc(sizeof(double) * (size_t) (K + 2) * (d + 2)),
				gs;
	dac_status	st = DAC_ERR_NOMEM;

	*kept = 0;
	if (!tmp || !cnt || !cen)
		goto done;
	if ((st = sample_to_rows(X, n, d, ss->S, ss->smp, ss->m, lab, K, cnt)) != DAC_OK ||
		(st = best_count(X, n, d, lab, K, K, K, kmeans_steps, NULL, 0, ss->D, ss->smp, ss->m, tmp, tmp + n, cen, cnt,
						 &gk, &gs)) != DAC_OK)
		goto done;
	*kept = gk >= 2 && gs > *bests;
	if (*kept)
	{
		memcpy(best, tmp + n, sizeof(int) * (size_t) n);
		*bestk = gk;
		*bests = gs;
	}
done:
	dac_free(tmp);
	dac_free(cnt);
	dac_free(cen);
	return st;
}

static dac_status central_order(const dac_real *S, int m, int d, int *ord);
static dac_status sample_duplicates(const dac_real *S, int m, int d, int *dup, int *perm);

/* dac_one_check_on, a split adopted at mean silhouette clean or more */
static dac_status
one_check(const dac_real *X, int d, dac_clustering *c, int kmeans_steps, double margin, int strict, double clean,
		  double rank_margin, const dac_real *cols, int cd, double graph_margin)
{
	int			n = c->n,
				m = n < DAC_ONE_CHECK_SAMPLE ? n : DAC_ONE_CHECK_SAMPLE,
				kto = DAC_ONE_CHECK_KMAX,
				bestk,
				gk = 0,
				apart = 0,
				every_row,
				i;
	int		   *lab = NULL,
			   *cnt = NULL,
			   *perm = NULL,
			   *ident;
	double	   *cen = NULL,
				bests,
				sref = NAN;
	dac_real   *Xs = NULL;
	dac_sample_set ss;
	gauss_draw	b;
	dac_rng		r;
	dac_status	st;

	if (c->num_clusters != 1 || n < 8)
		return DAC_OK;
	if (kto > m - 1)
		kto = m - 1;
	/* a split on the whole sample is already every row's */
	every_row = m == n;
	memset(&ss, 0, sizeof(ss));
	memset(&b, 0, sizeof(b));
	lab = dac_alloc(sizeof(int) * ((size_t) n * 4 + m));
	cnt = dac_alloc(sizeof(int) * (size_t) (kto + 2) * 2);
	cen = dac_alloc(sizeof(double) * (size_t) (kto + 2) * (d + 2));
	Xs = dac_alloc(sizeof(dac_real) * (size_t) n * d);
	if (!lab || !cnt || !cen || !Xs)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	/*
	 * The rows, their sample and the draws nearest the mean first: an order
	 * that moves with the rows' geometry only, so that neither the order the
	 * rows came in nor a change of units (which reorders the canonical order,
	 * a hash of the rows' bytes) changes the draws.
	 */
	perm = lab + 3 * n;
	if ((st = central_order(X, n, d, perm)) != DAC_OK)
		goto done;
	for (i = 0; i < n; i++)
		memcpy(Xs + (size_t) i * d, X + (size_t) perm[i] * d, sizeof(dac_real) * d);
	if ((st = sample_set_of(Xs, n, d, m, &ss)) != DAC_OK)
		goto done;
	/* k-means at 2 .. kto on the sample, whose silhouettes are what is read */
	ident = lab + 4 * n;
	for (i = 0; i < m; i++)
	{
		lab[2 * n + i] = 1;
		ident[i] = i;
	}
	dac_rng_seed(&r, 2);
	if ((st = best_count(ss.S, m, d, lab + 2 * n, 1, 2, kto, kmeans_steps, &r, DAC_ONE_CHECK_STARTS, ss.D, ident, m, lab,
						 lab + n, cen, cnt, &bestk, &bests)) != DAC_OK || bestk == 0)
		goto done;
	/* one Gaussian draw's buffers, for every reference (the normal scores' columns are no wider) */
	if ((st = gauss_draw_alloc(&b, m, d)) != DAC_OK || (st = gauss_draw_prepare(ss.S, m, d, &b)) != DAC_OK)
		goto done;
	/*
	 * Cleanly apart, and more than a Gaussian of the group's spread is
	 * (low-dimensional ones reach 0.5; the Gaussians are drawn only for a
	 * clean split); or, in normal scores, apart by more than such a Gaussian
	 * is there.
	 */
	if (bests >= clean &&
		(st = mean_reference(kto, kmeans_steps, strict > 0 ? strict : DAC_ONE_CHECK_CLEAN_DRAWS, strict > 0,
							 bests, margin, &b, &sref)) != DAC_OK)
		goto done;
	apart = bests >= clean && bests >= sref + margin;
	if (!apart && graph_margin > 0)
	{
		/* the sample's repeated rows, one point of its graph */
		int		   *dup = dac_alloc(sizeof(int) * (size_t) m * 2);

		if (dup == NULL)
		{
			st = DAC_ERR_NOMEM;
			goto done;
		}
		if ((st = sample_duplicates(ss.S, m, d, dup, dup + m)) == DAC_OK)
			st = apart_in_graph(ss.D, dup, m, graph_margin, &b, &apart, lab + 2 * n, &gk);
		dac_free(dup);
		if (st != DAC_OK)
			goto done;
		/* the communities, k-means steps from them, where they separate the group better */
		if (apart && gk >= 2 && gk <= kto)
		{
			int			kept;

			/* kept, the candidate labels every row */
			if ((st = graph_candidate(Xs, n, d, &ss, lab + 2 * n, gk, kmeans_steps, lab + n, &bestk, &bests,
									  &kept)) != DAC_OK)
				goto done;
			every_row = every_row || kept;
		}
	}
	if (!apart && rank_margin > 0)
	{
		if (cols)
		{
			/* the same sample's rows in their own columns */
			dac_real   *Cs = dac_alloc(sizeof(dac_real) * (size_t) m * cd);

			if (Cs == NULL)
			{
				st = DAC_ERR_NOMEM;
				goto done;
			}
			for (i = 0; i < m; i++)
				memcpy(Cs + (size_t) i * cd, cols + (size_t) perm[ss.smp[i]] * cd, sizeof(dac_real) * cd);
			st = apart_in_ranks(Cs, m, cd, kto, kmeans_steps, rank_margin, &b, &apart);
			dac_free(Cs);
		}
		else
			st = apart_in_ranks(ss.S, m, d, kto, kmeans_steps, rank_margin, &b, &apart);
		if (st != DAC_OK)
			goto done;
	}
	if (apart && !every_row)
	{
		/* the sample's split on every row: the rest join their nearest mean, then Lloyd's steps */
		dac_clustering t;
		dac_real	dummy = 0;

		if ((st = sample_to_rows(Xs, n, d, ss.S, ss.smp, m, lab + n, bestk, cnt)) != DAC_OK)
			goto done;
		memset(&t, 0, sizeof(t));
		t.n = n;
		t.labels = lab + n;
		t.num_clusters = bestk;
		t.theta = &dummy;
		if ((st = dac_clustering_kmeans(Xs, d, &t, kmeans_steps > 0 ? kmeans_steps : 10)) != DAC_OK)
			goto done;
		bestk = t.num_clusters;
	}
	if (apart)
	{
		for (i = 0; i < n; i++)
			lab[perm[i]] = lab[n + i];
		st = adopt_labels(c, lab, bestk, cnt);
	}
done:
	dac_sample_set_free(&ss);
	gauss_draw_free(&b);
	dac_free(lab);
	dac_free(cnt);
	dac_free(cen);
	dac_free(Xs);
	return st;
}

dac_status
dac_split_apart(const dac_real *X, int d, dac_clustering *c, int kmeans_steps, int *split)
{
	int			n = c->n,
				K = c->num_clusters,
				next = K,
				draws = DAC_ONE_CHECK_STRICT_DRAWS * (K < DAC_SPLIT_DRAWS_CAP ? K : DAC_SPLIT_DRAWS_CAP),
				k,
				i;
	/* the members in cluster order, each cluster's offset there, a part's labels, each cluster split or not */
	int		   *mem = dac_alloc(sizeof(int) * ((size_t) n * 2 + (size_t) K * 2 + 2)),
			   *off = mem + n,
			   *lab = off + K + 2,
			   *was = lab + n;
	dac_real   *Xc = dac_alloc(sizeof(dac_real) * (size_t) n * d),
			   *old = NULL;
	dac_status	st = DAC_OK;

	*split = 0;
	if (!mem || !Xc)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	group_members(c->labels, n, K, mem, off);
	for (k = 1; k <= K; k++)
	{
		dac_clustering one;
		int			from = off[k],
					m = off[k + 1] - from;

		for (i = 0; i < m; i++)
		{
			memcpy(Xc + (size_t) i * d, X + (size_t) mem[from + i] * d, sizeof(dac_real) * d);
			lab[i] = 1;
		}
		memset(&one, 0, sizeof(one));
		one.n = m;
		one.num_clusters = 1;
		one.labels = lab;
		/* a group of one cluster: a clean split; a cluster a pass found: a strong one */
		st = one_check(Xc, d, &one, kmeans_steps, DAC_ONE_CHECK_MARGIN, draws,
					   K == 1 ? DAC_ONE_CHECK_CLEAN : DAC_SPLIT_STRONG, 0, NULL, 0, 0);
		dac_free(one.theta);
		if (st != DAC_OK)
			goto done;
		/* the first part keeps the cluster's id, the others are numbered after the last */
		was[k - 1] = one.num_clusters > 1;
		for (i = 0; i < m && was[k - 1]; i++)
			if (lab[i] > 1)
				c->labels[mem[from + i]] = next + lab[i] - 1;
		if (was[k - 1])
			next += one.num_clusters - 1;
	}
	if (next > K)
	{
		size_t		td = c->theta_dim > 0 ? (size_t) c->theta_dim : 1;
		dac_real   *theta = dac_alloc_zero(sizeof(dac_real) * (size_t) next * td);

		if (theta == NULL)
		{
			st = DAC_ERR_NOMEM;
			goto done;
		}
		/* θ refit to every cluster's members, then the clusters not split take theirs back */
		old = c->theta;
		c->theta = theta;
		c->num_clusters = next;
		*split = next - K;
		if ((st = dac_clustering_fit_theta(X, d, c)) != DAC_OK)
			goto done;
		for (k = 0; k < K && old; k++)
			if (!was[k])
				memcpy(theta + (size_t) k * td, old + (size_t) k * td, sizeof(dac_real) * td);
	}
done:
	dac_free(old);
	dac_free(mem);
	dac_free(Xc);
	return st;
}

dac_status
dac_one_check_on(const dac_real *X, int d, dac_clustering *c, int kmeans_steps, double margin, int strict,
				 double rank_margin, const dac_real *cols, int cd, double graph_margin)
{
	return one_check(X, d, c, kmeans_steps, margin, strict, DAC_ONE_CHECK_CLEAN, rank_margin, cols, cd,
					 graph_margin);
}

dac_status
dac_clustering_ksearch(const dac_real *X, int d, dac_clustering *c, int window, int kmeans_steps)
{
	dac_sample_set	ss;
	dac_status	st;

	memset(&ss, 0, sizeof(ss));
	st = dac_ksearch_on(X, d, c, window, kmeans_steps, &ss);
	dac_sample_set_free(&ss);
	return st;
}

/*
 * Each of the m rows of S [m, d]: the first (lowest-index) row identical to
 * it, bytewise, its own index if none.  The canonical order places identical
 * rows side by side; perm [m] scratch.
 */
static dac_status
sample_duplicates(const dac_real *S, int m, int d, int *dup, int *perm)
{
	size_t		rb = sizeof(dac_real) * (size_t) d;
	dac_status	st = dac_canonical_order(S, m, d, perm);
	int			a = 0;

	while (st == DAC_OK && a < m)
	{
		int			b = a + 1,
					first = perm[a],
					j;

		while (b < m && memcmp(S + (size_t) perm[b] * d, S + (size_t) perm[a] * d, rb) == 0)
		{
			if (perm[b] < first)
				first = perm[b];
			b++;
		}
		for (j = a; j < b; j++)
			dup[perm[j]] = first;
		a = b;
	}
	return st;
}

/*
 * Labels 1 .. K of the m sample rows smp [m] (ascending) of X [n, d], in
 * lab [0, m), spread to every row in lab [n]: a sample row keeps its own,
 * the rest join the nearest mean of the sample's clusters (S [m, d] the
 * sample's rows).  cnt [K] scratch.  DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED.
 */
static dac_status
sample_to_rows(const dac_real *X, int n, int d, const dac_real *S, const int *smp, int m, int *lab, int K,
			   int *cnt)
{
	double	   *cen;
	int			i,
				r;

	if (m >= n)
		return DAC_OK;
	if ((cen = dac_alloc(sizeof(double) * (size_t) K * d)) == NULL)
		return DAC_ERR_NOMEM;
	dac_centroids(S, m, d, lab, K, cen, cnt);
	for (i = n - 1, r = m - 1; i >= 0; i--)
	{
		if ((i & 8191) == 0 && dac_interrupted())
		{
			dac_free(cen);
			return DAC_ERR_INTERRUPTED;
		}
		if (r >= 0 && smp[r] == i)
			lab[i] = lab[r--];
		else
			lab[i] = dac_nearest_mean(X + (size_t) i * d, cen, cnt, K, d);
	}
	dac_free(cen);
	return DAC_OK;
}

double
dac_graph_stage_bytes(int n, int d, int neighbors)
{
	double		m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE;

	if (neighbors < 1)
		return 0;
	/*
	 * distances, the sample, labels and ids (and the finer partition's),
	 * the repeated rows' order (16 bytes a row), the communities' means, θ
	 * at most m clusters, and merging them (m² doubles at most)
	 */
	return 16.0 * m + sizeof(float) * m * m + sizeof(dac_real) * (m * d + m) + sizeof(int) * (2.0 * n + 6 * m + 2) +
		sizeof(double) * (m * m + m) +
		sizeof(double) * (m + 1) * (d + 1) + sizeof(dac_real) * m * 2 * (d + 1) +
		dac_graph_bytes((int) m, neighbors) + 256 +
	/* the nodes' order by distance from the mean (its keys, the mean), the graph renamed in it */
		(16.0 + 2.0 * sizeof(int)) * m + sizeof(double) * d + dac_graph_permute_bytes((int) m, neighbors) +
	/* the two scales' silhouettes: the rows, both labellings, the counts and sums */
		sizeof(int) * (4.0 * m + 1) + sizeof(double) * (m + 1);
}

typedef struct
{
	double		key;
	int			idx;
} central_key;

static int
cmp_central_key(const void *a, const void *b)
{
	const central_key *x = a,
			   *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * The rows of S [m, d] nearest their mean first (ties: by index): ord [m].
 * DAC_ERR_NOMEM.
 */
static dac_status
central_order(const dac_real *S, int m, int d, int *ord)
{
	central_key *key = dac_alloc(sizeof(central_key) * (size_t) (m > 0 ? m : 1));
	double	   *mu = dac_alloc_zero(sizeof(double) * (size_t) (d > 0 ? d : 1));
	int			r,
				j;

	if (key == NULL || mu == NULL)
	{
		dac_free(key);
		dac_free(mu);
		return DAC_ERR_NOMEM;
	}
	for (r = 0; r < m; r++)
		for (j = 0; j < d; j++)
			mu[j] += S[(size_t) r * d + j];
	for (j = 0; j < d; j++)
		mu[j] /= m;
	for (r = 0; r < m; r++)
	{
		double		q = 0;

		for (j = 0; j < d; j++)
		{
			double		t = S[(size_t) r * d + j] - mu[j];

			q += t * t;
		}
		key[r].key = q;
		key[r].idx = r;
	}
	qsort(key, (size_t) m, sizeof(central_key), cmp_central_key);
	for (r = 0; r < m; r++)
		ord[r] = key[r].idx;
	dac_free(key);
	dac_free(mu);
	return DAC_OK;
}

/*
 * The mean silhouette, on the sample's distances D [m, m], of a partition
 * lab [m] (K clusters) of the graph's nodes, node r being sample row
 * ord[r].  buf [2m]: the sample's rows and the labels in its order; sum
 * [K], cnt [K]: dac_silhouette's scratch.
 */
static double
node_silhouette(const float *D, int m, const int *ord, const int *lab, int K, int *buf, double *sum, int *cnt)
{
	int			r;

	for (r = 0; r < m; r++)
	{
		buf[r] = r;
		buf[m + ord[r]] = lab[r];
	}
	return dac_silhouette(D, buf, m, buf + m, K, sum, cnt);
}

/*
 * The count asked for (k), between the graph's k communities lab [m] and
 * k-means at k on the same sample rows: the partition ahead on the sum of
 * the two measures' differences is kept, to lab (the communities on a tie):
 * its modularity (at resolution 1) in the graph g the communities came
 * from, and its mean silhouette on the sample's distances D [m, m].  The
 * graph follows classes along a manifold, k-means classes that are blobs;
 * modularity alone prefers equal shares (it kept k-means' halves of one
 * large class where a small one is apart), a silhouette alone prefers
 * blobs.  The sample S [m, d] and g are in the order ord [m] (rows nearest
 * the mean first; node r is sample row ord[r]), and k-means runs on the rows
 * in that order from DAC_REFEREE_STARTS k-means++ starts of a fixed seed:
 * row order and units do not move it.
 */
static dac_status
graph_referee(const dac_real *S, const float *D, int m, int d, const int *ord, const dac_graph *g, int *lab,
			  int k)
{
	dac_real   *P = dac_alloc(sizeof(dac_real) * (size_t) m * d);
	int		   *km = dac_alloc(sizeof(int) * (size_t) m * 4),
			   *cnt = dac_alloc(sizeof(int) * ((size_t) k + 1)),
				got = 0,
				r;
	double	   *cen = dac_alloc(sizeof(double) * (size_t) k * (d + 2)),
			   *dist = dac_alloc(sizeof(double) * ((size_t) m + DAC_NEAREST_TILE + tiled_size(m, d)));
	dac_rng		rng;
	dac_status	st = DAC_OK;

	if (P == NULL || km == NULL || cnt == NULL || cen == NULL || dist == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	for (r = 0; r < m; r++)
		memcpy(P + (size_t) r * d, S + (size_t) ord[r] * d, sizeof(dac_real) * d);
	tile_rows(P, m, d, dist + m + DAC_NEAREST_TILE);
	dac_rng_seed(&rng, 3);
	if ((st = seeded_count(P, m, d, k, DAC_REFEREE_STARTS, DAC_REFEREE_STEPS, &rng, km + m, km, cen, cnt, dist,
						   dist + m + DAC_NEAREST_TILE, &got)) != DAC_OK)
		goto done;
	if (got == k && dac_graph_quality(g, km, 1.0) - dac_graph_quality(g, lab, 1.0) +
		node_silhouette(D, m, ord, km, k, km + 2 * m, dist, cnt) -
		node_silhouette(D, m, ord, lab, k, km + 2 * m, dist, cnt) > 0)
		memcpy(lab, km, sizeof(int) * (size_t) m);
done:
	dac_free(P);
	dac_free(km);
	dac_free(cnt);
	dac_free(cen);
	dac_free(dist);
	return st;
}

double
dac_graph_referee_bytes(int n, int d)
{
	double		m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE;

	/* the sample in order, four label sets, means and counts (k at most m), distances, its rows by eight and a block */
	return sizeof(dac_real) * m * d + sizeof(int) * (5.0 * m + 1) +
		sizeof(double) * (m * (d + 2) + m + DAC_NEAREST_TILE + (double) tiled_size((int) m, d) +
						  DAC_NEAREST_TILE * (double) d);
}

/*
 * Whether the finer partition fine [m] (Kf communities) holds against the
 * coarser lab [m] (K): its mean silhouette on the sample's distances D
 * [m, m] is at most DAC_GRAPH_FINE_MARGIN below theirs.  Both label the
 * sample's rows in the order ord [m] (node r is sample row ord[r]).
 */
static dac_status
finer_holds(const float *D, int m, const int *ord, const int *lab, int K, const int *fine, int Kf, int *holds)
{
	int		   *buf = dac_alloc(sizeof(int) * (size_t) m * 2),
			   *cnt = dac_alloc(sizeof(int) * ((size_t) m + 1));
	double	   *sum = dac_alloc(sizeof(double) * ((size_t) m + 1));
	dac_status	st = DAC_ERR_NOMEM;

	if (buf != NULL && cnt != NULL && sum != NULL)
	{
		*holds = node_silhouette(D, m, ord, fine, Kf, buf, sum, cnt) >=
			node_silhouette(D, m, ord, lab, K, buf, sum, cnt) - DAC_GRAPH_FINE_MARGIN;
		st = DAC_OK;
	}
	dac_free(buf);
	dac_free(cnt);
	dac_free(sum);
	return st;
}

dac_status
dac_graph_on(const dac_real *X, int d, dac_clustering *c, int neighbors, double resolution,
			 double merge_share, int from_clusters, int k_min, int k_max, dac_sample_set *ss)
{
	int			n = c->n,
				m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE,
				K = 0,
				Kf = 0,
				r;
	float	   *D;
	dac_real   *S;
	int		   *smp,
			   *fine = NULL,
			   *lab = NULL,
			   *cnt = NULL;
	int		   *ord = NULL,
			   *tmp = NULL;
	dac_graph	g,
				gp;
	dac_status	st = DAC_OK;

	memset(&g, 0, sizeof(g));
	memset(&gp, 0, sizeof(gp));
	if (neighbors < 1 || !(resolution > 0) || n < 3)
		return DAC_OK;
	if ((st = dac_sample_set_make(X, n, d, ss)) != DAC_OK)
		return st;
	D = ss->D;
	S = ss->S;
	smp = ss->smp;
	lab = dac_alloc(sizeof(int) * (size_t) n);
	cnt = dac_alloc(sizeof(int) * ((size_t) m + 1));
	if (!lab || !cnt)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	if ((st = sample_duplicates(S, m, d, cnt, lab)) != DAC_OK ||
		(st = dac_knn_graph(D, m, neighbors, cnt, &g)) != DAC_OK)
		goto done;

	/*
	 * Leiden visits the nodes in their order, and its ties go to the first:
	 * the nodes renamed in the order of their distance from the sample's
	 * mean, which a change of the rows far below their precision barely
	 * moves (the canonical order, a hash of the rows' bytes, it redraws).
	 * Renamed back before the rest of the rows join.
	 */
	ord = dac_alloc(sizeof(int) * (size_t) m);
	tmp = dac_alloc(sizeof(int) * (size_t) m);
	if (ord == NULL || tmp == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	if ((st = central_order(S, m, d, ord)) != DAC_OK || (st = dac_graph_permute(&g, ord, &gp)) != DAC_OK)
		goto done;
	dac_graph_free(&g);
	g = gp;
	memset(&gp, 0, sizeof(gp));
	for (r = 0; r < m; r++)
		lab[r] = c->labels[smp[ord[r]]];
	if (k_min == 0 && merge_share > 0)
	{
		fine = dac_alloc(sizeof(int) * (size_t) m);
		if (fine == NULL)
		{
			st = DAC_ERR_NOMEM;
			goto done;
		}
		memcpy(fine, lab, sizeof(int) * (size_t) m);
	}
	if ((st = dac_graph_partition(&g, resolution, from_clusters, lab, &K)) != DAC_OK)
		goto done;

	/*
	 * Two scales, with no count asked for and merge_share above 0 (at 0,
	 * the resolution's communities alone).  Where the resolution finds more
	 * than one community, they are counted at DAC_GRAPH_FINE times it (a
	 * resolution coarse enough to keep a class whole merges classes in
	 * groups of several), unless that partition's mean silhouette is more
	 * than DAC_GRAPH_FINE_MARGIN below theirs.  Otherwise (and where it finds
	 * one), the finer partition's communities are merged while two share
	 * more than merge_share of the smaller one's links, and that partition
	 * is kept when DAC_GRAPH_MANY or more remain (a group of many classes).
	 */
	if (fine != NULL)
	{
		int			keep;

		if ((st = dac_graph_partition(&g, resolution * DAC_GRAPH_FINE, from_clusters, fine, &Kf)) != DAC_OK)
			goto done;
		keep = 0;
		if (K >= 2 && (st = finer_holds(D, m, ord, lab, K, fine, Kf, &keep)) != DAC_OK)
			goto done;
		if (!keep)
		{
			if ((st = dac_graph_merge_share(&g, merge_share, fine, &Kf)) != DAC_OK)
				goto done;
			keep = c->share_merged = Kf >= DAC_GRAPH_MANY;
		}
		if (keep)
		{
			memcpy(lab, fine, sizeof(int) * (size_t) m);
			K = Kf;
		}
	}
	/* too few: the resolution doubled, from these communities, until there are enough */
	if (k_min > m)
		k_min = m;
	if (k_min > 0 && K < k_min)
	{
		double		gam = resolution;
		int			t;

		for (t = 0; t < 40 && K < k_min; t++)
		{
			gam *= 2;
			if ((st = dac_graph_partition(&g, gam, 1, lab, &K)) != DAC_OK)
				goto done;
		}
		if (K > k_min && (st = dac_graph_merge(&g, resolution, lab, &K, k_min)) != DAC_OK)
			goto done;
	}
	/* too many: the pairs whose merging costs the least modularity, merged */
	if (k_max > 0 && K > k_max && (st = dac_graph_merge(&g, resolution, lab, &K, k_max)) != DAC_OK)
		goto done;
	if (k_min > 1 && K == k_min && k_min < m && (st = graph_referee(S, D, m, d, ord, &g, lab, K)) != DAC_OK)
		goto done;
	for (r = 0; r < m; r++)
		tmp[ord[r]] = lab[r];
	memcpy(lab, tmp, sizeof(int) * (size_t) m);
	if ((st = sample_to_rows(X, n, d, S, smp, m, lab, K, cnt)) != DAC_OK)
		goto done;
	if ((st = adopt_labels(c, lab, K, cnt)) == DAC_OK)
		c->graphed = 1;
done:
	dac_graph_free(&g);
	dac_graph_free(&gp);
	dac_free(fine);
	dac_free(lab);
	dac_free(cnt);
	dac_free(ord);
	dac_free(tmp);
	return st;
}

dac_status
dac_clustering_graph(const dac_real *X, int d, dac_clustering *c, int neighbors, double resolution,
					 double merge_share, int from_clusters, int k_min, int k_max)
{
	dac_sample_set	ss;
	dac_status	st;

	memset(&ss, 0, sizeof(ss));
	st = dac_graph_on(X, d, c, neighbors, resolution, merge_share, from_clusters, k_min, k_max, &ss);
	dac_sample_set_free(&ss);
	return st;
}

static int	ridge_merge(const dac_real *X, int n, int *lab, int K, int target);

/*
 * What opts.k_exact and opts.k_max do where the graph stage did not: the
 * count moved into [k_min, k_max] (0: no bound) as the count search moves
 * it (merging the closest means, splitting the widest cluster), a cluster
 * that cannot split (one point) ending it early.  θ: a Gaussian cluster's
 * refit from its members (each σ at least the smallest the clusters had);
 * otherwise the θ of the cluster most of its members came from (a merged
 * cluster keeps its larger part's, a split one its parent's).  Ids in order
 * of first appearance.  DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED.
 */
dac_status
dac_force_count(const dac_real *X, int d, dac_clustering *c, int k_min, int k_max, int gaussian)
{
	int			n = c->n,
				K = c->num_clusters,
				target = K,
				top,
				got,
				i,
				k,
				next = 0,
				tdim = c->theta_dim > 0 ? c->theta_dim : 1;
	int		   *lab = NULL,
			   *cnt = NULL,
			   *idx = NULL,
			   *newid = NULL;
	double	   *cen = NULL;
	dac_real   *theta = NULL;
	dac_status	st = DAC_OK;

	if (k_min > 0 && target < k_min)
		target = k_min;
	if (k_max > 0 && target > k_max)
		target = k_max;
	if (target == K || K < 1)
		return DAC_OK;
	if (target > n)
		target = n;
	if (target == K)
		return DAC_OK;
	top = (K > target ? K : target) + 2;
	lab = dac_alloc(sizeof(int) * (size_t) n);
	idx = dac_alloc(sizeof(int) * (size_t) n);
	cnt = dac_alloc_zero(sizeof(int) * (size_t) top * 2);
	newid = dac_alloc_zero(sizeof(int) * (size_t) top);
	cen = dac_alloc(sizeof(double) * (size_t) top * (d + 2));
	if (!lab || !idx || !cnt || !newid || !cen)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	memcpy(lab, c->labels, sizeof(int) * (size_t) n);
	got = d == 2 && K > target && K <= DAC_RIDGE_MAX ? ridge_merge(X, n, lab, K, target) : 0;
	if (got == 0)
		got = move_count(X, n, d, lab, K, target, cen, cnt);
	else if (got == -2)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	if (got < 0)
	{
		st = DAC_ERR_INTERRUPTED;
		goto done;
	}
	theta = dac_alloc_zero(sizeof(dac_real) * (size_t) got * tdim);
	if (theta == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	/* ids in order of first appearance */
	for (i = 0; i < n; i++)
	{
		if (lab[i] <= 0)
			continue;
		if (newid[lab[i] - 1] == 0)
			newid[lab[i] - 1] = ++next;
		lab[i] = newid[lab[i] - 1];
	}
	if (gaussian && c->theta_dim == 2 * d)
	{
		/* each θ refit (offsets in cnt) */
		if ((st = fit_thetas(X, n, d, lab, next, c->theta, K, theta, idx, cnt)) != DAC_OK)
			goto done;
	}
	else if (c->theta_dim > 0)
	{
		/* the old cluster most of each new one's members came from: (new, old) pairs sorted */
		int64_t    *key = dac_alloc(sizeof(int64_t) * ((size_t) n + 1));
		int			run = 0,
					bestrun = 0;

		if (key == NULL)
		{
			st = DAC_ERR_NOMEM;
			goto done;
		}
		for (i = 0, k = 0; i < n; i++)
			if (lab[i] > 0 && c->labels[i] > 0)
				key[k++] = (int64_t) lab[i] * (K + 1) + c->labels[i];
		qsort(key, (size_t) k, sizeof(int64_t), dac_cmp_i64);
		for (i = 0; i < k; i++)
		{
			int			nw = (int) (key[i] / (K + 1)),
						old = (int) (key[i] % (K + 1));

			run = i > 0 && key[i] == key[i - 1] ? run + 1 : 1;
			if (i == 0 || nw != (int) (key[i - 1] / (K + 1)))
				bestrun = 0;
			if (run > bestrun)
			{
				bestrun = run;
				memcpy(theta + (size_t) (nw - 1) * tdim, c->theta + (size_t) (old - 1) * tdim,
					   sizeof(dac_real) * tdim);
			}
		}
		dac_free(key);
	}
	memcpy(c->labels, lab, sizeof(int) * (size_t) n);
	dac_free(c->theta);
	c->theta = theta;
	theta = NULL;
	c->num_clusters = next;
done:
	dac_free(lab);
	dac_free(idx);
	dac_free(cnt);
	dac_free(newid);
	dac_free(cen);
	dac_free(theta);
	return st;
}

/* dac_clustering_em without EM steps: 0 when out of memory. */
int
dac_clustering_reassign(const dac_real *X, int d, dac_clustering *out)
{
	return dac_clustering_em(X, d, out, 0) == DAC_OK;
}

/* The error of a step after the passes (EM, noise): interrupted or out of memory. */
dac_status
dac_step_failed(dac_status st, int n, dac_error *err)
{
	if (st == DAC_ERR_INTERRUPTED)
		return dac_fail(err, st, "interrupted");
	if (st != DAC_OK)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
	return DAC_OK;
}

/*
 * The clustering's LL: the mean over points not noise of log Σ_k (π_k +
 * 1e-10) p(x_i | θ_k), π_k the share of cluster k; each cluster's density
 * evaluated over all the points at once.
 */
/* rows of a chunk of dac_mixture_ll */
#define MIX_CHUNK 256

/* lw [K]: log(π_k + 1e-10), π_k cluster k's share of the points not noise; returns their count */
static int
mixture_log_weights(const int *labels, int n, int K, double *lw)
{
	int			kept = 0,
				i,
				k;

	for (k = 0; k < K; k++)
		lw[k] = 0;
	for (i = 0; i < n; i++)
		if (labels[i] > 0)
		{
			lw[labels[i] - 1] += 1;
			kept++;
		}
	for (k = 0; k < K; k++)
		lw[k] = log(lw[k] / (kept ? kept : 1) + 1e-10);
	return kept;
}

/*
 * Σ over rows i < m not noise (labels[i] > 0) of log Σ_k exp(rows[k][i] +
 * lw[k]), into *tot; the rows are the set's from row base on (a chunk's),
 * and the host's interrupt check runs at every 8,192nd row of the set, so
 * chunked calls check as often as one call: DAC_ERR_INTERRUPTED or DAC_OK.
 */
static dac_status
mixture_lse_sum(const dac_real *const *rows, const int *labels, int base, int m, int K, const double *lw,
				double *tot)
{
	int			i,
				k;

	for (i = 0; i < m; i++)
	{
		dac_lse		s = {0, 0};

		if (((base + i) & 8191) == 8191 && dac_interrupted())
			return DAC_ERR_INTERRUPTED;
		if (labels[i] <= 0)
			continue;
		for (k = 0; k < K; k++)
			dac_lse_add(&s, (double) rows[k][i] + lw[k]);
		*tot += dac_lse_value(&s);
	}
	return DAC_OK;
}

dac_status
dac_mixture_ll_rows(const dac_real *const *rows, const int *labels, int n, int K, double *lw, double *ll_out)
{
	int			kept = mixture_log_weights(labels, n, K, lw);
	double		tot = 0;
	dac_status	st = mixture_lse_sum(rows, labels, 0, n, K, lw, &tot);

	*ll_out = kept ? tot / kept : NAN;
	return st;
}

dac_status
dac_mixture_ll(const dac_density_ref *dr, const dac_real *X, const dac_clustering *out, double *ll_out)
{
	int			n = out->n,
				K = out->num_clusters,
				kept,
				k;
	double	   *lw = dac_alloc(sizeof(double) * (size_t) (K ? K : 1));
	dac_real   *ll = dac_alloc(sizeof(dac_real) * (size_t) (K ? K : 1) * MIX_CHUNK);
	const dac_real **rows = dac_alloc(sizeof(dac_real *) * (size_t) (K ? K : 1));
	dac_status	st = DAC_OK;
	double		tot = 0;
	int			d = dr->h->d,
				i0;

	if (!lw || !ll || !rows)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	kept = mixture_log_weights(out->labels, n, K, lw);
	/* rows in chunks, every cluster's density over a chunk at once */
	for (i0 = 0; i0 < n; i0 += MIX_CHUNK)
	{
		int			m = n - i0 < MIX_CHUNK ? n - i0 : MIX_CHUNK;

		if ((st = dac_head_ll_many(dr->h, dr->P, out->theta, K, X + (size_t) i0 * d, m, ll)) != DAC_OK)
			goto done;
		for (k = 0; k < K; k++)
			rows[k] = ll + (size_t) k * m;
		if ((st = mixture_lse_sum(rows, out->labels + i0, i0, m, K, lw, &tot)) != DAC_OK)
			goto done;
	}
	*ll_out = tot / kept;
done:
	dac_free(lw);
	dac_free(ll);
	dac_free(rows);
	return st;
}

/*
 * z2 [m]: the squared length of each point idx[0..m) (idx NULL: every point,
 * m = n) in its own cluster's normal coordinates (label 0: 0).  The points are
 * grouped by cluster once (a counting sort), and each cluster's density runs
 * over its own points only.
 */
dac_status
dac_own_sqdist(const dac_density_ref *dr, const dac_real *X, int d, const dac_clustering *out,
			   const int *idx, int m, double *z2)
{
	int			K = out->num_clusters,
				i,
				k;
	int		   *start = dac_alloc_zero(sizeof(int) * 2 * ((size_t) K + 2)),
			   *order = dac_alloc(sizeof(int) * (size_t) (m ? m : 1)),
			   *next;
	dac_real   *rows = dac_alloc(sizeof(dac_real) * (size_t) (m ? m : 1) * d),
			   *ll = dac_alloc(sizeof(dac_real) * (size_t) (m ? m : 1));
	double	   *q = dac_alloc(sizeof(double) * (size_t) (m ? m : 1));
	dac_status	st = DAC_OK;

	if (!start || !order || !rows || !ll || !q)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	next = start + K + 2;
	/* start[k] .. start[k + 1]: the points of cluster k (0: noise) in order[] */
	for (i = 0; i < m; i++)
	{
		z2[i] = 0;
		start[out->labels[idx ? idx[i] : i] + 1]++;
	}
	for (k = 0; k <= K; k++)
		start[k + 1] += start[k];
	for (k = 0; k <= K; k++)
		next[k] = start[k];
	for (i = 0; i < m; i++)
		order[next[out->labels[idx ? idx[i] : i]]++] = i;
	for (k = 1; k <= K && st == DAC_OK; k++)
	{
		int			c = start[k + 1] - start[k],
					j;

		if (c == 0)
			continue;
		if (dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			break;
		}
		for (j = 0; j < c; j++)
		{
			i = order[start[k] + j];
			memcpy(rows + (size_t) j * d, X + (size_t) (idx ? idx[i] : i) * d, sizeof(dac_real) * d);
		}
		st = dac_head_ll(dr->h, dr->P, out->theta + (size_t) (k - 1) * out->theta_dim, rows, c, ll, q);
		for (j = 0; j < c && st == DAC_OK; j++)
			z2[order[start[k] + j]] = q[j];
	}
done:
	dac_free(start);
	dac_free(order);
	dac_free(rows);
	dac_free(ll);
	dac_free(q);
	return st;
}

/*
 * What reassign and em_steps do for a flow, whose θ only the network can
 * give: the clusters' densities stay as the passes found them, and up to
 * max_steps EM steps refit the mixture weights alone (π_k = mean_i r_ik,
 * r_ik ∝ π_k p(x_i | θ_k), from the clusters' shares; they stop once the
 * mean log-likelihood rises by less than 1e-7); then every point moves to
 * the cluster under which, weighted, it is likeliest, and clusters left
 * empty are dropped.  The densities of all clusters at all points are
 * computed once ([K, n] values).
 */
dac_status
dac_flow_em(const dac_density_ref *dr, const dac_real *X, dac_clustering *out, int max_steps)
{
	int			n = out->n,
				K = out->num_clusters,
				i,
				k,
				t;
	dac_real   *ll = NULL;
	double	   *logpi = dac_alloc(sizeof(double) * 4 * (size_t) (K ? K : 1)),
			   *nk,
			   *v,
			   *p,
				prev = -INFINITY;
	int		   *newid = dac_alloc(sizeof(int) * (size_t) (K ? K : 1));
	char	   *keep = dac_alloc_zero((size_t) (K ? K : 1));
	size_t		bytes;
	dac_status	st = DAC_OK;

	if (!logpi || !newid || !keep || !dac_mul_size((size_t) K * n, sizeof(dac_real), &bytes) ||
		(ll = dac_alloc(bytes ? bytes : 1)) == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	nk = logpi + K;
	v = nk + K;					/* a row's log π_k + ll_k, and its responsibilities */
	p = v + K;
	if ((st = dac_head_ll_many(dr->h, dr->P, out->theta, K, X, n, ll)) != DAC_OK)
		goto done;
	for (k = 0; k < K; k++)
		nk[k] = 0;
	for (i = 0; i < n; i++)
		if (out->labels[i] > 0)
			nk[out->labels[i] - 1] += 1;
	for (k = 0; k < K; k++)
		logpi[k] = nk[k] > 0 ? log(nk[k] / n) : -INFINITY;
	out->em_steps = 0;
	for (t = 0; t < max_steps; t++)
	{
		double		tot = 0;

		memset(nk, 0, sizeof(double) * K);
		for (i = 0; i < n; i++)
		{
			if (i % 8192 == 8191 && dac_interrupted())
			{
				st = DAC_ERR_INTERRUPTED;
				goto done;
			}
			for (k = 0; k < K; k++)
				v[k] = logpi[k] + ll[(size_t) k * n + i];
			tot += dac_logsumexp(v, K, -INFINITY, p);
			for (k = 0; k < K; k++)
				nk[k] += p[k];
		}
		for (k = 0; k < K; k++)
			logpi[k] = nk[k] > 1e-9 ? log(nk[k] / n) : -INFINITY;
		out->em_steps++;
		tot /= n;
		if (tot - prev < 1e-7)
			break;
		prev = tot;
	}
	out->reassigned = 0;
	for (i = 0; i < n; i++)
	{
		int			best = -1;
		double		sc = -INFINITY;

		if (out->labels[i] <= 0)
			continue;
		for (k = 0; k < K; k++)
		{
			double		v = logpi[k] + ll[(size_t) k * n + i];

			if (logpi[k] > -INFINITY && (best < 0 || v > sc))
			{
				sc = v;
				best = k;
			}
		}
		if (best >= 0 && best + 1 != out->labels[i])
		{
			out->labels[i] = best + 1;
			out->reassigned++;
		}
	}
	for (i = 0; i < n; i++)
		if (out->labels[i] > 0)
			keep[out->labels[i] - 1] = 1;
	renumber_kept(out, keep, newid);
done:
	dac_free(ll);
	dac_free(logpi);
	dac_free(newid);
	dac_free(keep);
	return st;
}

/*
 * θ refined (theta_steps): each found cluster's flow context is moved by up
 * to `steps` Adam steps (rate `rate`, the moments' decays 0.9 and 0.999) up
 * the mean log-density of its members, at most DAC_REFINE_ROWS of them (an
 * even spread in the set's order), the flow's weights fixed.  The network
 * amortises θ over sets; these steps fit it to this set's points.  A
 * cluster keeps the θ under which its rows were likeliest of those tried
 * (the pass's, then after each step), so no cluster's fit falls.
 */
dac_status
dac_flow_refine(const dac_density_ref *dr, const dac_real *X, dac_clustering *out, int steps,
				double rate)
{
	const dac_flow *f = &dr->h->flow;
	int			n = out->n,
				K = out->num_clusters,
				d = f->d,
				C = f->C,
				k;
	size_t		cap = n < DAC_REFINE_ROWS ? (size_t) (n ? n : 1) : DAC_REFINE_ROWS;
	int		   *idx = dac_alloc(sizeof(int) * (size_t) (n ? n : 1));
	dac_real   *rows = dac_alloc(sizeof(dac_real) * cap * d),
			   *ll = dac_alloc(sizeof(dac_real) * cap),
			   *dll = dac_alloc(sizeof(dac_real) * cap),
			   *th = dac_alloc(sizeof(dac_real) * 4 * (size_t) C);
	dac_arena	ar;
	dac_status	st = DAC_OK;

	dac_arena_init(&ar, 0);
	if (!idx || !rows || !ll || !dll || !th)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	for (k = 1; k <= K && st == DAC_OK; k++)
	{
		dac_real   *theta = out->theta + (size_t) (k - 1) * out->theta_dim,
				   *g = th + C,
				   *m1 = th + 2 * C,
				   *m2 = th + 3 * C;
		double		best = -INFINITY;
		int			cnt = 0,
					take,
					i,
					j,
					t;

		for (i = 0; i < n; i++)
			if (out->labels[i] == k)
				idx[cnt++] = i;
		if (cnt == 0)
			continue;
		take = cnt < DAC_REFINE_ROWS ? cnt : DAC_REFINE_ROWS;
		for (i = 0; i < take; i++)
			memcpy(rows + (size_t) i * d, X + (size_t) idx[(size_t) i * cnt / take] * d,
				   sizeof(dac_real) * d);
		memcpy(th, theta, sizeof(dac_real) * C);
		memset(m1, 0, sizeof(dac_real) * 2 * C);
		for (i = 0; i < take; i++)
			dll[i] = (dac_real) (1.0 / take);
		for (t = 0; t <= steps; t++)
		{
			dac_arena_mark empty = {NULL, 0, 0};
			dac_flow_cache fc;
			double		mean = 0,
						b1 = 1 - pow(0.9, t + 1),
						b2 = 1 - pow(0.999, t + 1);

			if (dac_interrupted())
			{
				st = DAC_ERR_INTERRUPTED;
				break;
			}
			dac_arena_reset_to(&ar, empty);
			if ((st = dac_flow_forward(f, dr->P, th, rows, 1, take, t == steps, &ar, &fc, ll,
									   NULL)) != DAC_OK)
				break;
			for (i = 0; i < take; i++)
				mean += ll[i];
			mean /= take;
			if (!isfinite(mean))
				break;
			if (mean > best)
			{
				best = mean;
				memcpy(theta, th, sizeof(dac_real) * C);
			}
			if (t == steps)
				break;
			memset(g, 0, sizeof(dac_real) * C);
			if ((st = dac_flow_backward(f, dr->P, NULL, &fc, dll, NULL, g, &ar)) != DAC_OK)
				break;
			for (j = 0; j < C; j++)
			{
				m1[j] = (dac_real) (0.9 * m1[j] + 0.1 * g[j]);
				m2[j] = (dac_real) (0.999 * m2[j] + 0.001 * g[j] * g[j]);
				th[j] += (dac_real) (rate * (m1[j] / b1) / (sqrt(m2[j] / b2) + 1e-8));
			}
		}
	}
done:
	dac_arena_free(&ar);
	dac_free(idx);
	dac_free(rows);
	dac_free(ll);
	dac_free(dll);
	dac_free(th);
	return st;
}

/* ---------------------------------------------------------------- noise (dac.noise) */

/*
 * q under a Gaussian whose z has the members' second moments S has mean
 * tr S and variance 2 tr S²; q / c read as χ²_ν with the same two moments
 * gives c = tr S² / tr S, ν = (tr S)² / tr S².  The members' own S
 * overstates tr S² by about (tr S)² / m: the estimate below is unbiased
 * under a Gaussian, then kept in [(tr S)² / d, (tr S)²].
 */
dac_status
dac_noise_tail_shape(const dac_real *X, int d, const double *mu, const double *sd, const int *idx, int m,
					 double *scale, double *dof)
{
	int			step = m > DAC_NOISE_SHAPE_ROWS ? (m + DAC_NOISE_SHAPE_ROWS - 1) / DAC_NOISE_SHAPE_ROWS : 1,
				r = (m + step - 1) / step,
				a,
				b,
				j;
	double	   *Z,
				t1 = 0,
				t2 = 0;

	*scale = 1;
	*dof = d;
	if (r < 4)
		return DAC_OK;
	Z = dac_alloc(sizeof(double) * (size_t) r * d);
	if (Z == NULL)
		return DAC_ERR_NOMEM;
	for (a = 0; a < r; a++)
		for (j = 0; j < d; j++)
			Z[(size_t) a * d + j] = ((double) X[(size_t) idx[a * step] * d + j] - mu[j]) / sd[j];
	/* tr S = Σ_a |z_a|² / r; tr S² = Σ_ab (z_a · z_b)² / r² */
	for (a = 0; a < r; a++)
	{
		if (a % 16 == 15 && dac_interrupted())
		{
			dac_free(Z);
			return DAC_ERR_INTERRUPTED;
		}
		for (b = 0; b <= a; b++)
		{
			double		g = 0;

			for (j = 0; j < d; j++)
				g += Z[(size_t) a * d + j] * Z[(size_t) b * d + j];
			t2 += (a == b ? 1 : 2) * g * g;
			if (a == b)
				t1 += g;
		}
	}
	dac_free(Z);
	t1 /= r;
	t2 = (double) r / ((r - 1.0) * (r + 2.0)) * (t2 / r - t1 * t1);
	t2 = fmin(fmax(t2, t1 * t1 / d), t1 * t1);
	if (t1 > 0 && t2 > 0)
	{
		*scale = t2 / t1;
		*dof = t1 * t1 / t2;
	}
	return DAC_OK;
}

/*
 * The squared distance, in the metric of σ [d], from row i of X [n, d] to
 * its nearest other row, whose index goes to *at (−1 when n is 1); NAN when
 * interrupted.
 */
static double
nearest_sq(const dac_real *X, int n, int d, int i, const double *sd, int *at)
{
	double		best = INFINITY;
	int			j,
				l;

	*at = -1;
	for (j = 0; j < n; j++)
	{
		double		q = 0;

		if (j % 4096 == 4095 && dac_interrupted())
			return NAN;
		if (j == i)
			continue;
		for (l = 0; l < d && q < best; l++)
		{
			double		u = ((double) X[(size_t) i * d + l] - X[(size_t) j * d + l]) / sd[l];

			q += u * u;
		}
		if (q < best)
		{
			best = q;
			*at = j;
		}
	}
	return best;
}

/*
 * Whether row i is isolated: its nearest row is at least
 * DAC_NOISE_ISOLATION times as far from it as that row's own nearest is
 * from that row (in the metric of σ).  -1 when interrupted.
 */
static int
isolated(const dac_real *X, int n, int d, int i, const double *sd)
{
	int			at,
				at2;
	double		ri = nearest_sq(X, n, d, i, sd, &at),
				rj;

	if (isnan(ri))
		return -1;
	if (at < 0)
		return 0;
	rj = nearest_sq(X, n, d, at, sd, &at2);
	if (isnan(rj))
		return -1;
	return rj > 0 && ri >= DAC_NOISE_ISOLATION * DAC_NOISE_ISOLATION * rj;
}

dac_status
dac_clustering_noise(const dac_real *X, int d, dac_clustering *c, int gaussian, double noise_level,
					 int min_size, const double *z2, int unselected)
{
	dac_mixture mix;
	dac_status	st;
	int			i,
				k,
				next = 0;
	int		   *newid,
			   *slot,
			   *order = NULL,
			   *start = NULL;
	double	   *shape = NULL;
	char	   *tail = NULL;
	double		lim = log(noise_level);
	int			claimed = 0;

	/*
	 * Points no pass selected are noise (unless no pass selected any point:
	 * then the set is one cluster, as without noise); the rest are tested
	 * under their cluster.
	 */
	for (i = 0; i < c->n && unselected; i++)
		claimed |= c->prob[i] > 0.5f;
	for (i = 0; i < c->n && claimed; i++)
		if (c->labels[i] > 0 && !(c->prob[i] > 0.5f))
			c->labels[i] = 0;
	/* clusters of fewer than min_size (at least 2) points are noise */
	{
		int		   *size = dac_alloc_zero(sizeof(int) * ((size_t) c->num_clusters + 1));

		if (size == NULL)
			return DAC_ERR_NOMEM;
		for (i = 0; i < c->n; i++)
			size[c->labels[i]]++;
		for (i = 0; i < c->n; i++)
			if (c->labels[i] > 0 && size[c->labels[i]] < (min_size > 2 ? min_size : 2))
				c->labels[i] = 0;
		dac_free(size);
	}
	st = dac_mixture_of_clusters(X, d, c, gaussian, &mix, NULL);
	if (st != DAC_OK)
		return st;
	newid = dac_alloc_zero(sizeof(int) * 2 * ((size_t) c->num_clusters + 1));
	shape = dac_alloc(sizeof(double) * 2 * ((size_t) mix.k + 1));
	order = dac_alloc(sizeof(int) * ((size_t) c->n + 1));
	start = dac_alloc(sizeof(int) * ((size_t) mix.k + 2));
	tail = dac_alloc_zero((size_t) c->n + 1);
	if (newid == NULL || shape == NULL || order == NULL || start == NULL || tail == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	slot = newid + c->num_clusters + 1;
	for (k = 0; k < mix.k; k++)
		slot[mix.id[k]] = k + 1;
	/*
	 * each cluster's tail: a flow's |z|² is χ²_d; the rest as
	 * dac_noise_tail_shape reads it, over the rows grouped by cluster in
	 * one pass, in order (after it, cluster k's members end at start[k] and
	 * begin where cluster k − 1's end)
	 */
	for (k = 0; k <= mix.k; k++)
		start[k] = 0;
	for (i = 0; i < c->n; i++)
		if (c->labels[i] > 0)
			start[slot[c->labels[i]]]++;
	for (k = 0; k < mix.k; k++)
		start[k + 1] += start[k];
	for (i = 0; i < c->n; i++)
		if (c->labels[i] > 0)
			order[start[slot[c->labels[i]] - 1]++] = i;
	for (k = 0; k < mix.k && st == DAC_OK; k++)
	{
		int			from = k ? start[k - 1] : 0;

		shape[2 * k] = 1;
		shape[2 * k + 1] = d;
		if (z2 == NULL)
			st = dac_noise_tail_shape(X, d, mix.mean + (size_t) k * d, mix.sd_eff + (size_t) k * d,
									  order + from, start[k] - from, &shape[2 * k], &shape[2 * k + 1]);
	}
	if (st != DAC_OK)
		goto done;
	/* the points in their cluster's tail, then those of them that are isolated */
	for (i = 0; i < c->n; i++)
	{
		int			s = c->labels[i] > 0 ? slot[c->labels[i]] - 1 : -1;

		if (i % 8192 == 0 && dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		tail[i] = s >= 0 &&
			dac_chi2_log_sf((z2 ? z2[i] : dac_mixture_sqdist(&mix, s, X + (size_t) i * d)) / shape[2 * s],
							shape[2 * s + 1]) < lim;
	}
	for (i = 0; i < c->n; i++)
		if (tail[i])
		{
			int			far = isolated(X, c->n, d, i, mix.sd_eff + (size_t) (slot[c->labels[i]] - 1) * d);

			if (far < 0)
			{
				st = DAC_ERR_INTERRUPTED;
				goto done;
			}
			if (far)
				c->labels[i] = 0;
		}
	/* drop the clusters left empty, renumber the rest in order, θ with them */
	for (i = 0; i < c->n; i++)
		if (c->labels[i] > 0)
			newid[c->labels[i]] = 1;
	for (k = 1; k <= c->num_clusters; k++)
		if (newid[k])
		{
			if (next != k - 1)
				memmove(c->theta + (size_t) next * c->theta_dim,
						c->theta + (size_t) (k - 1) * c->theta_dim, sizeof(dac_real) * c->theta_dim);
			newid[k] = ++next;
		}
	c->noise = 0;
	for (i = 0; i < c->n; i++)
	{
		if (c->labels[i] > 0)
			c->labels[i] = newid[c->labels[i]];
		else
			c->noise++;
	}
	c->num_clusters = next;
done:
	dac_free(tail);
	dac_free(start);
	dac_free(order);
	dac_free(shape);
	dac_free(newid);
	dac_mixture_free(&mix);
	return st;
}

/* ---------------------------------------------------------------- modes */

/*
 * A record's (w: weight, log-normaliser, mean (2), inverse covariance (a, b,
 * c: [[a, b], [b, c]])) log-density at (x, y), its weight's log given as lw
 */
static inline double
modes_log_density(const double *w, double lw, double x, double y)
{
	double		dx = x - w[2],
				dy = y - w[3];

	return lw + w[1] - 0.5 * (w[4] * dx * dx + 2 * w[5] * dx * dy + w[6] * dy * dy);
}

/* log(e^a + e^b) */
static inline double
log_add(double a, double b)
{
	return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

/*
 * The determinant of a 2-D covariance [[sxx, sxy], [sxy, syy]] after a floor
 * for collinear or equal rows, relative to its own spread, is added to its
 * variances (in place): not above 0 or not finite where there is no
 * covariance.
 */
static double
modes_floored_det(double *sxx, double sxy, double *syy)
{
	double		floor = 1e-9 * (*sxx + *syy) + 1e-300;

	*sxx += floor;
	*syy += floor;
	return *sxx * *syy - sxy * sxy;
}

/*
 * The ridgeline ratio of two 2-D Gaussians a and b (weights w, means mu,
 * inverse covariances P): the mixture's density is followed along the
 * ridgeline x(α) = [(1−α)P_a + αP_b]⁻¹ [(1−α)P_a μ_a + αP_b μ_b], α in
 * [0, 1], on which every mode of the pair lies (Ray and Lindsay); the ratio
 * is its lowest value over the lower of its two ends.  1: no dip, one mode.
 */
static double
ridge_ratio(const double *wa, const double *wb)
{
	/* w: weight, log-normaliser, mean (2), inverse covariance (a, b, c: [[a, b], [b, c]]) */
	double		lo = INFINITY,
				ends[2] = {0, 0};
	int			t;

	for (t = 0; t <= DAC_MODES_STEPS; t++)
	{
		double		al = (double) t / DAC_MODES_STEPS,
					pa = 1 - al,
					ma = pa * wa[4] + al * wb[4],
					mb = pa * wa[5] + al * wb[5],
					mc = pa * wa[6] + al * wb[6],
					ra = pa * (wa[4] * wa[2] + wa[5] * wa[3]) + al * (wb[4] * wb[2] + wb[5] * wb[3]),
					rb = pa * (wa[5] * wa[2] + wa[6] * wa[3]) + al * (wb[5] * wb[2] + wb[6] * wb[3]),
					det = ma * mc - mb * mb,
					x,
					y,
					f;
		x = t == 0 ? wa[2] : t == DAC_MODES_STEPS ? wb[2] : (mc * ra - mb * rb) / det;
		y = t == 0 ? wa[3] : t == DAC_MODES_STEPS ? wb[3] : (ma * rb - mb * ra) / det;
		f = log_add(modes_log_density(wa, wa[0], x, y), modes_log_density(wb, wb[0], x, y));
		if (t == 0)
			ends[0] = f;
		if (t == DAC_MODES_STEPS)
			ends[1] = f;
		if (f < lo)
			lo = f;
	}
	return exp(lo - fmin(ends[0], ends[1]));
}

static int
modes_root(int *parent, int k)
{
	while (parent[k] != k)
		k = parent[k] = parent[parent[k]];
	return k;
}

/*
 * Each of c's K clusters as the record ridge_ratio reads (g [K,
 * DAC_MODES_G]): its weight, log-normaliser, mean and inverse covariance,
 * or a NaN weight where it has under 3 rows or no covariance; parent [K]
 * set to each cluster itself.  *usable 0 (nothing done) when a row lies
 * outside every cluster: the stage runs before the noise test.
 */
static dac_status
modes_gaussians(const dac_real *X, const dac_clustering *c, double *g, int *parent, int *usable)
{
	int			n = c->n,
				K = c->num_clusters,
				i,
				a;
	double	   *s = g + (size_t) K * DAC_MODES_G;	/* [K, 6]: count, first member, sums about it */

	*usable = 0;
	/* each cluster's size, mean and covariance (sums about its first member, in double) */
	for (i = 0; i < n; i++)
	{
		int			k = c->labels[i] - 1;
		double	   *q,
				   *h,
					dx,
					dy;

		if (k < 0 || k >= K)
			return DAC_OK;
		if ((i & 4095) == 0 && dac_interrupted())
			return DAC_ERR_INTERRUPTED;
		q = s + (size_t) k * 6;
		h = g + (size_t) k * DAC_MODES_G;
		if (q[0] == 0)
		{
			q[1] = X[(size_t) i * 2];
			q[2] = X[(size_t) i * 2 + 1];
		}
		dx = X[(size_t) i * 2] - q[1];
		dy = X[(size_t) i * 2 + 1] - q[2];
		q[0] += 1;
		q[3] += dx;
		q[4] += dy;
		/* second moments in the record's inverse-covariance slots until the end */
		h[4] += dx * dx;
		h[5] += dx * dy;
		h[6] += dy * dy;
	}
	for (a = 0; a < K; a++)
	{
		double	   *q = s + (size_t) a * 6,
				   *h = g + (size_t) a * DAC_MODES_G,
					m = q[0],
					ex,
					ey,
					sxx,
					sxy,
					syy,
					det;

		parent[a] = a;
		if (m < 3)
		{
			h[0] = NAN;			/* too few rows for a covariance: never linked */
			continue;
		}
		ex = q[3] / m;
		ey = q[4] / m;
		sxx = h[4] / m - ex * ex;
		sxy = h[5] / m - ex * ey;
		syy = h[6] / m - ey * ey;
		det = modes_floored_det(&sxx, sxy, &syy);
		if (!(det > 0) || !isfinite(det))
		{
			h[0] = NAN;
			continue;
		}
		h[0] = log(m / n);
		h[1] = -log(2 * M_PI) - 0.5 * log(det);
		h[2] = q[1] + ex;
		h[3] = q[2] + ey;
		h[4] = syy / det;
		h[5] = -sxy / det;
		h[6] = sxx / det;
	}
	*usable = 1;
	return DAC_OK;
}

/*
 * Whether one Gaussian (2-D, its rows' mean and full covariance) describes
 * the rows of two clusters, ia [na] and ib [nb] of X, at least as well as
 * their mixture of two (ga, gb: their records, as modes_gaussians reads
 * them; n the group's rows their weights are shares of), by Akaike's
 * criterion: the mixture's 6 more parameters (a mean, a covariance, a
 * weight) must raise the rows' log-likelihood by more than 6.  One pass over
 * the rows: the union's mean is the records' means weighted by their
 * counts.  -1 when interrupted.
 */
static int
modes_one_gaussian(const dac_real *X, const int *ia, int na, const int *ib, int nb, const double *ga,
				   const double *gb, int n)
{
	const int  *rows[2] = {ia, ib};
	const int	cnt[2] = {na, nb};
	const double *g[2] = {ga, gb};
	double		m = (double) na + nb,
				mx = 0,
				my = 0,
				sxx = 0,
				sxy = 0,
				syy = 0,
				det,
				one,
				two = 0,
				shift = log(n / m);
	int			p,
				i;

	for (p = 0; p < 2; p++)
	{
		mx += cnt[p] * g[p][2] / m;
		my += cnt[p] * g[p][3] / m;
	}
	for (p = 0; p < 2; p++)
		for (i = 0; i < cnt[p]; i++)
		{
			double		x = X[(size_t) rows[p][i] * 2],
						y = X[(size_t) rows[p][i] * 2 + 1];

			if ((i & 4095) == 4095 && dac_interrupted())
				return -1;
			sxx += (x - mx) * (x - mx);
			sxy += (x - mx) * (y - my);
			syy += (y - my) * (y - my);
			/* the row under the pair's mixture, its weights the pair's own shares */
			two += log_add(modes_log_density(ga, ga[0] + shift, x, y), modes_log_density(gb, gb[0] + shift, x, y));
		}
	sxx /= m;
	sxy /= m;
	syy /= m;
	/* the same floor as each cluster's own covariance */
	det = modes_floored_det(&sxx, sxy, &syy);
	if (!(det > 0) || !isfinite(det))
		return 0;
	/* the maximum log-likelihood of one Gaussian fitted to the rows */
	one = -0.5 * m * (2 * log(2 * M_PI) + log(det) + 2);
	return one >= two - DAC_MODES_PAIR_PARAMS;
}

/*
 * The count asked for, fewer than the clusters found, in 2-D: the clusters
 * as pieces (each a Gaussian of its members, as the modes stage reads them)
 * joined by single linkage on their pairs' ridgeline ratios (ridge_ratio),
 * the pair whose mixture dips least first, until target remain: a ring or a
 * band the passes cut up joins along itself before it joins a neighbour.  A
 * piece of under 3 rows, which has no covariance, joins the nearest mean of
 * a piece that has one, before any pair.  lab [n] (1 .. K) moved to target
 * clusters (ids 1 .. target).  Returns the count; 0 (nothing done) when a
 * row has no cluster or no piece a covariance; −1 when interrupted, −2 out
 * of memory.
 */
typedef struct ridge_edge
{
	double		w;
	int			a,
				b;
} ridge_edge;

static int
ridge_edge_cmp(const void *x, const void *y)
{
	const ridge_edge *p = x,
			   *q = y;

	if (p->w != q->w)
		return p->w > q->w ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static int
ridge_merge(const dac_real *X, int n, int *lab, int K, int target)
{
	double	   *g = dac_alloc_zero(sizeof(double) * (size_t) K * (DAC_MODES_G + 6)),
			   *cen = dac_alloc(sizeof(double) * ((size_t) K + 1) * 2);
	int		   *parent = dac_alloc(sizeof(int) * (size_t) K),
			   *cnt = dac_alloc(sizeof(int) * ((size_t) K + 1)),
				usable = 0,
				left = K,
				ret = -2,
				ne = 0,
				i,
				a,
				b;
	ridge_edge *e = dac_alloc(sizeof(ridge_edge) * ((size_t) K * (K - 1) / 2 + 1));
	dac_clustering view;

	if (g == NULL || cen == NULL || parent == NULL || cnt == NULL || e == NULL)
		goto done;
	memset(&view, 0, sizeof(view));
	view.n = n;
	view.num_clusters = K;
	view.labels = lab;
	if (modes_gaussians(X, &view, g, parent, &usable) != DAC_OK)
	{
		ret = -1;
		goto done;
	}
	if (!usable)
	{
		ret = 0;
		goto done;
	}
	dac_centroids(X, n, 2, lab, K, cen, cnt);
	for (a = 0; a < K; a++)
	{
		const double *ga = g + (size_t) a * DAC_MODES_G;

		if (dac_interrupted())
		{
			ret = -1;
			goto done;
		}
		if (isnan(ga[0]))
		{
			/* no covariance: an edge above every ratio, to the nearest mean that has one */
			double		best = INFINITY;
			int			to = -1;

			for (b = 0; b < K; b++)
				if (!isnan(g[(size_t) b * DAC_MODES_G]) && dac_centroid_sqdist(cen, a, b, 2) < best)
				{
					best = dac_centroid_sqdist(cen, a, b, 2);
					to = b;
				}
			if (to < 0)
			{
				ret = 0;		/* no piece has a covariance: nothing to link */
				goto done;
			}
			e[ne++] = (ridge_edge) {2, a < to ? a : to, a < to ? to : a};
			continue;
		}
		for (b = a + 1; b < K; b++)
			if (!isnan(g[(size_t) b * DAC_MODES_G]))
			{
				double		w = ridge_ratio(ga, g + (size_t) b * DAC_MODES_G);

				/* a ratio that overflowed links last */
				e[ne++] = (ridge_edge) {w >= 0 ? w : -1, a, b};
			}
	}
	qsort(e, (size_t) ne, sizeof(ridge_edge), ridge_edge_cmp);
	for (i = 0; i < ne && left > target; i++)
	{
		int			ra = modes_root(parent, e[i].a),
					rb = modes_root(parent, e[i].b);

		if (ra == rb)
			continue;
		parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
		left--;
	}
	/* each root's new id, in order of the roots */
	for (a = 0, b = 0; a < K; a++)
		cnt[a] = modes_root(parent, a) == a ? ++b : 0;
	for (i = 0; i < n; i++)
		lab[i] = cnt[modes_root(parent, lab[i] - 1)];
	ret = left;
done:
	dac_free(g);
	dac_free(cen);
	dac_free(parent);
	dac_free(cnt);
	dac_free(e);
	return ret;
}

/*
 * c's θ for its new labels lab [n] (ids 1 .. next; key [K]: each old
 * cluster's key, newid [key]: the key's new id): refit to its members for a
 * joined chain (pieces [root] >= chain), the cluster's own for the rest.
 * Members are grouped by new id in one pass.
 */
static dac_status
modes_refit(const dac_real *X, int d, dac_clustering *c, const int *lab, int next, const int *key,
			const int *pieces, const int *newid, int chain)
{
	int			n = c->n,
				K = c->num_clusters,
				tdim = c->theta_dim,
				a;
	dac_real   *theta = dac_alloc_zero(sizeof(dac_real) * (size_t) next * tdim);
	int		   *idx = dac_alloc(sizeof(int) * (size_t) n),
			   *at = dac_alloc(sizeof(int) * ((size_t) next + 2));

	if (theta == NULL || idx == NULL || at == NULL)
	{
		dac_free(theta);
		dac_free(idx);
		dac_free(at);
		return DAC_ERR_NOMEM;
	}
	group_members(lab, n, next, idx, at);
	for (a = 0; a < K; a++)
	{
		int			nw = newid[key[a]];

		if (nw == 0 || key[a] != a)
			continue;			/* an empty cluster, or a chain's piece: its root fits the chain */
		if (pieces[a] >= chain && tdim == 2 * d)
			dac_fit_theta(X, idx + at[nw], at[nw + 1] - at[nw], d, c->theta, K,
						  theta + (size_t) (nw - 1) * tdim);
		else
			memcpy(theta + (size_t) (nw - 1) * tdim, c->theta + (size_t) a * tdim, sizeof(dac_real) * tdim);
	}
	dac_free(c->theta);
	c->theta = theta;
	dac_free(idx);
	dac_free(at);
	return DAC_OK;
}

dac_status
dac_clustering_modes(const dac_real *X, int d, dac_clustering *c, double ratio, int chain, int kmeans_steps,
					 int *merged)
{
	int			n = c->n,
				K = c->num_clusters,
				next = 0,
				usable,
				i,
				a,
				b;
	double	   *g = NULL,
			   *best;
	int		   *parent = NULL,
			   *root,
			   *pieces,
			   *links,
			   *partner,
			   *at,
			   *lab = NULL;
	dac_status	st = DAC_OK;

	*merged = 0;
	if (d != 2 || K < 2 || n < 1)
		return DAC_OK;
	g = dac_alloc_zero(sizeof(double) * (size_t) K * (DAC_MODES_G + 7));
	parent = dac_alloc_zero(sizeof(int) * ((size_t) K * 6 + 2));
	lab = dac_alloc(sizeof(int) * (size_t) n * 2);
	if (g == NULL || parent == NULL || lab == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	root = parent + K;
	pieces = root + K;
	links = pieces + K;			/* per cluster, then per chain: its links to higher clusters */
	partner = links + K;
	at = partner + K;			/* [K + 2] */
	best = g + (size_t) K * (DAC_MODES_G + 6);	/* each cluster's likeliest partner's ratio */
	if ((st = modes_gaussians(X, c, g, parent, &usable)) != DAC_OK || !usable)
		goto done;
	/* the pairs with no dip below ratio of the lower end, linked: each link counted once, at its lower end */
	for (a = 0; a < K; a++)
	{
		const double *ga = g + (size_t) a * DAC_MODES_G;

		if (dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		for (b = a + 1; b < K && !isnan(ga[0]); b++)
		{
			const double *gb = g + (size_t) b * DAC_MODES_G;

			if (!isnan(gb[0]) && ridge_ratio(ga, gb) >= ratio)
			{
				int			ra = modes_root(parent, a),
							rb = modes_root(parent, b);

				links[a]++;
				if (ra != rb)
					parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
			}
		}
	}
	/*
	 * A chain of chain or more pieces is one cluster, and only a path or a
	 * ring of them: a band or a curve the passes cut up links each piece to
	 * the next, while the pieces of a field of rows (a country's cities) link
	 * to many of their neighbours, more links than pieces.  Every link lies
	 * within a chain, so a chain's links are its pieces' own.
	 */
	for (a = 0; a < K; a++)
		root[a] = modes_root(parent, a);
	for (a = 0; a < K; a++)
	{
		pieces[root[a]]++;
		if (root[a] != a)
			links[root[a]] += links[a];
	}
	for (a = 0; a < K; a++)
		if (pieces[a] >= chain && links[a] > pieces[a])
			pieces[a] = -pieces[a];
	/*
	 * and only a chain a deep dip (DAC_MODES_APART) parts from every cluster
	 * outside it: one that runs on into its neighbours at a ratio just under
	 * ratio is a stretch of a continuum, which a row more or less would cut
	 * elsewhere
	 */
	for (a = 0; a < K; a++)
	{
		const double *ga = g + (size_t) a * DAC_MODES_G;

		if (dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		for (b = a + 1; b < K && !isnan(ga[0]); b++)
		{
			int			ra = root[a],
						rb = root[b];

			if (ra == rb || isnan(g[(size_t) b * DAC_MODES_G]) || (pieces[ra] < chain && pieces[rb] < chain))
				continue;
			if (ridge_ratio(ga, g + (size_t) b * DAC_MODES_G) > DAC_MODES_APART)
			{
				if (pieces[ra] >= chain)
					pieces[ra] = -pieces[ra];
				if (pieces[rb] >= chain)
					pieces[rb] = -pieces[rb];
			}
		}
	}
	/* each cluster's key: its chain's root where the chain is joined, else itself */
	for (a = 0; a < K; a++)
	{
		parent[a] = pieces[root[a]] >= chain ? root[a] : a;
		if (parent[a] != a)
			(*merged)++;
	}
	/*
	 * Two clusters outside every joined chain, each the other's likeliest
	 * partner (its mixture with it dips least), become one where one
	 * Gaussian describes their rows as well as the two do (Akaike's
	 * criterion): a pass that cut one Gaussian cluster in two is undone,
	 * while two clusters one Gaussian does not describe stand.  A chain of
	 * pieces is no Gaussian: it is never paired (pairs of chains would join
	 * two rings about one centre).
	 */
	for (a = 0; a < K; a++)
	{
		partner[a] = -1;
		best[a] = -1;
	}
	for (a = 0; a < K; a++)
	{
		const double *ga = g + (size_t) a * DAC_MODES_G;

		if (dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		for (b = a + 1; b < K && !isnan(ga[0]) && pieces[root[a]] < chain; b++)
		{
			const double *gb = g + (size_t) b * DAC_MODES_G;
			double		r;

			if (isnan(gb[0]) || pieces[root[b]] >= chain)
				continue;
			r = ridge_ratio(ga, gb);
			/* ties: the lower index, as a scan of every other cluster in order finds it */
			if (r > best[a])
			{
				best[a] = r;
				partner[a] = b;
			}
			if (r > best[b])
			{
				best[b] = r;
				partner[b] = a;
			}
		}
	}
	group_members(c->labels, n, K, lab + n, at);
	for (a = 0; a < K; a++)
	{
		int			one;

		b = partner[a];
		if (b <= a || partner[b] != a)
			continue;
		one = modes_one_gaussian(X, lab + n + at[a + 1], at[a + 2] - at[a + 1], lab + n + at[b + 1],
								 at[b + 2] - at[b + 1], g + (size_t) a * DAC_MODES_G,
								 g + (size_t) b * DAC_MODES_G, n);
		if (one < 0)
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		if (one)
		{
			parent[b] = a;
			pieces[a] = chain;	/* θ refit to the pair's rows, as a chain's */
			(*merged)++;
		}
	}
	if (*merged == 0)
		goto done;
	/* ids in order of first appearance */
	for (a = 0; a < K; a++)
		links[a] = 0;			/* now each key's new id */
	for (i = 0; i < n; i++)
	{
		int			key = parent[c->labels[i] - 1];

		if (links[key] == 0)
			links[key] = ++next;
		lab[i] = links[key];
	}
	if (next == 1)
	{
		/*
		 * One cluster: the pieces stand where k-means separates the group
		 * cleanly (the one-cluster test, on a clustering of one cluster)
		 */
		dac_clustering one;

		memset(&one, 0, sizeof(one));
		one.n = n;
		one.num_clusters = 1;
		one.labels = lab;
		st = dac_one_check_on(X, d, &one, kmeans_steps, DAC_ONE_CHECK_MARGIN, 0, 0, NULL, 0, 0);
		dac_free(one.theta);
		if (st != DAC_OK || one.num_clusters > 1)
		{
			*merged = 0;
			goto done;
		}
	}
	if (c->theta_dim > 0 && (st = modes_refit(X, d, c, lab, next, parent, pieces, links, chain)) != DAC_OK)
	{
		*merged = 0;
		goto done;
	}
	memcpy(c->labels, lab, sizeof(int) * (size_t) n);
	c->num_clusters = next;
done:
	dac_free(g);
	dac_free(parent);
	dac_free(lab);
	return st;
}
