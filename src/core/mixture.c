/*
 * mixture.c
 *	  A clustering kept as a diagonal Gaussian mixture, its calibration (the
 *	  leave-one-out temperature), its JSON form, assigning new points to it,
 *	  and the χ² tail that the noise test (stages.c) and assignment share.
 */
#include "mixture.h"
#include "density.h"

#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SD_FLOOR 1e-6

void
dac_mixture_free(dac_mixture *mix)
{
	dac_free(mix->model);
	dac_free(mix->id);
	dac_free(mix->mean);
	memset(mix, 0, sizeof(*mix));
}

/* Allocate k clusters of dimension d (one block); 0 when out of memory. */
static int
mixture_alloc(dac_mixture *mix, int k, int d)
{
	size_t		kd = (size_t) k * d;
	int			i;

	memset(mix, 0, sizeof(*mix));
	mix->k = k;
	mix->d = d;
	mix->id = dac_alloc_zero(sizeof(int) * 3 * (size_t) (k ? k : 1));
	mix->mean = dac_alloc_zero(sizeof(double) * (3 * kd + 3 * (size_t) k + 1));
	if (mix->id == NULL || mix->mean == NULL)
	{
		dac_mixture_free(mix);
		return 0;
	}
	mix->size = mix->id + k;
	mix->rep = mix->size + k;
	mix->sd = mix->mean + kd;
	mix->sd_eff = mix->sd + kd;
	mix->logw = mix->sd_eff + kd;
	mix->lognorm = mix->logw + k;
	mix->stability = mix->lognorm + k;
	for (i = 0; i < k; i++)
		mix->stability[i] = 1;
	mix->temperature = 1;
	return 1;
}

/* sd_eff (σ floored per coordinate) and logw from sd and size. */
static void
mixture_finish(dac_mixture *mix)
{
	int			k,
				j;
	double		tot = 0;

	for (j = 0; j < mix->d; j++)
	{
		double		fl = INFINITY;

		for (k = 0; k < mix->k; k++)
			if (mix->sd[(size_t) k * mix->d + j] > 0)
				fl = fmin(fl, mix->sd[(size_t) k * mix->d + j]);
		fl = isfinite(fl) ? fmax(fl, SD_FLOOR) : SD_FLOOR;
		for (k = 0; k < mix->k; k++)
			mix->sd_eff[(size_t) k * mix->d + j] = fmax(mix->sd[(size_t) k * mix->d + j], fl);
	}
	for (k = 0; k < mix->k; k++)
		tot += mix->size[k];
	for (k = 0; k < mix->k; k++)
	{
		mix->logw[k] = log(mix->size[k] / tot);
		mix->lognorm[k] = dac_gauss_lognorm(mix->sd_eff + (size_t) k * mix->d, mix->d);
	}
}

/* Σ_j ((x_j - μ_j) / σ_j)² */
static double
sq_dist(const dac_real *x, const double *mu, const double *sd, int d)
{
	double		q = 0;
	int			j;

	if (sd)
		return dac_gauss_sqdist(x, mu, sd, d);
	for (j = 0; j < d; j++)
		q += (x[j] - mu[j]) * (x[j] - mu[j]);
	return q;
}

/* ---------------------------------------------------------------- calibration */

/*
 * The derivative in β = 1/T of the tempered posterior's negative log
 * likelihood of the labels y over m points with log-odds z [m, k]:
 * Σ_i (E_{softmax(β z_i)}[z_i] − z_i,y_i), which rises with β (the loss
 * is convex in β).  Points with y < 0 are left out.
 */
static double
tempered_slope(const double *z, const int *y, int m, int k, double beta)
{
	double		g = 0;
	int			i,
				s;

	for (i = 0; i < m; i++)
	{
		const double *zi = z + (size_t) i * k;
		double		mx = -INFINITY,
					sw = 0,
					swz = 0;

		if (y[i] < 0)
			continue;
		for (s = 0; s < k; s++)
			mx = fmax(mx, zi[s]);
		for (s = 0; s < k; s++)
		{
			double		w = exp(beta * (zi[s] - mx));

			sw += w;
			swz += w * (zi[s] - mx);
		}
		g += swz / sw - (zi[y[i]] - mx);
	}
	return g;
}

