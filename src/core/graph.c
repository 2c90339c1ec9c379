/*
 * graph.c
 *	  The k-nearest-neighbour graph of a set and its modularity communities
 *	  (graph.h): a deterministic Leiden — local moves, refinement,
 *	  aggregation — on graphs of up to a few thousand nodes.
 */
#include "graph.h"
#include "labels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GRAPH_MAX_SWEEPS 64		/* local-move sweeps per level, at most */
#define GRAPH_MAX_LEVELS 32
#define GRAPH_MAX_RUNS 32		/* Leiden's runs, each from the last one's communities, at most */
#define GRAPH_EPS 1e-12

void
dac_graph_free(dac_graph *g)
{
	dac_free(g->start);
	dac_free(g->adj);
	dac_free(g->w);
	dac_free(g->deg);
	memset(g, 0, sizeof(*g));
}

/* g's arrays for n nodes and e links; 0 when out of memory (g freed) */
static int
graph_alloc(dac_graph *g, int n, size_t e)
{
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->start = dac_alloc_zero(sizeof(int) * ((size_t) n + 1));
	g->adj = dac_alloc(sizeof(int) * (e > 0 ? e : 1));
	g->w = dac_alloc(sizeof(double) * (e > 0 ? e : 1));
	g->deg = dac_alloc_zero(sizeof(double) * (n > 0 ? (size_t) n : 1));
	if (!g->start || !g->adj || !g->w || !g->deg)
	{
		dac_graph_free(g);
		return 0;
	}
	return 1;
}

double
dac_graph_bytes(int m, int k)
{
	double		e = 2.0 * m * (k < m ? k : m);

	/*
	 * the neighbour lists and the two-way lists (dac_knn_graph); the graph,
	 * one coarser level beside it, the partition's per-node arrays, its
	 * runs' two label sets and Q's sums
	 */
	return sizeof(int) * (e + (double) m * k + 2.0 * m) + 2 * ((sizeof(int) + sizeof(double)) * e +
																(sizeof(int) + sizeof(double)) * (m + 1.0)) +
		(8.0 * sizeof(int) + 5.0 * sizeof(double)) * m + 256;
}

double
dac_graph_permute_bytes(int m, int k)
{
	/* the links (2·m·(k + 1) at most, each an id and a weight), the starts, degrees and positions */
	return (sizeof(int) + sizeof(double)) * 2.0 * m * (k + 1.0) + (2.0 * sizeof(int) + sizeof(double)) * (m + 1.0) + 64;
}

dac_status
dac_graph_permute(const dac_graph *g, const int *order, dac_graph *out)
{
	int			n = g->n,
			   *pos = dac_alloc(sizeof(int) * (size_t) (n > 0 ? n : 1)),
				i;

	if (pos == NULL || !graph_alloc(out, n, (size_t) g->start[n]))
	{
		dac_free(pos);
		return DAC_ERR_NOMEM;
	}
	for (i = 0; i < n; i++)
		pos[order[i]] = i;
	out->total = g->total;
	for (i = 0; i < n; i++)
	{
		int			v = order[i],
					a = g->start[v],
					b = g->start[v + 1],
					at = out->start[i],
					j;

		out->start[i + 1] = at + (b - a);
		out->deg[i] = g->deg[v];
		/* the links of v, renamed, ascending (insertion: a node has a few links) */
		for (j = a; j < b; j++)
		{
			int			u = pos[g->adj[j]],
						t = at + (j - a);
			double		w = g->w[j];

			while (t > at && out->adj[t - 1] > u)
			{
				out->adj[t] = out->adj[t - 1];
				out->w[t] = out->w[t - 1];
				t--;
			}
			out->adj[t] = u;
			out->w[t] = w;
		}
		if ((i & 1023) == 1023 && dac_interrupted())
		{
			dac_free(pos);
			dac_graph_free(out);
			return DAC_ERR_INTERRUPTED;
		}
	}
	dac_free(pos);
	return DAC_OK;
}

