/*
 * test_graph.c
 *	  The nearest-neighbour graph and its communities (graph.h), and the
 *	  clustering's graph stage: links and ties by hand, the modularity of a
 *	  two-clique graph worked out by hand, the partition at high and low
 *	  resolution from every start, separated blobs recovered from a wrong
 *	  start, the sample path, and the memory bound.
 */
#include "unit.h"

#include "cluster.h"
#include "graph.h"
#include "dresses_boots.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* distances of points on a line */
static float *
line_distances(const double *x, int m)
{
	float	   *D = malloc(sizeof(float) * m * m);
	int			i,
				j;

	for (i = 0; i < m; i++)
		for (j = 0; j < m; j++)
			D[i * m + j] = (float) fabs(x[i] - x[j]);
	return D;
}

static int
has_link(const dac_graph *g, int a, int b)
{
	int			e;

	for (e = g->start[a]; e < g->start[a + 1]; e++)
		if (g->adj[e] == b)
			return 1;
	return 0;
}

static void
knn_by_hand(void)
{
	/* 0 1 3 6 10: nearest of each: 1, 0, 1, 3, 6 */
	double		x[5] = {0, 1, 3, 6, 10},
				t[5] = {-2, 0, 2, -3, 3};
	float	   *D = line_distances(x, 5);
	dac_graph	g;
	int			ok;

	CHECK(dac_knn_graph(D, 5, 1, NULL, &g) == DAC_OK, "the 1-NN graph of five points");
	ok = g.n == 5 && g.start[5] == 8 && has_link(&g, 0, 1) && has_link(&g, 1, 0) && has_link(&g, 1, 2) &&
		has_link(&g, 2, 1) && has_link(&g, 2, 3) && has_link(&g, 3, 4) && !has_link(&g, 0, 2) &&
		g.deg[0] == 1 && g.deg[1] == 2 && g.deg[4] == 1 && g.total == 8;
	CHECK(ok, "links 0-1, 1-3, 3-6, 6-10 both ways, degrees 1 2 2 2 1 (links %d, total %g)", g.start[5], g.total);
	dac_graph_free(&g);
	ok = dac_knn_graph(D, 5, 99, NULL, &g) == DAC_OK;
	CHECK(ok && g.start[5] == 20 && g.deg[2] == 4, "k above m − 1 links every pair (links %d)", ok ? g.start[5] : -1);
	dac_graph_free(&g);
	free(D);
	/* −2 0 2 −3 3: row 1's one nearest is a tie between rows 0 and 2, kept by the lower index */
	D = line_distances(t, 5);
	CHECK(dac_knn_graph(D, 5, 1, NULL, &g) == DAC_OK && has_link(&g, 1, 0) && !has_link(&g, 1, 2) &&
		  has_link(&g, 0, 3) && has_link(&g, 2, 4) && g.deg[0] == 2 && g.deg[1] == 1 && g.deg[2] == 1,
		  "a tie goes to the lower index (row 1 links to row 0, not row 2)");
	dac_graph_free(&g);
	free(D);
}

/* six identical rows (at 0) and five on a line beside them (1 .. 5) */
static void
duplicates_by_hand(void)
{
	double		x[11] = {0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5};
	int			dup[11] = {0, 0, 0, 0, 0, 0, 6, 7, 8, 9, 10},
				seen[11] = {1},
				stack[11] = {0},
				top = 1,
				reached = 1;
	float	   *D = line_distances(x, 11);
	dac_graph	g;

	top = dac_knn_graph(D, 11, 5, NULL, &g) == DAC_OK;
	CHECK(top && g.deg[3] >= 5 && !has_link(&g, 3, 8),
		  "without dup, the six identical rows are each other's 5 nearest: a clique (row 3: %g links)", top ? g.deg[3] : -1.0);
	top = 1;
	dac_graph_free(&g);
	CHECK(dac_knn_graph(D, 11, 5, dup, &g) == DAC_OK, "with dup");
	while (top > 0)
	{
		int			v = stack[--top],
					e;

		for (e = g.start[v]; e < g.start[v + 1]; e++)
			if (!seen[g.adj[e]])
			{
				seen[g.adj[e]] = 1;
				stack[top++] = g.adj[e];
				reached++;
			}
	}
	CHECK(reached == 11 && g.deg[3] == 1 && has_link(&g, 3, 0) && has_link(&g, 0, 6) && has_link(&g, 0, 10),
		  "with dup, a repeated row links only to the first of its kind, whose 5 nearest are the line: one piece "
		  "(%d of 11 reached)", reached);
	dac_graph_free(&g);
	free(D);
}