/*
 * The log weight + log density of the member x of cluster s (size ≥ 3)
 * under its cluster's Gaussian refit without it: μ' = μ − u / (size − 1),
 * σ'² = (size σ² − u² size / (size − 1)) / (size − 1) with u = x − μ (the
 * sum of squares less x's share, without cancelling large numbers), σ'
 * floored as sd_eff is (fl [d]).
 */
static double
loo_score(const dac_mixture *mix, int s, const dac_real *x, const double *fl, double tot)
{
	int			d = mix->d,
				j;
	double		m = mix->size[s],
				lsd = 0,
				q = 0;
	const double *mu = mix->mean + (size_t) s * d,
			   *sd = mix->sd + (size_t) s * d;

	for (j = 0; j < d; j++)
	{
		double		u = x[j] - mu[j],
					v = (m * sd[j] * sd[j] - u * u * m / (m - 1)) / (m - 1),
					sj = fmax(sqrt(fmax(v, 0)), fl[j]),
					r = u * m / (m - 1) / sj;

		lsd += log(sj);
		q += r * r;
	}
	return log((m - 1) / (tot - 1)) - lsd - 0.5 * d * log(2 * M_PI) - 0.5 * q;
}

/* mix->temperature, as mixture.h says; X [n, d] and c the clustering summarised. */
static dac_status
calibrate(dac_mixture *mix, const dac_real *X, const dac_clustering *c, const int *slot)
{
	int			k = mix->k,
				d = mix->d,
				members = 0,
				m,
				i,
				j,
				s,
				t,
				at = 0;
	double		tot = 0,
				lo = log(1.0 / DAC_TEMPERATURE_MAX),
				hi = 0,
				cap;
	double	   *z,
			   *fl;
	int		   *y;
	dac_status	st = DAC_OK;

	mix->temperature = 1;
	if (k < 2)
		return DAC_OK;
	for (s = 0; s < k; s++)
		tot += mix->size[s];
	members = (int) tot;
	/* at most DAC_CALIBRATION_POINTS points, 10⁶ log-odds, 5·10⁷ coordinates scored */
	cap = fmin(1e6 / k, 5e7 / ((double) k * d));
	m = members < DAC_CALIBRATION_POINTS ? members : DAC_CALIBRATION_POINTS;
	if (m > cap)
		m = cap > 20 ? (int) cap : (members < 20 ? members : 20);
	z = dac_alloc(sizeof(double) * ((size_t) m * k + d));
	y = dac_alloc(sizeof(int) * (size_t) m);
	if (z == NULL || y == NULL)
	{
		dac_free(z);
		dac_free(y);
		return DAC_ERR_NOMEM;
	}
	fl = z + (size_t) m * k;
	for (j = 0; j < d; j++)
	{
		fl[j] = INFINITY;
		for (s = 0; s < k; s++)
			if (mix->sd[(size_t) s * d + j] > 0)
				fl[j] = fmin(fl[j], mix->sd[(size_t) s * d + j]);
		fl[j] = isfinite(fl[j]) ? fmax(fl[j], SD_FLOOR) : SD_FLOOR;
	}
	/* the t-th chosen point is member number floor(t · members / m) */
	for (i = 0, t = 0, j = 0; i < c->n && t < m; i++)
	{
		const dac_real *x = X + (size_t) i * d;
		double	   *zt = z + (size_t) t * k;
		int			own;

		if (c->labels[i] <= 0)
			continue;
		if (j++ != (int) ((double) t * members / m))
			continue;
		if (t % 64 == 0 && dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		own = slot[c->labels[i] - 1];
		dac_mixture_logodds(mix, x, zt);
		y[t] = own;
		if (!mix->gaussian)
		{
			if (mix->size[own] >= 3)
				zt[own] = loo_score(mix, own, x, fl, tot);
			else
				y[t] = -1;		/* a cluster of one or two says nothing left out */
		}
		at += y[t] >= 0;
		t++;
	}
	m = t;
	/* β = 1 (T = 1) unless the loss still falls past it; else bisect log β */
	if (at == 0 || tempered_slope(z, y, m, k, 1.0) <= 0)
		goto done;
	if (tempered_slope(z, y, m, k, exp(lo)) >= 0)
		hi = lo;
	else
		for (t = 0; t < 50; t++)
		{
			double		mid = 0.5 * (lo + hi);

			if (tempered_slope(z, y, m, k, exp(mid)) > 0)
				hi = mid;
			else
				lo = mid;
		}
	mix->temperature = fmin(fmax(exp(-hi), 1), DAC_TEMPERATURE_MAX);
done:
	dac_free(z);
	dac_free(y);
	return st;
}

static dac_status
summarise(const dac_real *X, int d, const dac_clustering *c, int gaussian, int calibrated,
		  dac_mixture *mix, dac_error *err)
{
	int			K = c->num_clusters,
				n = c->n,
				i,
				j,
				k,
				kept = 0;
	dac_status	st;
	int		   *size = dac_alloc_zero(sizeof(int) * 2 * (size_t) (K ? K : 1)),
			   *slot;
	double	   *sum = dac_alloc_zero(sizeof(double) * ((size_t) K * d + 1)),
			   *best = dac_alloc(sizeof(double) * (size_t) (K ? K : 1));

	/*
	 * A clustering of the set turned (opts.rotations) has axis-aligned
	 * Gaussians in the turned frame only: its members describe it.
	 */
	gaussian = gaussian && c->turned == 0;
	if (size == NULL || sum == NULL || best == NULL)
		goto nomem;
	slot = size + K;
	for (i = 0; i < n; i++)
		if (c->labels[i] > 0)
			size[c->labels[i] - 1]++;
	for (k = 0; k < K; k++)
		slot[k] = size[k] > 0 ? kept++ : -1;
	if (!mixture_alloc(mix, kept, d))
		goto nomem;
	mix->n = n;
	mix->stages = c->stages;
	mix->gaussian = gaussian;
	for (k = 0; k < K; k++)
		if (slot[k] >= 0)
		{
			mix->id[slot[k]] = k + 1;
			mix->size[slot[k]] = size[k];
		}
	for (i = 0; i < n; i++)
	{
		if (c->labels[i] <= 0)
		{
			mix->noise++;
			continue;
		}
		k = slot[c->labels[i] - 1];
		for (j = 0; j < d && !gaussian; j++)
			sum[(size_t) k * d + j] += X[(size_t) i * d + j];
	}
	for (k = 0; k < K; k++)
	{
		int			s = slot[k];

		if (s < 0)
			continue;
		for (j = 0; j < d; j++)
			mix->mean[(size_t) s * d + j] = gaussian ? (double) c->theta[(size_t) k * c->theta_dim + j]
				: sum[(size_t) s * d + j] / size[k];
		if (gaussian)
			for (j = 0; j < d; j++)
				mix->sd[(size_t) s * d + j] = c->theta[(size_t) k * c->theta_dim + d + j];
		if (gaussian && c->frame_center != NULL)
			for (j = 0; j < d; j++)
			{
				/* θ from the network's frame back to the caller's units */
				mix->mean[(size_t) s * d + j] = c->frame_center[j] + mix->mean[(size_t) s * d + j] / c->frame_scale;
				mix->sd[(size_t) s * d + j] /= c->frame_scale;
			}
	}
	if (!gaussian)
	{
		/* the members' standard deviation, summed about their mean */
		for (i = 0; i < n; i++)
		{
			if (c->labels[i] <= 0)
				continue;
			k = slot[c->labels[i] - 1];
			for (j = 0; j < d; j++)
			{
				double		u = X[(size_t) i * d + j] - mix->mean[(size_t) k * d + j];

				mix->sd[(size_t) k * d + j] += u * u;
			}
		}
		for (k = 0; k < mix->k; k++)
			for (j = 0; j < d; j++)
				mix->sd[(size_t) k * d + j] = sqrt(mix->sd[(size_t) k * d + j] / mix->size[k]);
	}
	mixture_finish(mix);
	st = calibrated ? calibrate(mix, X, c, slot) : DAC_OK;
	if (st != DAC_OK)
	{
		dac_mixture_free(mix);
		goto fail;
	}
	/* representatives: the member nearest the mean (σ metric for a Gaussian head) */
	for (i = 0; i < n; i++)
	{
		double		q;

		if (c->labels[i] <= 0)
			continue;
		k = slot[c->labels[i] - 1];
		q = sq_dist(X + (size_t) i * d, mix->mean + (size_t) k * d,
					gaussian ? mix->sd_eff + (size_t) k * d : NULL, d);
		if (mix->rep[k] == 0 || q < best[k])
		{
			best[k] = q;
			mix->rep[k] = i + 1;
		}
	}
	dac_free(size);
	dac_free(sum);
	dac_free(best);
	return DAC_OK;
nomem:
	st = DAC_ERR_NOMEM;
fail:
	dac_free(size);
	dac_free(sum);
	dac_free(best);
	if (st == DAC_ERR_INTERRUPTED)
		return dac_fail(err, st, "interrupted");
	return dac_fail(err, DAC_ERR_NOMEM, "out of memory summarising %d points", n);
}

double
dac_mixture_bytes(int n, int d, int k)
{
	double		kd = (double) k * d,
				m = n < DAC_CALIBRATION_POINTS ? n : DAC_CALIBRATION_POINTS,
				odds = fmin(m * k, fmax(1e6, 20.0 * k));

	/* the mixture (mixture_alloc), the sums and sizes summarising it, the calibration's log-odds */
	return 3.0 * k * sizeof(int) + (3 * kd + 3.0 * k + 1) * sizeof(double) +
		2.0 * (k + 1) * sizeof(int) + (kd + 1 + k + 1) * sizeof(double) +
		(odds + d) * sizeof(double) + m * sizeof(int);
}

dac_status
dac_mixture_from_clustering(const dac_real *X, int d, const dac_clustering *c, int gaussian,
							dac_mixture *mix, dac_error *err)
{
	return summarise(X, d, c, gaussian, 1, mix, err);
}

dac_status
dac_mixture_of_clusters(const dac_real *X, int d, const dac_clustering *c, int gaussian,
						dac_mixture *mix, dac_error *err)
{
	return summarise(X, d, c, gaussian, 0, mix, err);
}

double
dac_mixture_sqdist(const dac_mixture *mix, int s, const dac_real *x)
{
	return sq_dist(x, mix->mean + (size_t) s * mix->d, mix->sd_eff + (size_t) s * mix->d, mix->d);
}

void
dac_mixture_relabel(dac_mixture *mix, const int *map, int max_id)
{
	int			k;

	for (k = 0; k < mix->k; k++)
		if (mix->id[k] >= 1 && mix->id[k] <= max_id)
			mix->id[k] = map[mix->id[k]];
}

/* ---------------------------------------------------------------- JSON */

static void
json_reals(dac_strbuf *sb, const double *v, int d)
{
	int			j;

	dac_strbuf_append(sb, "[", 1);
	for (j = 0; j < d; j++)
		dac_strbuf_printf(sb, j ? ",%.17g" : "%.17g", v[j]);
	dac_strbuf_append(sb, "]", 1);
}

void
dac_mixture_to_json(const dac_mixture *mix, dac_strbuf *sb)
{
	int			k,
				first = 1;

	dac_strbuf_printf(sb, "{\"dac_clustering\":%d,\"model\":", DAC_MIXTURE_FORMAT);
	if (mix->model)
		dac_strbuf_json_string(sb, mix->model);
	else
		dac_strbuf_append(sb, "null", 4);
	dac_strbuf_printf(sb, ",\"model_version\":%lld,\"density\":\"%s\",\"dim\":%d,\"n\":%d,\"noise\":%d,\"clusters\":[",
					  (long long) mix->model_version, mix->gaussian ? "gaussian_diag" : "none",
					  mix->d, mix->n, mix->noise);
	for (k = 0; k < mix->k; k++)
	{
		dac_strbuf_printf(sb, "%s{\"id\":%d,\"size\":%d,\"representative\":", k ? "," : "",
						  mix->id[k], mix->size[k]);
		if (mix->rep[k] > 0)
			dac_strbuf_printf(sb, "%d", mix->rep[k]);
		else
			dac_strbuf_append(sb, "null", 4);
		dac_strbuf_append(sb, ",\"mean\":", 8);
		json_reals(sb, mix->mean + (size_t) k * mix->d, mix->d);
		dac_strbuf_append(sb, ",\"stddev\":", 10);
		json_reals(sb, mix->sd + (size_t) k * mix->d, mix->d);
		dac_strbuf_printf(sb, ",\"stability\":%.17g}", mix->stability[k]);
	}
	dac_strbuf_printf(sb, "],\"temperature\":%.17g,\"stages\":[", mix->temperature);
	/* the stages that made it, by name (dac_stage_describe); not read back */
	for (k = 0; dac_stage_describe(k) != NULL; k++)
		if (mix->stages & 1u << k)
		{
			dac_strbuf_append(sb, first ? "" : ",", first ? 0 : 1);
			dac_strbuf_json_string(sb, dac_stage_describe(k)->name);
			first = 0;
		}
	dac_strbuf_append(sb, "]}", 2);
}

/* An integer member in [lo, hi]; 0 with *err set otherwise. */
static int
json_int_member(const json_value *obj, const char *key, int64_t lo, int64_t hi, int64_t *out,
				const char *where, dac_error *err)
{
	const json_value *v = json_get(obj, key);

	if (v == NULL || v->type != JSON_NUMBER || !v->is_integer || !v->integer_ok ||
		v->integer < lo || v->integer > hi)
	{
		dac_fail(err, DAC_ERR_FORMAT, "%s: \"%s\" must be an integer from %lld to %lld", where, key,
				 (long long) lo, (long long) hi);
		return 0;
	}
	*out = v->integer;
	return 1;
}

static int
json_reals_member(const json_value *obj, const char *key, int d, int nonneg, double *out,
				  const char *where, dac_error *err)
{
	const json_value *v = json_get(obj, key);
	size_t		j;

	if (v == NULL || v->type != JSON_ARRAY || v->count != (size_t) d)
	{
		dac_fail(err, DAC_ERR_FORMAT, "%s: \"%s\" must be an array of dim (%d) numbers", where, key, d);
		return 0;
	}
	for (j = 0; j < v->count; j++)
	{
		const json_value *e = v->items[j];

		if (e->type != JSON_NUMBER || !isfinite(e->number) || fabs(e->number) > 3.4e38 ||
			(nonneg && e->number < 0))
		{
			dac_fail(err, DAC_ERR_FORMAT, "%s: \"%s\"[%zu] must be a finite%s number", where, key, j,
					 nonneg ? " non-negative" : "");
			return 0;
		}
		out[j] = e->number;
	}
	return 1;
}

dac_status
dac_mixture_from_json(const char *text, size_t len, dac_mixture *mix, dac_error *err)
{
	dac_arena	ar;
	json_value *root;
	const json_value *cl,
			   *v;
	int64_t		x,
				dim,
				n,
				noise;
	size_t		k;
	int		   *ids = NULL;
	dac_status	st;
	int			gaussian;
	int64_t		tot = 0;

	memset(mix, 0, sizeof(*mix));
	dac_arena_init(&ar, 4096);
	st = json_parse(text, len, &ar, &root, err);
	if (st != DAC_OK)
	{
		dac_arena_free(&ar);
		return st;
	}
	st = DAC_ERR_FORMAT;
	if (root->type != JSON_OBJECT)
	{
		dac_fail(err, st, "a clustering must be a JSON object");
		goto done;
	}
	if (!json_int_member(root, "dac_clustering", DAC_MIXTURE_FORMAT, DAC_MIXTURE_FORMAT, &x,
						 "clustering", err) ||
		!json_int_member(root, "dim", 1, 1000000, &dim, "clustering", err) ||
		!json_int_member(root, "n", 1, INT_MAX / 2, &n, "clustering", err) ||
		!json_int_member(root, "noise", 0, n - 1, &noise, "clustering", err))
		goto done;
	v = json_get(root, "density");
	if (v == NULL || v->type != JSON_STRING ||
		(strcmp(v->string, "gaussian_diag") != 0 && strcmp(v->string, "none") != 0))
	{
		dac_fail(err, st, "clustering: \"density\" must be \"gaussian_diag\" or \"none\"");
		goto done;
	}
	gaussian = strcmp(v->string, "gaussian_diag") == 0;
	cl = json_get(root, "clusters");
	if (cl == NULL || cl->type != JSON_ARRAY || cl->count < 1 || cl->count > (size_t) n)
	{
		dac_fail(err, st, "clustering: \"clusters\" must be an array of 1 to n (%lld) clusters", (long long) n);
		goto done;
	}
	if ((double) cl->count * (double) dim > 1e8)
	{
		dac_fail(err, DAC_ERR_TOO_LARGE, "clustering: %zu clusters of dimension %lld are too many",
				 cl->count, (long long) dim);
		st = DAC_ERR_TOO_LARGE;
		goto done;
	}
	/*
	 * The sizes the text claims are checked against the values it holds
	 * before anything is allocated for them: "dim" is believed only as far
	 * as each cluster's mean and stddev have that many values, so a short
	 * text claiming a huge clustering allocates nothing.
	 */
	for (k = 0; k < cl->count; k++)
	{
		const json_value *c = cl->items[k];
		static const char *const arrays[2] = {"mean", "stddev"};
		int			a;

		if (c->type != JSON_OBJECT)
		{
			dac_fail(err, st, "clustering: cluster %zu must be an object", k + 1);
			goto done;
		}
		for (a = 0; a < 2; a++)
		{
			const json_value *v = json_get(c, arrays[a]);

			if (v == NULL || v->type != JSON_ARRAY || v->count != (size_t) dim)
			{
				dac_fail(err, st, "clustering: cluster %zu: \"%s\" must be an array of dim (%d) numbers",
						 k + 1, arrays[a], (int) dim);
				goto done;
			}
		}
	}
	if (!mixture_alloc(mix, (int) cl->count, (int) dim) ||
		(ids = dac_alloc(sizeof(int) * cl->count)) == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory reading a clustering");
		goto done;
	}
	mix->n = (int) n;
	mix->noise = (int) noise;
	mix->gaussian = gaussian;
	v = json_get(root, "model");
	if (v != NULL && v->type == JSON_STRING)
	{
		mix->model = dac_alloc(v->string_len + 1);
		if (mix->model == NULL)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory reading a clustering");
			goto done;
		}
		memcpy(mix->model, v->string, v->string_len + 1);
	}
	else if (v != NULL && v->type != JSON_NULL)
	{
		dac_fail(err, st, "clustering: \"model\" must be a string or null");
		goto done;
	}
	v = json_get(root, "model_version");
	if (v != NULL && !json_int_member(root, "model_version", 0, INT64_MAX, &mix->model_version,
									  "clustering", err))
		goto done;
	v = json_get(root, "temperature");
	if (v != NULL)
	{
		if (v->type != JSON_NUMBER || !(v->number >= 1 && v->number <= DAC_TEMPERATURE_MAX))
		{
			dac_fail(err, st, "clustering: \"temperature\" must be a number from 1 to %g",
					 DAC_TEMPERATURE_MAX);
			goto done;
		}
		mix->temperature = v->number;
	}
	for (k = 0; k < cl->count; k++)
	{
		const json_value *c = cl->items[k];
		char		where[48];
		int64_t		id,
					size,
					rep = 0;

		/* an object with mean and stddev of dim values: checked before allocating */
		snprintf(where, sizeof(where), "clustering: cluster %zu", k + 1);
		if (!json_int_member(c, "id", INT_MIN, INT_MAX, &id, where, err) ||
			!json_int_member(c, "size", 1, n, &size, where, err))
			goto done;
		v = json_get(c, "representative");
		if (v != NULL && v->type != JSON_NULL &&
			!json_int_member(c, "representative", 1, n, &rep, where, err))
			goto done;
		if (!json_reals_member(c, "mean", (int) dim, 0, mix->mean + k * dim, where, err) ||
			!json_reals_member(c, "stddev", (int) dim, 1, mix->sd + k * dim, where, err))
			goto done;
		if (gaussian)
		{
			int			j;

			for (j = 0; j < dim; j++)
				if (mix->sd[k * dim + j] <= 0)
				{
					dac_fail(err, st, "%s: a Gaussian cluster's \"stddev\" must be positive", where);
					goto done;
				}
		}
		v = json_get(c, "stability");
		if (v != NULL)
		{
			if (v->type != JSON_NUMBER || !(v->number > 0 && v->number <= 1))
			{
				dac_fail(err, st, "%s: \"stability\" must be a number above 0 and at most 1", where);
				goto done;
			}
			mix->stability[k] = v->number;
		}
		mix->id[k] = ids[k] = (int) id;
		mix->size[k] = (int) size;
		mix->rep[k] = (int) rep;
		tot += size;
	}
	if (tot + noise != n)
	{
		dac_fail(err, st, "clustering: the sizes (%lld) and noise (%lld) do not add up to n (%lld)",
				 (long long) tot, (long long) noise, (long long) n);
		goto done;
	}
	qsort(ids, cl->count, sizeof(int), dac_cmp_int);
	for (k = 1; k < cl->count; k++)
		if (ids[k] == ids[k - 1])
		{
			dac_fail(err, st, "clustering: cluster id %d appears twice", ids[k]);
			goto done;
		}
	mixture_finish(mix);
	st = DAC_OK;
done:
	dac_free(ids);
	dac_arena_free(&ar);
	if (st != DAC_OK)
		dac_mixture_free(mix);
	return st;
}

