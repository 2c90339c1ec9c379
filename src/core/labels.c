/*
 * labels.c
 *	  What is done with labels once a clustering has them: ARI, NMI and
 *	  k-MAE against other labels, the canonical order of a set's rows (so
 *	  that any order of the same rows gives the same ids), and new ids named
 *	  after previous ones.
 */
#include "labels.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* qsort's comparisons (labels.h). */
int
dac_cmp_key2(const void *a, const void *b)
{
	const dac_key2 *x = a,
			   *y = b;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

int
dac_cmp_int(const void *a, const void *b)
{
	int			x = *(const int *) a,
				y = *(const int *) b;

	return (x > y) - (x < y);
}

int
dac_cmp_i64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* ---------------------------------------------------------------- metrics */

/*
 * The metrics and the id matching take O(n) time and memory whatever the
 * labels' values: values are ranked, and pairs of ranks counted, by stable
 * LSD radix sorts of 64-bit keys a byte at a time (at most eight passes, the
 * same work for any values, so no chosen labels can slow them; a pass whose
 * byte is the same in every key is skipped).  The host's interrupt check
 * runs every LABELS_INTERRUPT_EVERY steps of every loop.
 */
#define LABELS_INTERRUPT_EVERY 65536

/* True (and *why set) when the host asks to stop at step i of a loop. */
static int
stop_at(int64_t i, dac_status *why)
{
	if ((i & (LABELS_INTERRUPT_EVERY - 1)) == LABELS_INTERRUPT_EVERY - 1 && dac_interrupted())
	{
		*why = DAC_ERR_INTERRUPTED;
		return 1;
	}
	return 0;
}

/*
 * Sort x[0..n) stably by its bytes lo..hi (0: the lowest), tmp [n] scratch;
 * the sorted keys end in x.  0, or -1 when interrupted.
 */
static int
radix_sort(uint64_t *x, uint64_t *tmp, int n, int lo, int hi, dac_status *why)
{
	size_t		count[257];
	uint64_t   *from = x,
			   *to = tmp;
	int64_t		i;
	int			byte;

	for (byte = lo; byte <= hi; byte++)
	{
		int			shift = 8 * byte;
		uint64_t   *swap;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
		{
			if (stop_at(i, why))
				return -1;
			count[((from[i] >> shift) & 255) + 1]++;
		}
		if (n == 0 || count[((from[0] >> shift) & 255) + 1] == (size_t) n)
			continue;			/* one value of this byte: nothing moves */
		for (i = 0; i < 256; i++)
			count[i + 1] += count[i];
		for (i = 0; i < n; i++)
		{
			if (stop_at(i, why))
				return -1;
			to[count[(from[i] >> shift) & 255]++] = from[i];
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != x)
		memcpy(x, from, sizeof(uint64_t) * (size_t) n);
	return 0;
}

/* Bytes of the scratch that dense_ranks takes for n values. */
static double
dense_ranks_bytes(int n)
{
	return 16.0 * n + 16;
}

/*
 * rank[i]: the rank of v[i] among the distinct values of v[0..n), 0 for the
 * smallest (so ranks keep the values' order).  The number of distinct
 * values, or -1 (*why: DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED).
 */
static int
dense_ranks(const int *v, int n, int *rank, dac_status *why)
{
	size_t		cap = (size_t) (n ? n : 1);
	uint64_t   *x = dac_alloc(sizeof(uint64_t) * cap),
			   *tmp = dac_alloc(sizeof(uint64_t) * cap);
	int			k = -1;
	int64_t		i;

	*why = DAC_ERR_NOMEM;
	if (!x || !tmp)
		goto done;
	/* the value (sign bit flipped: unsigned order) above the row */
	for (i = 0; i < n; i++)
		x[i] = (uint64_t) ((uint32_t) v[i] ^ UINT32_C(0x80000000)) << 32 | (uint64_t) i;
	if (radix_sort(x, tmp, n, 4, 7, why) < 0)
		goto done;
	k = 0;
	for (i = 0; i < n; i++)
	{
		if (stop_at(i, why))
		{
			k = -1;
			goto done;
		}
		if (i > 0 && (x[i] >> 32) != (x[i - 1] >> 32))
			k++;
		rank[x[i] & UINT32_C(0xFFFFFFFF)] = k;
	}
	if (n > 0)
		k++;
done:
	dac_free(x);
	dac_free(tmp);
	return k;
}

/*
 * The distinct pairs (a[i], b[i]) of ranks, in (a, b) order, with the rows
 * of each: pa, pb, pc [n] (the first *pairs filled).  0, or -1 (*why).
 */
static int
count_pairs(const int *a, const int *b, int n, int *pa, int *pb, int *pc, int *pairs, dac_status *why)
{
	size_t		cap = (size_t) (n ? n : 1);
	uint64_t   *x = dac_alloc(sizeof(uint64_t) * cap),
			   *tmp = dac_alloc(sizeof(uint64_t) * cap);
	int			r = -1,
				m = 0;
	int64_t		i;

	*why = DAC_ERR_NOMEM;
	if (x && tmp)
	{
		for (i = 0; i < n; i++)
			x[i] = (uint64_t) (uint32_t) a[i] << 32 | (uint32_t) b[i];
		if (radix_sort(x, tmp, n, 0, 7, why) == 0)
		{
			for (i = 0; i < n; i++)
			{
				if (stop_at(i, why))
					goto done;
				if (i == 0 || x[i] != x[i - 1])
				{
					pa[m] = (int) (x[i] >> 32);
					pb[m] = (int) (x[i] & UINT32_C(0xFFFFFFFF));
					pc[m] = 0;
					m++;
				}
				pc[m - 1]++;
			}
			*pairs = m;
			r = 0;
		}
	}
done:
	dac_free(x);
	dac_free(tmp);
	return r;
}

/* The non-zero cells of the contingency table, and its row and column sums. */
typedef struct
{
	int			ka,
				kb,
				cells;
	int		   *cell_a,
			   *cell_b,			/* [cells] row and column of each cell */
			   *cell;			/* [cells] counts */
	double	   *ra,
			   *rb;				/* [ka], [kb] */
} contingency;

static dac_status
contingency_build(const int *a, const int *b, int n, contingency *c)
{
	size_t		cap = (size_t) (n ? n : 1);
	int		   *da = dac_alloc(sizeof(int) * cap),
			   *db = dac_alloc(sizeof(int) * cap);
	dac_status	st = DAC_ERR_NOMEM;
	int64_t		i;

	memset(c, 0, sizeof(*c));
	c->cell_a = dac_alloc(sizeof(int) * cap);
	c->cell_b = dac_alloc(sizeof(int) * cap);
	c->cell = dac_alloc(sizeof(int) * cap);
	if (!da || !db || !c->cell_a || !c->cell_b || !c->cell)
		goto fail;
	if ((c->ka = dense_ranks(a, n, da, &st)) < 0 || (c->kb = dense_ranks(b, n, db, &st)) < 0 ||
		count_pairs(da, db, n, c->cell_a, c->cell_b, c->cell, &c->cells, &st) < 0)
		goto fail;
	st = DAC_ERR_NOMEM;
	c->ra = dac_alloc_zero(sizeof(double) * ((size_t) c->ka + c->kb + 1));
	if (c->ra == NULL)
		goto fail;
	c->rb = c->ra + c->ka;
	for (i = 0; i < c->cells; i++)
	{
		if (stop_at(i, &st))
			goto fail;
		c->ra[c->cell_a[i]] += c->cell[i];
		c->rb[c->cell_b[i]] += c->cell[i];
	}
	dac_free(da);
	dac_free(db);
	return DAC_OK;
fail:
	dac_free(c->cell);
	dac_free(c->cell_a);
	dac_free(c->cell_b);
	dac_free(c->ra);
	memset(c, 0, sizeof(*c));
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
	dac_free(c->ra);
}

static double
comb2(double x)
{
	return x * (x - 1) / 2;
}

double
dac_compare_labels_bytes(int n)
{
	/*
	 * two rankings and the cells' rows, columns and counts (5n ints), the
	 * sorts' keys (2n of 8 bytes), the sums (at most 2n + 1 doubles)
	 */
	return 20.0 * n + dense_ranks_bytes(n) + 8.0 * (2.0 * n + 1) + 1024;
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
	k = dense_ranks(a, n, tmp, &why);
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

/* ---------------------------------------------------------------- canonical order */

typedef struct
{
	uint64_t	h;
	int			idx;
} row_key;

static int
cmp_row_key(const void *a, const void *b)
{
	const row_key *x = a,
			   *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Stable merge sort of key[0..m) by the bytes of the rows they index (B,
 * rows of rb bytes), bottom-up; DAC_ERR_NOMEM.
 */
static dac_status
sort_rows_by_bytes(row_key *key, int m, const unsigned char *B, size_t rb)
{
	row_key    *tmp = dac_alloc(sizeof(row_key) * (size_t) m),
			   *from = key,
			   *to = tmp,
			   *swap;
	int			width,
				lo;

	if (tmp == NULL)
		return DAC_ERR_NOMEM;
	for (width = 1; width < m; width *= 2)
	{
		for (lo = 0; lo < m; lo += 2 * width)
		{
			int			mid = lo + width < m ? lo + width : m,
						hi = lo + 2 * width < m ? lo + 2 * width : m,
						a = lo,
						b = mid,
						k = lo;

			while (a < mid && b < hi)
				to[k++] = memcmp(B + (size_t) from[b].idx * rb, B + (size_t) from[a].idx * rb, rb) < 0 ?
					from[b++] : from[a++];
			while (a < mid)
				to[k++] = from[a++];
			while (b < hi)
				to[k++] = from[b++];
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != key)
		memcpy(key, from, sizeof(row_key) * (size_t) m);
	dac_free(tmp);
	return DAC_OK;
}

/*
 * The rows of B (n rows of rb bytes) by a hash of their bytes, then by the
 * bytes, then by index: an order that depends only on the set of rows, in
 * which equal rows are neighbours, lowest index first.  key [n].
 * DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED.
 */
static dac_status
order_rows(const unsigned char *B, int n, size_t rb, row_key *key)
{
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		/* FNV-1a over the row's bytes, then a 64-bit finaliser (splitmix) */
		const unsigned char *p = B + (size_t) i * rb;
		uint64_t	h = 1469598103934665603ULL;
		size_t		b;

		for (b = 0; b < rb; b++)
			h = (h ^ p[b]) * 1099511628211ULL;
		h ^= h >> 30;
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 27;
		h *= 0x94d049bb133111ebULL;
		h ^= h >> 31;
		key[i].h = h;
		key[i].idx = i;
		if ((i & 4095) == 4095 && dac_interrupted())
			return DAC_ERR_INTERRUPTED;
	}
	qsort(key, (size_t) n, sizeof(row_key), cmp_row_key);

	/*
	 * Rows with the same hash: by their bytes, so that the order is the
	 * set's own (equal rows keep the order of their indexes: swapping them
	 * changes nothing).  Runs are almost always of one row; a long run (rows
	 * chosen to collide) is merge-sorted, O(m log m) comparisons.
	 */
	for (i = 0; i < n; i = j)
	{
		for (j = i + 1; j < n && key[j].h == key[i].h; j++)
			;
		if (j - i > 1 && sort_rows_by_bytes(key + i, j - i, B, rb) != DAC_OK)
			return DAC_ERR_NOMEM;
	}
	return DAC_OK;
}

dac_status
dac_canonical_order(const dac_real *X, int n, int d, int *perm)
{
	row_key    *key = dac_alloc(sizeof(row_key) * (size_t) (n ? n : 1));
	int			i;

	dac_status	st;

	if (key == NULL)
		return DAC_ERR_NOMEM;
	if ((st = order_rows((const unsigned char *) X, n, sizeof(dac_real) * (size_t) d, key)) != DAC_OK)
	{
		dac_free(key);
		return st;
	}
	for (i = 0; i < n; i++)
		perm[i] = key[i].idx;
	dac_free(key);
	return DAC_OK;
}

int
dac_distinct_count(const void *X, int n, size_t row_bytes)
{
	int		   *map = dac_alloc(sizeof(int) * (size_t) (n ? n : 1)),
				nd = -1;

	if (map != NULL && dac_distinct_rows(X, n, row_bytes, map, &nd) != DAC_OK)
		nd = -1;
	dac_free(map);
	return nd;
}

double
dac_distinct_rows_bytes(int n)
{
	/* the keys, the merge sort's copy of a run, a flag a row */
	return 2.0 * sizeof(row_key) * (n ? n : 1) + (double) n + 64;
}

dac_status
dac_distinct_rows(const void *X, int n, size_t row_bytes, int *map, int *nd)
{
	const unsigned char *B = X;
	row_key    *key = dac_alloc(sizeof(row_key) * (size_t) (n ? n : 1));
	unsigned char *first = dac_alloc((size_t) (n ? n : 1));
	int			i,
				j,
				next = 0;
	dac_status	st = key == NULL || first == NULL ? DAC_ERR_NOMEM : order_rows(B, n, row_bytes, key);

	if (st != DAC_OK)
	{
		dac_free(key);
		dac_free(first);
		return st;
	}
	/* a run of equal rows starts at its lowest index: that row stands for the run */
	memset(first, 0, (size_t) n);
	for (i = 0; i < n; i = j)
	{
		for (j = i + 1; j < n && key[j].h == key[i].h &&
			 memcmp(B + (size_t) key[j].idx * row_bytes, B + (size_t) key[i].idx * row_bytes, row_bytes) == 0; j++)
			;
		first[key[i].idx] = 1;
	}
	/* distinct rows numbered in the order they first occur */
	for (i = 0; i < n; i++)
		map[i] = first[i] ? next++ : -1;
	for (i = 0; i < n; i = j)
	{
		int			id = map[key[i].idx];

		for (j = i + 1; j < n && key[j].h == key[i].h &&
			 memcmp(B + (size_t) key[j].idx * row_bytes, B + (size_t) key[i].idx * row_bytes, row_bytes) == 0; j++)
			map[key[j].idx] = id;
	}
	*nd = next;
	dac_free(key);
	dac_free(first);
	return DAC_OK;
}

/* ---------------------------------------------------------------- matching ids */

/*
 * The ids are ranked (dense_ranks: any int values, ranks in the ids' order),
 * the (new, previous) pairs of ranks counted (count_pairs), and the counted
 * pairs ordered largest first by two stable radix sorts, so that the whole
 * matching is O(n) in time and memory for any ids.
 */
double
dac_match_ids_bytes(int n)
{
	/* eight int arrays of n, two flags a row, the sorts' keys (2n of 8 bytes) */
	return 32.0 * n + 2.0 * n + dense_ranks_bytes(n) + 1024;
}

dac_status
dac_match_ids(const int *ids, const int *prev, const unsigned char *has_prev, int n, int *out,
			  dac_error *err)
{
	size_t		cap = (size_t) (n ? n : 1);
	int		   *val = dac_alloc(sizeof(int) * cap),
			   *rnew = dac_alloc(sizeof(int) * cap),	/* rank of each row's new id */
			   *rold = dac_alloc(sizeof(int) * cap),	/* rank of each row's previous id */
			   *olds = dac_alloc(sizeof(int) * cap),	/* previous id of each rank */
			   *ra = dac_alloc(sizeof(int) * cap),	/* runs: new rank, previous rank, rows */
			   *rb = dac_alloc(sizeof(int) * cap),
			   *rc = dac_alloc(sizeof(int) * cap),
			   *map = dac_alloc(sizeof(int) * cap);
	uint64_t   *x = NULL,
			   *tmp = NULL;
	char	   *used = dac_alloc_zero(cap),
			   *matched = dac_alloc_zero(cap);
	int			np = 0,
				nn,
				runs = 0,
				m;
	int64_t		i,
				next = 0;
	dac_status	st = DAC_ERR_NOMEM;

	if (!val || !rnew || !rold || !olds || !ra || !rb || !rc || !map || !used || !matched)
		goto fail;
	for (i = 0; i < n; i++)
		if (ids[i] < 0)
		{
			st = dac_fail(err, DAC_ERR_INVALID, "cluster ids must not be negative");
			goto done;
		}
	/* ranks of the new ids (rows with none skipped), then of the previous ids */
	for (i = 0, m = 0; i < n; i++)
		if (ids[i] > 0)
			val[m++] = ids[i];
	if ((nn = dense_ranks(val, m, rb, &st)) < 0)
		goto fail;
	for (i = 0, m = 0; i < n; i++)
		rnew[i] = ids[i] > 0 ? rb[m++] : -1;
	for (i = 0, m = 0; i < n; i++)
		if (has_prev[i])
		{
			val[m++] = prev[i];
			next = prev[i] > next ? prev[i] : next;
		}
	if (dense_ranks(val, m, rb, &st) < 0)
		goto fail;
	for (i = 0, m = 0; i < n; i++)
	{
		rold[i] = has_prev[i] ? rb[m] : -1;
		if (has_prev[i])
			olds[rb[m++]] = prev[i];
	}
	/* the rows with both, as pairs of ranks, counted into runs */
	for (i = 0; i < n; i++)
		if (rnew[i] >= 0 && rold[i] >= 0)
		{
			val[np] = rnew[i];
			map[np] = rold[i];
			np++;
		}
	if (count_pairs(val, map, np, ra, rb, rc, &runs, &st) < 0)
		goto fail;
	/* the runs largest first, ties to the smaller previous id, then the smaller new id */
	x = dac_alloc(sizeof(uint64_t) * cap);
	tmp = dac_alloc(sizeof(uint64_t) * cap);
	st = DAC_ERR_NOMEM;
	if (!x || !tmp)
		goto fail;
	for (i = 0; i < runs; i++)
		x[i] = (uint64_t) (uint32_t) rb[i] << 32 | (uint64_t) i;
	if (radix_sort(x, tmp, runs, 4, 7, &st) < 0)
		goto fail;
	for (i = 0; i < runs; i++)
	{
		int			r = (int) (x[i] & UINT32_C(0xFFFFFFFF));

		x[i] = (uint64_t) (uint32_t) (np - rc[r]) << 32 | (uint64_t) r;
	}
	if (radix_sort(x, tmp, runs, 4, 7, &st) < 0)
		goto fail;
	for (i = 0; i < runs; i++)
	{
		int			r = (int) (x[i] & UINT32_C(0xFFFFFFFF));

		if (stop_at(i, &st))
			goto fail;
		if (matched[ra[r]] || used[rb[r]])
			continue;
		map[ra[r]] = olds[rb[r]];
		matched[ra[r]] = 1;
		used[rb[r]] = 1;
	}
	/* the rest: fresh ids after the largest previous one (or from 1), in new-id order */
	for (i = 0; i < nn; i++)
		if (!matched[i])
		{
			if (next >= INT_MAX)
			{
				st = dac_fail(err, DAC_ERR_TOO_LARGE, "no cluster id is left after %d", INT_MAX);
				goto done;
			}
			map[i] = (int) ++next;
		}
	for (i = 0; i < n; i++)
		out[i] = ids[i] == 0 ? 0 : map[rnew[i]];
	st = DAC_OK;
	goto done;
fail:
	st = st == DAC_ERR_INTERRUPTED ? dac_fail(err, st, "canceling the matching of cluster ids")
		: dac_fail(err, DAC_ERR_NOMEM, "out of memory matching the ids of %d points", n);
done:
	dac_free(val);
	dac_free(rnew);
	dac_free(rold);
	dac_free(olds);
	dac_free(ra);
	dac_free(rb);
	dac_free(rc);
	dac_free(map);
	dac_free(x);
	dac_free(tmp);
	dac_free(used);
	dac_free(matched);
	return st;
}

int
dac_count_clusters(const int *labels, int n)
{
	int			k = dac_count_labels(labels, n),
				i;

	for (i = 0; i < n && k > 0; i++)
		if (labels[i] == 0)
			return k - 1;
	return k;
}

void
dac_eval_add(dac_eval_sums *e, const int *truth, const dac_clustering *c, double seconds)
{
	int			a = dac_count_labels(truth, c->n),
				b = dac_count_clusters(c->labels, c->n);

	e->ari += dac_ari(truth, c->labels, c->n);
	e->nmi += dac_nmi(truth, c->labels, c->n);
	e->kmae += a < 0 || b < 0 ? NAN : abs(a - b);
	e->ll += c->ll;
	e->flops += c->flops;
	e->secs += seconds;
	e->sets++;
}

void
dac_eval_sums_json(const dac_eval_sums *e, dac_strbuf *sb)
{
	int			n = e->sets > 0 ? e->sets : 1;

	dac_strbuf_printf(sb, "{\"sets\": %d, \"ari\": %.4f, \"nmi\": %.4f, \"k_mae\": %.3f}",
					  e->sets, e->ari / n, e->nmi / n, e->kmae / n);
}