/* the graph of n nodes and the e links pair[i][0] - pair[i][1], each weight 1, rows ascending */
static void
graph_of_links(int n, const short (*pair)[2], int e, dac_graph *g)
{
	int		   *fill = dac_alloc_zero(sizeof(int) * ((size_t) n + 1)),
				i,
				v;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->start = dac_alloc_zero(sizeof(int) * ((size_t) n + 1));
	g->adj = dac_alloc(sizeof(int) * (2 * (size_t) e + 1));
	g->w = dac_alloc(sizeof(double) * (2 * (size_t) e + 1));
	g->deg = dac_alloc(sizeof(double) * (size_t) n);
	for (i = 0; i < e; i++)
	{
		g->start[pair[i][0] + 1]++;
		g->start[pair[i][1] + 1]++;
	}
	for (v = 0; v < n; v++)
		g->start[v + 1] += g->start[v];
	memcpy(fill, g->start, sizeof(int) * (size_t) n);
	for (i = 0; i < e; i++)
	{
		g->adj[fill[pair[i][0]]++] = pair[i][1];
		g->adj[fill[pair[i][1]]++] = pair[i][0];
	}
	for (v = 0; v < n; v++)
	{
		int			f;

		/* each row's few neighbours in order (insertion) */
		for (f = g->start[v] + 1; f < g->start[v + 1]; f++)
		{
			int			u = g->adj[f],
						h = f;

			for (; h > g->start[v] && g->adj[h - 1] > u; h--)
				g->adj[h] = g->adj[h - 1];
			g->adj[h] = u;
		}
		for (f = g->start[v]; f < g->start[v + 1]; f++)
			g->w[f] = 1;
		g->deg[v] = g->start[v + 1] - g->start[v];
	}
	g->total = 2.0 * e;
	dac_free(fill);
}

/* two 4-cliques, 0-3 and 4-7, joined by the link 3-4 */
static void
two_cliques(dac_graph *g)
{
	float		D[64];
	int			i,
				j;

	/* distances that make exactly those links the 3-nearest (plus 3-4 mutual) */
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++)
			D[i * 8 + j] = i == j ? 0 : (i / 4 == j / 4 ? 1.0f : 10.0f);
	D[3 * 8 + 4] = D[4 * 8 + 3] = 5.0f;
	dac_knn_graph(D, 8, 3, NULL, g);
	/* 3-NN inside a clique: the 3 others; the bridge is not among them */
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++)
			if (i != j && i / 4 == j / 4 && !has_link(g, i, j))
				CHECK(0, "clique link %d-%d", i, j);
	/* the same links and the bridge, one graph (rows ascending) */
	{
		short		pair[14][2];
		int			e = 0,
					f;

		for (i = 0; i < 8; i++)
			for (f = g->start[i]; f < g->start[i + 1]; f++)
				if (g->adj[f] > i && e < 13)
				{
					pair[e][0] = (short) i;
					pair[e++][1] = (short) g->adj[f];
				}
		pair[e][0] = 3;
		pair[e++][1] = 4;
		dac_graph_free(g);
		graph_of_links(8, (const short (*)[2]) pair, e, g);
	}
}

/*
 * The graph of a real group (dresses_boots.h: 143 dresses, 10 ankle boots;
 * 3 links between them), at γ 0.05.  One run of Leiden's levels from every
 * node alone ends with all 153 in one community (Q 0.95); a second, from
 * it, separates the boots (Q 0.952), so the group is no longer one cluster.
 */