dac_status
dac_knn_graph(const float *D, int m, int k, const int *dup, dac_graph *g)
{
	int		   *nb = NULL,
			   *tstart = NULL,
			   *tadj = NULL,
			   *fill = NULL;
	float	   *td = NULL;
	int			r,
				q,
				j;
	size_t		e = 0;
	dac_status	st = DAC_OK;

	memset(g, 0, sizeof(*g));
	if (k > m - 1)
		k = m - 1;
	if (k < 0)
		k = 0;
	nb = dac_alloc(sizeof(int) * ((size_t) m * k + 1));
	td = dac_alloc(sizeof(float) * ((size_t) k + 1));
	tstart = dac_alloc_zero(sizeof(int) * ((size_t) m + 1));
	fill = dac_alloc(sizeof(int) * ((size_t) m + 1));
	tadj = dac_alloc(sizeof(int) * (2 * (size_t) m * (k + 1) + 1));
	if (!nb || !td || !tstart || !fill || !tadj)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	/* each row's k nearest, nearest first; a tie keeps the lower index */
	for (r = 0; r < m; r++)
	{
		int		   *top = nb + (size_t) r * k;
		int			have = 0;

		for (j = 0; j < k; j++)
			top[j] = -1;
		if (dup && dup[r] != r)
			continue;			/* a repeated row: only the link to the first of its kind */
		if ((r & 63) == 0 && dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		for (q = 0; q < m; q++)
		{
			float		dq = D[(size_t) r * m + q];

			if (q == r || k == 0 || (have == k && !(dq < td[k - 1])) || (dup && dup[q] != q))
				continue;
			j = have < k ? have++ : k - 1;
			while (j > 0 && dq < td[j - 1])
			{
				td[j] = td[j - 1];
				top[j] = top[j - 1];
				j--;
			}
			td[j] = dq;
			top[j] = q;
		}
	}
	/* both ends of every link, then each row sorted and its repeats dropped */
	for (r = 0; r < m; r++)
	{
		for (j = 0; j < k; j++)
			if (nb[(size_t) r * k + j] >= 0)
			{
				tstart[r + 1]++;
				tstart[nb[(size_t) r * k + j] + 1]++;
			}
		if (dup && dup[r] != r)
		{
			tstart[r + 1]++;
			tstart[dup[r] + 1]++;
		}
	}
	for (r = 0; r < m; r++)
		tstart[r + 1] += tstart[r];
	memcpy(fill, tstart, sizeof(int) * (size_t) m);
	for (r = 0; r < m; r++)
	{
		for (j = 0; j < k; j++)
			if ((q = nb[(size_t) r * k + j]) >= 0)
			{
				tadj[fill[r]++] = q;
				tadj[fill[q]++] = r;
			}
		/* a duplicate row: linked to the first of its kind, its k nearest are other rows */
		if (dup && dup[r] != r)
		{
			tadj[fill[r]++] = dup[r];
			tadj[fill[dup[r]]++] = r;
		}
	}
	if (!graph_alloc(g, m, (size_t) tstart[m]))
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	for (r = 0; r < m; r++)
	{
		int			a = tstart[r],
					b = tstart[r + 1];

		if ((r & 255) == 0 && dac_interrupted())
		{
			st = DAC_ERR_INTERRUPTED;
			goto done;
		}
		qsort(tadj + a, (size_t) (b - a), sizeof(int), dac_cmp_int);
		g->start[r] = (int) e;
		for (j = a; j < b; j++)
			if (j == a || tadj[j] != tadj[j - 1])
			{
				g->adj[e] = tadj[j];
				g->w[e] = 1.0;
				e++;
			}
		g->deg[r] = (double) e - g->start[r];
		g->total += g->deg[r];
	}
	g->start[m] = (int) e;
done:
	if (st != DAC_OK)
		dac_graph_free(g);
	dac_free(nb);
	dac_free(td);
	dac_free(tstart);
	dac_free(fill);
	dac_free(tadj);
	return st;
}

/* scratch for one level of n nodes */
typedef struct
{
	double	   *tot;			/* [n] degree sum per community */
	double	   *wc;				/* [n] link weight from the node at hand */
	int		   *cnt;			/* [n] nodes per community */
	int		   *touched;		/* [n] */
	int		   *freeid;			/* [n] empty community ids */
	int		   *sub;			/* [n] refined sub-community */
	int		   *order;			/* [n] */
	int		   *map;			/* [n] */
} level_scratch;

/* the communities of a node's neighbours (in[] restricts them to one community; NULL: all), summed */
static int
gather(const dac_graph *g, int v, const int *comm, const int *in, level_scratch *s)
{
	int			e,
				t = 0;

	for (e = g->start[v]; e < g->start[v + 1]; e++)
	{
		int			u = g->adj[e],
					c;

		if (u == v || (in != NULL && in[u] != in[v]))
			continue;
		c = comm[u];
		if (s->wc[c] == 0)
			s->touched[t++] = c;
		s->wc[c] += g->w[e];
	}
	return t;
}

/* local moves until no node moves (or GRAPH_MAX_SWEEPS): comm [n] ids in 0 .. n−1 */
static dac_status
move_nodes(const dac_graph *g, double gamma, int *comm, level_scratch *s)
{
	int			n = g->n,
				nfree = 0,
				v,
				c,
				sweep;

	memset(s->tot, 0, sizeof(double) * (size_t) n);
	memset(s->cnt, 0, sizeof(int) * (size_t) n);
	memset(s->wc, 0, sizeof(double) * (size_t) n);
	for (v = 0; v < n; v++)
	{
		s->tot[comm[v]] += g->deg[v];
		s->cnt[comm[v]]++;
	}
	for (c = n - 1; c >= 0; c--)
		if (s->cnt[c] == 0)
			s->freeid[nfree++] = c;
	for (sweep = 0; sweep < GRAPH_MAX_SWEEPS; sweep++)
	{
		int			moved = 0;

		for (v = 0; v < n; v++)
		{
			int			c0 = comm[v],
						best = c0,
						t,
						i;
			double		dv = g->deg[v],
						bestgain;

			if ((v & 1023) == 0 && dac_interrupted())
				return DAC_ERR_INTERRUPTED;
			t = gather(g, v, comm, NULL, s);
			s->tot[c0] -= dv;
			s->cnt[c0]--;
			bestgain = s->wc[c0] - gamma * dv * s->tot[c0] / g->total;
			for (i = 0; i < t; i++)
			{
				double		gain;

				c = s->touched[i];
				gain = s->wc[c] - gamma * dv * s->tot[c] / g->total;
				if (gain > bestgain + GRAPH_EPS)
				{
					bestgain = gain;
					best = c;
				}
			}
			/* alone does better than every community: an empty one (gain 0) */
			if (bestgain < -GRAPH_EPS && s->cnt[c0] > 0 && nfree > 0)
				best = s->freeid[--nfree];
			s->tot[best] += dv;
			s->cnt[best]++;
			comm[v] = best;
			if (best != c0)
			{
				moved++;
				if (s->cnt[c0] == 0)
					s->freeid[nfree++] = c0;
			}
			for (i = 0; i < t; i++)
				s->wc[s->touched[i]] = 0;
		}
		if (moved == 0)
			break;
	}
	return DAC_OK;
}

/*
 * Refinement: every node starts alone; a node still alone joins the
 * sub-community of its own community with the largest positive gain.
 * s->sub [n] out, renumbered 0 .. (return) − 1 in order of first appearance.
 */
static int
refine(const dac_graph *g, double gamma, const int *comm, level_scratch *s)
{
	int			n = g->n,
				v,
				next = 0;

	for (v = 0; v < n; v++)
	{
		s->sub[v] = v;
		s->tot[v] = g->deg[v];
		s->cnt[v] = 1;
	}
	memset(s->wc, 0, sizeof(double) * (size_t) n);
	for (v = 0; v < n; v++)
	{
		int			t,
					i,
					best = -1;
		double		bestgain = GRAPH_EPS,
					dv = g->deg[v];

		if (s->cnt[s->sub[v]] != 1)
			continue;
		t = gather(g, v, s->sub, comm, s);
		for (i = 0; i < t; i++)
		{
			int			c = s->touched[i];
			double		gain = s->wc[c] - gamma * dv * s->tot[c] / g->total;

			if (c != s->sub[v] && gain > bestgain)
			{
				bestgain = gain;
				best = c;
			}
			s->wc[c] = 0;
		}
		if (best >= 0)
		{
			s->cnt[s->sub[v]] = 0;
			s->tot[s->sub[v]] = 0;
			s->sub[v] = best;
			s->cnt[best]++;
			s->tot[best] += dv;
		}
	}
	for (v = 0; v < n; v++)
		s->map[v] = -1;
	for (v = 0; v < n; v++)
	{
		if (s->map[s->sub[v]] < 0)
			s->map[s->sub[v]] = next++;
		s->sub[v] = s->map[s->sub[v]];
	}
	return next;
}

/* the graph of the ns sub-communities sub [g->n] (links inside one dropped) */
static dac_status
aggregate(const dac_graph *g, const int *sub, int ns, level_scratch *s, dac_graph *out)
{
	int			n = g->n,
				v,
				i,
				a;
	size_t		e = 0;
	int		   *first = s->cnt;		/* [ns + 1] members' start in order */

	if (!graph_alloc(out, ns, (size_t) g->start[n]))
		return DAC_ERR_NOMEM;
	memset(first, 0, sizeof(int) * ((size_t) ns + 1));
	for (v = 0; v < n; v++)
		first[sub[v] + 1]++;
	for (a = 0; a < ns; a++)
		first[a + 1] += first[a];
	memcpy(s->map, first, sizeof(int) * (size_t) ns);
	for (v = 0; v < n; v++)
		s->order[s->map[sub[v]]++] = v;
	memset(s->wc, 0, sizeof(double) * (size_t) n);
	for (a = 0; a < ns; a++)
	{
		int			t = 0;

		if ((a & 1023) == 0 && dac_interrupted())
		{
			dac_graph_free(out);
			return DAC_ERR_INTERRUPTED;
		}
		out->start[a] = (int) e;
		for (i = first[a]; i < first[a + 1]; i++)
		{
			int			x = s->order[i],
						f;

			out->deg[a] += g->deg[x];
			for (f = g->start[x]; f < g->start[x + 1]; f++)
			{
				int			b = sub[g->adj[f]];

				if (b == a)
					continue;
				if (s->wc[b] == 0)
					s->touched[t++] = b;
				s->wc[b] += g->w[f];
			}
		}
		qsort(s->touched, (size_t) t, sizeof(int), dac_cmp_int);
		for (i = 0; i < t; i++)
		{
			out->adj[e] = s->touched[i];
			out->w[e] = s->wc[s->touched[i]];
			s->wc[s->touched[i]] = 0;
			e++;
		}
	}
	out->start[ns] = (int) e;
	out->total = g->total;
	return DAC_OK;
}

/* One run of Leiden's levels from the start (as dac_graph_partition, one run) */
static dac_status
leiden_run(const dac_graph *g, double gamma, int start, int *lab, int *K)
{
	int			n = g->n,
				i,
				level,
				next;
	int		   *comm = NULL,
			   *node = NULL,
			   *ncomm = NULL;
	level_scratch s;
	dac_graph	cur,
				agg;
	int			own = 0;		/* cur is ours to free */
	dac_status	st = DAC_OK;

	memset(&s, 0, sizeof(s));
	memset(&cur, 0, sizeof(cur));
	*K = 0;
	if (n == 0)
		return DAC_OK;
	comm = dac_alloc(sizeof(int) * (size_t) n);
	ncomm = dac_alloc(sizeof(int) * (size_t) n);
	node = dac_alloc(sizeof(int) * (size_t) n);
	s.tot = dac_alloc(sizeof(double) * (size_t) n);
	s.wc = dac_alloc(sizeof(double) * (size_t) n);
	s.cnt = dac_alloc(sizeof(int) * ((size_t) n + 1));
	s.touched = dac_alloc(sizeof(int) * (size_t) n);
	s.freeid = dac_alloc(sizeof(int) * (size_t) n);
	s.sub = dac_alloc(sizeof(int) * (size_t) n);
	s.order = dac_alloc(sizeof(int) * (size_t) n);
	s.map = dac_alloc(sizeof(int) * ((size_t) n + 1));
	if (!comm || !ncomm || !node || !s.tot || !s.wc || !s.cnt || !s.touched || !s.freeid || !s.sub ||
		!s.order || !s.map)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	/* the start, as ids 0 .. n − 1 in order of first appearance */
	for (i = 0; i < n; i++)
		s.map[i] = -1;
	next = 0;
	for (i = 0; i < n; i++)
	{
		int			l = start && lab[i] >= 1 && lab[i] <= n ? lab[i] - 1 : i;

		if (s.map[l] < 0)
			s.map[l] = next++;
		comm[i] = s.map[l];
		node[i] = i;
	}
	cur = *g;
	for (level = 0; level < GRAPH_MAX_LEVELS; level++)
	{
		int			ns,
					v;

		if ((st = move_nodes(&cur, gamma, comm, &s)) != DAC_OK)
			goto done;
		ns = refine(&cur, gamma, comm, &s);
		if (ns == cur.n)
			break;				/* nothing merged: a coarser level would be this one */
		/* the next level's nodes start in the community they came from */
		for (v = 0; v < cur.n; v++)
			ncomm[s.sub[v]] = comm[v];
		for (i = 0; i < n; i++)
			node[i] = s.sub[node[i]];
		if ((st = aggregate(&cur, s.sub, ns, &s, &agg)) != DAC_OK)
			goto done;
		if (own)
			dac_graph_free(&cur);
		cur = agg;
		own = 1;
		/* community ids 0 .. ns − 1 again */
		for (v = 0; v < ns; v++)
			s.map[v] = -1;
		next = 0;
		for (v = 0; v < ns; v++)
		{
			if (s.map[ncomm[v]] < 0)
				s.map[ncomm[v]] = next++;
			comm[v] = s.map[ncomm[v]];
		}
	}
	/* labels 1 .. K in order of first appearance */
	for (i = 0; i < n; i++)
		s.map[i] = 0;
	next = 0;
	for (i = 0; i < n; i++)
	{
		int			c = comm[node[i]];

		if (s.map[c] == 0)
			s.map[c] = ++next;
		lab[i] = s.map[c];
	}
	*K = next;
done:
	if (own)
		dac_graph_free(&cur);
	dac_free(comm);
	dac_free(ncomm);
	dac_free(node);
	dac_free(s.tot);
	dac_free(s.wc);
	dac_free(s.cnt);
	dac_free(s.touched);
	dac_free(s.freeid);
	dac_free(s.sub);
	dac_free(s.order);
	dac_free(s.map);
	return st;
}

/*
 * Leiden's runs until Q stops rising.  One run can stop short: at a low γ it
 * can end with every node in one community, where a second run (from the
 * first's communities, as leidenalg iterates) separates a small one.
 */
dac_status
dac_graph_partition(const dac_graph *g, double gamma, int start, int *lab, int *K)
{
	int			n = g->n,
				Kc = 0,
				Kn = 0,
				run;
	int		   *cur,
			   *nxt;
	double		q;
	dac_status	st;

	*K = 0;
	if (n == 0)
		return DAC_OK;
	cur = dac_alloc(sizeof(int) * (size_t) n);
	nxt = dac_alloc(sizeof(int) * (size_t) n);
	if (cur == NULL || nxt == NULL)
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	if (start)
		memcpy(cur, lab, sizeof(int) * (size_t) n);
	if ((st = leiden_run(g, gamma, start, cur, &Kc)) != DAC_OK)
		goto done;
	/* Q is NaN only when its sums could not be allocated */
	if (isnan(q = dac_graph_quality(g, cur, gamma)))
	{
		st = DAC_ERR_NOMEM;
		goto done;
	}
	for (run = 1; run < GRAPH_MAX_RUNS; run++)
	{
		double		qn;
		int		   *t;

		memcpy(nxt, cur, sizeof(int) * (size_t) n);
		if ((st = leiden_run(g, gamma, 1, nxt, &Kn)) != DAC_OK)
			goto done;
		if (isnan(qn = dac_graph_quality(g, nxt, gamma)))
		{
			st = DAC_ERR_NOMEM;
			goto done;
		}
		if (!(qn > q + GRAPH_EPS))
			break;
		t = cur;
		cur = nxt;
		nxt = t;
		Kc = Kn;
		q = qn;
	}
	memcpy(lab, cur, sizeof(int) * (size_t) n);
	*K = Kc;
done:
	dac_free(cur);
	dac_free(nxt);
	return st;
}

double
dac_graph_quality(const dac_graph *g, const int *lab, double gamma)
{
	int			n = g->n,
				i,
				e;
	double	   *in = dac_alloc_zero(sizeof(double) * ((size_t) n + 1)),
			   *tot = dac_alloc_zero(sizeof(double) * ((size_t) n + 1)),
				q = 0;

	if (in == NULL || tot == NULL)
	{
		dac_free(in);
		dac_free(tot);
		return NAN;
	}
	for (i = 0; i < n; i++)
	{
		int			c = lab[i] >= 1 && lab[i] <= n ? lab[i] : 0;

		tot[c] += g->deg[i];
		for (e = g->start[i]; e < g->start[i + 1]; e++)
			if (lab[g->adj[e]] == lab[i])
				in[c] += g->w[e];
	}
	for (i = 0; i <= n; i++)
		q += in[i] - gamma * tot[i] * tot[i] / g->total;
	dac_free(in);
	dac_free(tot);
	return g->total > 0 ? q / g->total : 0;
}

/*
 * The merges of dac_graph_merge (share = 0: to target by the change in Q
 * at gamma) and dac_graph_merge_share (share > 0: while a pair's share
 * exceeds it).
 */
static dac_status
merge_pairs(const dac_graph *g, double gamma, double share, int *lab, int *K, int target)
{
	int			k = *K,
				n = g->n,
				i,
				e,
				a,
				b;
	double	   *W,
			   *deg;
	int		   *alive,
			   *into;

	if (target < 1)
		target = 1;
	if (k <= target)
		return DAC_OK;
	W = dac_alloc_zero(sizeof(double) * (size_t) k * k);
	deg = dac_alloc_zero(sizeof(double) * (size_t) k);
	alive = dac_alloc(sizeof(int) * (size_t) k * 2);
	if (W == NULL || deg == NULL || alive == NULL)
	{
		dac_free(W);
		dac_free(deg);
		dac_free(alive);
		return DAC_ERR_NOMEM;
	}
	into = alive + k;
	for (i = 0; i < n; i++)
	{
		deg[lab[i] - 1] += g->deg[i];
		for (e = g->start[i]; e < g->start[i + 1]; e++)
			if (lab[g->adj[e]] != lab[i])
				W[(size_t) (lab[i] - 1) * k + lab[g->adj[e]] - 1] += g->w[e];
	}
	for (a = 0; a < k; a++)
	{
		alive[a] = 1;
		into[a] = a;
	}
	for (; *K > target; (*K)--)
	{
		int			ba = -1,
					bb = -1;
		double		best = -INFINITY;

		if (dac_interrupted())
		{
			dac_free(W);
			dac_free(deg);
			dac_free(alive);
			return DAC_ERR_INTERRUPTED;
		}
		for (a = 0; a < k; a++)
			for (b = a + 1; alive[a] && b < k; b++)
			{
				double		gain;

				if (!alive[b])
					continue;
				if (share > 0)
				{
					double		lo = deg[a] < deg[b] ? deg[a] : deg[b];

					/* links between, as a share of the smaller one's */
					gain = lo > 0 ? W[(size_t) a * k + b] / lo : 0;
				}
				else
					gain = 2 * W[(size_t) a * k + b] - 2 * gamma * deg[a] * deg[b] / g->total;
				if (gain > best)
				{
					best = gain;
					ba = a;
					bb = b;
				}
			}
		if (share > 0 && !(best > share))
			break;
		/* bb into ba */
		for (a = 0; a < k; a++)
		{
			W[(size_t) ba * k + a] += W[(size_t) bb * k + a];
			W[(size_t) a * k + ba] += W[(size_t) a * k + bb];
		}
		W[(size_t) ba * k + ba] = 0;
		deg[ba] += deg[bb];
		alive[bb] = 0;
		into[bb] = ba;
	}
	/* follow the merges, then labels in order of first appearance */
	for (a = 0; a < k; a++)
	{
		b = a;
		while (into[b] != b)
			b = into[b];
		into[a] = b;
		alive[a] = 0;
	}
	b = 0;
	for (i = 0; i < n; i++)
	{
		int			c = into[lab[i] - 1];

		if (alive[c] == 0)
			alive[c] = ++b;
		lab[i] = alive[c];
	}
	dac_free(W);
	dac_free(deg);
	dac_free(alive);
	return DAC_OK;
}

dac_status
dac_graph_merge(const dac_graph *g, double gamma, int *lab, int *K, int target)
{
	return merge_pairs(g, gamma, 0, lab, K, target);
}

dac_status
dac_graph_merge_share(const dac_graph *g, double share, int *lab, int *K)
{
	if (!(share > 0))
		return DAC_OK;
	return merge_pairs(g, 0, share, lab, K, 1);
}

