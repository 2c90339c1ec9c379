/*
 * cluster.h
 *	  Clustering a set with a filtering network (one cluster per pass): the
 *	  pass loop (cluster.c), then the stages after the passes as the stages'
 *	  table (pipeline.h) says.  Its public face (dac_cluster_opts,
 *	  dac_cluster_set, dac_filter_pass) is in dac.h; the canonical order of
 *	  a scaled model's set is dac_frame_order's, which depends on no units.
 */
#ifndef DAC_CLUSTER_H
#define DAC_CLUSTER_H

#include "core.h"
#include "labels.h"
#include "stages.h"
#include "model.h"

/* pair_merge: the nearest clusters by mean a cluster's pairs are drawn from */
#define DAC_PAIR_NEAR	2
/* pair_merge: the partners a cluster was kept apart from, remembered */
#define DAC_PAIR_TRIED	8

/*
 * What opts.pair_merge does, on a clustering of X [n, d] (the rows the
 * network saw, labels 1 .. num_clusters) by a model with a flow head: the
 * nearest pair by mean whose clusters are each among the other's
 * DAC_PAIR_NEAR nearest, not yet tried as they are, gets one pass over its
 * rows alone (in their own units frame when the model's input is scaled);
 * when the pass selects at least share of each cluster's rows, they become
 * one cluster (the lower id, the rest renumbered in order) whose θ is that of
 * a pass over its rows in the set's frame.  With split, a pair kept apart
 * becomes the pass's selection (the first cluster's id) and the rest (the
 * second's), each θ that of a pass over its rows in the set's frame, when
 * that raises the mixture's LL over the set (its shares by the labels, as
 * dac_mixture_ll), and both are then tried afresh; at most as many splits as
 * there were clusters.  Repeats until no pair is left to try.  Adds to
 * c->num_passes, c->pair_merged and c->pair_split.  DAC_ERR_NOMEM,
 * DAC_ERR_INTERRUPTED (the host's interrupt check, before each pair) or the
 * pass's error, with c's clusters as merged so far.
 */
/*
 * A set-normalised model's input: X [n, dx] through the model's input map
 * when it has one (net.h's map_dim), then normalised (setnorm.h) into Z
 * [n, dim_input]; the bytes it allocates, at most; the map's FLOPs.
 */
extern dac_status dac_model_normalise(const dac_model *m, const dac_real *X, int n, int dx, dac_real *Z,
									  dac_error *err);
extern double dac_model_normalise_bytes(const dac_model *m, int n, int dx);
extern double dac_model_map_flops(const dac_model *m, int n);

extern dac_status dac_pair_merge(const dac_model *m, const dac_real *X, int n, int d, dac_clustering *c,
								 double share, int split, dac_error *err);

/*
 * The gate of a gated map (dac_model_with_gated_map): of the n rows X
 * [n, d], *beyond counts those whose squared distance from the nearest of
 * the L means, in G's coordinates (Y [n, d]: X Gᵀ; lower: G is zero above
 * its diagonal, a triangular product), exceeds threshold;
 * dist [n], unless NULL, gets each distance.  Without dist the rows are
 * read DAC_GATE_STEP at a time and no further once the gate cannot open
 * (*beyond then counts the rows read, enough to close it; Y holds only
 * theirs): a group far from the table's classes costs a block, not the
 * whole product.  dac_gate_opens: a group is
 * one of the table's classes when no more than DAC_GATE_SHARE of its rows,
 * plus two binomial standard errors, lie beyond: the threshold is the
 * DAC_GATE_QUANTILE of the distances of the table's held-out new rows.
 */
#define DAC_GATE_SHARE 0.05
#define DAC_GATE_QUANTILE 0.95
#define DAC_GATE_STEP 64
extern dac_status dac_gate_beyond(const dac_real *X, int n, int d, const dac_real *G, int lower,
								  const dac_real *means, int L, double threshold, dac_real *Y, int *beyond,
								  double *dist, dac_error *err);
extern int	dac_gate_opens(int n, int beyond);

#endif							/* DAC_CLUSTER_H */
