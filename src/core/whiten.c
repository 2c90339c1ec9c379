/*
 * whiten.c
 *	  The within-label scatter of a labelled table and the whitening map it
 *	  gives (whiten.h).
 */
#include "whiten.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "linalg.h"
#include "model.h"
#include "setnorm.h"
#include "train.h"

/* Rows centred per block of the scatter's product. */
#define SCATTER_BLOCK 256

double
dac_whitening_bytes(int d)
{
	/* the factor and its inverse (double); a label's mean, a block of centred rows, one product */
	return 2.0 * sizeof(double) * d * d + sizeof(double) * (double) d +
		sizeof(dac_real) * ((double) SCATTER_BLOCK * d + (double) d * d);
}

dac_status
dac_within_scatter(const dac_labelled *ds, double *S, dac_error *err)
{
	int			d = ds->d,
				l,
				i,
				k,
				r;
	double	   *mean;
	dac_real   *R,
			   *P;
	int			filled = 0,
				rows = ds->lstart[ds->L];	/* the rows it draws from (a subset's, not every row of X) */

	if (rows < 2)
		return dac_fail(err, DAC_ERR_INVALID, "the within-label scatter needs at least 2 rows");
	mean = dac_alloc(sizeof(double) * (size_t) d);
	R = dac_alloc(sizeof(dac_real) * (size_t) SCATTER_BLOCK * d);
	P = dac_alloc(sizeof(dac_real) * (size_t) d * d);
	if (mean == NULL || R == NULL || P == NULL)
	{
		dac_free(mean);
		dac_free(R);
		dac_free(P);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory for the scatter of %d-dimensional rows", d);
	}
	memset(S, 0, sizeof(double) * (size_t) d * d);
	for (l = 0; l < ds->L; l++)
	{
		int			lo = ds->lstart[l],
					hi = ds->lstart[l + 1];

		if (hi == lo)
			continue;
		for (k = 0; k < d; k++)
			mean[k] = 0;
		for (r = lo; r < hi; r++)
		{
			const dac_real *x = ds->X + (size_t) ds->rows[r] * d;

			for (k = 0; k < d; k++)
				mean[k] += x[k];
		}
		for (k = 0; k < d; k++)
			mean[k] /= hi - lo;
		/* the label's rows, centred, a block at a time: S += Rᵀ R */
		for (r = lo; r < hi; r++)
		{
			const dac_real *x = ds->X + (size_t) ds->rows[r] * d;

			for (k = 0; k < d; k++)
				R[(size_t) filled * d + k] = (dac_real) (x[k] - mean[k]);
			if (++filled == SCATTER_BLOCK || r == hi - 1)
			{
				if (dac_interrupted())
				{
					dac_free(mean);
					dac_free(R);
					dac_free(P);
					return dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the scatter of %d rows", rows);
				}
				dac_gemm(1, 0, d, d, filled, 1, R, d, R, d, 0, P, d);
				for (i = 0; i < d * d; i++)
					S[i] += P[i];
				filled = 0;
			}
		}
	}
	for (i = 0; i < d * d; i++)
		S[i] /= rows;
	/* exactly symmetric, whatever the product's rounding */
	for (i = 0; i < d; i++)
		for (k = 0; k < i; k++)
			S[(size_t) i * d + k] = S[(size_t) k * d + i] = 0.5 * (S[(size_t) i * d + k] + S[(size_t) k * d + i]);
	dac_free(mean);
	dac_free(R);
	dac_free(P);
	return DAC_OK;
}

