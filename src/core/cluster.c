/*
 * cluster.c
 *	  The clustering loop: run the network on the still-unassigned points
 *	  (rows compacted, which equals the authors' key masks), take logit > 0 as
 *	  the next cluster, repeat.  And ARI / NMI.
 */
#include "cluster.h"

#include "linalg.h"
#include "mixture.h"
#include "frame.h"
#include "graph.h"
#include "setnorm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

dac_cluster_opts
dac_cluster_opts_default(void)
{
	dac_cluster_opts o;

	o.max_passes = 50;
	o.leftover = DAC_LEFTOVER_OWN;
	o.random_anchors = 0;
	o.seed = 0;
	o.mem_limit = 0;
	o.min_size = 1;
	o.reassign = 0;
	o.em_steps = 0;
	o.noise = 0;
	o.canonical = 1;
	o.kmeans_steps = 0;
	o.k_search = 0;
	o.graph_neighbors = 0;
	o.graph_resolution = 0.05;
	o.graph_start = 1;
	o.k_exact = 0;
	o.k_max = 0;
	o.sample_size = 0;
	return o;
}

static const char *const leftover_names[] = {"best", "first", "own"};

const char *
dac_leftover_name(dac_leftover_policy p)
{
	return (unsigned) p < sizeof(leftover_names) / sizeof(*leftover_names) ? leftover_names[p] : "?";
}

int
dac_leftover_parse(const char *name, dac_leftover_policy *p)
{
	unsigned	i;

	for (i = 0; i < sizeof(leftover_names) / sizeof(*leftover_names); i++)
		if (strcmp(name, leftover_names[i]) == 0)
		{
			*p = (dac_leftover_policy) i;
			return 1;
		}
	return 0;
}

static int	use_sample(const dac_model *m, int n, const dac_cluster_opts *opts);

double
dac_cluster_bytes(const dac_model *m, int n, int dx, const dac_cluster_opts *opts)
{
	const dac_net *net = &m->net;
	double		d = net->cfg.dim_input;
	int			setnorm = net->cfg.input == DAC_INPUT_SETNORM;
	double		max_k = opts->max_passes < n ? opts->max_passes : n;

	/*
	 * labels, prob, active, tried, and the point indices or labels that
	 * min_size or reassign work on (one at a time); the compacted rows, θ per
	 * cluster (and leftovers'), per-cluster tables (EM's included); the pass
	 */
	/*
	 * the canonical order: a permuted copy of the set, the permutation, the
	 * labels and probabilities put back, the sort keys (16 bytes a row)
	 */
	double		canon = opts->canonical ? (sizeof(dac_real) * n * (double) dx + 7.0 * sizeof(int) * n) : 0;

	/* a normalised model: the normalised rows and the transform's scratch */
	if (setnorm)
		canon += sizeof(dac_real) * n * d + dac_setnorm_bytes(n, dx, (int) d);
	/*
	 * a scaled model: the rows in double, the framed rows, the order's and
	 * the frame's scratch, the permutation, labels and probabilities
	 */
	if (net->cfg.input == DAC_INPUT_SCALED)
		canon = (sizeof(double) + sizeof(dac_real)) * n * (double) dx + dac_frame_order_bytes(n, dx) +
			dac_frame_bytes(n, dx) + 3.0 * sizeof(int) * n;
	/*
	 * a flow: the densities of all clusters at all points when reassigning
	 * (flow_em), else the rows, densities and accumulators of one cluster's
	 * density over the points (place_points, mixture_ll, own_sqdist), and
	 * dac_head_ll's chunk
	 */
	if (net->cfg.density == DAC_DENSITY_MAF)
	{
		double		scratch,
					kept = dac_head_infer_bytes(&net->head, 1, n < 256 ? n : 256, &scratch);

		canon += sizeof(dac_real) * n * (d + 2) + sizeof(double) * 3.0 * n + sizeof(int) * (double) n
			+ kept + scratch + 64 * 8;
		if (opts->reassign || opts->em_steps > 0)
			canon += sizeof(dac_real) * (max_k + 1) * n;
	}
	/* the count searched (no density head): the sample's distances, labels, centroids */
	if (opts->k_search > 0 && net->cfg.density == DAC_DENSITY_NONE)
		canon += dac_ksearch_bytes(n, (int) d, opts->k_search, (int) max_k);
	if (opts->graph_neighbors > 0 && net->cfg.density == DAC_DENSITY_NONE)
		canon += dac_graph_stage_bytes(n, (int) d, opts->graph_neighbors);
	/* a count asked for: labels, members, pairs; means per cluster; the graph's merge table */
	if (opts->k_exact > 0 || opts->k_max > 0)
	{
		double		top = (opts->k_exact > opts->k_max ? opts->k_exact : opts->k_max) + max_k + 2;

		canon += (2.0 * sizeof(int) + sizeof(int64_t)) * n + (sizeof(double) * (d + 2) + 3 * sizeof(int)) * top +
			sizeof(dac_real) * top * (2 * d + 2) + sizeof(double) * 1000.0 * 1000.0;
	}
	return canon + 5.0 * sizeof(int) * n + sizeof(dac_real) * (n * d + (max_k + 1) * dac_net_theta_dim(net))
		+ (max_k + 1) * (2 * sizeof(int) + sizeof(double) * (5 + 5 * d) + 1) + sizeof(double) * d
		+ (use_sample(m, n, opts) ?
		   sizeof(dac_real) * (double) opts->sample_size * d + sizeof(double) * (max_k + 1) * d +
		   dac_net_infer_bytes(net, 1, opts->sample_size) : dac_net_infer_bytes(net, 1, n)) + 64 * 8;
}

void
dac_clustering_free(dac_clustering *c)
{
	dac_free(c->labels);
	dac_free(c->prob);
	dac_free(c->theta);
	dac_free(c->frame_center);
	c->labels = NULL;
	c->prob = NULL;
	c->theta = NULL;
	c->frame_center = NULL;
}

static double
logsumexp_add(double acc, double v)
{
	if (acc == -INFINITY)
		return v;
	if (v > acc)
		return v + log1p(exp(acc - v));
	return acc + log1p(exp(v - acc));
}

/*
 * θ of a diagonal Gaussian fitted to rows idx[0..m) of X: mean and standard
 * deviation per coordinate.  Each σ is at least the smallest σ among the
 * nfound θ given (found clusters), and at least 1e-6.
 */