static void
runs_until_q_stops(void)
{
	enum
	{
		E = sizeof(dresses_boots) / sizeof(dresses_boots[0]), N = DRESSES_BOOTS_N
	};
	int			lab[N],
				i,
				s,
				K;
	dac_graph	g;
	dac_status	st;

	graph_of_links(N, dresses_boots, E, &g);
	for (s = 0; s < 2; s++)
	{
		int			boots = 1;

		for (i = 0; i < N; i++)
			lab[i] = 1;
		st = dac_graph_partition(&g, 0.05, s, lab, &K);
		for (i = N - DRESSES_BOOTS_BOOTS; i < N; i++)
			boots &= lab[i] == lab[N - 1] && lab[i] != lab[0];
		CHECK(st == DAC_OK && K == 2 && boots && dac_graph_quality(&g, lab, 0.05) > 0.952,
			  "dresses and boots at γ 0.05 from %s: the boots apart (K %d, Q %.5f)",
			  s ? "one community" : "every node alone", K, dac_graph_quality(&g, lab, 0.05));
	}
	dac_graph_free(&g);
}

static void
quality_and_partition(void)
{
	dac_graph	g;
	int			split[8] = {1, 1, 1, 1, 2, 2, 2, 2},
				one[8] = {1, 1, 1, 1, 1, 1, 1, 1},
				lab[8],
				K,
				i,
				s;
	dac_status	st;

	two_cliques(&g);
	CHECK(g.total == 26 && g.deg[3] == 4 && g.deg[0] == 3, "two 4-cliques and a bridge: 13 links, 2w = 26");
	/* Q = (1/26) Σ_c [e_c − γ K_c² / 26]: e_c = 12, K_c = 13 each */
	CHECK(fabs(dac_graph_quality(&g, split, 1.0) - 11.0 / 26) < 1e-12,
		  "split at γ 1: (2·(12 − 169/26)) / 26 = 11/26 (got %.15f)", dac_graph_quality(&g, split, 1.0));
	CHECK(fabs(dac_graph_quality(&g, one, 1.0)) < 1e-12, "one community at γ 1: (26 − 26) / 26 = 0");
	CHECK(fabs(dac_graph_quality(&g, split, 0.05) - (24 - 0.05 * 338 / 26) / 26) < 1e-12 &&
		  fabs(dac_graph_quality(&g, one, 0.05) - 0.95) < 1e-12,
		  "at γ 0.05: split (24 − 0.65) / 26 = 0.898, one (26 − 1.3) / 26 = 0.95");
	for (s = 0; s < 3; s++)
	{
		/* from every node alone, from the split, from one community */
		for (i = 0; i < 8; i++)
			lab[i] = s == 0 ? 1 : s == 1 ? split[i] : 1;
		K = -1;
		st = dac_graph_partition(&g, 1.0, s > 0, lab, &K);
		CHECK(st == DAC_OK && K == 2 && memcmp(lab, split, sizeof(split)) == 0,
			  "γ 1 from %s: the two cliques, ids in order (K %d)",
			  s == 0 ? "every node alone" : s == 1 ? "the split" : "one community (the start is no bound)", K);
		for (i = 0; i < 8; i++)
			lab[i] = s == 1 ? split[i] : 1;
		K = -1;
		st = dac_graph_partition(&g, 0.05, s > 0, lab, &K);
		CHECK(st == DAC_OK && K == 1 && memcmp(lab, one, sizeof(one)) == 0, "γ 0.05 from %s: one community (K %d)",
			  s == 0 ? "every node alone" : s == 1 ? "the split" : "one community", K);
	}
	dac_graph_free(&g);
}

/* k blobs in d dimensions, far apart: blob c on axis c */
static void
blobs(dac_rng *r, int n, int d, int k, dac_real *X, int *y)
{
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		y[i] = 1 + (i * 7) % k;
		for (j = 0; j < d; j++)
			X[(size_t) i * d + j] = (dac_real) ((j == y[i] - 1 ? 10.0 : 0.0) + 0.3 * dac_rng_normal(r));
	}
}

/* a clustering of n rows with every row in cluster 1 (labels allocated) */
static void
one_cluster_of(int n, dac_clustering *c)
{
	int			i;

	memset(c, 0, sizeof(*c));
	c->n = n;
	c->labels = malloc(sizeof(int) * n);
	c->num_clusters = 1;
	for (i = 0; i < n; i++)
		c->labels[i] = 1;
}