dac_status
dac_whitening_map(const double *S, int d, double alpha, dac_real *M, dac_error *err)
{
	double	   *L,
			   *Li,
				tr = 0,
				ridge;
	int			i,
				j,
				k;

	if (d < 1 || !(alpha > 0) || !isfinite(alpha))
		return dac_fail(err, DAC_ERR_INVALID, "the whitening's ridge must be a positive number");
	for (i = 0; i < d; i++)
		tr += S[(size_t) i * d + i];
	if (!(tr > 0) || !isfinite(tr))
		return dac_fail(err, DAC_ERR_INVALID, "the rows do not vary within their labels: nothing to whiten");
	ridge = alpha * tr / d;
	L = dac_alloc(2 * sizeof(double) * (size_t) d * d);
	if (L == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory whitening %d-dimensional rows", d);
	/* Cholesky, row by row: A = L Lᵀ, L lower triangular */
	for (i = 0; i < d; i++)
	{
		if (dac_interrupted())
		{
			dac_free(L);
			return dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the whitening of %d-dimensional rows", d);
		}
		for (j = 0; j <= i; j++)
		{
			double		s = S[(size_t) i * d + j] + (i == j ? ridge : 0);
			const double *li = L + (size_t) i * d,
					   *lj = L + (size_t) j * d;

			for (k = 0; k < j; k++)
				s -= li[k] * lj[k];
			if (i == j)
			{
				if (!(s > 0) || !isfinite(s))
				{
					dac_free(L);
					return dac_fail(err, DAC_ERR_INVALID, "the within-label scatter is not positive definite");
				}
				L[(size_t) i * d + i] = sqrt(s);
			}
			else
				L[(size_t) i * d + j] = s / lj[j];
		}
		for (j = i + 1; j < d; j++)
			L[(size_t) i * d + j] = 0;
	}
	/*
	 * L⁻¹, lower triangular, a row at a time: row i of L·L⁻¹ = e_i gives
	 * L⁻¹[i] = (e_i − Σ_{k<i} L[i][k] L⁻¹[k]) / L[i][i] (rows read in order)
	 */
	Li = L + (size_t) d * d;
	for (i = 0; i < d * d; i++)
		Li[i] = 0;
	for (i = 0; i < d; i++)
	{
		double	   *row = Li + (size_t) i * d;

		if (dac_interrupted())
		{
			dac_free(L);
			return dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the whitening of %d-dimensional rows", d);
		}
		row[i] = 1;
		for (k = 0; k < i; k++)
		{
			double		c = L[(size_t) i * d + k];
			const double *rk = Li + (size_t) k * d;

			for (j = 0; j <= k; j++)
				row[j] -= c * rk[j];
		}
		for (j = 0; j <= i; j++)
			row[j] /= L[(size_t) i * d + i];
	}
	for (i = 0; i < d * d; i++)
		M[i] = (dac_real) Li[i];
	dac_free(L);
	return DAC_OK;
}

dac_status
dac_lda_map(const dac_labelled *ds, const double *scatter, double ridge, dac_real *P, int *prows, dac_real *G,
			dac_real *means, int *classes, dac_error *err)
{
	int			d = ds->d,
				L = 0,
				l,
				i,
				j,
				k,
				r;
	double	   *S = NULL,
			   *mu = NULL,
			   *K = NULL,
			   *U = NULL,
			   *ev = NULL,
			   *v = NULL;
	dac_status	st = DAC_OK;

	*classes = 0;
	*prows = 0;
	for (l = 0; l < ds->L; l++)
		L += ds->lstart[l + 1] > ds->lstart[l];
	if (L < 3)
		return dac_fail(err, DAC_ERR_INVALID, "a projection onto the labels' directions needs at least 3 labels "
						"with rows (%d)", L);
	if (L > DAC_MAX_GATE_CLASSES)
		return dac_fail(err, DAC_ERR_TOO_LARGE, "a projection onto the labels' directions takes at most %d labels "
						"(%d)", DAC_MAX_GATE_CLASSES, L);
	/* the caller's scatter of ds when it has one: the product over every row is not made twice */
	if (scatter == NULL)
		S = dac_alloc(sizeof(double) * (size_t) d * d);
	mu = dac_alloc(sizeof(double) * ((size_t) L * d + d));
	K = dac_alloc(sizeof(double) * (size_t) L * L * 2 + sizeof(double) * (size_t) L);
	v = dac_alloc(sizeof(double) * (size_t) d);
	if ((scatter == NULL && S == NULL) || mu == NULL || K == NULL || v == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory projecting %d-dimensional rows", d);
		goto done;
	}
	U = K + (size_t) L * L;
	ev = U + (size_t) L * L;
	if ((scatter == NULL && (st = dac_within_scatter(ds, S, err)) != DAC_OK) ||
		(st = dac_whitening_map(scatter ? scatter : S, d, ridge, G, err)) != DAC_OK)
		goto done;
	/* each label's mean, then in the whitened coordinates: G mean */
	for (l = 0, j = 0; l < ds->L; l++)
	{
		int			lo = ds->lstart[l],
					hi = ds->lstart[l + 1];

		if (hi == lo)
			continue;
		if (dac_interrupted())
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the projection of %d-dimensional rows", d);
			goto done;
		}
		for (k = 0; k < d; k++)
			v[k] = 0;
		for (r = lo; r < hi; r++)
		{
			/* one label may hold most of a large table */
			if (((r - lo) & 8191) == 8191 && dac_interrupted())
			{
				st = dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the projection of %d-dimensional rows", d);
				goto done;
			}
			for (k = 0; k < d; k++)
				v[k] += ds->X[(size_t) ds->rows[r] * d + k];
		}
		for (i = 0; i < d; i++)
		{
			double		z = 0;

			for (k = 0; k <= i; k++)
				z += (double) G[(size_t) i * d + k] * v[k] / (hi - lo);
			mu[(size_t) j * d + i] = z;
			means[(size_t) j * d + i] = (dac_real) z;
		}
		j++;
	}
	/* the means centred on their own mean; K = C Cᵀ, whose leading eigenvectors give the between-label directions */
	{
		double	   *c = mu + (size_t) L * d;

		for (k = 0; k < d; k++)
		{
			c[k] = 0;
			for (l = 0; l < L; l++)
				c[k] += mu[(size_t) l * d + k] / L;
		}
		for (l = 0; l < L; l++)
			for (k = 0; k < d; k++)
				mu[(size_t) l * d + k] -= c[k];
	}
	for (i = 0; i < L; i++)
	{
		if (dac_interrupted())
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the projection of %d-dimensional rows", d);
			goto done;
		}
		for (j = 0; j <= i; j++)
		{
			double		z = 0;

			for (k = 0; k < d; k++)
				z += mu[(size_t) i * d + k] * mu[(size_t) j * d + k];
			K[(size_t) i * L + j] = K[(size_t) j * L + i] = z;
		}
	}
	if (dac_sym_eigen(K, L, ev, U))
	{
		st = dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the projection of %d-dimensional rows", d);
		goto done;
	}
	/* P's row j: the direction v_j = Cᵀ u_j / √λ_j, through G (a row x goes to v_jᵀ G x) */
	memset(P, 0, sizeof(dac_real) * (size_t) d * d);
	for (j = 0; j < L - 1 && j < d; j++)
	{
		if (!(ev[j] > 1e-12 * ev[0]))
			break;
		if (dac_interrupted())
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the projection of %d-dimensional rows", d);
			goto done;
		}
		for (k = 0; k < d; k++)
		{
			double		z = 0;

			for (l = 0; l < L; l++)
				z += mu[(size_t) l * d + k] * U[(size_t) l * L + j];
			v[k] = z / sqrt(ev[j]);
		}
		for (k = 0; k < d; k++)
		{
			double		z = 0;

			/* G is lower triangular: (v_jᵀ G)_k sums over i >= k */
			for (i = k; i < d; i++)
				z += v[i] * G[(size_t) i * d + k];
			P[(size_t) j * d + k] = (dac_real) z;
		}
	}
	/* the rows that carry a direction; one of zeros when the means coincide */
	*prows = j > 0 ? j : 1;
	*classes = L;
