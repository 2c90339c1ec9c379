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
 * labels' values: labels are ranked by a radix sort (two passes of 16 bits,
 * the same work for any values, so no chosen labels can slow it), and pairs
 * of ranks are ordered by counting sorts over the ranks.  The host's
 * interrupt check runs every LABELS_INTERRUPT_EVERY steps of every loop.
 */
#define LABELS_INTERRUPT_EVERY 65536
#define RADIX_BUCKETS 65536

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
 * Stable counting sort: out gets in[0..n) ordered by key[in[i]], a key in
 * [0, range); count has range + 1 slots.  0, or -1 when interrupted.
 */
static int
counting_sort(const int *key, int range, const int *in, int *out, int n, int *count,
			  dac_status *why)
{
	int64_t		i;

	memset(count, 0, sizeof(int) * ((size_t) range + 1));
	for (i = 0; i < n; i++)
	{
		if (stop_at(i, why))
			return -1;
		count[key[in[i]] + 1]++;
	}
	for (i = 0; i < range; i++)
		count[i + 1] += count[i];
	for (i = 0; i < n; i++)
	{
		if (stop_at(i, why))
			return -1;
		out[count[key[in[i]]]++] = in[i];
	}
	return 0;
}

/* Bytes of the scratch that dense_ranks takes for n values. */
static double
dense_ranks_bytes(int n)
{
	return 3.0 * sizeof(int) * n + sizeof(int) * (RADIX_BUCKETS + 1.0);
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
	int		   *idx = dac_alloc(sizeof(int) * cap),
			   *tmp = dac_alloc(sizeof(int) * cap),
			   *digit = dac_alloc(sizeof(int) * cap),
			   *count = dac_alloc(sizeof(int) * (RADIX_BUCKETS + 1));
	int			k = -1,
				pass;
	int64_t		i;

	*why = DAC_ERR_NOMEM;
	if (!idx || !tmp || !digit || !count)
		goto done;
	for (i = 0; i < n; i++)
		idx[i] = (int) i;
	/* the values as unsigned (sign bit flipped), low 16 bits first */
	for (pass = 0; pass < 2; pass++)
	{
		int		   *swap;

		for (i = 0; i < n; i++)
		{
			if (stop_at(i, why))
				goto done;
			digit[i] = (int) (((uint32_t) v[i] ^ UINT32_C(0x80000000)) >> (16 * pass) & 0xFFFF);
		}
		if (counting_sort(digit, RADIX_BUCKETS, idx, tmp, n, count, why) < 0)
			goto done;
		swap = idx;
		idx = tmp;
		tmp = swap;
	}
	k = 0;
	for (i = 0; i < n; i++)
	{
		if (stop_at(i, why))
		{
			k = -1;
			goto done;
		}
		if (i > 0 && v[idx[i]] != v[idx[i - 1]])
			k++;
		rank[idx[i]] = k;
	}
	if (n > 0)
		k++;
done:
	dac_free(idx);
	dac_free(tmp);
	dac_free(digit);
	dac_free(count);
	return k;
}

/*
 * The pairs (a[i], b[i]) of ranks (a in [0, ka), b in [0, kb)) as runs:
 * order[0..n) the rows sorted by (a, b).  0, or -1 (*why).
 */
static int
order_pairs(const int *a, int ka, const int *b, int kb, int n, int *order, dac_status *why)
{
	size_t		cap = (size_t) (n ? n : 1);
	int		   *tmp = dac_alloc(sizeof(int) * cap),
			   *count = dac_alloc(sizeof(int) * ((size_t) (ka > kb ? ka : kb) + 1));
	int			r = -1;
	int64_t		i;

	*why = DAC_ERR_NOMEM;
	if (tmp && count)
	{
		for (i = 0; i < n; i++)
			tmp[i] = (int) i;
		/* by b, then stably by a */
		if (counting_sort(b, kb, tmp, order, n, count, why) == 0 &&
			counting_sort(a, ka, order, tmp, n, count, why) == 0)
		{
			memcpy(order, tmp, sizeof(int) * (size_t) n);
			r = 0;
		}
	}
	dac_free(tmp);
	dac_free(count);
	return r;
}

/* The non-zero cells of the contingency table, and its row and column sums. */
typedef struct
{
	int			ka,
				kb,
				cells;
	double	   *cell;			/* [cells] counts */
	int		   *cell_a,
			   *cell_b;			/* [cells] row and column of each cell */
	double	   *ra,
			   *rb;				/* [ka], [kb] */
} contingency;