/* blobs() in X [n, d] and y [n] (allocated), and a clustering of them with every row in cluster 1 */
static void
blob_start(int seed, int n, int d, int k, dac_real **X, int **y, dac_clustering *c)
{
	dac_rng		r;

	*X = malloc(sizeof(dac_real) * n * d);
	*y = malloc(sizeof(int) * n);
	dac_rng_seed(&r, seed);
	blobs(&r, n, d, k, *X, *y);
	one_cluster_of(n, c);
}

static void
stage_recovers_blobs(void)
{
	int			sizes[2] = {300, 2500},
				t;

	for (t = 0; t < 2; t++)
	{
		int			n = sizes[t],
					d = 8,
					k = 4,
					i;
		dac_real   *X;
		int		   *y;
		dac_clustering c;

		blob_start(5 + t, n, d, k, &X, &y, &c);
		c.num_clusters = 2;
		c.theta_dim = 3;
		c.theta = calloc(2 * 3, sizeof(dac_real));
		/* a wrong start: blobs 1, 2 together and 3, 4 together */
		for (i = 0; i < n; i++)
			c.labels[i] = y[i] <= 2 ? 1 : 2;
		i = dac_clustering_graph(X, d, &c, 5, 0.05, 0, 1, 0, 0) == DAC_OK;
		CHECK(i && c.graphed, "the graph stage runs (n %d)", n);
		CHECK(c.num_clusters == k && dac_ari(y, c.labels, n) > 0.999 && c.labels[0] == 1,
			  "n %d%s: four separated blobs from a two-cluster start (K %d, ARI %.4f), the first row's id 1", n,
			  n > DAC_KSEARCH_SAMPLE ? " (a sample, the rest to the nearest mean)" : "", c.num_clusters,
			  dac_ari(y, c.labels, n));
		dac_clustering_free(&c);
		free(X);
		free(y);
	}
}

static void
stage_leaves_small_sets(void)
{
	dac_real	X[4] = {0, 1, 5, 6};
	int			lab[2] = {1, 2};
	dac_clustering c;

	memset(&c, 0, sizeof(c));
	c.n = 2;
	c.labels = lab;
	c.num_clusters = 2;
	CHECK(dac_clustering_graph(X, 2, &c, 5, 0.05, 0, 1, 0, 0) == DAC_OK && !c.graphed && c.num_clusters == 2,
		  "two points: the stage leaves them");
	c.n = 4;
	CHECK(dac_clustering_graph(X, 1, &c, 0, 0.05, 0, 1, 0, 0) == DAC_OK && !c.graphed, "0 neighbours: none");
	CHECK(dac_graph_stage_bytes(100000, 32, 5) < 16e6 && dac_graph_stage_bytes(100000, 32, 5) > 12e6 &&
		  dac_graph_stage_bytes(10, 32, 0) == 0,
		  "memory: the 1,000-row sample's distances (4 bytes a pair) and the table that merges its communities "
		  "(8 bytes a pair, at most) dominate (%.0f bytes at n 100,000)",
		  dac_graph_stage_bytes(100000, 32, 5));
}

static void
merge_by_hand(void)
{
	dac_graph	g;
	int			lab[8] = {1, 1, 2, 2, 3, 3, 4, 4},
				K = 4,
				i,
				ok = 1;

	two_cliques(&g);
	/*
	 * pairs {0,1} {2,3} {4,5} {6,7}: merging within a clique joins 4 links
	 * (gain 8 − 2γ·6·6/26 at γ 1), across the bridge only 1 (2 − 2·7·7/26
	 * for {2,3}+{4,5}, the degrees 3+3 and 3+4): two merges make the cliques
	 */
	CHECK(dac_graph_merge(&g, 1.0, lab, &K, 2) == DAC_OK && K == 2, "four pairs merged to two communities");
	for (i = 0; i < 8; i++)
		ok &= lab[i] == (i < 4 ? 1 : 2);
	CHECK(ok, "they are the two cliques, ids in order");
	CHECK(dac_graph_merge(&g, 1.0, lab, &K, 1) == DAC_OK && K == 1 && lab[7] == 1, "and then one");
	dac_graph_free(&g);
}

static int
stop_now(void)
{
	return 1;
}