done:
	dac_free(S);
	dac_free(mu);
	dac_free(K);
	dac_free(v);
	return st;
}

int
dac_whitening_large_n(int n_max)
{
	int			n = 3 * n_max < DAC_LARGE_N_MAX ? 3 * n_max : DAC_LARGE_N_MAX;

	return n < n_max ? n_max : n;
}

double
dac_whitening_choose_bytes(const dac_model *m, int d, int labels, int rows, int n_large)
{
	/*
	 * the scatter, its scratch, a map, two candidate models (parameters and
	 * their derived buffers); the projection's P, G, means and scratch, a
	 * gated model's gate, the held-out rows' distances, the large sets
	 */
	double		dd = (double) d * d;

	/* a projection of more labels is refused before it allocates */
	if (labels > DAC_MAX_GATE_CLASSES)
		labels = 0;

	return sizeof(double) * dd + dac_whitening_bytes(d) + sizeof(dac_real) * dd +
		2.0 * sizeof(dac_real) * ((double) m->net.nparams + 2 * dd + (double) labels * d + (double) m->net.nfixed) +
		sizeof(dac_real) * (2 * dd + (double) labels * d + (double) DAC_GATE_BLOCK * d) +
		sizeof(double) * ((double) labels * (d + 2 * labels + 1) + 2.0 * d + rows) +
		(sizeof(dac_real) * (double) d + sizeof(int)) * n_large;
}

