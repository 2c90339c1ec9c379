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
 * The metrics take O(n) time and memory whatever the number of distinct
 * labels: labels are renumbered densely through an open-addressing hash
 * table, and the contingency table keeps only its non-zero cells (at most
 * n), found through a second hash table keyed by the pair.  The host's
 * interrupt check runs every METRIC_INTERRUPT_EVERY points.
 */
#define METRIC_INTERRUPT_EVERY 65536

typedef struct
{
	int64_t    *keys;
	int		   *vals;			/* dense index, -1 = empty slot */
	size_t		mask;
	int			count;
} label_map;

static int
label_map_init(label_map *m, int n)
{
	size_t		cap = 16;

	while (cap < (size_t) n * 2)
		cap *= 2;
	m->keys = dac_alloc(sizeof(int64_t) * cap);
	m->vals = dac_alloc(sizeof(int) * cap);
	m->mask = cap - 1;
	m->count = 0;
	if (!m->keys || !m->vals)
		return 0;
	memset(m->vals, 0xff, sizeof(int) * cap);
	return 1;
}

static void
label_map_free(label_map *m)
{
	dac_free(m->keys);
	dac_free(m->vals);
}

/* The dense index of key, a new one (count, then count + 1) if unseen. */
static int
label_map_index(label_map *m, int64_t key)
{
	uint64_t	h = (uint64_t) key * UINT64_C(0x9E3779B97F4A7C15);
	size_t		i = (size_t) (h >> 17) & m->mask;

	while (m->vals[i] >= 0)
	{
		if (m->keys[i] == key)
			return m->vals[i];
		i = (i + 1) & m->mask;
	}
	m->keys[i] = key;
	m->vals[i] = m->count;
	return m->count++;
}

/* Map arbitrary ints to 0..k-1 by first appearance; k, or -1 (NOMEM / interrupted). */
static int
densify(const int *a, int n, int *out, dac_status *why)
{
	label_map	m;
	int			i;

	*why = DAC_ERR_NOMEM;
	if (!label_map_init(&m, n))
	{
		label_map_free(&m);
		return -1;
	}
	for (i = 0; i < n; i++)
	{
		if (i % METRIC_INTERRUPT_EVERY == METRIC_INTERRUPT_EVERY - 1 && dac_interrupted())
		{
			*why = DAC_ERR_INTERRUPTED;
			label_map_free(&m);
			return -1;
		}
		out[i] = label_map_index(&m, a[i]);
	}
	label_map_free(&m);
	return m.count;
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
	int		   *da = dac_alloc(sizeof(int) * (size_t) (n ? n : 1));
	int		   *db = dac_alloc(sizeof(int) * (size_t) (n ? n : 1));
	label_map	m;
	dac_status	st = DAC_ERR_NOMEM;
	int			i;

	memset(c, 0, sizeof(*c));
	memset(&m, 0, sizeof(m));
	if (!da || !db)
		goto fail;
	if ((c->ka = densify(a, n, da, &st)) < 0 || (c->kb = densify(b, n, db, &st)) < 0)
		goto fail;
	st = DAC_ERR_NOMEM;
	c->cell = dac_alloc_zero(sizeof(double) * ((size_t) n + c->ka + c->kb + 1));
	/* da and db become each cell's row and column (cells <= n) */
	if (c->cell == NULL || !label_map_init(&m, n))
		goto fail;
	c->ra = c->cell + n;
	c->rb = c->ra + c->ka;
	for (i = 0; i < n; i++)
	{
		int			k;

		if (i % METRIC_INTERRUPT_EVERY == METRIC_INTERRUPT_EVERY - 1 && dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto fail;
		}
		k = label_map_index(&m, (int64_t) da[i] * c->kb + db[i]);
		c->cell[k] += 1;
		c->ra[da[i]] += 1;
		c->rb[db[i]] += 1;
		/* cell k is new only when k == the count before it: k <= i, so da[k] was read */
		if (k == m.count - 1 && c->cell[k] == 1)
		{
			da[k] = da[i];
			db[k] = db[i];
		}
	}
	c->cells = m.count;
	c->cell_a = da;
	c->cell_b = db;
	label_map_free(&m);
	return DAC_OK;
fail:
	label_map_free(&m);
	dac_free(c->cell);
	c->cell = NULL;
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
}