static void
merge_share_by_hand(void)
{
	dac_hooks	stop = {NULL, NULL, stop_now, NULL};
	dac_graph	g;
	int			start[8] = {1, 1, 2, 2, 3, 3, 4, 4},
				lab[8],
				K,
				i,
				ok = 1;

	two_cliques(&g);

	/*
	 * The same pairs: {0,1} and {2,3} share 4 links, 4 / min(6, 7) = 0.667
	 * of the smaller one's (so do {4,5} and {6,7}); across the bridge 1 / 7
	 * = 0.143, and once the pairs are merged 1 / 13 = 0.077.
	 */
	memcpy(lab, start, sizeof(lab));
	K = 4;
	CHECK(dac_graph_merge_share(&g, 0.7, lab, &K) == DAC_OK && K == 4 && lab[2] == 2,
		  "share 0.7: no pair is above it (K %d)", K);
	CHECK(dac_graph_merge_share(&g, 0.6, lab, &K) == DAC_OK && K == 2, "share 0.6: the pairs merge (K %d)", K);
	for (i = 0; i < 8; i++)
		ok &= lab[i] == (i < 4 ? 1 : 2);
	CHECK(ok, "into the two cliques, ids in order");
	memcpy(lab, start, sizeof(lab));
	K = 4;
	CHECK(dac_graph_merge_share(&g, 0.08, lab, &K) == DAC_OK && K == 2,
		  "share 0.08: the bridge's 1 / 7 merged nothing once the cliques were whole (1 / 13 < 0.08; K %d)", K);
	CHECK(dac_graph_merge_share(&g, 0.07, lab, &K) == DAC_OK && K == 1 && lab[7] == 1,
		  "share 0.07: the two cliques merge (K %d)", K);
	memcpy(lab, start, sizeof(lab));
	K = 4;
	CHECK(dac_graph_merge_share(&g, 0, lab, &K) == DAC_OK && K == 4 && lab[7] == 4, "share 0: nothing done");
	dac_set_hooks(&stop);
	CHECK(dac_graph_merge_share(&g, 0.6, lab, &K) == DAC_ERR_INTERRUPTED && K == 4, "it stops at an interrupt");
	dac_set_hooks(NULL);
	dac_graph_free(&g);
}

/*
 * k blobs of unit spread, blob c centred sep along axis (c - 1) % groups of
 * d, the blobs of each run of `groups` together and the runs 40 apart on the
 * last axis; every row in cluster 1 of c
 */
static void
touching_start(int seed, int n, int d, int k, int groups, double sep, dac_real **X, int **y, dac_clustering *c)
{
	dac_rng		r;
	int			i,
				j;

	*X = malloc(sizeof(dac_real) * n * d);
	*y = malloc(sizeof(int) * n);
	dac_rng_seed(&r, seed);
	for (i = 0; i < n; i++)
	{
		(*y)[i] = 1 + (i * 7) % k;
		for (j = 0; j < d; j++)
			(*X)[(size_t) i * d + j] = (dac_real) ((j == ((*y)[i] - 1) % groups ? sep : 0.0) +
												   (j == d - 1 ? 40.0 * (((*y)[i] - 1) / groups) : 0.0) +
												   dac_rng_normal(&r));
	}
	one_cluster_of(n, c);
}

/* the stage's two scales on X from one cluster: K, ARI and share_merged */
static void
graph_from_one(const dac_real *X, int d, dac_clustering *c, double merge, int k)
{
	int			i;

	for (i = 0; i < c->n; i++)
		c->labels[i] = 1;
	c->num_clusters = 1;
	c->share_merged = 0;
	CHECK(dac_clustering_graph(X, d, c, 5, 0.05, merge, 1, k, k) == DAC_OK, "the graph stage runs");
}

/*
 * The two scales, with graph_merge above 0: the resolution decides whether
 * a group is one community; where it finds more, they are counted at
 * DAC_GRAPH_FINE times it, unless that partition's silhouette falls more
 * than DAC_GRAPH_FINE_MARGIN below; otherwise, or where it finds one,
 * graph_merge's merged finer partition is kept when it has DAC_GRAPH_MANY or
 * more.  At graph_merge 0, the resolution's communities alone.  Not with
 * k_min.
 */
