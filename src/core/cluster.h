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

/*
 * A set-normalised model's input: X [n, dx] through the model's input map
 * when it has one (net.h's map_dim), then normalised (setnorm.h) into Z
 * [n, dim_input]; the bytes it allocates, at most; the map's FLOPs.
 */
extern dac_status dac_model_normalise(const dac_model *m, const dac_real *X, int n, int dx, dac_real *Z,
									  dac_error *err);
extern double dac_model_normalise_bytes(const dac_model *m, int n, int dx);
extern double dac_model_map_flops(const dac_model *m, int n);


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
