/*
 * calibrate.c
 *	  A kept clustering's stability per cluster (calibrate.h).
 */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HOLD DAC_CALIBRATE_HOLD

double
dac_calibrate_split_bytes(int n, int d, int k)
{
	/*
	 * the other rows (both precisions), their label pairs, the map, the
	 * counts, one row's log-odds, and the second clustering's mixture (its
	 * clusters as many as the first's, as the same settings bound both)
	 */
	return (double) n * d * (sizeof(dac_real) + sizeof(double)) + (double) n * sizeof(int64_t) +
		((double) n + 1) * sizeof(int) + 4.0 * (k + 1) * sizeof(int) + ((double) n + 1) * sizeof(double) +
		dac_mixture_bytes(n, d, k);
}

dac_status
dac_calibrate_split(const dac_model *m, const dac_real *X, const double *X64, int n, int d,
					const dac_cluster_opts *opts, const dac_clustering *full, int gaussian,
					dac_mixture *mix, dac_error *err)
{
	int			held = n / HOLD,
				rest = n - held,
				stride,
				K = full->num_clusters,
				i,
				j,
				s;
	dac_real   *Xs = NULL;
	double	   *Xs64 = NULL,
			   *z = NULL;
	int64_t    *pairs = NULL;
	int		   *map = NULL,
			   *given = NULL,
			   *right = NULL;
	dac_clustering cs;
	dac_mixture ms;
	dac_status	st = DAC_OK;

	memset(&cs, 0, sizeof(cs));
	memset(&ms, 0, sizeof(ms));
	if (held < 4 || mix->k < 2)
		return DAC_OK;
	stride = held > DAC_CALIBRATION_POINTS ? (held + DAC_CALIBRATION_POINTS - 1) / DAC_CALIBRATION_POINTS : 1;
	Xs = dac_alloc(sizeof(dac_real) * (size_t) rest * d);
	if (X64)
		Xs64 = dac_alloc(sizeof(double) * (size_t) rest * d);
	if (Xs == NULL || (X64 && Xs64 == NULL))
		goto nomem;
	for (i = 0, j = 0; i < n; i++)
		if (i % HOLD != HOLD - 1)
		{
			memcpy(Xs + (size_t) j * d, X + (size_t) i * d, sizeof(dac_real) * d);
			if (X64)
				memcpy(Xs64 + (size_t) j * d, X64 + (size_t) i * d, sizeof(double) * d);
			j++;
		}
	dac_progress("calibrating: four rows in five clustered again", rest, n);
	st = X64 ? dac_cluster_set_f64(m, Xs64, rest, d, opts, &cs, err) :
		dac_cluster_set(m, Xs, rest, d, opts, &cs, err);
	if (st != DAC_OK)
		goto done;
	/* its mixture for the log-odds alone: no temperature wanted */
	if ((st = dac_mixture_of_clusters(Xs, d, &cs, gaussian, &ms, err)) != DAC_OK)
		goto done;
	/* each cluster of the new clustering stands for full's cluster most of its rows are in */
	map = dac_alloc_zero(sizeof(int) * ((size_t) cs.num_clusters + 1));
	pairs = dac_alloc(sizeof(int64_t) * (size_t) (rest > 0 ? rest : 1));
	given = dac_alloc_zero(sizeof(int) * 2 * ((size_t) K + 1));
	z = dac_alloc(sizeof(double) * (size_t) ms.k);
	if (map == NULL || pairs == NULL || given == NULL || z == NULL)
		goto nomem;
	right = given + K + 1;
	/*
	 * The (new label, full label) pair of every other row, sorted: each
	 * new cluster's run of pairs counts its rows per cluster of full.  A
	 * cluster of full stands for it when more of its rows are there than
	 * are noise in full, the most (ties to the smaller id).
	 */
	for (i = 0, j = 0; i < n; i++)
		if (i % HOLD != HOLD - 1)
		{
			pairs[j] = (int64_t) cs.labels[j] * ((int64_t) K + 1) + full->labels[i];
			j++;
		}
	qsort(pairs, (size_t) rest, sizeof(int64_t), dac_cmp_i64);
	for (i = 0; i < rest;)
	{
		int			s_here = (int) (pairs[i] / ((int64_t) K + 1)),
					noise_count = 0,
					best_count = 0;

		while (i < rest && pairs[i] / ((int64_t) K + 1) == s_here)
		{
			int			c = (int) (pairs[i] % ((int64_t) K + 1)),
						cnt = 0;

			while (i < rest && pairs[i] == (int64_t) s_here * ((int64_t) K + 1) + c)
			{
				cnt++;
				i++;
			}
			if (c == 0)
				noise_count = cnt;
			else if (cnt > best_count && cnt > noise_count)
			{
				best_count = cnt;
				map[s_here] = c;
			}
		}
	}
	/* each held-out row: the cluster of full its likeliest new cluster stands for */
	for (i = HOLD - 1; i < n; i += HOLD * stride)
	{
		int			best = 0,
					c;

		if (full->labels[i] <= 0)
			continue;
		if (dac_interrupted())
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			goto done;
		}
		dac_mixture_logodds(&ms, X + (size_t) i * d, z);
		for (s = 1; s < ms.k; s++)
			if (z[s] > z[best])
				best = s;
		c = map[ms.id[best]];
		given[c]++;
		right[c] += c == full->labels[i];
	}
	/* mix's clusters are full's (ids 1 .. K, empty ones left out) */
	for (s = 0; s < mix->k; s++)
	{
		int			c = mix->id[s];

		if (c >= 1 && c <= K)
			mix->stability[s] = (right[c] + 1.0) / (given[c] + 1.0);
	}
	goto done;
nomem:
	st = dac_fail(err, DAC_ERR_NOMEM, "out of memory calibrating a clustering of %d points", n);
done:
	dac_free(Xs);
	dac_free(Xs64);
	dac_free(z);
	dac_free(map);
	dac_free(pairs);
	dac_free(given);
	dac_mixture_free(&ms);
	dac_clustering_free(&cs);
	return st;
}