static void
stage_two_scales(void)
{
	int			ks[2] = {3, 8},
				n = 480,
				d = 8,
				t;
	dac_real   *X;
	int		   *y;
	dac_clustering c;

	/* separated blobs: found at the coarse scale, counted at the fine one */
	for (t = 0; t < 2; t++)
	{
		blob_start(31 + t, n, d, ks[t], &X, &y, &c);
		graph_from_one(X, d, &c, 0.05, 0);
		CHECK(c.num_clusters == ks[t] && dac_ari(y, c.labels, n) > 0.999 && !c.share_merged,
			  "%d separated blobs from one cluster, graph_merge 0.05: all found, no merged partition (K %d)", ks[t],
			  c.num_clusters);
		graph_from_one(X, d, &c, 0.05, ks[t]);
		CHECK(c.num_clusters == ks[t] && !c.share_merged, "%d blobs asked for %d: the modularity's path alone", ks[t],
			  ks[t]);
		dac_clustering_free(&c);
		free(X);
		free(y);
	}

	/*
	 * Touching blobs, from one cluster, at graph_merge 0 and 0.05: the
	 * count (exact, or at least DAC_GRAPH_MANY where 0), whether the merged
	 * partition is kept, and the least ARI.  At graph_merge 0, one scale:
	 * the resolution's communities alone.  Six blobs: the resolution merges
	 * them into 3, four times it finds the six.  Two runs of three, 40
	 * apart: the resolution keeps one run's three and joins two of the
	 * other's (5); four times it finds the six without graph_merge's
	 * partition (Leiden run until Q stops rising).  Two runs of four, 40
	 * apart: the runs dominate the silhouette, and the eight blobs' falls
	 * more than DAC_GRAPH_FINE_MARGIN below the resolution's 2 communities;
	 * graph_merge's merged partition finds 4 or more.  Eight blobs one
	 * community at the resolution: graph_merge's merged finer partition.
	 */
	{
		static const struct
		{
			const char *what;
			int			k,
						groups;
			double		sep;
			int			K[2],
						merged[2];
			double		ari[2];
		}			cases[] = {
			{"six touching blobs", 6, 6, 4.0, {3, 6}, {0, 0}, {0.5, 0.9}},
			{"two far runs of three touching blobs", 6, 3, 4.0, {5, 6}, {0, 0}, {0.8, 0.9}},
			{"two far runs of four touching blobs", 8, 4, 4.0, {2, 0}, {0, 1}, {0, 0.7}},
			{"eight touching blobs", 8, 8, 3.8, {1, 0}, {0, 1}, {0, 0.6}},
		};
		double		merge[2] = {0, 0.05};

		for (t = 0; t < (int) (sizeof(cases) / sizeof(cases[0])); t++)
		{
			int			v;

			touching_start(1, n, d, cases[t].k, cases[t].groups, cases[t].sep, &X, &y, &c);
			for (v = 0; v < 2; v++)
			{
				double		ari;

				graph_from_one(X, d, &c, merge[v], 0);
				ari = dac_ari(y, c.labels, n);
				CHECK((cases[t].K[v] > 0 ? c.num_clusters == cases[t].K[v] : c.num_clusters >= DAC_GRAPH_MANY) &&
					  c.share_merged == cases[t].merged[v] && ari >= cases[t].ari[v],
					  "%s, graph_merge %g: K %d (want %d; 0: %d or more), merged partition %d (want %d), ARI %.3f",
					  cases[t].what, merge[v], c.num_clusters, cases[t].K[v], DAC_GRAPH_MANY, c.share_merged,
					  cases[t].merged[v], ari);
			}
			dac_clustering_free(&c);
			free(X);
			free(y);
		}
	}
}

