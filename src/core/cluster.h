/*
 * cluster.h
 *	  Clustering a set with a filtering network (one cluster per pass), and
 *	  the clustering metrics.
 */
#ifndef DAC_CLUSTER_H
#define DAC_CLUSTER_H

#include "core.h"
#include "clustering.h"
#include "labels.h"
#include "stages.h"
#include "model.h"

typedef enum
{
	DAC_LEFTOVER_BEST = 0,		/* each to the found cluster that fits it best */
	DAC_LEFTOVER_FIRST = 1,		/* the authors' rule: merge into the first cluster */
	DAC_LEFTOVER_OWN = 2		/* together, one more cluster of their own (default) */
} dac_leftover_policy;

/* "best", "first", "own"; and back (0 for an unknown name). */
extern const char *dac_leftover_name(dac_leftover_policy p);
extern int	dac_leftover_parse(const char *name, dac_leftover_policy *p);

typedef struct dac_cluster_opts
{
	int			max_passes;		/* 50 */
	dac_leftover_policy leftover;
	int			random_anchors; /* AF: 0 = first unassigned row (deterministic) */
	uint64_t	seed;			/* AF with random_anchors */
	size_t		mem_limit;		/* bytes; 0 = none.  Checked before allocating */
	int			min_size;		/* clusters of fewer points are dissolved into
								 * the others (1 = none, the authors' loop) */
	int			reassign;		/* Gaussian head: after the passes, each point to
								 * the found component likeliest to have drawn it
								 * (0 = none, the authors' loop) */
	int			em_steps;		/* Gaussian head: most EM steps that refit the
								 * found mixture before that reassignment
								 * (implies reassign; 0 = none) */
	double		noise;			/* > 0: points no pass selected, members of
								 * clusters under max(2, min_size) points, and
								 * points in their cluster's tail beyond this
								 * level are noise (label 0): see
								 * dac_clustering_noise; 0 = none */
	int			kmeans_steps;	/* no density head: most k-means (Lloyd) steps
								 * from the clusters the passes found, in the
								 * coordinates the network saw (0 = none) */
	int			k_search;		/* > 0, no density head: after the
								 * k-means steps, k-means at every count from
								 * max(2, K − k_search) to K + k_search around
								 * the K clusters found (merging the closest or
								 * splitting the widest to start), the count of
								 * the best mean silhouette kept (on up to
								 * DAC_KSEARCH_SAMPLE rows); a set where one
								 * cluster was found keeps it.  0 = none */
	int			graph_neighbors;	/* > 0, no density head: after the
									 * k search, the clusters become the
									 * communities of the graph linking each of
									 * up to DAC_KSEARCH_SAMPLE rows to this many
									 * nearest (graph.h), at graph_resolution;
									 * rows outside that sample go to the
									 * nearest community's mean.  0 = none */
	double		graph_resolution;	/* γ of the graph's modularity (> 0) */
	int			graph_start;	/* 1: the communities start from the clusters
								 * found; 0: every row alone */
	int			k_exact;		/* > 0: this many clusters (fewer only when
								 * the points cannot be split further); no
								 * count search.  Models without a density
								 * head: through the graph stage when it runs;
								 * otherwise, and for density heads, the count
								 * moved as the count search moves it (θ of a
								 * Gaussian refit, else the larger part's),
								 * after min_size and before noise (which may
								 * lower it).  0: as found */
	int			k_max;			/* > 0: at most this many clusters, the same
								 * way; 0: any */
	int			sample_size;	/* > 0, no density head, no noise: a set of more
								 * points is clustered through a sample of this
								 * many of its rows (every (n/sample)-th in the
								 * canonical order), the rest assigned to the
								 * nearest found cluster in the coordinates
								 * the network saw, then k-means steps over all
								 * (kmeans_steps); 0 = every row through the
								 * network (the authors') */
	int			canonical;		/* 1 (default): cluster the rows in an order
								 * that depends only on the set of rows, so that
								 * any order of the same rows gives the same
								 * clusters and ids; 0: as given (the authors') */
	int			want_ll;		/* 1 (default): the clustering's LL under a
								 * density head; 0: left NaN (a caller that shows
								 * no LL skips its cost, most of an image
								 * model's clustering) */
} dac_cluster_opts;

extern dac_cluster_opts dac_cluster_opts_default(void);


/* Bytes dac_cluster_set needs for n points of width d, at most. */
extern double dac_cluster_bytes(const dac_model *m, int n, int d, const dac_cluster_opts *opts);

/*
 * Cluster n points X [n, d]: d is the model's dim_input, or any width for a
 * model whose input is normalised per set (then θ and ll are in the
 * normalised coordinates).  DAC_ERR_INVALID for a width the model does not
 * take; DAC_ERR_TOO_LARGE when over opts->mem_limit.
 */
extern dac_status dac_cluster_set(const dac_model *m, const dac_real *X, int n, int d,
								  const dac_cluster_opts *opts, dac_clustering *out,
								  dac_error *err);
extern void dac_clustering_free(dac_clustering *c);

/*
 * The same from points in double precision: a model whose input is
 * "scaled" measures its frame (frame.h) on them before they are narrowed to
 * the network's precision, so that points far from the origin keep their
 * detail; for other models they are narrowed first.  The canonical order of
 * a scaled model's set is dac_frame_order's, which depends on no units.
 */
extern dac_status dac_cluster_set_f64(const dac_model *m, const double *X, int n, int d,
									  const dac_cluster_opts *opts, dac_clustering *out,
									  dac_error *err);

/*
 * One filtering pass, the primitive dac_cluster_set repeats: the
 * probability prob [n] that each of the n points X [n, dx] belongs to the
 * cluster the pass finds (selected when above 1/2).  dx is checked against
 * the model as dac_cluster_set checks it, and a normalising model
 * normalises the set first.  anchor: the anchor row (AF models; ignored
 * otherwise).  DAC_ERR_INVALID for a width the model does not take or an
 * anchor out of range; DAC_ERR_TOO_LARGE when dac_filter_bytes passes
 * mem_limit (0: none); DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_filter_pass(const dac_model *m, const dac_real *X, int n, int dx, int anchor,
								  size_t mem_limit, double *prob, dac_error *err);
/* Bytes dac_filter_pass needs for n points of width dx, at most. */
extern double dac_filter_bytes(const dac_model *m, int n, int dx);


#endif							/* DAC_CLUSTER_H */