static dac_status
contingency_build(const int *a, const int *b, int n, contingency *c)
{
	size_t		cap = (size_t) (n ? n : 1);
	int		   *da = dac_alloc(sizeof(int) * cap),
			   *db = dac_alloc(sizeof(int) * cap),
			   *order = dac_alloc(sizeof(int) * cap);
	dac_status	st = DAC_ERR_NOMEM;
	int64_t		i;

	memset(c, 0, sizeof(*c));
	if (!da || !db || !order)
		goto fail;
	if ((c->ka = dense_ranks(a, n, da, &st)) < 0 || (c->kb = dense_ranks(b, n, db, &st)) < 0 ||
		order_pairs(da, c->ka, db, c->kb, n, order, &st) < 0)
		goto fail;
	st = DAC_ERR_NOMEM;
	c->cell = dac_alloc_zero(sizeof(double) * ((size_t) n + c->ka + c->kb + 1));
	c->cell_a = dac_alloc(sizeof(int) * cap);
	c->cell_b = dac_alloc(sizeof(int) * cap);
	if (c->cell == NULL || c->cell_a == NULL || c->cell_b == NULL)
		goto fail;
	c->ra = c->cell + n;
	c->rb = c->ra + c->ka;
	for (i = 0; i < n; i++)
	{
		int			r = order[i];

		if (stop_at(i, &st))
			goto fail;
		if (i == 0 || da[r] != c->cell_a[c->cells - 1] || db[r] != c->cell_b[c->cells - 1])
		{
			c->cell_a[c->cells] = da[r];
			c->cell_b[c->cells] = db[r];
			c->cells++;
		}
		c->cell[c->cells - 1] += 1;
		c->ra[da[r]] += 1;
		c->rb[db[r]] += 1;
	}
	dac_free(da);
	dac_free(db);
	dac_free(order);
	return DAC_OK;
fail:
	dac_free(c->cell);
	dac_free(c->cell_a);
	dac_free(c->cell_b);
	memset(c, 0, sizeof(*c));
	dac_free(da);
	dac_free(db);
	dac_free(order);
	return st;
}

