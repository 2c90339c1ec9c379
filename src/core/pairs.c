/*
 * pairs.c
 *	  The pair_merge stage (pairs.h): clusters that a pass over their rows
 *	  alone sees as one become one; with pair_split, a pair the pass keeps
 *	  apart is shared out as the pass sees it when the set becomes likelier.
 */
#include "pairs.h"

#include "density.h"
#include "frame.h"
#include "mixture.h"
#include "net.h"

#include <math.h>
#include <string.h>

/* Whether uid is among the DAC_PAIR_TRIED partners kept in tried[]. */
static int
pair_tried(const int *tried, int uid)
{
	int			t;

	for (t = 0; t < DAC_PAIR_TRIED; t++)
		if (tried[t] == uid)
			return 1;
	return 0;
}

static void
pair_remember(int *tried, int uid)
{
	memmove(tried + 1, tried, sizeof(int) * (DAC_PAIR_TRIED - 1));
	tried[0] = uid;
}

/*
 * One pass over the rows idx[0..m) of X [n, d] (in the set's frame; in their
 * own units frame when reframe and the model is scaled): fw holds its logits
 * and θ.  sub [m, d] and dbl [m, d] are scratch.
 */
static dac_status
pass_over(const dac_model *m, const dac_real *X, int d, const int *idx, int cnt, int reframe,
		  dac_real *sub, double *dbl, dac_arena *ar, dac_forward *fw, dac_error *err)
{
	dac_arena_mark empty = {NULL, 0, 0};
	int			i,
				j;

	if (reframe && m->net.cfg.input == DAC_INPUT_SCALED)
	{
		dac_frame	f;
		dac_status	st;

		for (i = 0; i < cnt; i++)
			for (j = 0; j < d; j++)
				dbl[(size_t) i * d + j] = X[(size_t) idx[i] * d + j];
		memset(&f, 0, sizeof(f));
		if ((st = dac_frame_fit(dbl, NULL, cnt, d, m->net.cfg.unit_width, 0, &f, err)) != DAC_OK)
			return st;
		dac_frame_apply(&f, dbl, NULL, cnt, sub);
		dac_frame_free(&f);
	}
	else
		for (i = 0; i < cnt; i++)
			memcpy(sub + (size_t) i * d, X + (size_t) idx[i] * d, sizeof(dac_real) * d);
	dac_arena_reset_to(ar, empty);
	return dac_net_infer_logits(&m->net, m->P, m->F, sub, NULL, 1, cnt, NULL, ar, fw, err);
}

/*
 * pair_split: the pair a, b of c (its rows idx [cnt], the pass over them
 * alone in logits) kept apart by the pass.  Its selection and the rest
 * become a's and b's clusters, each θ that of a pass over its rows in the
 * set's frame, when that raises the set's LL (every point's density under
 * every cluster in dens [K, n], as c is; cur_ll, that LL).  Returns through
 * *kept whether the split was kept (dens and *cur_ll then describe it);
 * order [cnt], lab [n], rows [K] and th [2, theta_dim] are scratch, cand
 * [2, n] the candidates' densities.
 */