/* four separated blobs asked for 2 (merged) and 6 (split) clusters by the graph stage */
static void
stage_count_bounds(void)
{
	int			n = 400,
				d = 8,
				i,
				t,
				want[3] = {2, 6, 4};
	dac_real   *X = malloc(sizeof(dac_real) * n * d);
	int		   *y = malloc(sizeof(int) * n);
	dac_rng		r;

	dac_rng_seed(&r, 9);
	blobs(&r, n, d, 4, X, y);
	for (t = 0; t < 3; t++)
	{
		dac_clustering c;
		int			pure = 1,
					k,
					st;

		memset(&c, 0, sizeof(c));
		c.n = n;
		c.labels = malloc(sizeof(int) * n);
		c.num_clusters = 4;
		c.theta_dim = 1;
		c.theta = calloc(4, sizeof(dac_real));
		for (i = 0; i < n; i++)
			c.labels[i] = y[i];
		st = dac_clustering_graph(X, d, &c, 5, 0.05, 0, 1, want[t], want[t]);
		k = c.num_clusters;
		/* splitting keeps each found cluster within one blob; merging keeps blobs whole */
		for (i = 0; i < n && want[t] >= 4; i++)
		{
			int			j;

			for (j = 0; j < n; j++)
				if (c.labels[i] == c.labels[j] && y[i] != y[j])
					pure = 0;
		}
		for (i = 0; i < n && want[t] < 4; i++)
		{
			int			j;

			for (j = 0; j < n; j++)
				if (y[i] == y[j] && c.labels[i] != c.labels[j])
					pure = 0;
		}
		CHECK(st == DAC_OK && k == want[t] && pure,
			  "k_min = k_max = %d from the four blobs: %d clusters, %s", want[t], k,
			  want[t] < 4 ? "each blob whole" : "each within one blob");
		dac_clustering_free(&c);
	}
	free(X);
	free(y);
}

/*
 * Given k, the graph's communities against k-means at k, by the sum of
 * their modularity in the graph and their mean silhouette.  Two parallel
 * bands, 60 rows each along x (0 .. 29.5, 0.5 apart) at y = 0 and 3:
 * k-means at 2 cuts them across (each half's spread along x, 18.75, plus
 * the bands' 2.25 is far under 75 along a whole band), into halves the
 * bands' neighbour links cross.  The communities, the bands, have no link
 * between them: modularity alone keeps them, by the few links the halves
 * cut (about 0.02); but the halves' mean silhouette is higher by far more
 * (a band's rows are 10 apart on average, 3 from the other band's), and
 * the sum keeps the halves.
 */
static void
stage_referee(void)
{
	int			n = 120,
				i,
				st,
				halves = 1;
	dac_real	X[240];
	dac_clustering c;
	dac_rng		r;

	dac_rng_seed(&r, 21);
	for (i = 0; i < n; i++)
	{
		X[2 * i] = (dac_real) (0.5 * (i % 60) + 0.01 * dac_rng_normal(&r));
		X[2 * i + 1] = (dac_real) (3.0 * (i / 60) + 0.05 * dac_rng_normal(&r));
	}
	memset(&c, 0, sizeof(c));
	c.n = n;
	c.labels = malloc(sizeof(int) * n);
	c.num_clusters = 1;
	for (i = 0; i < n; i++)
		c.labels[i] = 1;
	st = dac_clustering_graph(X, 2, &c, 5, 0.05, 0, 1, 2, 2);
	CHECK(st == DAC_OK && c.num_clusters == 2, "two bands, k 2: two clusters (%d)", c.num_clusters);
	for (i = 0; i < n; i++)
		if (c.labels[i] != c.labels[i % 60 < 30 ? 0 : 30] || c.labels[0] == c.labels[30])
			halves = 0;
	CHECK(halves, "two bands, k 2: k-means' halves across them, ahead on modularity and silhouette summed");
	dac_clustering_free(&c);
}

/*
 * exactly k and at most k through dac_cluster_set: the authors' trained MLF
 * (the reference fixture) on five separated Gaussian blobs, asked for fewer
 * (merges) and more (splits) clusters than it finds; a Gaussian θ of a moved
 * count is its members' mean
 */