static void
contingency_free(contingency *c)
{
	dac_free(c->cell);
	dac_free(c->cell_a);
	dac_free(c->cell_b);
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
	 * ranks and order (3n ints), the ranking's scratch, the ordering's (2n
	 * ints at most), the cells' rows and columns (2n ints), counts and sums
	 */
	return 12.0 * n + dense_ranks_bytes(n) + 8.0 * n + 8.0 * n + 8.0 * (3.0 * n + 1) + 1024;
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

dac_status
dac_canonical_order(const dac_real *X, int n, int d, int *perm)
{
	row_key    *key = dac_alloc(sizeof(row_key) * (size_t) (n ? n : 1));
	size_t		rb = sizeof(dac_real) * (size_t) d;
	int			i,
				j;

	if (key == NULL)
		return DAC_ERR_NOMEM;
	for (i = 0; i < n; i++)
	{
		/* FNV-1a over the row's bytes, then a 64-bit finaliser (splitmix) */
		const unsigned char *p = (const unsigned char *) (X + (size_t) i * d);
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
	}
	qsort(key, (size_t) n, sizeof(row_key), cmp_row_key);

	/*
	 * Rows with the same hash: by their bytes, so that the order is the
	 * set's own (equal rows may stay in any order: swapping them changes
	 * nothing).  Runs are almost always of one row; insertion sort.
	 */
	for (i = 1; i < n; i++)
	{
		row_key		cur = key[i];

		j = i - 1;
		while (j >= 0 && key[j].h == cur.h &&
			   memcmp(X + (size_t) key[j].idx * d, X + (size_t) cur.idx * d, rb) > 0)
		{
			key[j + 1] = key[j];
			j--;
		}
		key[j + 1] = cur;
	}
	for (i = 0; i < n; i++)
		perm[i] = key[i].idx;
	dac_free(key);
	return DAC_OK;
}

/* ---------------------------------------------------------------- matching ids */

/*
 * The ids are ranked (dense_ranks: any int values, ranks in the ids' order),
 * the (new, previous) pairs of ranks counted by ordering them (order_pairs),
 * and the counted pairs ordered largest first by three stable counting
 * sorts, so that the whole matching is O(n) in time and memory for any ids.
 */
double
dac_match_ids_bytes(int n)
{
	/*
	 * eleven int arrays of n, the counts (n + 2), two flags a row, the
	 * ranking's scratch and the ordering's (2n + 1 ints at most)
	 */
	return 44.0 * n + 4.0 * ((double) n + 2) + 2.0 * n + dense_ranks_bytes(n) +
		4.0 * (2.0 * n + 1) + 1024;
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
			   *order = dac_alloc(sizeof(int) * cap),
			   *ra = dac_alloc(sizeof(int) * cap),	/* runs: new rank, previous rank, count */
			   *rb = dac_alloc(sizeof(int) * cap),
			   *rc = dac_alloc(sizeof(int) * cap),
			   *o1 = dac_alloc(sizeof(int) * cap),
			   *o2 = dac_alloc(sizeof(int) * cap),
			   *map = dac_alloc(sizeof(int) * cap),
			   *count = dac_alloc(sizeof(int) * (cap + 2));
	char	   *used = dac_alloc_zero(cap),
			   *matched = dac_alloc_zero(cap);
	int			np = 0,
				no = 0,
				nn = 0,
				runs = 0,
				m;
	int64_t		i,
				next = 0;
	dac_status	st = DAC_ERR_NOMEM;

	if (!val || !rnew || !rold || !olds || !order || !ra || !rb || !rc || !o1 || !o2 || !map ||
		!count || !used || !matched)
		goto fail;
	for (i = 0; i < n; i++)
		if (ids[i] < 0)
		{
			st = dac_fail(err, DAC_ERR_INVALID, "cluster ids must not be negative");
			goto done;
		}
	/* ranks of the new ids (rows with none: skipped) and of the previous ids */
	for (i = 0, m = 0; i < n; i++)
		if (ids[i] > 0)
			val[m++] = ids[i];
	if ((nn = dense_ranks(val, m, order, &st)) < 0)
		goto fail;
	for (i = 0, m = 0; i < n; i++)
		rnew[i] = ids[i] > 0 ? order[m++] : -1;
	for (i = 0, m = 0; i < n; i++)
		if (has_prev[i])
		{
			val[m++] = prev[i];
			next = prev[i] > next ? prev[i] : next;
		}
	if ((no = dense_ranks(val, m, order, &st)) < 0)
		goto fail;
	for (i = 0, m = 0; i < n; i++)
	{
		rold[i] = has_prev[i] ? order[m] : -1;
		if (has_prev[i])
			olds[order[m++]] = prev[i];
	}
	/* the rows with both, as pairs of ranks, ordered and counted into runs */
	for (i = 0; i < n; i++)
		if (rnew[i] >= 0 && rold[i] >= 0)
		{
			ra[np] = rnew[i];
			rb[np] = rold[i];
			np++;
		}
	if (order_pairs(ra, nn > 0 ? nn : 1, rb, no > 0 ? no : 1, np, order, &st) < 0)
		goto fail;
	for (i = 0; i < np; i++)
	{
		int			a = ra[order[i]],
					b = rb[order[i]];

		if (stop_at(i, &st))
			goto fail;
		if (runs > 0 && o1[runs - 1] == a && o2[runs - 1] == b)
			rc[runs - 1]++;
		else
		{
			o1[runs] = a;
			o2[runs] = b;
			rc[runs] = 1;
			runs++;
		}
	}
	memcpy(ra, o1, sizeof(int) * (size_t) runs);
	memcpy(rb, o2, sizeof(int) * (size_t) runs);
	/* the runs largest first, ties to the smaller previous id, then the smaller new id */
	for (i = 0; i < runs; i++)
	{
		o1[i] = (int) i;
		val[i] = np - rc[i];
	}
	if (counting_sort(rb, no > 0 ? no : 1, o1, o2, runs, count, &st) < 0 ||
		counting_sort(val, np + 1, o2, o1, runs, count, &st) < 0)
		goto fail;
	for (i = 0; i < runs; i++)
	{
		int			r = o1[i];

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
	dac_free(order);
	dac_free(ra);
	dac_free(rb);
	dac_free(rc);
	dac_free(o1);
	dac_free(o2);
	dac_free(map);
	dac_free(count);
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