static dac_status
pair_split(const dac_model *m, const dac_density_ref *dr, const dac_real *X, int d, dac_clustering *c,
		   int a, int b, const int *idx, int cnt, const dac_real *logits, dac_real *dens, double *cur_ll,
		   int *order, int *lab, const dac_real **rows, dac_real *th, dac_real *cand, double *lw,
		   dac_real *sub, double *dbl, dac_arena *ar, int *kept, dac_error *err)
{
	int			n = c->n,
				K = c->num_clusters,
				tdim = c->theta_dim,
				moved = 0,
				nc = 0,
				nd,
				i,
				k;
	double		ll;
	dac_forward fw;
	dac_status	st;

	*kept = 0;
	/* the selection to a, the rest to b: the same partition (or its swap) is nothing new */
	for (i = 0; i < cnt; i++)
	{
		int			to = logits[i] > 0 ? a + 1 : b + 1;

		moved += to != c->labels[idx[i]];
		nc += to == a + 1;
	}
	nd = cnt - nc;
	if (moved == 0 || moved == cnt || nc == 0 || nd == 0)
		return DAC_OK;
	/* the selection's rows first, then the rest's */
	{
		int			ci = 0,
					di = nc;

		for (i = 0; i < cnt; i++)
			order[logits[i] > 0 ? ci++ : di++] = idx[i];
	}
	if ((st = pass_over(m, X, d, order, nc, 0, sub, dbl, ar, &fw, err)) != DAC_OK)
		return st;
	memcpy(th, fw.theta, sizeof(dac_real) * tdim);
	if ((st = pass_over(m, X, d, order + nc, nd, 0, sub, dbl, ar, &fw, err)) != DAC_OK)
		return st;
	memcpy(th + tdim, fw.theta, sizeof(dac_real) * tdim);
	c->num_passes += 2;
	if ((st = dac_step_failed(dac_head_ll_many(dr->h, dr->P, th, 2, X, n, cand), n, err)) != DAC_OK)
		return st;
	memcpy(lab, c->labels, sizeof(int) * (size_t) n);
	for (i = 0; i < cnt; i++)
		lab[order[i]] = i < nc ? a + 1 : b + 1;
	for (k = 0; k < K; k++)
		rows[k] = dens + (size_t) k * n;
	rows[a] = cand;
	rows[b] = cand + n;
	if ((st = dac_step_failed(dac_mixture_ll_rows(rows, lab, n, K, lw, &ll), n, err)) != DAC_OK)
		return st;
	if (!(ll > *cur_ll))
		return DAC_OK;
	memcpy(c->labels, lab, sizeof(int) * (size_t) n);
	memcpy(c->theta + (size_t) a * tdim, th, sizeof(dac_real) * tdim);
	memcpy(c->theta + (size_t) b * tdim, th + tdim, sizeof(dac_real) * tdim);
	memcpy(dens + (size_t) a * n, cand, sizeof(dac_real) * n);
	memcpy(dens + (size_t) b * n, cand + n, sizeof(dac_real) * n);
	*cur_ll = ll;
	*kept = 1;
	c->pair_split++;
	return DAC_OK;
}

/*
 * The nearest pair a < b by mean whose clusters are each among the other's
 * DAC_PAIR_NEAR nearest, not yet tried as they are (-1 when none); cen
 * [K, d], cnt [K] and near [K, DAC_PAIR_NEAR] are scratch.
 */
static void
nearest_pair(const dac_real *X, int n, int d, const dac_clustering *c, double *cen, int *cnt, int *near,
			 const int *tried, const int *uid, int *pa, int *pb)
{
	int			K = c->num_clusters,
				a = -1,
				b = -1,
				k,
				t;
	double		best = INFINITY;

	/* each cluster's DAC_PAIR_NEAR nearest by mean */
	dac_centroids(X, n, d, c->labels, K, cen, cnt);
	for (k = 0; k < K; k++)
	{
		double		nd[DAC_PAIR_NEAR];
		int			j;

		for (t = 0; t < DAC_PAIR_NEAR; t++)
		{
			near[k * DAC_PAIR_NEAR + t] = -1;
			nd[t] = INFINITY;
		}
		for (j = 0; j < K; j++)
		{
			double		dist;

			if (j == k)
				continue;
			dist = dac_centroid_sqdist(cen, k, j, d);
			for (t = DAC_PAIR_NEAR - 1; t >= 0 && dist < nd[t]; t--)
			{
				if (t + 1 < DAC_PAIR_NEAR)
				{
					nd[t + 1] = nd[t];
					near[k * DAC_PAIR_NEAR + t + 1] = near[k * DAC_PAIR_NEAR + t];
				}
				nd[t] = dist;
				near[k * DAC_PAIR_NEAR + t] = j;
			}
		}
	}
	for (k = 0; k < K; k++)
		for (t = 0; t < DAC_PAIR_NEAR; t++)
		{
			int			j = near[k * DAC_PAIR_NEAR + t],
						u;
			double		dist;

			if (j <= k)
				continue;
			for (u = 0; u < DAC_PAIR_NEAR && near[j * DAC_PAIR_NEAR + u] != k; u++)
				;
			if (u == DAC_PAIR_NEAR || pair_tried(tried + (size_t) k * DAC_PAIR_TRIED, uid[j]))
				continue;
			dist = dac_centroid_sqdist(cen, k, j, d);
			if (dist < best)
			{
				best = dist;
				a = k;
				b = j;
			}
		}
	*pa = a;
	*pb = b;
}

/*
 * Cluster b joins a (whose θ the caller has set): the clusters after b
 * renumbered, their θ, uids and tried partners moved down; a gets uid
 * new_uid and is tried afresh.
 */