static double
comb2(double x)
{
	return x * (x - 1) / 2;
}

double
dac_compare_labels_bytes(int n)
{
	/* two dense copies, the hash tables (up to 4n slots of 12 bytes), the cells */
	return 8.0 * n + 48.0 * n + 8.0 * (2.0 * n + 1) + 1024;
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
	k = densify(a, n, tmp, &why);
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

typedef struct
{
	int			a;				/* new cluster */
	int			b;				/* previous id */
	int			count;
} id_pair;

static int
cmp_pair_ab(const void *x, const void *y)
{
	const id_pair *p = x,
			   *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static int
cmp_pair_count(const void *x, const void *y)
{
	const id_pair *p = x,
			   *q = y;

	if (p->count != q->count)
		return p->count > q->count ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (p->a > q->a) - (p->a < q->a);
}

/* Sort v[0..n) and drop repeats; returns how many are left. */
static int
sort_unique(int *v, int n)
{
	int			m = 0,
				i;

	qsort(v, (size_t) n, sizeof(int), dac_cmp_int);
	for (i = 0; i < n; i++)
		if (m == 0 || v[i] != v[m - 1])
			v[m++] = v[i];
	return m;
}

/* Index of x in the sorted distinct v[0..n) (x is there). */
static int
index_of(const int *v, int n, int x)
{
	return (int) ((const int *) bsearch(&x, v, (size_t) n, sizeof(int), dac_cmp_int) - v);
}

dac_status
dac_match_ids(const int *ids, const int *prev, const unsigned char *has_prev, int n, int *out,
			  dac_error *err)
{
	/* new and previous ids are renumbered densely (any int values, O(n) memory) */
	size_t		cap = (size_t) (n ? n : 1);
	id_pair    *pair = dac_alloc(sizeof(id_pair) * cap);
	int		   *olds = dac_alloc(sizeof(int) * cap),
			   *news = dac_alloc(sizeof(int) * cap),
			   *map = dac_alloc(sizeof(int) * cap);
	char	   *used = dac_alloc_zero(cap),
			   *matched = dac_alloc_zero(cap);
	int			np = 0,
				no = 0,
				nn = 0,
				runs = 0,
				i;
	int64_t		next = 0;
	dac_status	st = DAC_OK;

	if (pair == NULL || olds == NULL || news == NULL || map == NULL || used == NULL || matched == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory matching the ids of %d points", n);
		goto done;
	}
	for (i = 0; i < n; i++)
	{
		if (ids[i] < 0)
		{
			st = dac_fail(err, DAC_ERR_INVALID, "cluster ids must not be negative");
			goto done;
		}
		if (ids[i] > 0)
			news[nn++] = ids[i];
		if (has_prev[i])
		{
			next = prev[i] > next ? prev[i] : next;
			olds[no++] = prev[i];
		}
	}
	if (dac_interrupted())
	{
		st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		goto done;
	}
	nn = sort_unique(news, nn);
	no = sort_unique(olds, no);
	/* count each (new, previous) pair, then take them largest first */
	for (i = 0; i < n; i++)
		if (ids[i] > 0 && has_prev[i])
		{
			pair[np].a = index_of(news, nn, ids[i]);
			pair[np].b = index_of(olds, no, prev[i]);
			pair[np].count = 1;
			np++;
		}
	qsort(pair, (size_t) np, sizeof(id_pair), cmp_pair_ab);
	for (i = 0; i < np; i++)
	{
		if (runs > 0 && pair[runs - 1].a == pair[i].a && pair[runs - 1].b == pair[i].b)
			pair[runs - 1].count++;
		else
			pair[runs++] = pair[i];
	}
	/* dense indices keep the order of the ids, so ties still go to the smaller id */
	qsort(pair, (size_t) runs, sizeof(id_pair), cmp_pair_count);
	for (i = 0; i < runs; i++)
	{
		if (matched[pair[i].a] || used[pair[i].b])
			continue;
		map[pair[i].a] = olds[pair[i].b];
		matched[pair[i].a] = 1;
		used[pair[i].b] = 1;
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
		out[i] = ids[i] == 0 ? 0 : map[index_of(news, nn, ids[i])];
done:
	dac_free(pair);
	dac_free(olds);
	dac_free(news);
	dac_free(map);
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