static void
fit_theta(const dac_real *X, const int *idx, int m, int d, const dac_real *found, int nfound,
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

/* The density a clustering's θ describes: a head and its parameters (NULL: none). */
typedef struct density_ref
{
	const dac_head *h;
	const dac_real *P;
} density_ref;

/*
 * Put points idx[0..m) (idx NULL: points 0..m) each into the cluster that
 * fits it best among those with allowed[k] (NULL: all): under whose θ it is
 * most likely (the head's density, one cluster at a time over all the
 * points), plus logw[k] when given (log mixture weights), or without a
 * density head the nearest centroid of the allowed clusters' current members
 * (the points being placed excluded).  DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED.
 */
static dac_status
place_points(const density_ref *dr, const dac_real *X, int d, dac_clustering *out,
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
 * Clusters of fewer than min_size points give their points to the remaining
 * clusters (place_points), which are renumbered 1, 2, ... in discovery order
 * with their θ.  Nothing changes when no cluster is that large.
 */
static dac_status
dissolve_small(const density_ref *dr, const dac_real *X, int n, int d, dac_clustering *out,
			   int min_size)
{
	int			K = out->num_clusters,
				i,
				k,
				m = 0,
				kept = 0;
	int		   *size = dac_alloc_zero(sizeof(int) * (size_t) K * 2),
			   *idx = dac_alloc(sizeof(int) * (size_t) n);
	char	   *keep = dac_alloc_zero((size_t) K);
	int		   *newid;
	dac_status	st = DAC_OK;

	if (size == NULL || idx == NULL || keep == NULL)
	{
		dac_free(size);
		dac_free(idx);
		dac_free(keep);
		return DAC_ERR_NOMEM;
	}
	newid = size + K;
	for (i = 0; i < n; i++)
		size[out->labels[i] - 1]++;
	for (k = 0; k < K; k++)
		if ((keep[k] = size[k] >= min_size))
			kept++;
	if (kept > 0 && kept < K)
	{
		for (i = 0; i < n; i++)
			if (!keep[out->labels[i] - 1])
				idx[m++] = i;
		if ((st = place_points(dr, X, d, out, idx, m, keep, NULL)) == DAC_OK)
		{
			renumber_kept(out, keep, newid);
			out->dissolved = m;
		}
	}
	dac_free(size);
	dac_free(idx);
	dac_free(keep);
	return st;
}

/*
 * Up to max_steps EM steps on the found mixture, from θ_k and π_k = the
 * share of cluster k; then each point to the component under which it is
 * likeliest (place_points), clusters left empty dropped and the rest
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
			double		mx = -INFINITY,
						z = 0;

			/* a step over many points of many dimensions takes a while */
			if (i % 8192 == 0 && dac_interrupted())
			{
				st = DAC_ERR_INTERRUPTED;
				goto done;
			}
			for (k = 0; k < K; k++)
			{
				lp[k] = c0[k] - 0.5 * dac_gauss_sqdist(x, mu + (size_t) k * d, sd + (size_t) k * d, d);
				mx = fmax(mx, lp[k]);
			}
			/* below e^-40 of the likeliest a responsibility is taken as 0 */
			for (k = 0; k < K; k++)
				z += (r[k] = lp[k] - mx < -40 ? 0 : exp(lp[k] - mx));
			ll += mx + log(z);
			for (k = 0; k < K; k++)
			{
				double		w = r[k] / z;

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
		density_ref dr;

		memset(&gh, 0, sizeof(gh));
		gh.kind = DAC_DENSITY_GAUSSIAN;
		gh.d = d;
		dr.h = &gh;
		dr.P = NULL;
		if ((st = place_points(&dr, X, d, out, NULL, n, NULL, logpi)) != DAC_OK)
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

/* centroids [K, d] of the points labelled 1 .. K; cnt [K] */
static void
centroids(const dac_real *X, int n, int d, const int *lab, int K, double *cen, int *cnt)
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

/* 1 + the index of the mean nearest x among the K with members (cnt > 0); 0 if none */
static int
nearest_mean(const dac_real *x, const double *cen, const int *cnt, int K, int d)
{
	int			best = 0,
				k;
	double		bd = INFINITY;

	for (k = 0; k < K; k++)
	{
		double		dist;

		if (cnt[k] == 0)
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

dac_status
dac_clustering_kmeans(const dac_real *X, int d, dac_clustering *out, int max_steps)
{
	int			K = out->num_clusters,
				n = out->n,
				step,
				i,
				k;
	double	   *cen;
	int		   *cnt,
			   *newid;
	char	   *keep;
	dac_status	st = DAC_OK;

	if (K < 2 || max_steps < 1)
		return DAC_OK;
	cen = dac_alloc(sizeof(double) * (size_t) K * d);
	cnt = dac_alloc(sizeof(int) * (size_t) K * 2);
	keep = dac_alloc((size_t) K);
	if (cen == NULL || cnt == NULL || keep == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	newid = cnt + K;
	for (step = 0; step < max_steps; step++)
	{
		int			moved = 0;

		centroids(X, n, d, out->labels, K, cen, cnt);
		for (i = 0; i < n; i++)
		{
			int			best;

			if (out->labels[i] == 0)
				continue;
			if ((i & 8191) == 0 && dac_interrupted())
			{
				st = DAC_ERR_INTERRUPTED;
				goto done;
			}
			best = nearest_mean(X + (size_t) i * d, cen, cnt, K, d);
			if (best > 0 && best != out->labels[i])
			{
				out->labels[i] = best;
				moved++;
			}
		}
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
		centroids(X, n, d, lab, K, cen, cnt);
		for (a = 0; a < K; a++)
			for (b = a + 1; b < K; b++)
			{
				double		t = 0;
				int			j;

				for (j = 0; j < d; j++)
				{
					double		u = cen[(size_t) a * d + j] - cen[(size_t) b * d + j];

					t += u * u;
				}
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
		double	   *sse = cen + (size_t) (K + 1) * d;	/* [K] after the centroids, then a mean */
		int			worst = 0,
					far = -1;
		double		fd = -1;

		if (dac_interrupted())
			return -1;
		centroids(X, n, d, lab, K, cen, cnt);
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

/*
 * The mean silhouette of the labels lab over the sample rows smp [m], from
 * their distance matrix D [m, m] (lab of sample row r is lab[smp[r]]).
 * Points alone in their cluster count 0.  sum [K] scratch.
 */
static double
silhouette(const float *D, const int *smp, int m, const int *lab, int K, double *sum, int *cnt)
{
	double		tot = 0;
	int			r,
				q,
				k;

	memset(cnt, 0, sizeof(int) * (size_t) K);
	for (r = 0; r < m; r++)
		cnt[lab[smp[r]] - 1]++;
	for (r = 0; r < m; r++)
	{
		int			own = lab[smp[r]] - 1;
		double		a,
					b = INFINITY;

		memset(sum, 0, sizeof(double) * (size_t) K);
		for (q = 0; q < m; q++)
			sum[lab[smp[q]] - 1] += D[(size_t) r * m + q];
		if (cnt[own] < 2)
			continue;
		a = sum[own] / (cnt[own] - 1);
		for (k = 0; k < K; k++)
			if (k != own && cnt[k] > 0 && sum[k] / cnt[k] < b)
				b = sum[k] / cnt[k];
		if (isfinite(b) && (a > 0 || b > 0))
			tot += (b - a) / (a > b ? a : b);
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
			int			q;

			if ((r & 255) == 0 && dac_interrupted())
				return DAC_ERR_INTERRUPTED;
			for (q = 0; q < m; q++)
			{
				double		t = (double) nrm[r] + nrm[q] - 2.0 * D[(size_t) r * m + q];

				D[(size_t) r * m + q] = r == q ? 0 : (float) sqrt(t > 0 ? t : 0);
			}
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

/*
 * The sample of a set that the count search and the graph stage both work
 * on (sample_distances), made once, on first use.
 */
typedef struct sample_set
{
	int			m;				/* 0: not made yet */
	int		   *smp;			/* [m] */
	dac_real   *S;				/* [m, d + 1] */
	float	   *D;				/* [m, m] */
} sample_set;

static void
sample_set_free(sample_set *ss)
{
	dac_free(ss->smp);
	dac_free(ss->S);
	dac_free(ss->D);
	memset(ss, 0, sizeof(*ss));
}

static dac_status
sample_set_make(const dac_real *X, int n, int d, sample_set *ss)
{
	int			m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE;
	dac_status	st;

	if (ss->m > 0)
		return DAC_OK;
	ss->D = dac_alloc(sizeof(float) * (size_t) m * m);
	ss->S = dac_alloc(sizeof(dac_real) * (size_t) m * (d + 1));
	ss->smp = dac_alloc(sizeof(int) * (size_t) m);
	if (!ss->D || !ss->S || !ss->smp)
	{
		sample_set_free(ss);
		return DAC_ERR_NOMEM;
	}
	if ((st = sample_distances(X, n, d, m, ss->D, ss->S, ss->smp)) != DAC_OK)
	{
		sample_set_free(ss);
		return st;
	}
	ss->m = m;
	return DAC_OK;
}

double
dac_ksearch_bytes(int n, int d, int window, int K)
{
	double		m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE,
				kmax = (double) K + window + 1;

	if (window < 1)
		return 0;
	return sizeof(float) * m * m + sizeof(dac_real) * (m * d + m) + sizeof(int) * (3.0 * n + m + 2 * kmax) +
		sizeof(double) * kmax * (2.0 * d + 2) + 256;
}

static dac_status
ksearch_on(const dac_real *X, int d, dac_clustering *c, int window, int kmeans_steps, sample_set *ss)
{
	int			n = c->n,
				K0 = c->num_clusters,
				m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE,
				kmax = K0 + window,
				k,
				bestk = K0;
	float	   *D;
	dac_real	dummy = 0;
	int		   *smp,
			   *lab = NULL,
			   *best = NULL,
			   *cnt = NULL;
	double	   *cen = NULL,
				bests = -INFINITY;
	dac_status	st = DAC_OK;

	if (window < 1 || K0 < 2 || n < 4)
		return DAC_OK;			/* one cluster found: the network's count stands */
	if (kmax > m - 1)
		kmax = m - 1;
	if ((st = sample_set_make(X, n, d, ss)) != DAC_OK)
		return st;
	D = ss->D;
	smp = ss->smp;
	lab = dac_alloc(sizeof(int) * (size_t) n * 2);
	cnt = dac_alloc(sizeof(int) * (size_t) (kmax + 2) * 2);
	cen = dac_alloc(sizeof(double) * (size_t) (kmax + 2) * (d + 2));
	if (!lab || !cnt || !cen)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	best = lab + n;
	for (k = K0 - window > 2 ? K0 - window : 2; k <= kmax; k++)
	{
		dac_clustering t;
		int			got;
		double		sil;

		if (dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		memcpy(lab, c->labels, sizeof(int) * (size_t) n);
		got = move_count(X, n, d, lab, K0, k, cen, cnt);
		if (got < 0)
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
		if (t.num_clusters < 2)
			continue;
		sil = silhouette(D, smp, m, lab, t.num_clusters, cen, cnt);
		/* ties go to the network's count, then to fewer clusters */
		if (sil > bests + 1e-12 || (k == K0 && sil >= bests - 1e-12))
		{
			bests = sil;
			bestk = t.num_clusters;
			memcpy(best, lab, sizeof(int) * (size_t) n);
		}
	}
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

dac_status
dac_clustering_ksearch(const dac_real *X, int d, dac_clustering *c, int window, int kmeans_steps)
{
	sample_set	ss;
	dac_status	st;

	memset(&ss, 0, sizeof(ss));
	st = ksearch_on(X, d, c, window, kmeans_steps, &ss);
	sample_set_free(&ss);
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

double
dac_graph_stage_bytes(int n, int d, int neighbors)
{
	double		m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE;

	if (neighbors < 1)
		return 0;
	/*
	 * distances, the sample, labels and ids, the repeated rows' order (16
	 * bytes a row), the communities' means, θ at most m clusters
	 */
	return 16.0 * m + sizeof(float) * m * m + sizeof(dac_real) * (m * d + m) + sizeof(int) * (2.0 * n + 3 * m + 2) +
		sizeof(double) * (m + 1) * (d + 1) + sizeof(dac_real) * m * 2 * (d + 1) +
		dac_graph_bytes((int) m, neighbors) + 256;
}

static dac_status
graph_on(const dac_real *X, int d, dac_clustering *c, int neighbors, double resolution, int from_clusters,
		 int k_min, int k_max, sample_set *ss)
{
	int			n = c->n,
				m = n < DAC_KSEARCH_SAMPLE ? n : DAC_KSEARCH_SAMPLE,
				K = 0,
				r,
				i;
	float	   *D;
	dac_real   *S;
	int		   *smp,
			   *lab = NULL,
			   *cnt = NULL;
	double	   *cen = NULL;
	dac_graph	g;
	dac_status	st = DAC_OK;

	memset(&g, 0, sizeof(g));
	if (neighbors < 1 || !(resolution > 0) || n < 3)
		return DAC_OK;
	if ((st = sample_set_make(X, n, d, ss)) != DAC_OK)
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
	for (r = 0; r < m; r++)
		lab[r] = c->labels[smp[r]];
	if ((st = dac_graph_partition(&g, resolution, from_clusters, lab, &K)) != DAC_OK)
		goto done;
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
	if (m < n)
	{
		/* the rest of the rows: the nearest community's mean, over the sample */
		cen = dac_alloc(sizeof(double) * (size_t) K * d);
		if (cen == NULL)
		{
			st = DAC_ERR_NOMEM;
			goto done;
		}
		centroids(S, m, d, lab, K, cen, cnt);
		for (i = n - 1, r = m - 1; i >= 0; i--)
		{
			if ((i & 8191) == 0 && dac_interrupted())
			{
				st = DAC_ERR_INTERRUPTED;
				goto done;
			}
			if (r >= 0 && smp[r] == i)
				lab[i] = lab[r--];
			else
				lab[i] = nearest_mean(X + (size_t) i * d, cen, cnt, K, d);
		}
	}
	if ((st = adopt_labels(c, lab, K, cnt)) == DAC_OK)
		c->graphed = 1;
done:
	dac_graph_free(&g);
	dac_free(lab);
	dac_free(cnt);
	dac_free(cen);
	return st;
}

dac_status
dac_clustering_graph(const dac_real *X, int d, dac_clustering *c, int neighbors, double resolution,
					 int from_clusters, int k_min, int k_max)
{
	sample_set	ss;
	dac_status	st;

	memset(&ss, 0, sizeof(ss));
	st = graph_on(X, d, c, neighbors, resolution, from_clusters, k_min, k_max, &ss);
	sample_set_free(&ss);
	return st;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

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
static dac_status
force_count(const dac_real *X, int d, dac_clustering *c, int k_min, int k_max, int gaussian)
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
	got = move_count(X, n, d, lab, K, target, cen, cnt);
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
		/* members grouped by cluster in one pass (offsets in cnt), then each θ refit */
		int		   *at = cnt;

		memset(at, 0, sizeof(int) * ((size_t) next + 2));
		for (i = 0; i < n; i++)
			if (lab[i] > 0)
				at[lab[i] + 1]++;
		for (k = 1; k <= next; k++)
			at[k + 1] += at[k];
		for (i = 0; i < n; i++)
			if (lab[i] > 0)
				idx[at[lab[i]]++] = i;
		for (k = next; k >= 1; k--)
			at[k] = at[k - 1];
		at[0] = 0;
		for (k = 1; k <= next; k++)
		{
			if (dac_interrupted())
			{
				st = DAC_ERR_INTERRUPTED;
				goto done;
			}
			fit_theta(X, idx + at[k], at[k + 1] - at[k], d, c->theta, K, theta + (size_t) (k - 1) * tdim);
		}
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
		qsort(key, (size_t) k, sizeof(int64_t), cmp_i64);
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
static dac_status
step_failed(dac_status st, int n, dac_error *err)
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
static dac_status
mixture_ll(const density_ref *dr, const dac_real *X, const dac_clustering *out, double *ll_out)
{
	int			n = out->n,
				K = out->num_clusters,
				kept = n - out->noise,
				i,
				k;
	double	   *cnt = dac_alloc_zero(sizeof(double) * (size_t) (K ? K : 1)),
			   *acc = dac_alloc(sizeof(double) * (size_t) n);
	dac_real   *ll = dac_alloc(sizeof(dac_real) * (size_t) n);
	dac_status	st = DAC_OK;
	double		tot = 0;

	if (!cnt || !acc || !ll)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	for (i = 0; i < n; i++)
	{
		acc[i] = -INFINITY;
		if (out->labels[i] > 0)
			cnt[out->labels[i] - 1] += 1;
	}
	for (k = 0; k < K; k++)
	{
		double		lw = log(cnt[k] / kept + 1e-10);

		if ((st = dac_head_ll(dr->h, dr->P, out->theta + (size_t) k * out->theta_dim, X, n, ll, NULL)) != DAC_OK)
			goto done;
		for (i = 0; i < n; i++)
			acc[i] = logsumexp_add(acc[i], (double) ll[i] + lw);
	}
	for (i = 0; i < n; i++)
		if (out->labels[i] > 0)
			tot += acc[i];
	*ll_out = tot / kept;
done:
	dac_free(cnt);
	dac_free(acc);
	dac_free(ll);
	return st;
}

/* z2 [n]: each point's squared length in its own cluster's base space (label 0: 0). */
static dac_status
own_sqdist(const density_ref *dr, const dac_real *X, int d, const dac_clustering *out, double *z2)
{
	int			n = out->n,
				i,
				k,
				m;
	int		   *idx = dac_alloc(sizeof(int) * (size_t) n);
	dac_real   *rows = dac_alloc(sizeof(dac_real) * (size_t) n * d),
			   *ll = dac_alloc(sizeof(dac_real) * (size_t) n);
	double	   *q = dac_alloc(sizeof(double) * (size_t) n);
	dac_status	st = DAC_OK;

	if (!idx || !rows || !ll || !q)
		st = DAC_ERR_NOMEM;
	for (i = 0; i < n && st == DAC_OK; i++)
		z2[i] = 0;
	for (k = 1; k <= out->num_clusters && st == DAC_OK; k++)
	{
		for (i = 0, m = 0; i < n; i++)
			if (out->labels[i] == k)
			{
				idx[m] = i;
				memcpy(rows + (size_t) m * d, X + (size_t) i * d, sizeof(dac_real) * d);
				m++;
			}
		if (m == 0)
			continue;
		st = dac_head_ll(dr->h, dr->P, out->theta + (size_t) (k - 1) * out->theta_dim, rows, m, ll, q);
		for (i = 0; i < m && st == DAC_OK; i++)
			z2[idx[i]] = q[i];
	}
	dac_free(idx);
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
static dac_status
flow_em(const density_ref *dr, const dac_real *X, dac_clustering *out, int max_steps)
{
	int			n = out->n,
				K = out->num_clusters,
				i,
				k,
				t;
	dac_real   *ll = NULL;
	double	   *logpi = dac_alloc(sizeof(double) * 2 * (size_t) (K ? K : 1)),
			   *nk,
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
	for (k = 0; k < K; k++)
	{
		if ((st = dac_head_ll(dr->h, dr->P, out->theta + (size_t) k * out->theta_dim, X, n,
							  ll + (size_t) k * n, NULL)) != DAC_OK)
			goto done;
		nk[k] = 0;
	}
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
			double		mx = -INFINITY,
						z = 0;

			if (i % 8192 == 8191 && dac_interrupted())
			{
				st = DAC_ERR_INTERRUPTED;
				goto done;
			}
			for (k = 0; k < K; k++)
				mx = fmax(mx, logpi[k] + ll[(size_t) k * n + i]);
			for (k = 0; k < K; k++)
				z += exp(logpi[k] + ll[(size_t) k * n + i] - mx);
			for (k = 0; k < K; k++)
				nk[k] += exp(logpi[k] + ll[(size_t) k * n + i] - mx) / z;
			tot += mx + log(z);
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

static dac_status
cluster_in_order(const dac_model *m, const dac_real *X, int n, const dac_cluster_opts *opts,
				 dac_clustering *out, dac_error *err)
{
	const dac_net *net = &m->net;
	int			d = net->cfg.dim_input;
	int			tdim = dac_net_theta_dim(net);
	int			is_af = net->cfg.strategy == DAC_AF;
	int			gaussian = net->cfg.density == DAC_DENSITY_GAUSSIAN;
	int			flow = net->cfg.density == DAC_DENSITY_MAF;
	density_ref dr = {dac_head_has_density(&net->head) ? &net->head : NULL, m->P};
	int			rest_theta = 0; /* the θ slot after the last cluster holds the
								 * θ of a pass over exactly the points left */
	int		   *active,
			   *tried = NULL;
	dac_real   *sub;
	int			nact = n,
				i,
				k,
				max_k;
	dac_rng		rng;
	dac_arena	ar;
	dac_status	st = DAC_OK;
	double		flops0 = dac_gemm_flops;
	sample_set	ss;				/* the count search's and graph stage's sample */

	/* n, max_passes and the memory limit were checked by dac_cluster_set */
	memset(out, 0, sizeof(*out));
	memset(&ss, 0, sizeof(ss));
	max_k = opts->max_passes < n ? opts->max_passes : n;
	/* one arena block sized for the first (largest) pass serves them all */
	dac_arena_init(&ar, (size_t) dac_net_infer_bytes(net, 1, n));
	out->n = n;
	out->theta_dim = tdim;
	out->labels = dac_alloc_zero(sizeof(int) * (size_t) n);
	out->prob = dac_alloc_zero(sizeof(float) * (size_t) n);
	out->theta = dac_alloc_zero(sizeof(dac_real) * ((size_t) max_k + 1) * tdim);
	active = dac_alloc(sizeof(int) * (size_t) n);
	sub = dac_alloc(sizeof(dac_real) * (size_t) n * d);
	if (is_af)
		tried = dac_alloc_zero(sizeof(int) * (size_t) n);
	if (!out->labels || !out->prob || !out->theta || !active || !sub || (is_af && !tried))
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
		goto done;
	}
	dac_rng_seed(&rng, opts->seed);
	for (i = 0; i < n; i++)
		active[i] = i;

	while (nact > 0 && out->num_passes < opts->max_passes && out->num_clusters < max_k)
	{
		dac_arena_mark empty = {NULL, 0, 0};
		dac_forward fw;
		int			anchor = 0,
					sel = 0,
					j;

		if (is_af)
		{
			/* anchor: first (or a random) unassigned row not yet tried in vain */
			int			cand = 0;

			for (j = 0; j < nact; j++)
				cand += !tried[active[j]];
			if (cand == 0)
				break;
			k = opts->random_anchors ? dac_rng_int(&rng, cand) : 0;
			for (j = 0; j < nact; j++)
				if (!tried[active[j]] && k-- == 0)
				{
					anchor = j;
					break;
				}
		}
		for (j = 0; j < nact; j++)
			memcpy(sub + (size_t) j * d, X + (size_t) active[j] * d, sizeof(dac_real) * d);
		dac_arena_reset_to(&ar, empty);
		st = dac_net_infer(net, m->P, m->F, sub, 1, nact, is_af ? &anchor : NULL, &ar, &fw, err);
		out->num_passes++;
		if (st != DAC_OK)
			goto done;
		for (j = 0; j < nact; j++)
		{
			/* membership probability: of the selecting pass, else the highest seen */
			double		p = 1 / (1 + exp(-(double) fw.logits[j]));

			if (p > out->prob[active[j]] || fw.logits[j] > 0)
				out->prob[active[j]] = (float) p;
			if (fw.logits[j] > 0)
				sel++;
		}
		memcpy(out->theta + (size_t) out->num_clusters * tdim, fw.theta, sizeof(dac_real) * tdim);
		if (sel == 0)
		{
			rest_theta = 1;
			if (!is_af)
				break;			/* deterministic: it would select nothing forever */
			tried[active[anchor]] = 1;
			continue;
		}
		rest_theta = 0;
		out->num_clusters++;
		k = 0;
		for (j = 0; j < nact; j++)
		{
			if (fw.logits[j] > 0)
				out->labels[active[j]] = out->num_clusters;
			else
				active[k++] = active[j];
		}
		nact = k;
		dac_progress("network passes, rows in a cluster", n - nact, n);
	}

	/*
	 * A flow's θ cannot be fitted to points by hand: the points no pass
	 * selected, when they become a cluster, take the θ of one more pass over
	 * them alone (that of a pass that selected nothing from them, if any).
	 */
	if (flow && nact > 0 && !rest_theta &&
		(opts->leftover == DAC_LEFTOVER_OWN || out->num_clusters == 0))
	{
		dac_arena_mark empty = {NULL, 0, 0};
		dac_forward fw;
		int			j,
					anchor = 0;

		for (j = 0; j < nact; j++)
			memcpy(sub + (size_t) j * d, X + (size_t) active[j] * d, sizeof(dac_real) * d);
		dac_arena_reset_to(&ar, empty);
		st = dac_net_infer(net, m->P, m->F, sub, 1, nact, is_af ? &anchor : NULL, &ar, &fw, err);
		out->num_passes++;
		if (st != DAC_OK)
			goto done;
		memcpy(out->theta + (size_t) out->num_clusters * tdim, fw.theta, sizeof(dac_real) * tdim);
	}
	dac_arena_free(&ar);

	/* Points no pass selected. */
	out->leftover = nact;
	if (nact > 0)
	{
		if (out->num_clusters == 0)
		{
			/* nothing was found at all: the whole set is one cluster */
			for (i = 0; i < n; i++)
				out->labels[i] = 1;
			out->num_clusters = 1;
			/* θ = the set's own mean and standard deviation */
			if (gaussian)
				fit_theta(X, active, nact, d, NULL, 0, out->theta);
		}
		else if (opts->leftover == DAC_LEFTOVER_FIRST)
		{
			for (i = 0; i < nact; i++)
				out->labels[active[i]] = 1;
		}
		else if (opts->leftover == DAC_LEFTOVER_OWN)
		{
			/*
			 * One more cluster.  Its θ: the leftovers' mean and standard
			 * deviation, each σ at least the smallest any found cluster has,
			 * so that a few leftover points cannot claim a needle-thin density.
			 */
			for (i = 0; i < nact; i++)
				out->labels[active[i]] = out->num_clusters + 1;
			if (gaussian)
				fit_theta(X, active, nact, d, out->theta, out->num_clusters,
						  out->theta + (size_t) out->num_clusters * tdim);
			out->num_clusters++;
		}
		else if ((st = step_failed(place_points(&dr, X, d, out, active, nact, NULL, NULL), n, err)) != DAC_OK)
			goto done;
	}

	/*
	 * EM steps on the found mixture (em_steps), then each point to its
	 * likeliest component; before min_size, so that no cluster it leaves
	 * smaller than min_size survives.
	 */
	if ((opts->reassign || opts->em_steps > 0) && gaussian)
	{
		dac_progress("EM", 0, 0);
		st = step_failed(dac_clustering_em(X, d, out, opts->em_steps), n, err);
		if (st != DAC_OK)
			goto done;
	}
	/* a flow: EM on the mixture weights alone, then the same reassignment */
	if ((opts->reassign || opts->em_steps > 0) && flow)
	{
		st = step_failed(flow_em(&dr, X, out, opts->em_steps), n, err);
		if (st != DAC_OK)
			goto done;
	}

	/* k-means steps from the clusters found (models without a density head) */
	if (opts->kmeans_steps > 0 && dr.h == NULL)
	{
		dac_progress("k-means", 0, 0);
		st = step_failed(dac_clustering_kmeans(X, d, out, opts->kmeans_steps), n, err);
		if (st != DAC_OK)
			goto done;
	}
	/* the count searched around the network's (models without a density head) */
	if (opts->k_search > 0 && dr.h == NULL && opts->k_exact == 0)
	{
		dac_progress("count search", 0, 0);
		st = step_failed(ksearch_on(X, d, out, opts->k_search, opts->kmeans_steps, &ss), n, err);
		if (st != DAC_OK)
			goto done;
	}
	/* the communities of the nearest-neighbour graph (models without a density head) */
	if (opts->graph_neighbors > 0 && dr.h == NULL)
	{
		dac_progress("graph stage", 0, 0);
		st = step_failed(graph_on(X, d, out, opts->graph_neighbors, opts->graph_resolution, opts->graph_start,
										  opts->k_exact, opts->k_exact > 0 ? opts->k_exact : opts->k_max, &ss),
						 n, err);
		if (st != DAC_OK)
			goto done;
	}
	sample_set_free(&ss);

	/* Clusters smaller than min_size: their points go to the others (or are noise). */
	if (opts->min_size > 1 && !(opts->noise > 0) &&
		(st = step_failed(dissolve_small(&dr, X, n, d, out, opts->min_size), n, err)) != DAC_OK)
		goto done;

	/* the count the caller asked for (k, max_k), where the graph stage did not give it */
	if ((opts->k_exact > 0 || opts->k_max > 0) &&
		(st = step_failed(force_count(X, d, out, opts->k_exact, opts->k_exact > 0 ? opts->k_exact : opts->k_max,
									  gaussian), n, err)) != DAC_OK)
		goto done;

	/* Noise: points no pass selected and points in their cluster's far tail. */
	if (opts->noise > 0)
	{
		double	   *z2 = NULL;

		dac_progress("noise test", 0, 0);
		/* a flow's tail: |z|² of each point under its own cluster's flow */
		if (flow)
		{
			z2 = dac_alloc(sizeof(double) * (size_t) n);
			st = z2 == NULL ? DAC_ERR_NOMEM : own_sqdist(&dr, X, d, out, z2);
		}
		if (st == DAC_OK)
			st = dac_clustering_noise(X, d, out, gaussian, opts->noise, opts->min_size, z2, dr.h != NULL);
		dac_free(z2);
		st = step_failed(st, n, err);
		if (st != DAC_OK)
			goto done;
	}

	/* LL = mean_i logsumexp_t [ll_{i,t} + log(π_t + 1e-10)], over points not noise */
	out->ll = NAN;
	if (dr.h != NULL && out->noise < n)
	{
		st = step_failed(mixture_ll(&dr, X, out, &out->ll), n, err);
		if (st != DAC_OK)
			goto done;
	}
done:
	dac_arena_free(&ar);
	sample_set_free(&ss);
	out->flops = dac_gemm_flops - flops0;
	dac_free(active);
	dac_free(sub);
	dac_free(tried);
	if (st != DAC_OK)
		dac_clustering_free(out);
	return st;
}

/*
 * A large set through a sample (opts->sample_size): the network clusters
 * every (n/S)-th row, each row goes to the nearest centroid of the sample's
 * clusters in the coordinates the network saw (X [n, w]), and k-means steps
 * refine the clusters over all rows.  Rows outside the sample get
 * probability 1 (no pass selected them).  θ are the sample's.
 */
static dac_status
cluster_sampled(const dac_model *m, const dac_real *X, int n, const dac_cluster_opts *opts,
				dac_clustering *out, dac_error *err)
{
	int			w = m->net.cfg.dim_input,
				S = opts->sample_size,
				K,
				i;
	dac_real   *Xs;
	double	   *cen = NULL;
	int		   *cnt = NULL;
	dac_cluster_opts so = *opts;
	dac_clustering cs;
	dac_status	st;

	memset(out, 0, sizeof(*out));
	if ((Xs = dac_alloc(sizeof(dac_real) * (size_t) S * w)) == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory sampling %d of %d points", S, n);
	for (i = 0; i < S; i++)
		memcpy(Xs + (size_t) i * w, X + (size_t) ((int64_t) i * n / S) * w, sizeof(dac_real) * w);
	so.sample_size = 0;
	dac_progress("a sample clustered first, its rows", S, n);
	st = cluster_in_order(m, Xs, S, &so, &cs, err);
	if (st != DAC_OK)
	{
		dac_free(Xs);
		return st;
	}
	K = cs.num_clusters;
	out->n = n;
	out->labels = dac_alloc(sizeof(int) * (size_t) n);
	out->prob = dac_alloc(sizeof(float) * (size_t) n);
	cen = dac_alloc_zero(sizeof(double) * (size_t) (K > 0 ? K : 1) * w);
	cnt = dac_alloc_zero(sizeof(int) * (size_t) (K > 0 ? K : 1));
	if (out->labels == NULL || out->prob == NULL || cen == NULL || cnt == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory assigning %d points", n);
		goto done;
	}
	centroids(Xs, S, w, cs.labels, K, cen, cnt);
	for (i = 0; i < n; i++)
	{
		int			best;

		if ((i & 4095) == 0 && dac_interrupted())
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			goto done;
		}
		if ((i & 65535) == 0)
			dac_progress("rows assigned to the sample's clusters", i, n);
		best = nearest_mean(X + (size_t) i * w, cen, cnt, K, w);
		out->labels[i] = best > 0 ? best : 1;
		out->prob[i] = 1;
	}
	for (i = 0; i < S; i++)
		out->prob[(int64_t) i * n / S] = cs.prob[i];
	out->num_clusters = K;
	out->num_passes = cs.num_passes;
	out->leftover = cs.leftover;
	out->dissolved = cs.dissolved;
	out->theta_dim = cs.theta_dim;
	out->theta = cs.theta;
	cs.theta = NULL;
	out->ll = NAN;
	out->flops = cs.flops;
	st = dac_clustering_kmeans(X, w, out, opts->kmeans_steps);
	if (st != DAC_OK)
		st = dac_fail(err, st, st == DAC_ERR_INTERRUPTED ? "interrupted" : "out of memory refining %d points", n);
done:
	dac_clustering_free(&cs);
	dac_free(Xs);
	dac_free(cen);
	dac_free(cnt);
	if (st != DAC_OK)
		dac_clustering_free(out);
	return st;
}

/* Whether opts sends a set of n points through a sample (cluster_sampled). */
static int
use_sample(const dac_model *m, int n, const dac_cluster_opts *opts)
{
	return opts->sample_size >= 2 && n > opts->sample_size && opts->noise <= 0 &&
		!dac_head_has_density(&m->net.head);
}

/*
 * Labels and probabilities of a set clustered in the order perm back to the
 * caller's order, through the scratch lab [n] and pr [n].
 */
static void
unpermute(dac_clustering *out, const int *perm, int *lab, float *pr)
{
	int			i;

	for (i = 0; i < out->n; i++)
	{
		lab[perm[i]] = out->labels[i];
		pr[perm[i]] = out->prob[i];
	}
	memcpy(out->labels, lab, sizeof(int) * (size_t) out->n);
	memcpy(out->prob, pr, sizeof(float) * (size_t) out->n);
}

/* The checks every clustering entry makes before it allocates. */
static dac_status
check_set(const dac_model *m, int n, int dx, const dac_cluster_opts *opts, dac_error *err)
{
	double		need;

	if (n < 1)
		return dac_fail(err, DAC_ERR_INVALID, "cannot cluster an empty set");
	if (!dac_config_accepts(&m->net.cfg, dx))
		return dac_fail(err, DAC_ERR_INVALID, "the points have %d coordinates, but the model takes %d",
						dx, m->net.cfg.dim_input);
	if (opts->max_passes < 1)
		return dac_fail(err, DAC_ERR_INVALID, "max_passes must be at least 1");
	need = dac_cluster_bytes(m, n, dx, opts);
	if (opts->mem_limit > 0 && need > (double) opts->mem_limit)
		return dac_fail(err, DAC_ERR_TOO_LARGE,
						"clustering %d points of dimension %d needs %.0f kB, more than the limit of %.0f kB",
						n, dx, ceil(need / 1024), floor((double) opts->mem_limit / 1024));
	return DAC_OK;
}

/*
 * A model whose input is "scaled": the set in its units-free canonical
 * order, measured (dac_frame_fit) and moved into the network's frame in
 * double precision, clustered there; labels and probabilities go back to
 * the caller's order, the frame stays with θ, and the LL is the caller's
 * units' (a density over x is the network's over z times scale^d).
 */
static dac_status
cluster_scaled(const dac_model *m, const double *X, int n, int d, const dac_cluster_opts *opts,
			   dac_clustering *out, dac_error *err)
{
	int		   *perm = NULL,
			   *lab = NULL;
	float	   *pr = NULL;
	dac_real   *Z = NULL;
	dac_frame	f;
	dac_status	st;

	memset(&f, 0, sizeof(f));
	if (opts->canonical && n >= 2)
	{
		perm = dac_alloc(sizeof(int) * (size_t) n);
		lab = dac_alloc(sizeof(int) * (size_t) n);
		pr = dac_alloc(sizeof(float) * (size_t) n);
		if (perm == NULL || lab == NULL || pr == NULL)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
			goto done;
		}
		if ((st = dac_frame_order(X, n, d, perm, err)) != DAC_OK)
			goto done;
	}
	if ((st = dac_frame_fit(X, perm, n, d, m->net.cfg.unit_width, &f, err)) != DAC_OK)
		goto done;
	Z = dac_alloc(sizeof(dac_real) * (size_t) n * d);
	if (Z == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
		goto done;
	}
	dac_frame_apply(&f, X, perm, n, Z);
	st = use_sample(m, n, opts) ? cluster_sampled(m, Z, n, opts, out, err) :
		cluster_in_order(m, Z, n, opts, out, err);
	if (st != DAC_OK)
		goto done;
	if (perm != NULL)
		unpermute(out, perm, lab, pr);
	out->ll += d * log(f.scale);
	out->frame_center = f.center;
	out->frame_scale = f.scale;
	f.center = NULL;
done:
	dac_frame_free(&f);
	dac_free(perm);
	dac_free(lab);
	dac_free(pr);
	dac_free(Z);
	return st;
}

dac_status
dac_cluster_set_f64(const dac_model *m, const double *X, int n, int dx, const dac_cluster_opts *opts,
					dac_clustering *out, dac_error *err)
{
	dac_real   *Xf;
	dac_status	st;
	int			i;

	memset(out, 0, sizeof(*out));
	if ((st = check_set(m, n, dx, opts, err)) != DAC_OK)
		return st;
	if (m->net.cfg.input == DAC_INPUT_SCALED)
		return cluster_scaled(m, X, n, dx, opts, out, err);
	Xf = dac_alloc(sizeof(dac_real) * (size_t) n * dx);
	if (Xf == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
	for (i = 0; i < n * dx; i++)
		Xf[i] = (dac_real) X[i];
	st = dac_cluster_set(m, Xf, n, dx, opts, out, err);
	dac_free(Xf);
	return st;
}

/*
 * The loop above, after the checks, on the rows in their canonical order
 * (opts->canonical), so that the same rows in any order give the same
 * clusters, ids and θ; the labels and probabilities then go back to the
 * caller's order.
 */
dac_status
dac_cluster_set(const dac_model *m, const dac_real *X, int n, int dx, const dac_cluster_opts *opts,
				dac_clustering *out, dac_error *err)
{
	int			w = m->net.cfg.dim_input,
				setnorm = m->net.cfg.input == DAC_INPUT_SETNORM,
				i;
	int		   *perm = NULL,
			   *lab = NULL;
	float	   *pr = NULL;
	dac_real   *Xc = NULL,
			   *Z = NULL;
	const dac_real *in = X;
	dac_status	st;
	double		norm_flops = 0;

	memset(out, 0, sizeof(*out));
	if ((st = check_set(m, n, dx, opts, err)) != DAC_OK)
		return st;
	if (m->net.cfg.input == DAC_INPUT_SCALED)
	{
		double	   *Xd = dac_alloc(sizeof(double) * (size_t) n * dx);

		if (Xd == NULL)
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
		for (i = 0; i < n * dx; i++)
			Xd[i] = X[i];
		st = cluster_scaled(m, Xd, n, dx, opts, out, err);
		dac_free(Xd);
		return st;
	}
	if (!setnorm && (!opts->canonical || n < 2))
		return use_sample(m, n, opts) ? cluster_sampled(m, X, n, opts, out, err) :
			cluster_in_order(m, X, n, opts, out, err);

	if (opts->canonical && n >= 2)
	{
		perm = dac_alloc(sizeof(int) * (size_t) n);
		lab = dac_alloc(sizeof(int) * (size_t) n);
		pr = dac_alloc(sizeof(float) * (size_t) n);
		Xc = dac_alloc(sizeof(dac_real) * (size_t) n * dx);
		if (perm == NULL || lab == NULL || pr == NULL || Xc == NULL ||
			dac_canonical_order(X, n, dx, perm) != DAC_OK)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
			goto done;
		}
		for (i = 0; i < n; i++)
			memcpy(Xc + (size_t) i * dx, X + (size_t) perm[i] * dx, sizeof(dac_real) * dx);
		in = Xc;
	}
	if (setnorm)
	{
		Z = dac_alloc(sizeof(dac_real) * (size_t) n * w);
		if (Z == NULL)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
			goto done;
		}
		if ((st = dac_setnorm(in, n, dx, w, Z, err)) != DAC_OK)
			goto done;
		norm_flops = dac_setnorm_flops(n, dx, w);
		dac_free(Xc);			/* the normalised rows replace the copy */
		Xc = NULL;
		in = Z;
	}
	/* cluster_in_order counts its own products; the normalisation's come on top */
	st = use_sample(m, n, opts) ? cluster_sampled(m, in, n, opts, out, err) :
		cluster_in_order(m, in, n, opts, out, err);
	out->flops += norm_flops;
	if (st == DAC_OK && perm != NULL)
		unpermute(out, perm, lab, pr);
done:
	dac_free(perm);
	dac_free(lab);
	dac_free(pr);
	dac_free(Xc);
	dac_free(Z);
	return st;
}

/* ---------------------------------------------------------------- one pass */

double
dac_filter_bytes(const dac_model *m, int n, int dx)
{
	double		w = m->net.cfg.dim_input,
				need = dac_net_infer_bytes(&m->net, 1, n) + 64 * 8;

	if (m->net.cfg.input == DAC_INPUT_SETNORM)
		need += sizeof(dac_real) * (double) n * w + dac_setnorm_bytes(n, dx, (int) w);
	if (m->net.cfg.input == DAC_INPUT_SCALED)
		need += (sizeof(double) + sizeof(dac_real)) * (double) n * dx + dac_frame_bytes(n, dx);
	return need;
}

dac_status
dac_filter_pass(const dac_model *m, const dac_real *X, int n, int dx, int anchor, size_t mem_limit,
				double *prob, dac_error *err)
{
	const dac_net *net = &m->net;
	int			w = net->cfg.dim_input,
				is_af = net->cfg.strategy == DAC_AF,
				i;
	double		need;
	dac_real   *Z = NULL;
	const dac_real *in = X;
	dac_arena	ar;
	dac_forward fw;
	dac_status	st;

	/* the width the caller gives is checked here, never trusted */
	if (n < 1)
		return dac_fail(err, DAC_ERR_INVALID, "cannot run a pass over an empty set");
	if (!dac_config_accepts(&net->cfg, dx))
		return dac_fail(err, DAC_ERR_INVALID, "the points have %d coordinates, but the model takes %d", dx, w);
	if (is_af && anchor < 0)
		return dac_fail(err, DAC_ERR_INVALID, "the anchor is not a point: the points are numbered 1 to %d", n);
	if (is_af && anchor >= n)
		return dac_fail(err, DAC_ERR_INVALID, "anchor %d is not a point: the points are numbered 1 to %d",
						anchor + 1, n);
	need = dac_filter_bytes(m, n, dx);
	if (mem_limit > 0 && need > (double) mem_limit)
		return dac_fail(err, DAC_ERR_TOO_LARGE,
						"a pass over %d points of dimension %d needs %.0f kB, more than the limit of %.0f kB",
						n, dx, ceil(need / 1024), floor((double) mem_limit / 1024));
	if (net->cfg.input == DAC_INPUT_SETNORM)
	{
		if ((Z = dac_alloc(sizeof(dac_real) * (size_t) n * w)) == NULL)
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory normalising %d points", n);
		if ((st = dac_setnorm(X, n, dx, w, Z, err)) != DAC_OK)
		{
			dac_free(Z);
			return st;
		}
		in = Z;
	}
	else if (net->cfg.input == DAC_INPUT_SCALED)
	{
		/* the frame of the set as given (the pass keeps the caller's order) */
		double	   *Xd = dac_alloc(sizeof(double) * (size_t) n * dx);
		dac_frame	f;

		Z = dac_alloc(sizeof(dac_real) * (size_t) n * dx);
		if (Xd == NULL || Z == NULL)
		{
			dac_free(Xd);
			dac_free(Z);
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory scaling %d points", n);
		}
		for (i = 0; i < n * dx; i++)
			Xd[i] = X[i];
		st = dac_frame_fit(Xd, NULL, n, dx, net->cfg.unit_width, &f, err);
		if (st == DAC_OK)
			dac_frame_apply(&f, Xd, NULL, n, Z);
		dac_frame_free(&f);
		dac_free(Xd);
		if (st != DAC_OK)
		{
			dac_free(Z);
			return st;
		}
		in = Z;
	}
	dac_arena_init(&ar, (size_t) dac_net_infer_bytes(net, 1, n));
	st = dac_net_infer(net, m->P, m->F, in, 1, n, is_af ? &anchor : NULL, &ar, &fw, err);
	if (st == DAC_OK)
		for (i = 0; i < n; i++)
			prob[i] = 1 / (1 + exp(-(double) fw.logits[i]));
	dac_arena_free(&ar);
	dac_free(Z);
	return st;
}

/* ---------------------------------------------------------------- metrics */

/*
 * The metrics take O(n) time and memory whatever the number of distinct
 * labels: labels are renumbered densely through an open-addressing hash
 * table, and the contingency table keeps only its non-zero cells (at most
 * n), found through a second hash table keyed by the pair.  The host's
 * interrupt check runs every METRIC_INTERRUPT_EVERY points.
 */
#define METRIC_INTERRUPT_EVERY 65536

typedef struct
{
	int64_t    *keys;
	int		   *vals;			/* dense index, -1 = empty slot */
	size_t		mask;
	int			count;
} label_map;

static int
label_map_init(label_map *m, int n)
{
	size_t		cap = 16;

	while (cap < (size_t) n * 2)
		cap *= 2;
	m->keys = dac_alloc(sizeof(int64_t) * cap);
	m->vals = dac_alloc(sizeof(int) * cap);
	m->mask = cap - 1;
	m->count = 0;
	if (!m->keys || !m->vals)
		return 0;
	memset(m->vals, 0xff, sizeof(int) * cap);
	return 1;
}

static void
label_map_free(label_map *m)
{
	dac_free(m->keys);
	dac_free(m->vals);
}

/* The dense index of key, a new one (count, then count + 1) if unseen. */
static int
label_map_index(label_map *m, int64_t key)
{
	uint64_t	h = (uint64_t) key * UINT64_C(0x9E3779B97F4A7C15);
	size_t		i = (size_t) (h >> 17) & m->mask;

	while (m->vals[i] >= 0)
	{
		if (m->keys[i] == key)
			return m->vals[i];
		i = (i + 1) & m->mask;
	}
	m->keys[i] = key;
	m->vals[i] = m->count;
	return m->count++;
}

/* Map arbitrary ints to 0..k-1 by first appearance; k, or -1 (NOMEM / interrupted). */
static int
densify(const int *a, int n, int *out, dac_status *why)
{
	label_map	m;
	int			i;

	*why = DAC_ERR_NOMEM;
	if (!label_map_init(&m, n))
	{
		label_map_free(&m);
		return -1;
	}
	for (i = 0; i < n; i++)
	{
		if (i % METRIC_INTERRUPT_EVERY == METRIC_INTERRUPT_EVERY - 1 && dac_interrupted())
		{
			*why = DAC_ERR_INTERRUPTED;
			label_map_free(&m);
			return -1;
		}
		out[i] = label_map_index(&m, a[i]);
	}
	label_map_free(&m);
	return m.count;
}

/* The non-zero cells of the contingency table, and its row and column sums. */
typedef struct
{
	int			ka,
				kb,
				cells;
	double	   *cell;			/* [cells] counts */
	int		   *cell_a,
			   *cell_b;			/* [cells] row and column of each cell */
	double	   *ra,
			   *rb;				/* [ka], [kb] */
} contingency;

static dac_status
contingency_build(const int *a, const int *b, int n, contingency *c)
{
	int		   *da = dac_alloc(sizeof(int) * (size_t) (n ? n : 1));
	int		   *db = dac_alloc(sizeof(int) * (size_t) (n ? n : 1));
	label_map	m;
	dac_status	st = DAC_ERR_NOMEM;
	int			i;

	memset(c, 0, sizeof(*c));
	memset(&m, 0, sizeof(m));
	if (!da || !db)
		goto fail;
	if ((c->ka = densify(a, n, da, &st)) < 0 || (c->kb = densify(b, n, db, &st)) < 0)
		goto fail;
	st = DAC_ERR_NOMEM;
	c->cell = dac_alloc_zero(sizeof(double) * ((size_t) n + c->ka + c->kb + 1));
	/* da and db become each cell's row and column (cells <= n) */
	if (c->cell == NULL || !label_map_init(&m, n))
		goto fail;
	c->ra = c->cell + n;
	c->rb = c->ra + c->ka;
	for (i = 0; i < n; i++)
	{
		int			k;

		if (i % METRIC_INTERRUPT_EVERY == METRIC_INTERRUPT_EVERY - 1 && dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto fail;
		}
		k = label_map_index(&m, (int64_t) da[i] * c->kb + db[i]);
		c->cell[k] += 1;
		c->ra[da[i]] += 1;
		c->rb[db[i]] += 1;
		/* cell k is new only when k == the count before it: k <= i, so da[k] was read */
		if (k == m.count - 1 && c->cell[k] == 1)
		{
			da[k] = da[i];
			db[k] = db[i];
		}
	}
	c->cells = m.count;
	c->cell_a = da;
	c->cell_b = db;
	label_map_free(&m);
	return DAC_OK;
fail:
	label_map_free(&m);
	dac_free(c->cell);
	c->cell = NULL;
	dac_free(da);
	dac_free(db);
	return st;
}

static void
contingency_free(contingency *c)
{
	dac_free(c->cell);
	dac_free(c->cell_a);
	dac_free(c->cell_b);
}

static double
comb2(double x)
{
	return x * (x - 1) / 2;
}

double
dac_compare_labels_bytes(int n)
{
	/* two dense copies, the hash tables (up to 4n slots of 12 bytes), the cells */
	return 8.0 * n + 48.0 * n + 8.0 * (2.0 * n + 1) + 1024;
}

dac_status
dac_compare_labels(const int *a, const int *b, int n, double *ari, double *nmi, dac_error *err)
{
	contingency c;
	double		sum_ij = 0,
				sum_a = 0,
				sum_b = 0,
				expected,
				maxi,
				ha = 0,
				hb = 0,
				mi = 0;
	dac_status	st;
	int			i;

	if (n < 1)
		return dac_fail(err, DAC_ERR_INVALID, "cannot compare empty labelings");
	if ((st = contingency_build(a, b, n, &c)) != DAC_OK)
		return st == DAC_ERR_INTERRUPTED ? dac_fail(err, st, "canceling the comparison of labelings")
			: dac_fail(err, st, "out of memory comparing labelings of %d points", n);
	for (i = 0; i < c.cells; i++)
		sum_ij += comb2(c.cell[i]);
	for (i = 0; i < c.ka; i++)
	{
		sum_a += comb2(c.ra[i]);
		ha -= c.ra[i] / n * log(c.ra[i] / n);
	}
	for (i = 0; i < c.kb; i++)
	{
		sum_b += comb2(c.rb[i]);
		hb -= c.rb[i] / n * log(c.rb[i] / n);
	}
	for (i = 0; i < c.cells; i++)
	{
		double		nij = c.cell[i];

		mi += nij / n * log(nij * n / (c.ra[c.cell_a[i]] * c.rb[c.cell_b[i]]));
	}
	contingency_free(&c);

	expected = n > 1 ? sum_a * sum_b / comb2(n) : 0;
	maxi = 0.5 * (sum_a + sum_b);
	/* both trivial in the same way: no pair disagrees */
	*ari = maxi - expected == 0 ? 1.0 : (sum_ij - expected) / (maxi - expected);
	if (ha == 0 && hb == 0)
		*nmi = 1.0;				/* both a single cluster */
	else
		*nmi = (mi < 0 ? 0 : mi) / (0.5 * (ha + hb));
	return DAC_OK;
}

double
dac_ari(const int *a, const int *b, int n)
{
	double		ari,
				nmi;

	return dac_compare_labels(a, b, n, &ari, &nmi, NULL) == DAC_OK ? ari : NAN;
}

double
dac_nmi(const int *a, const int *b, int n)
{
	double		ari,
				nmi;

	return dac_compare_labels(a, b, n, &ari, &nmi, NULL) == DAC_OK ? nmi : NAN;
}

int
dac_count_labels(const int *a, int n)
{
	int		   *tmp = dac_alloc(sizeof(int) * (size_t) (n ? n : 1));
	dac_status	why;
	int			k;

	if (tmp == NULL)
		return -1;
	k = densify(a, n, tmp, &why);
	dac_free(tmp);
	return k;
}

int
dac_kmae(const int *truth, const int *found, int n)
{
	int			a = dac_count_labels(truth, n),
				b = dac_count_labels(found, n);

	if (a < 0 || b < 0)
		return -1;
	return a > b ? a - b : b - a;
}
