/*
 * calibrate.c
 *	  A kept clustering's stability per cluster (calibrate.h).
 */
#include "calibrate.h"

#include <math.h>
#include <string.h>

#define HOLD DAC_CALIBRATE_HOLD

double
dac_calibrate_split_bytes(int n, int d, int k)
{
	/* the other rows (both precisions), the maps, the counts, one row's log-odds */
	return (double) n * d * (sizeof(dac_real) + sizeof(double)) + ((double) n + 1) * (k + 1) * sizeof(int) +
		4.0 * (k + 1) * sizeof(int) + ((double) k + 1) * sizeof(double);
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
	int		   *map = NULL,
			   *votes = NULL,
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
	if ((st = dac_mixture_from_clustering(Xs, d, &cs, gaussian, &ms, err)) != DAC_OK)
		goto done;
	/* each cluster of the new clustering stands for full's cluster most of its rows are in */
	map = dac_alloc_zero(sizeof(int) * ((size_t) cs.num_clusters + 1));
	votes = dac_alloc_zero(sizeof(int) * ((size_t) cs.num_clusters + 1) * ((size_t) K + 1));
	given = dac_alloc_zero(sizeof(int) * 2 * ((size_t) K + 1));
	z = dac_alloc(sizeof(double) * (size_t) ms.k);
	if (map == NULL || votes == NULL || given == NULL || z == NULL)
		goto nomem;
	right = given + K + 1;
	for (i = 0, j = 0; i < n; i++)
		if (i % HOLD != HOLD - 1)
			votes[(size_t) cs.labels[j++] * (K + 1) + full->labels[i]]++;
	for (s = 1; s <= cs.num_clusters; s++)
		for (j = 1; j <= K; j++)
			if (votes[(size_t) s * (K + 1) + j] > votes[(size_t) s * (K + 1) + map[s]])
				map[s] = j;
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
	dac_free(votes);
	dac_free(given);
	dac_mixture_free(&ms);
	dac_clustering_free(&cs);
	return st;
}