/* m's distances of every row of ds from the nearest class of a gate, into dist (in ds's order). */
static dac_status
gate_distances(const dac_labelled *ds, const dac_real *G, const dac_real *means, int L, dac_real *block,
			   dac_real *Y, double *dist, dac_error *err)
{
	int			d = ds->d,
				rows = ds->lstart[ds->L],
				at,
				i,
				beyond;
	dac_status	st;

	for (at = 0; at < rows; at += DAC_GATE_BLOCK)
	{
		int			n = rows - at < DAC_GATE_BLOCK ? rows - at : DAC_GATE_BLOCK;

		for (i = 0; i < n; i++)
			memcpy(block + (size_t) i * d, ds->X + (size_t) ds->rows[at + i] * d, sizeof(dac_real) * d);
		if ((st = dac_gate_beyond(block, n, d, G, 1, means, L, INFINITY, Y, &beyond, dist + at, err)) != DAC_OK)
			return st;
	}
	return DAC_OK;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/*
 * The projection candidate (dac_whitening_choose): fit on fit's rows, its
 * gate's threshold the DAC_GATE_QUANTILE of the distances of calib's rows
 * (*threshold; with a threshold given, > 0, that one), Melse (or NULL) the
 * map of the groups its gate turns away, the model in *cand.
 * DAC_ERR_INVALID: no projection (fewer than 3 labels, or rows all at
 * their class's mean).
 */
static dac_status
lda_candidate(const dac_model *m, const dac_labelled *fit, const double *scatter, const dac_labelled *calib,
			  double *threshold, const dac_real *Melse, int *classes, dac_model **cand, dac_error *err)
{
	int			d = fit->d,
				L = 0,
				l,
				rows = calib ? calib->lstart[calib->L] : 0,
				prows;
	dac_real   *P,
			   *G,
			   *means,
			   *block = NULL,
			   *Y = NULL;
	double	   *dist = NULL;
	dac_status	st;

	*cand = NULL;
	for (l = 0; l < fit->L; l++)
		L += fit->lstart[l + 1] > fit->lstart[l];
	if (L > DAC_MAX_GATE_CLASSES)
		L = DAC_MAX_GATE_CLASSES + 1;	/* dac_lda_map refuses it before any allocation */
	P = dac_alloc(sizeof(dac_real) * ((size_t) 2 * d * d + (size_t) (L > 0 ? L : 1) * d));
	if (P == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory projecting %d-dimensional rows", d);
	G = P + (size_t) d * d;
	means = G + (size_t) d * d;
	if ((st = dac_lda_map(fit, scatter, DAC_LDA_RIDGE, P, &prows, G, means, classes, err)) != DAC_OK)
		goto done;
	if (!(*threshold > 0))
	{
		block = dac_alloc(sizeof(dac_real) * (size_t) 2 * DAC_GATE_BLOCK * d);
		dist = dac_alloc(sizeof(double) * (size_t) (rows > 0 ? rows : 1));
		if (block == NULL || dist == NULL)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory for the gate of %d held-out rows", rows);
			goto done;
		}
		Y = block + (size_t) DAC_GATE_BLOCK * d;
		if ((st = gate_distances(calib, G, means, *classes, block, Y, dist, err)) != DAC_OK)
			goto done;
		qsort(dist, (size_t) rows, sizeof(double), cmp_double);
		*threshold = rows > 0 ? dist[(int) floor(DAC_GATE_QUANTILE * (rows - 1))] : 0;
		if (!(*threshold > 0) || !isfinite(*threshold))
		{
			st = dac_fail(err, DAC_ERR_INVALID, "the held-out rows lie at their classes' means: no gate");
			goto done;
		}
	}
	/* the map keeps only the projection's rows: the network sees prows coordinates (≤ L − 1) */
	st = dac_model_with_gated_map(m, P, prows, d, G, means, *classes, *threshold, Melse, cand, err);
done:
	dac_free(P);
	dac_free(block);
	dac_free(dist);
	return st;
}

/* Whether the scatter S [d, d] has a positive, finite trace: the rows vary within their labels. */
static int
varies(const double *S, int d)
{
	double		tr = 0;
	int			r;

	for (r = 0; r < d; r++)
		tr += S[(size_t) r * d + r];
	return tr > 0 && isfinite(tr);
}

/*
 * The groups the gate turns away (the labels held out whole, among the
 * held-out rows' sets): the best of the whitening maps of the scatter S for
 * them, beside *kept's projection, scored on val's sets into eari
 * [DAC_WHITEN_RIDGES, sets]; *kept becomes the model with it when that is
 * ahead there of the projection alone (guard: its scores on val's sets) by
 * more than DAC_WHITEN_SE.  M: scratch [d, d].
 */
static dac_status
whitening_else(const dac_model *m, const double *S, int d, const double *ridges, dac_real *M, dac_labelled *val,
			   int sets, int n_max, int k_max, uint64_t seed, const dac_cluster_opts *co, dac_real *X, int *y,
			   const double *guard, double *eari, dac_model **kept, dac_whitening_report *rep, dac_error *err)
{
	const dac_net *kn = &(*kept)->net;
	dac_model  *alt = NULL,
			   *alt_best = NULL;
	dac_status	st;
	int			r;

	for (r = 0; r < DAC_WHITEN_RIDGES; r++)
	{
		if ((st = dac_whitening_map(S, d, ridges[r], M, err)) != DAC_OK ||
			(st = dac_model_with_gated_map(m, (*kept)->P + kn->map, dac_config_map_rows(&kn->cfg), d,
										   (*kept)->P + kn->gate,
										   (*kept)->P + kn->gate_means, kn->cfg.gate_classes,
										   kn->cfg.gate_threshold, M, &alt, err)) != DAC_OK ||
			(st = dac_evaluate_labelled(alt, val, sets, n_max, k_max, seed, co, X, y, &rep->else_eval[r],
										eari + (size_t) r * sets, err)) != DAC_OK)
		{
			dac_model_destroy(alt);
			dac_model_destroy(alt_best);
			return st;
		}
		if (rep->else_best < 0 || rep->else_eval[r].ari > rep->else_eval[rep->else_best].ari)
		{
			rep->else_best = r;
			dac_model_destroy(alt_best);
			alt_best = alt;
		}
		else
			dac_model_destroy(alt);
		alt = NULL;
	}
	rep->else_kept = dac_validation_prefers(guard, eari + (size_t) rep->else_best * sets, sets, DAC_WHITEN_SE,
											&rep->else_diff, &rep->else_se);
	if (rep->else_kept)
	{
		dac_model_destroy(*kept);
		*kept = alt_best;
	}
	else
		dac_model_destroy(alt_best);
	return DAC_OK;
}

dac_status
dac_whitening_choose(const dac_model *m, const dac_labelled *train, dac_labelled *val, dac_labelled *known,
					 const dac_labelled *every, int sets, int n_max, int k_max, uint64_t seed,
					 const dac_cluster_opts *co, const double *base_ari, dac_real *X, int *y,
					 dac_whitening_report *rep, dac_model **chosen, dac_error *err)
{
	static const double ridges[DAC_WHITEN_RIDGES] = {0.1, 1, 10};
	int			d = train->d,
				r,
				best = -1,
				n_large = 0;
	double	   *S = NULL,
			   *ari = NULL,
			   *without = NULL,
			   *guard = NULL,
			   *large = NULL;
	dac_real   *M = NULL,
			   *Xl = NULL;
	int		   *yl = NULL;
	dac_model  *cand = NULL,
			   *kept = NULL;
	dac_labelled *choosing = known ? known : val;
	dac_status	st = DAC_OK;

	*chosen = NULL;
	memset(rep, 0, sizeof(*rep));
	rep->chosen = -1;
	rep->known = known != NULL;
	rep->candidates = DAC_WHITEN_RIDGES;
	rep->else_best = -1;
	if (d > DAC_MAX_MAP_DIM)
		return dac_fail(err, DAC_ERR_TOO_LARGE, "rows of %d dimensions are too wide to whiten (at most %d)", d,
						DAC_MAX_MAP_DIM);
	S = dac_alloc(sizeof(double) * (size_t) d * d);
	M = dac_alloc(sizeof(dac_real) * (size_t) d * d);
	/* each candidate's per-set ARIs, m's on the choosing sets, the best's on val's, two for the large sets */
	ari = dac_alloc(sizeof(double) * (size_t) sets * (DAC_WHITEN_CANDIDATES + 4 + DAC_WHITEN_RIDGES));
	if (S == NULL || M == NULL || ari == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory whitening %d-dimensional rows", d);
		goto done;
	}
	without = ari + (size_t) DAC_WHITEN_CANDIDATES * sets;
	guard = without + sets;
	large = guard + sets;
	if ((st = dac_within_scatter(train, S, err)) != DAC_OK)
		goto done;
	for (r = 0; r < DAC_WHITEN_RIDGES; r++)
		rep->ridge[r] = ridges[r];
	if (!varies(S, d))
	{
		/* every label's rows alike: a fact of the table, not an error */
		rep->skipped = "the rows do not vary within their labels: nothing to whiten";
		goto done;
	}
	/* m without a map on the choosing sets: val's are the caller's */
	if (known)
	{
		if ((st = dac_evaluate_labelled(m, known, sets, n_max, k_max, seed, co, X, y, &rep->without, without,
										err)) != DAC_OK)
			goto done;
	}
	else
		memcpy(without, base_ari, sizeof(double) * (size_t) sets);
	for (r = 0; r < DAC_WHITEN_CANDIDATES; r++)
	{
		if (r < DAC_WHITEN_RIDGES)
		{
			if ((st = dac_whitening_map(S, d, ridges[r], M, err)) != DAC_OK ||
				(st = dac_model_with_map(m, M, d, &cand, err)) != DAC_OK)
				goto done;
		}
		else
		{
			/*
			 * the projection onto the labels' directions, gated: only with
			 * new rows of the trained labels, which set its gate
			 */
			if (!known)
				break;
			st = lda_candidate(m, train, S, known, &rep->gate_threshold, NULL, &rep->lda_classes, &cand, err);
			if (st == DAC_ERR_INVALID || st == DAC_ERR_TOO_LARGE)
			{
				/* not a candidate, and said so */
				rep->lda_skipped = st == DAC_ERR_TOO_LARGE ?
					"the table has more labels than a projection takes (512)" :
					"the table has fewer than 3 labels with rows, or its held-out rows lie at their labels' means";
				st = DAC_OK;
				break;
			}
			if (st != DAC_OK)
				goto done;
			rep->candidates = DAC_WHITEN_CANDIDATES;
		}
		if ((st = dac_evaluate_labelled(cand, choosing, sets, n_max, k_max, seed, co, X, y, &rep->eval[r],
										ari + (size_t) r * sets, err)) != DAC_OK)
			goto done;
		/* only the best so far is kept */
		if (best < 0 || rep->eval[r].ari > rep->eval[best].ari)
		{
			best = r;
			dac_model_destroy(kept);
			kept = cand;
		}
		else
			dac_model_destroy(cand);
		cand = NULL;
	}
	rep->best = best;

	/*
	 * the map only when it is ahead of the model without it by more than
	 * DAC_WHITEN_SE paired standard errors: the best of three or four
	 * candidates on the same sets is the most favourable of as many draws
	 */
	if (dac_validation_prefers(without, ari + (size_t) best * sets, sets, DAC_WHITEN_SE, &rep->diff, &rep->se))
		rep->chosen = best;
	if (known)
	{
		/* the guard: every held-out row, the labels held out whole among them */
		if ((st = dac_evaluate_labelled(kept, val, sets, n_max, k_max, seed, co, X, y, &rep->guard, guard,
										err)) != DAC_OK)
			goto done;
		if (dac_validation_prefers(guard, base_ari, sets, DAC_WHITEN_GUARD_SE, &rep->guard_diff, &rep->guard_se))
			rep->chosen = -1;
		rep->guard_diff = -rep->guard_diff;
	}
	if (best >= DAC_WHITEN_RIDGES)
	{
		/*
		 * the projection keeps as few directions as the table has labels less
		 * one, which can cost large groups of few classes: it must not be
		 * behind on the new rows' large sets either
		 */
		int			k_large = 3 * k_max < DAC_LARGE_K_MAX ? 3 * k_max : DAC_LARGE_K_MAX;
		dac_eval_sums plain;

		n_large = dac_whitening_large_n(n_max);
		Xl = dac_alloc(sizeof(dac_real) * (size_t) n_large * d);
		yl = dac_alloc(sizeof(int) * (size_t) n_large);
		if (Xl == NULL || yl == NULL)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory for validation sets of %d points", n_large);
			goto done;
		}
		memset(&plain, 0, sizeof(plain));
		if ((st = dac_evaluate_labelled(m, known, sets, n_large, k_large, seed, co, Xl, yl, &plain, large,
										err)) != DAC_OK ||
			(st = dac_evaluate_labelled(kept, known, sets, n_large, k_large, seed, co, Xl, yl, &rep->large,
										large + sets, err)) != DAC_OK)
			goto done;
		rep->large_n = n_large;
		rep->large_k = k_large;
		rep->large_without = plain;
		if (dac_validation_prefers(large + sets, large, sets, DAC_WHITEN_GUARD_SE, &rep->large_diff, &rep->large_se))
			rep->chosen = -1;
		rep->large_diff = -rep->large_diff;
		if (rep->chosen >= 0 &&
			(st = whitening_else(m, S, d, ridges, M, val, sets, n_max, k_max, seed, co, X, y, guard,
								 large + 2 * (size_t) sets, &kept, rep, err)) != DAC_OK)
			goto done;
		if (rep->chosen >= 0 && every)
		{
			/*
			 * chosen: fit again on every row of the table, held-out ones too
			 * (the other groups' map as well), its threshold kept
			 */
			/* every row's scatter, once, for both maps */
			if ((st = dac_within_scatter(every, S, err)) != DAC_OK ||
				(rep->else_kept && (st = dac_whitening_map(S, d, ridges[rep->else_best], M, err)) != DAC_OK))
				goto done;
			dac_model_destroy(kept);
			kept = NULL;
			if ((st = lda_candidate(m, every, S, NULL, &rep->gate_threshold, rep->else_kept ? M : NULL,
									&rep->lda_classes, &kept, err)) != DAC_OK)
				goto done;
			rep->refit = 1;
		}
	}
	if (rep->chosen >= 0)
	{
		*chosen = kept;
		kept = NULL;
	}
done:
	dac_model_destroy(cand);
	dac_model_destroy(kept);
	dac_free(S);
	dac_free(M);
	dac_free(ari);
	dac_free(Xl);
	dac_free(yl);
	return st;
}