static void
merge_into(dac_clustering *c, int a, int b, int *uid, int *tried, int new_uid)
{
	int			K = c->num_clusters,
				tdim = c->theta_dim,
				i,
				t;

	memmove(c->theta + (size_t) b * tdim, c->theta + (size_t) (b + 1) * tdim,
			sizeof(dac_real) * (size_t) (K - b - 1) * tdim);
	for (i = 0; i < c->n; i++)
	{
		if (c->labels[i] == b + 1)
			c->labels[i] = a + 1;
		else if (c->labels[i] > b + 1)
			c->labels[i]--;
	}
	memmove(uid + b, uid + b + 1, sizeof(int) * (size_t) (K - b - 1));
	memmove(tried + (size_t) b * DAC_PAIR_TRIED, tried + (size_t) (b + 1) * DAC_PAIR_TRIED,
			sizeof(int) * (size_t) (K - b - 1) * DAC_PAIR_TRIED);
	uid[a] = new_uid;
	for (t = 0; t < DAC_PAIR_TRIED; t++)
		tried[(size_t) a * DAC_PAIR_TRIED + t] = -1;
	c->num_clusters--;
	c->pair_merged++;
}

dac_status
dac_pair_merge(const dac_model *m, const dac_real *X, int n, int d, dac_clustering *c, double share,
			   int split, dac_error *err)
{
	const dac_net *net = &m->net;
	int			tdim = c->theta_dim,
				K0 = c->num_clusters,
				next_uid = K0,
				i,
				k;
	double	   *cen = NULL,
			   *dbl = NULL;
	int		   *cnt = NULL,
			   *uid = NULL,
			   *tried = NULL,
			   *near = NULL,
			   *idx = NULL;
	dac_real   *sub = NULL;
	dac_arena	ar;
	dac_status	st = DAC_OK;
	/* pair_split: the densities (valid or not), their LL, scratch */
	dac_density_ref dr = {&net->head, m->P};
	dac_real   *dens = NULL,
			   *cand = NULL,
			   *lgt = NULL,
			   *th = NULL;
	const dac_real **rows = NULL;
	double	   *lw = NULL,
				cur_ll = NAN;
	int		   *order = NULL,
			   *lab = NULL,
				dens_ok = 0,
				splits = 0;

	if (K0 < 2 || !(share > 0))
		return DAC_OK;
	dac_arena_init(&ar, (size_t) dac_net_infer_bytes(net, 1, n));
	cen = dac_alloc(sizeof(double) * (size_t) K0 * d);
	dbl = dac_alloc(sizeof(double) * (size_t) n * d);
	cnt = dac_alloc(sizeof(int) * (size_t) K0);
	uid = dac_alloc(sizeof(int) * (size_t) K0);
	tried = dac_alloc(sizeof(int) * (size_t) K0 * DAC_PAIR_TRIED);
	near = dac_alloc(sizeof(int) * (size_t) K0 * DAC_PAIR_NEAR);
	idx = dac_alloc(sizeof(int) * (size_t) n);
	sub = dac_alloc(sizeof(dac_real) * (size_t) n * d);
	if (split)
	{
		dens = dac_alloc(sizeof(dac_real) * (size_t) K0 * n);
		cand = dac_alloc(sizeof(dac_real) * 2 * (size_t) n);
		lgt = dac_alloc(sizeof(dac_real) * (size_t) n);
		th = dac_alloc(sizeof(dac_real) * 2 * (size_t) tdim);
		rows = dac_alloc(sizeof(dac_real *) * (size_t) K0);
		lw = dac_alloc(sizeof(double) * (size_t) K0);
		order = dac_alloc(sizeof(int) * (size_t) n);
		lab = dac_alloc(sizeof(int) * (size_t) n);
	}
	if (!cen || !dbl || !cnt || !uid || !tried || !near || !idx || !sub ||
		(split && (!dens || !cand || !lgt || !th || !rows || !lw || !order || !lab)))
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
		goto done;
	}
	for (k = 0; k < K0; k++)
		uid[k] = k;
	for (i = 0; i < K0 * DAC_PAIR_TRIED; i++)
		tried[i] = -1;

	for (;;)
	{
		int			K = c->num_clusters,
					a = -1,
					b = -1,
					na = 0,
					nb = 0,
					sa = 0,
					sb = 0,
					cntab,
					apart,
					t;
		dac_forward fw;

		if (K < 2)
			break;
		if (dac_interrupted())
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			goto done;
		}
		/* the nearest pair, each among the other's nearest, not yet tried as they are */
		nearest_pair(X, n, d, c, cen, cnt, near, tried, uid, &a, &b);
		if (a < 0)
			break;

		/* one pass over the pair's rows in their own frame */
		cntab = 0;
		for (i = 0; i < n; i++)
			if (c->labels[i] == a + 1 || c->labels[i] == b + 1)
				idx[cntab++] = i;
		if ((st = pass_over(m, X, d, idx, cntab, 1, sub, dbl, &ar, &fw, err)) != DAC_OK)
			goto done;
		c->num_passes++;
		for (i = 0; i < cntab; i++)
		{
			int			in_a = c->labels[idx[i]] == a + 1;

			na += in_a;
			nb += !in_a;
			if (fw.logits[i] > 0)
			{
				sa += in_a;
				sb += !in_a;
			}
		}
		apart = sa < share * na || sb < share * nb;
		/*
		 * Kept apart; with split, the pass's selection and the rest become
		 * the pair when that raises the LL (at most K0 times: each raises it).
		 * The densities of every point under every cluster: computed at the
		 * first such pair, then kept up to date by splits and merges
		 */
		if (apart && split && splits < K0)
		{
			int			kept;

			if (!dens_ok)
			{
				if ((st = dac_step_failed(dac_head_ll_many(dr.h, dr.P, c->theta, K, X, n, dens), n, err)) != DAC_OK)
					goto done;
				for (k = 0; k < K; k++)
					rows[k] = dens + (size_t) k * n;
				if ((st = dac_step_failed(dac_mixture_ll_rows(rows, c->labels, n, K, lw, &cur_ll), n, err)) != DAC_OK)
					goto done;
				dens_ok = 1;
			}
			/* the logits are the arena's: pair_split's passes reuse it, so copy them */
			memcpy(lgt, fw.logits, sizeof(dac_real) * (size_t) cntab);
			if ((st = pair_split(m, &dr, X, d, c, a, b, idx, cntab, lgt, dens, &cur_ll, order, lab, rows,
								 th, cand, lw, sub, dbl, &ar, &kept, err)) != DAC_OK)
				goto done;
			if (kept)
			{
				/* two new clusters: tried afresh with every partner */
				splits++;
				uid[a] = next_uid++;
				uid[b] = next_uid++;
				for (t = 0; t < DAC_PAIR_TRIED; t++)
					tried[(size_t) a * DAC_PAIR_TRIED + t] = tried[(size_t) b * DAC_PAIR_TRIED + t] = -1;
				continue;
			}
		}
		if (apart)
		{
			/* kept apart: not tried again while both stay as they are */
			pair_remember(tried + (size_t) a * DAC_PAIR_TRIED, uid[b]);
			pair_remember(tried + (size_t) b * DAC_PAIR_TRIED, uid[a]);
			continue;
		}

		/* one cluster: θ of a pass over its rows in the set's frame */
		if ((st = pass_over(m, X, d, idx, cntab, 0, sub, dbl, &ar, &fw, err)) != DAC_OK)
			goto done;
		c->num_passes++;
		memcpy(c->theta + (size_t) a * tdim, fw.theta, sizeof(dac_real) * tdim);
		merge_into(c, a, b, uid, tried, next_uid++);
		if (dens_ok)
		{
			/* the densities follow: b's row leaves, a's is the new θ's, then the LL */
			memmove(dens + (size_t) b * n, dens + (size_t) (b + 1) * n, sizeof(dac_real) * (size_t) (K - b - 1) * n);
			if ((st = dac_step_failed(dac_head_ll_many(dr.h, dr.P, c->theta + (size_t) a * tdim, 1, X, n,
														dens + (size_t) a * n), n, err)) != DAC_OK)
				goto done;
			for (k = 0; k < K - 1; k++)
				rows[k] = dens + (size_t) k * n;
			if ((st = dac_step_failed(dac_mixture_ll_rows(rows, c->labels, n, K - 1, lw, &cur_ll), n, err)) != DAC_OK)
				goto done;
		}
	}
done:
	dac_arena_free(&ar);
	dac_free(dens);
	dac_free(cand);
	dac_free(lgt);
	dac_free(th);
	dac_free(rows);
	dac_free(lw);
	dac_free(order);
	dac_free(lab);
	dac_free(cen);
	dac_free(dbl);
	dac_free(cnt);
	dac_free(uid);
	dac_free(tried);
	dac_free(near);
	dac_free(idx);
	dac_free(sub);
	return st;
}

