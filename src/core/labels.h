/*
 * labels.h
 *	  Labels of a set's rows: the metrics that compare two labelings (ARI,
 *	  NMI, k-MAE), the canonical order of a set, and ids named after
 *	  previous ones.  Below the clustering loop and kept clusterings.
 */
#ifndef DAC_LABELS_H
#define DAC_LABELS_H

#include "core.h"

/* qsort's comparisons of two ints and of two int64_t. */
extern int	dac_cmp_int(const void *a, const void *b);
extern int	dac_cmp_i64(const void *a, const void *b);

/* A row's sort key: two words, then the row (qsort with dac_cmp_key2, in that order). */
typedef struct dac_key2
{
	uint64_t	a;
	uint64_t	b;
	int			idx;
} dac_key2;
extern int	dac_cmp_key2(const void *x, const void *y);

/* Adjusted Rand index (Hubert-Arabie); 1 when no pair disagrees; NaN on failure. */
extern double dac_ari(const int *a, const int *b, int n);
/* NMI with the arithmetic mean of entropies; 1 when both are one cluster; NaN on failure. */
extern double dac_nmi(const int *a, const int *b, int n);
/* k-MAE of one set: |distinct labels of truth - distinct labels of found|. */
extern int	dac_kmae(const int *truth, const int *found, int n);

/*
 * A canonical order of X [n, d] that depends only on the set of rows, not on
 * their order: by a hash of each row's bytes (then the bytes).  perm[i] is
 * the row placed i-th.  DAC_ERR_NOMEM.
 */
extern dac_status dac_canonical_order(const dac_real *X, int n, int d, int *perm);

/*
 * The distinct rows of X (n rows of row_bytes bytes, equal when their bytes
 * are): map[i] is row i's distinct row, numbered 0 .. *nd - 1 in the order
 * they first occur (row i is the first of its kind when map[i] counts up).
 * O(n log n) for any rows; DAC_ERR_NOMEM.
 */
extern dac_status dac_distinct_rows(const void *X, int n, size_t row_bytes, int *map, int *nd);
/* Bytes dac_distinct_rows needs beside map, at most. */
extern double dac_distinct_rows_bytes(int n);

/* The clusters of a labelling: its distinct labels above 0 (-1: out of memory). */
extern int	dac_count_clusters(const int *labels, int n);

#endif							/* DAC_LABELS_H */