/* ---------------------------------------------------------------- assigning */

void
dac_mixture_assign(const dac_mixture *mix, const dac_real *x, double noise_level, int *id,
				   double *prob)
{
	int			d = mix->d,
				k,
				best = 0;
	double		bestq = 0;
	dac_lse		s = {0, 0};

	/*
	 * (log w_k + log N(x; μ_k, σ_k)) / T, summed in one pass (the running
	 * log-sum-exp); the likeliest is the largest, s.mx
	 */
	for (k = 0; k < mix->k; k++)
	{
		double		q = sq_dist(x, mix->mean + (size_t) k * d, mix->sd_eff + (size_t) k * d, d),
					l = (mix->logw[k] + mix->lognorm[k] - 0.5 * q) / mix->temperature;

		if (k == 0 || l > s.mx)
		{
			best = k;
			bestq = q;
		}
		dac_lse_add(&s, l);
	}
	*prob = mix->stability[best] / s.z;
	*id = mix->id[best];
	if (noise_level > 0 && dac_chi2_log_sf(bestq, d) < log(noise_level))
		*id = 0;
}

void
dac_mixture_logodds(const dac_mixture *mix, const dac_real *x, double *z)
{
	int			k;

	for (k = 0; k < mix->k; k++)
		z[k] = mix->logw[k] + mix->lognorm[k] -
			0.5 * sq_dist(x, mix->mean + (size_t) k * mix->d, mix->sd_eff + (size_t) k * mix->d, mix->d);
}

