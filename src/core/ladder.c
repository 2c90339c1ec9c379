/*
 * The ladder of models a set is clustered with when a call names none, by
 * its size (dac.h, dac_ladder): one model alone at each end, and between
 * two rungs a band of sizes where both cluster the set and the answer of
 * larger evidence is kept, so that a set that gains a row never jumps from
 * one model's answer to the other's.
 */
#include "dac.h"
#include "labels.h"
#include "pipeline.h"

#include <math.h>
#include <string.h>

int
dac_ladder_hands_over(const dac_model *a, const dac_model *b)
{
	return dac_model_theta_is_gaussian(a) && dac_model_theta_is_gaussian(b) &&
		dac_model_dim_input(a) == dac_model_dim_input(b);
}

int
dac_ladder_rung(const dac_ladder *l, int nd, int *pair, double *prior)
{
	int			i;

	for (i = 0; i < l->rungs - 1; i++)
	{
		if (nd <= l->lo[i])
			return i;
		if (nd < l->hi[i])
		{
			*pair = i;
			*prior = (double) (l->hi[i] - nd) / (l->hi[i] - l->lo[i]);
			return -1;
		}
	}
	return l->rungs - 1;
}

/* model i's bytes for sets of up to m distinct rows among n */
static double
rung_bytes(const dac_ladder *l, int i, int m, int n, int d)
{
	return dac_cluster_bytes(l->model[i], m, d, &l->opts[i]) +
		dac_distinct_rows_bytes(n) - dac_distinct_rows_bytes(m) + (2.0 * sizeof(int) + sizeof(float)) * (n - m);
}

double
dac_ladder_bytes(const dac_ladder *l, int n, int d)
{
	double		most = 0,
				b;
	int			i,
				m;

	if (l->rungs == 1)
		return dac_cluster_bytes(l->model[0], n, d, &l->opts[0]);
	for (i = 0; i < l->rungs; i++)
	{
		/* rung i alone: sets of hi[i - 1] .. lo[i] distinct rows */
		if (i > 0 && n < l->hi[i - 1])
			break;
		m = i < l->rungs - 1 && l->lo[i] < n ? l->lo[i] : n;
		b = rung_bytes(l, i, m, n, d);
		most = b > most ? b : most;
		/* the band after it: both models, the first one's answer kept while the second runs */
		if (i == l->rungs - 1 || n <= l->lo[i] || l->hi[i] - l->lo[i] < 2)
			continue;
		m = l->hi[i] - 1 < n ? l->hi[i] - 1 : n;
		b = rung_bytes(l, i, m, n, d) + rung_bytes(l, i + 1, m, n, d);
		most = b > most ? b : most;
	}
	/* counting the distinct rows comes first */
	b = dac_distinct_rows_bytes(n) + sizeof(int) * (double) n;
	return b > most ? b : most;
}

static dac_status
cluster_with(const dac_model *m, const dac_cluster_opts *o, const dac_real *X, const double *X64, int n,
			 int d, dac_clustering *out, dac_error *err)
{
	return X64 ? dac_cluster_set_f64(m, X64, n, d, o, out, err) : dac_cluster_set(m, X, n, d, o, out, err);
}

/* −2·nd·LL + p·ln nd: a weight, and θ (a mean and a variance a coordinate) a cluster, less one */
static double
answer_bic(const dac_clustering *c, int nd)
{
	double		p = (double) c->num_clusters * (c->theta_dim + 1) - 1;

	return -2.0 * nd * c->ll + p * log((double) nd);
}

dac_status
dac_cluster_ladder(const dac_ladder *l, const dac_real *X, const double *X64, int n, int d,
				   dac_clustering *out, dac_error *err)
{
	int			nd = n,
				pair = 0,
				r,
				take;
	double		prior = 1;
	dac_cluster_opts o[2];
	dac_clustering other;
	dac_status	st;

	memset(out, 0, sizeof(*out));
	if (l->rungs < 1 || l->rungs > DAC_LADDER_MAX)
		return dac_fail(err, DAC_ERR_INVALID, "a ladder of %d models", l->rungs);
	if (l->rungs > 1 && n >= 2 && l->opts[0].canonical)
	{
		nd = dac_distinct_count(X64 ? (const void *) X64 : (const void *) X, n,
								(X64 ? sizeof(double) : sizeof(dac_real)) * (size_t) d);
		if (nd < 0)
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory counting the distinct rows of %d points", n);
	}
	r = dac_ladder_rung(l, nd, &pair, &prior);
	/* two models whose evidence cannot be compared: the larger groups' from the band's start */
	if (r < 0 && !dac_ladder_hands_over(l->model[pair], l->model[pair + 1]))
		r = pair + 1;
	if (r >= 0)
	{
		st = cluster_with(l->model[r], &l->opts[r], X, X64, n, d, out, err);
		out->rung = r;
		return st;
	}
	/* a band: each model's answer and its LL */
	o[0] = l->opts[pair];
	o[1] = l->opts[pair + 1];
	o[0].want_ll = o[1].want_ll = 1;
	if ((st = cluster_with(l->model[pair], &o[0], X, X64, n, d, out, err)) != DAC_OK)
		return st;
	if ((st = cluster_with(l->model[pair + 1], &o[1], X, X64, n, d, &other, err)) != DAC_OK)
	{
		dac_clustering_free(out);
		return st;
	}
	out->bic[0] = answer_bic(out, nd);
	other.bic[1] = answer_bic(&other, nd);
	/* the larger model's answer where its evidence beats the prior's odds on the smaller's */
	take = isfinite(out->bic[0]) && isfinite(other.bic[1]) ?
		(out->bic[0] - other.bic[1]) / 2 > log(prior / (1 - prior)) : prior < 0.5;
	other.bic[0] = out->bic[0];
	if (take)
	{
		dac_clustering_free(out);
		*out = other;
	}
	else
	{
		out->bic[1] = other.bic[1];
		dac_clustering_free(&other);
	}
	out->rung = pair + take;
	out->compared = 1;
	out->prior = prior;
	if (!l->opts[out->rung].want_ll)
	{
		out->ll = NAN;
		out->stages &= ~(1u << DAC_STAGE_LOG_LIKELIHOOD);
	}
	return DAC_OK;
}
