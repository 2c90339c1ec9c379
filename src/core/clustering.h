/*
 * clustering.h
 *	  What a clustering of a set is (labels, θ, what each stage did): the
 *	  type that the clustering loop (cluster.h) makes and kept clusterings
 *	  (mixture.h) read, below both.
 */
#ifndef DAC_CLUSTERING_H
#define DAC_CLUSTERING_H

#include "core.h"

typedef struct dac_clustering
{
	int			n;
	int		   *labels;			/* [n], 1 .. num_clusters in order of discovery;
								 * 0 = noise (opts.noise) */
	float	   *prob;			/* [n] membership probability in the pass that
								 * selected the point; for a point no pass
								 * selected, the highest any pass gave it */
	int			num_clusters;
	int			num_passes;		/* network passes run */
	int			leftover;		/* points no pass selected (then placed by policy) */
	int			dissolved;		/* points moved out of clusters under min_size */
	int			reassigned;		/* points opts.reassign moved to another cluster */
	int			em_steps;		/* EM steps run (they stop once the LL settles) */
	int			kmeans_steps;	/* k-means steps run (they stop when no point moves) */
	int			noise;			/* points labelled noise (opts.noise) */
	int			theta_dim;
	dac_real   *theta;			/* [num_clusters, theta_dim] */
	double		ll;				/* mean LL of the clustering's points (a density
								 * head; in the caller's units), else NaN */
	double		flops;			/* matrix FLOPs spent */
	double	   *frame_center;	/* [d], an input "scaled" model: θ is in the
								 * coordinates (x − frame_center) · frame_scale
								 * (frame.h); NULL: θ is in the caller's */
	double		frame_scale;
	int			k_searched;		/* opts.k_search ran */
	int			graphed;		/* opts.graph_neighbors ran */
} dac_clustering;

#endif
