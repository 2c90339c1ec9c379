/*
 * whiten.c
 *	  The within-label scatter of a labelled table and the whitening map it
 *	  gives (whiten.h).
 */
#include "whiten.h"

#include <math.h>
#include <string.h>

#include "linalg.h"
#include "model.h"
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

double
dac_whitening_choose_bytes(const dac_model *m, int d)
{
	/* the scatter, its scratch, a map, two candidate models (parameters and their derived buffers) */
	return sizeof(double) * (double) d * d + dac_whitening_bytes(d) + sizeof(dac_real) * (double) d * d +
		2.0 * sizeof(dac_real) * ((double) m->net.nparams + (double) d * d + (double) m->net.nfixed);
}

dac_status
dac_whitening_choose(const dac_model *m, const dac_labelled *train, dac_labelled *val, dac_labelled *known,
					 int sets, int n_max, int k_max, uint64_t seed, const dac_cluster_opts *co,
					 const double *base_ari, dac_real *X, int *y, dac_whitening_report *rep,
					 dac_model **chosen, dac_error *err)
{
	static const double ridges[DAC_WHITEN_RIDGES] = {0.1, 1, 10};
	int			d = train->d,
				r,
				best = -1;
	double	   *S = NULL,
			   *ari = NULL,
			   *without = NULL,
			   *guard = NULL;
	dac_real   *M = NULL;
	dac_model  *cand = NULL,
			   *kept = NULL;
	dac_labelled *choosing = known ? known : val;
	dac_status	st = DAC_OK;

	*chosen = NULL;
	memset(rep, 0, sizeof(*rep));
	rep->chosen = -1;
	rep->known = known != NULL;
	if (d > DAC_MAX_MAP_DIM)
		return dac_fail(err, DAC_ERR_TOO_LARGE, "rows of %d dimensions are too wide to whiten (at most %d)", d,
						DAC_MAX_MAP_DIM);
	S = dac_alloc(sizeof(double) * (size_t) d * d);
	M = dac_alloc(sizeof(dac_real) * (size_t) d * d);
	/* each ridge's per-set ARIs, m's on the choosing sets, the best map's on val's */
	ari = dac_alloc(sizeof(double) * (size_t) sets * (DAC_WHITEN_RIDGES + 2));
	if (S == NULL || M == NULL || ari == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory whitening %d-dimensional rows", d);
		goto done;
	}
	without = ari + (size_t) DAC_WHITEN_RIDGES * sets;
	guard = without + sets;
	if ((st = dac_within_scatter(train, S, err)) != DAC_OK)
		goto done;
	for (r = 0; r < DAC_WHITEN_RIDGES; r++)
		rep->ridge[r] = ridges[r];
	{
		double		tr = 0;

		for (r = 0; r < d; r++)
			tr += S[(size_t) r * d + r];
		if (!(tr > 0) || !isfinite(tr))
		{
			/* every label's rows alike: a fact of the table, not an error */
			rep->skipped = "the rows do not vary within their labels: nothing to whiten";
			goto done;
		}
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
	for (r = 0; r < DAC_WHITEN_RIDGES; r++)
	{
		if ((st = dac_whitening_map(S, d, ridges[r], M, err)) != DAC_OK ||
			(st = dac_model_with_map(m, M, d, &cand, err)) != DAC_OK ||
			(st = dac_evaluate_labelled(cand, choosing, sets, n_max, k_max, seed, co, X, y, &rep->eval[r],
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
	 * DAC_WHITEN_SE paired standard errors: the best of three ridges on the
	 * same sets is the most favourable of three draws
	 */
	if (dac_validation_prefers(without, ari + (size_t) best * sets, sets, DAC_WHITEN_SE, &rep->diff, &rep->se))
		rep->chosen = best;
	if (known)
	{
		int			behind;

		/* the guard: every held-out row, the labels held out whole among them */
		if ((st = dac_evaluate_labelled(kept, val, sets, n_max, k_max, seed, co, X, y, &rep->guard, guard,
										err)) != DAC_OK)
			goto done;
		behind = dac_validation_prefers(guard, base_ari, sets, DAC_WHITEN_GUARD_SE, &rep->guard_diff,
										&rep->guard_se);
		rep->guard_diff = -rep->guard_diff;
		if (behind)
			rep->chosen = -1;
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
	S = dac_alloc(sizeof(double) * (size_t) d * d);
	M = dac_alloc(sizeof(dac_real) * (size_t) d * d);
	if (S == NULL || M == NULL)
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory whitening %d-dimensional rows", d);
	else if ((st = dac_within_scatter(ds, S, err)) == DAC_OK &&
			 (st = dac_whitening_map(S, d, ridge, M, err)) == DAC_OK)
		st = dac_model_with_map(m, M, d, out, err);
	dac_free(S);
	dac_free(M);
	return st;
}