/*
 * ds's within-label scatter (*S [d, d]) and its whitening map at ridge
 * (*M [d, d]), both new; on failure neither (dac-cli whiten and project).
 */
static dac_status
scatter_and_whitening(const dac_labelled *ds, double ridge, double **S, dac_real **M, dac_error *err)
{
	int			d = ds->d;
	dac_status	st;

	*S = dac_alloc(sizeof(double) * (size_t) d * d);
	*M = dac_alloc(sizeof(dac_real) * (size_t) d * d);
	if (*S == NULL || *M == NULL)
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory whitening %d-dimensional rows", d);
	else if ((st = dac_within_scatter(ds, *S, err)) == DAC_OK)
		st = dac_whitening_map(*S, d, ridge, *M, err);
	if (st != DAC_OK)
	{
		dac_free(*S);
		dac_free(*M);
		*S = NULL;
		*M = NULL;
	}
	return st;
}

dac_status
dac_whitening_model(const dac_model *m, const dac_labelled *ds, double ridge, dac_model **out, dac_error *err)
{
	int			d = ds->d;
	double	   *S;
	dac_real   *M;
	dac_status	st;

	*out = NULL;
	if (d > DAC_MAX_MAP_DIM)
		return dac_fail(err, DAC_ERR_TOO_LARGE, "rows of %d dimensions are too wide to whiten (at most %d)", d,
						DAC_MAX_MAP_DIM);
	if ((st = scatter_and_whitening(ds, ridge, &S, &M, err)) != DAC_OK)
		return st;
	st = dac_model_with_map(m, M, d, out, err);
	dac_free(S);
	dac_free(M);
	return st;
}

dac_status
dac_projection_model(const dac_model *m, const dac_labelled *fit, const dac_labelled *calib, double else_ridge,
					 dac_model **out, dac_error *err)
{
	int			d = fit->d,
				classes;
	double		threshold = 0,
			   *S;
	dac_real   *M;
	dac_status	st;

	*out = NULL;
	if (d > DAC_MAX_MAP_DIM)
		return dac_fail(err, DAC_ERR_TOO_LARGE, "rows of %d dimensions are too wide to project (at most %d)",
						d, DAC_MAX_MAP_DIM);
	if (calib->d != d)
		return dac_fail(err, DAC_ERR_INVALID, "the held-out rows have %d coordinates, the table's %d", calib->d, d);
	if (!(else_ridge > 0))
		return lda_candidate(m, fit, NULL, calib, &threshold, NULL, &classes, out, err);
	/* fit's scatter once, for the projection and the other groups' whitening */
	if ((st = scatter_and_whitening(fit, else_ridge, &S, &M, err)) != DAC_OK)
		return st;
	st = lda_candidate(m, fit, S, calib, &threshold, M, &classes, out, err);
	dac_free(S);
	dac_free(M);
	return st;
}
