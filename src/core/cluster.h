/*
 * cluster.h
 *	  Clustering a set with a filtering network (one cluster per pass): the
 *	  pass loop (cluster.c), which calls the stages after the passes
 *	  (stages.h) in order.  Its public face (dac_cluster_opts,
 *	  dac_cluster_set, dac_filter_pass) is in dac.h; the canonical order of
 *	  a scaled model's set is dac_frame_order's, which depends on no units.
 */
#ifndef DAC_CLUSTER_H
#define DAC_CLUSTER_H

#include "core.h"
#include "labels.h"
#include "stages.h"
#include "model.h"

#endif							/* DAC_CLUSTER_H */