/* ---------------------------------------------------------------- χ² tail */

/*
 * log Q(a, x), the upper regularised incomplete gamma function: by its
 * power series for P = 1 - Q when x < a + 1, else by its continued fraction
 * (modified Lentz), both in log space so that large a (half the dimension)
 * neither overflows nor underflows.
 */
static double
log_gamma_q(double a, double x)
{
	double		lpre;
	int			i;

	if (x <= 0)
		return 0;
	lpre = -x + a * log(x) - lgamma(a);
	if (x < a + 1)
	{
		double		term = 1 / a,
					sum = term,
					ap = a,
					p;

		for (i = 0; i < 100000; i++)
		{
			ap += 1;
			term *= x / ap;
			sum += term;
			if (term < sum * 1e-16)
				break;
		}
		p = exp(lpre + log(sum));
		return p >= 1 ? -INFINITY : log1p(-p);
	}
	else
	{
		double		tiny = 1e-300,
					b = x + 1 - a,
					c = 1 / tiny,
					dd = 1 / b,
					h = dd;

		for (i = 1; i < 100000; i++)
		{
			double		an = -i * (i - a),
						del;

			b += 2;
			dd = an * dd + b;
			if (fabs(dd) < tiny)
				dd = tiny;
			c = b + an / c;
			if (fabs(c) < tiny)
				c = tiny;
			dd = 1 / dd;
			del = dd * c;
			h *= del;
			if (fabs(del - 1) < 1e-16)
				break;
		}
		return lpre + log(h);
	}
}

double
dac_chi2_log_sf(double x, double dof)
{
	if (!(x > 0))
		return 0;
	return log_gamma_q(0.5 * dof, 0.5 * x);
}

double
dac_normal_quantile(double p)
{
	double		x = -1,
				lo = -40,
				hi = 0;
	int			it;

	if (!(p >= 0 && p <= 1))
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p > 0.5)
		return -dac_normal_quantile(1 - p);
	if (p == 0.5)
		return 0;
	/* a start from the tail's leading term, then Newton's steps on Φ(x) − p */
	if (p < 0.1)
		x = -sqrt(-2 * log(p));
	for (it = 0; it < 200; it++)
	{
		double		f = 0.5 * erfc(-x / sqrt(2.0)) - p,
					g = exp(-0.5 * x * x) / sqrt(2 * M_PI),
					nx;

		if (f > 0)
			hi = x;
		else
			lo = x;
		nx = g > 0 ? x - f / g : 0.5 * (lo + hi);
		if (!(nx > lo && nx < hi))
			nx = 0.5 * (lo + hi);
		if (fabs(nx - x) <= 1e-15 * (1 + fabs(x)))
			return nx;
		x = nx;
	}
	return x;
}
