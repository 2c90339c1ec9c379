/*
 * graph.h
 *	  The nearest-neighbour graph of a set and its communities: what the
 *	  clustering's graph stage (opts.graph_neighbors) works with.
 *
 *	  The graph: each of m points linked to its k nearest others (ties to
 *	  the lower index), the links made mutual, every link of weight 1.
 *
 *	  The communities maximise the modularity of the configuration model at
 *	  resolution γ (leidenalg's RBConfigurationVertexPartition),
 *
 *	    Q = (1 / 2w) Σ_c [ e_c − γ K_c² / 2w ],
 *
 *	  2w the sum of all degrees, e_c the weight of the links inside c (each
 *	  counted from both ends), K_c the sum of the degrees in c.  The search
 *	  is Leiden's (Traag, Waltman & van Eck 2019) made deterministic: nodes
 *	  in index order move to the neighbouring community of the largest gain
 *	  (or to an empty one when every gain is negative) until no node moves;
 *	  each community is then refined (its nodes start alone and join, in
 *	  order, the sub-community within it of the largest positive gain); the
 *	  refined sub-communities become the nodes of the next level, starting
 *	  in the community they were refined from; and so on until a refinement
 *	  merges nothing.  The refinement is what lets a community found early
 *	  split later, so a partition given as the start is a start, not a bound.
 *	  Such runs repeat, each from the last one's communities, while Q rises
 *	  (leidenalg's iterations until nothing changes; 32 runs at most): at a
 *	  low γ one run can leave a small community inside a large one where a
 *	  second separates it.
 *	  Low γ (≪ 1) favours few communities: at γ → 0 they are the graph's
 *	  connected components.
 */
#ifndef DAC_GRAPH_H
#define DAC_GRAPH_H

#include "core.h"

/* A graph in compressed rows: node i's links are adj[start[i] .. start[i+1]) */
typedef struct dac_graph
{
	int			n;
	int		   *start;			/* [n + 1] */
	int		   *adj;			/* [start[n]] neighbours, ascending per row */
	double	   *w;				/* [start[n]] link weights */
	double	   *deg;			/* [n] node weights: the sum of its links (and
								 * of the links inside it, at a coarser level) */
	double		total;			/* Σ deg */
} dac_graph;

/*
 * The k-nearest-neighbour graph (mutual links, weight 1) of m points whose
 * distances are D [m, m] (row-major; the diagonal is not read).  k is
 * capped at m − 1.  dup [m] (or NULL): each row's first identical row (its
 * own index if none before it); a repeated row is linked to that first
 * one only, and is no row's neighbour otherwise, so that a group of
 * repeated rows is one point of the graph (with leaves), not a clique that
 * the search cuts off as a cluster of its own.  DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_knn_graph(const float *D, int m, int k, const int *dup, dac_graph *g);
/*
 * The graph with its nodes renamed: out's node i is g's node order[i] (a
 * permutation of 0 .. n − 1), the same links and weights, each row's
 * neighbours ascending.  Leiden visits nodes in their order, so the order
 * chosen decides its ties.  DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_graph_permute(const dac_graph *g, const int *order, dac_graph *out);
/* Bytes dac_graph_permute needs for a k-nearest-neighbour graph of m nodes, at most. */
extern double dac_graph_permute_bytes(int m, int k);
/* Bytes dac_knn_graph and dac_graph_partition need together for m points and k, at most. */
extern double dac_graph_bytes(int m, int k);
extern void dac_graph_free(dac_graph *g);

/*
 * Communities of g at resolution gamma > 0.  lab [g->n]: in, the start
 * (labels 1 .. any; NULL start: every node alone — pass start = 0); out,
 * labels 1 .. *K in order of first appearance.  DAC_ERR_NOMEM,
 * DAC_ERR_INTERRUPTED (lab then unchanged).
 */
extern dac_status dac_graph_partition(const dac_graph *g, double gamma, int start, int *lab, int *K);

/*
 * Merges communities of lab [g->n] (labels 1 .. *K) until there are target
 * (≥ 1) of them, each time the pair whose merging changes Q at gamma the
 * most (2·W_ab − 2γ·K_a·K_b / 2w, W_ab the weight of the links between
 * them; the first pair in order on a tie); labels renumbered 1 .. *K in
 * order of first appearance.  Needs K² doubles.  DAC_ERR_NOMEM,
 * DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_graph_merge(const dac_graph *g, double gamma, int *lab, int *K, int target);

/*
 * Merges communities of lab [g->n] (labels 1 .. *K) while two of them are
 * joined by more than share (0 < share ≤ 1) of the smaller one's links
 * (W_ab / min(K_a, K_b), K the sum of its nodes' degrees), each time the
 * pair of the largest share (the first in order on a tie).  Unlike Q's
 * change, the share does not depend on the rest of the graph, so two
 * communities are merged or kept whatever else the set holds.  Labels
 * renumbered 1 .. *K in order of first appearance; share ≤ 0: nothing
 * done.  Needs K² doubles.  DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_graph_merge_share(const dac_graph *g, double share, int *lab, int *K);

/* Q above for the labels lab [g->n] (any positive labels); NaN when out of memory. */
extern double dac_graph_quality(const dac_graph *g, const int *lab, double gamma);

#endif							/* DAC_GRAPH_H */
