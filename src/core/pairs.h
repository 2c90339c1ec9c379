/*
 * pairs.h
 *	  The pair_merge stage: pieces of one cluster that the passes cut apart,
 *	  joined by a pass over their rows alone (models with a flow head).
 */
#ifndef DAC_PAIRS_H
#define DAC_PAIRS_H

#include "core.h"
#include "model.h"
#include "stages.h"

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
extern dac_status dac_pair_merge(const dac_model *m, const dac_real *X, int n, int d, dac_clustering *c,
								 double share, int split, dac_error *err);

#endif