static void
exact_and_max_k(void)
{
	size_t		len;
	uint8_t    *wbuf = unit_read_file(unit_fixture("mlf_mog.weights.safetensors"), &len);
	dac_model	m;
	dac_rng		r;
	int			n = 400,
				i,
				t,
				k0 = 0,
				asks[4] = {1, 3, 7, 0};
	dac_real   *X = malloc(sizeof(dac_real) * n * 2);
	dac_cluster_opts o = dac_cluster_opts_default();

	if (wbuf == NULL || dac_model_load(&m, wbuf, len, NULL) != DAC_OK)
	{
		CHECK(0, "read the MLF reference weights");
		free(X);
		dac_free(wbuf);
		return;
	}
	dac_rng_seed(&r, 12);
	for (i = 0; i < n; i++)
	{
		X[2 * i] = (dac_real) (1.5 * (i % 5) - 3.0 + 0.1 * dac_rng_normal(&r));
		X[2 * i + 1] = (dac_real) (0.1 * dac_rng_normal(&r));
	}
	{
		dac_clustering c0;

		CHECK(dac_cluster_set(&m, X, n, 2, &o, &c0, NULL) == DAC_OK, "clusters as found");
		k0 = c0.num_clusters;
		dac_clustering_free(&c0);
	}
	CHECK(k0 >= 4, "the trained model finds the blobs (%d clusters)", k0);
	for (t = 0; t < 4; t++)
	{
		dac_clustering c;
		int			ok = 1,
					k,
					st,
					want = asks[t] ? asks[t] : 2;

		o.k_exact = asks[t];
		o.k_max = asks[t] ? 0 : 2;
		st = dac_cluster_set(&m, X, n, 2, &o, &c, NULL);
		CHECK(st == DAC_OK && c.num_clusters == want, "%s %d: %d clusters (%d found without)",
			  asks[t] ? "k" : "max_k", want, st == DAC_OK ? c.num_clusters : -1, k0);
		for (k = 1; st == DAC_OK && k <= c.num_clusters; k++)
		{
			double		s0 = 0,
						s1 = 0;
			int			cnt = 0;

			for (i = 0; i < n; i++)
				if (c.labels[i] == k)
				{
					s0 += X[2 * i];
					s1 += X[2 * i + 1];
					cnt++;
				}
			ok &= cnt > 0 && fabs(c.theta[(size_t) (k - 1) * 4] - s0 / cnt) < 1e-3 &&
				fabs(c.theta[(size_t) (k - 1) * 4 + 1] - s1 / cnt) < 1e-3;
		}
		CHECK(st == DAC_OK && ok, "%s %d: every cluster has members and θ its members' mean",
			  asks[t] ? "k" : "max_k", want);
		if (st == DAC_OK)
			dac_clustering_free(&c);
	}
	dac_model_free(&m);
	dac_free(wbuf);
	free(X);
}

/* a graph renamed: the same links under the new names, ascending, and the same modularity of a partition */
static void
permute_by_hand(void)
{
	double		x[11] = {0, 0.5, 1, 1.4, 2, 10, 10.3, 11, 11.6, 12, 30};
	float	   *D = line_distances(x, 11);
	int			order[11] = {7, 3, 10, 0, 5, 9, 1, 8, 2, 6, 4},
				lab[11] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3},
				plab[11],
				i,
				e,
				same = 1,
				ascending = 1;
	dac_graph	g,
				p;

	CHECK(dac_knn_graph(D, 11, 3, NULL, &g) == DAC_OK && dac_graph_permute(&g, order, &p) == DAC_OK,
		  "the 3-NN graph of eleven points, renamed");
	for (i = 0; i < 11; i++)
	{
		int			v = order[i];

		same &= p.deg[i] == g.deg[v] && p.start[i + 1] - p.start[i] == g.start[v + 1] - g.start[v];
		for (e = g.start[v]; e < g.start[v + 1]; e++)
		{
			int			j;

			for (j = 0; j < 11 && order[j] != g.adj[e]; j++)
				;
			same &= has_link(&p, i, j);
		}
		for (e = p.start[i] + 1; e < p.start[i + 1]; e++)
			ascending &= p.adj[e - 1] < p.adj[e];
		plab[i] = lab[v];
	}
	CHECK(same && p.total == g.total, "renamed: each node keeps its degree and its links under the new names");
	CHECK(ascending, "renamed: each node's neighbours ascending");
	CHECK(fabs(dac_graph_quality(&g, lab, 1.0) - dac_graph_quality(&p, plab, 1.0)) < 1e-12,
		  "renamed: a partition renamed with it keeps its modularity (%.6f)", dac_graph_quality(&g, lab, 1.0));
	dac_graph_free(&g);
	dac_graph_free(&p);
	free(D);
}

void
test_graph(void)
{
	duplicates_by_hand();
	merge_by_hand();
	merge_share_by_hand();
	stage_two_scales();
	stage_count_bounds();
	stage_referee();
	exact_and_max_k();
	knn_by_hand();
	permute_by_hand();
	quality_and_partition();
	runs_until_q_stops();
	stage_recovers_blobs();
	stage_leaves_small_sets();
}
