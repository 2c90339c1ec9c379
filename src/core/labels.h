/*
 * labels.h
 *	  Labels of a set's rows: the metrics that compare two labelings (ARI,
 *	  NMI, k-MAE), the canonical order of a set, and ids named after
 *	  previous ones.  Below the clustering loop and kept clusterings.
 */
#ifndef DAC_LABELS_H
#define DAC_LABELS_H

#include "core.h"
#include "clustering.h"

/* qsort's comparisons of two ints and of two int64_t. */
extern int	dac_cmp_int(const void *a, const void *b);
extern int	dac_cmp_i64(const void *a, const void *b);

/*
 * Adjusted Rand index (Hubert-Arabie; 1 when no pair disagrees) and NMI
 * (arithmetic mean of entropies; 1 when both are one cluster) of two
 * labelings of n >= 1 points, in O(n) time and dac_compare_labels_bytes(n)
 * of memory at most, whatever the labels.  DAC_ERR_NOMEM, or
 * DAC_ERR_INTERRUPTED by the host's interrupt check.
 */
extern dac_status dac_compare_labels(const int *a, const int *b, int n, double *ari,
									 double *nmi, dac_error *err);
extern double dac_compare_labels_bytes(int n);

/* Adjusted Rand index (Hubert-Arabie); 1 when no pair disagrees; NaN on failure. */
extern double dac_ari(const int *a, const int *b, int n);
/* NMI with the arithmetic mean of entropies; 1 when both are one cluster; NaN on failure. */
extern double dac_nmi(const int *a, const int *b, int n);
/* Number of distinct labels (-1: out of memory). */
extern int	dac_count_labels(const int *a, int n);
/* k-MAE of one set: |distinct labels of truth - distinct labels of found|. */
extern int	dac_kmae(const int *truth, const int *found, int n);

/*
 * A canonical order of X [n, d] that depends only on the set of rows, not on
 * their order: by a hash of each row's bytes (then the bytes).  perm[i] is
 * the row placed i-th.  DAC_ERR_NOMEM.
 */
extern dac_status dac_canonical_order(const dac_real *X, int n, int d, int *perm);

/*
 * New ids taking their names from previous ones: ids [n] (≥ 1, 0 = none),
 * prev [n] with has_prev[i] (0: the point had no previous id).  Pairs of a
 * new cluster and a previous id are matched greedily by the number of points
 * they share (largest first; ties to the smaller previous id, then the
 * smaller new id), each on at most one side; a new cluster matched keeps that
 * previous id, the others get fresh ids after the largest previous id, in the
 * order of their new ids.  out [n] (where ids[i] is 0, out[i] is 0 too, and
 * means none: a previous id may be 0).  DAC_ERR_NOMEM,
 * DAC_ERR_TOO_LARGE (fresh ids past INT_MAX), DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_match_ids(const int *ids, const int *prev, const unsigned char *has_prev,
								int n, int *out, dac_error *err);

/*
 * An evaluation's metrics summed over its sets, the one definition dac-cli
 * and dac_evaluate share.  dac_eval_add adds one set: ARI and NMI of truth
 * [c->n] against c's labels, k-MAE as |the distinct true labels − the
 * clusters found| (noise, label 0, is no cluster), c's log-likelihood and
 * matrix FLOPs, and the seconds it took.  Divide by sets for the means.
 */
typedef struct dac_eval_sums
{
	int			sets;
	double		ari,
				nmi,
				kmae,
				ll,
				secs,
				flops,
				oracle;
} dac_eval_sums;

extern void dac_eval_add(dac_eval_sums *e, const int *truth, const dac_clustering *c, double seconds);
/* The clusters of a labelling: its distinct labels above 0 (-1: out of memory). */
extern int	dac_count_clusters(const int *labels, int n);

#endif							/* DAC_LABELS_H */
