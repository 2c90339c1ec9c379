/*
 * calibrate.h
 *	  A kept clustering's stability: cluster four rows in five again, assign
 *	  the fifth to that clustering, and measure per cluster how often a row
 *	  given it lands where clustering the whole set put it.
 */
#ifndef DAC_CALIBRATE_H
#define DAC_CALIBRATE_H

#include "cluster.h"
#include "mixture.h"

/* Rows held out: every HOLD-th (i % DAC_CALIBRATE_HOLD == DAC_CALIBRATE_HOLD − 1). */
#define DAC_CALIBRATE_HOLD 5

/*
 * dac_calibrate_split (dac.h) in full.
 *
 * The stability of each cluster of mix (the mixture of the clustering full
 * of X [n, d], X64 the same rows in double precision or NULL, as the caller
 * clustered them with m and opts).  The rows other than the held-out ones
 * are clustered again (same model and options) and summarised; each
 * held-out row (at most DAC_CALIBRATION_POINTS of them, at an even stride;
 * rows full calls noise left out) is given the likeliest cluster of that
 * mixture, which stands for the cluster of full most of its rows are in.
 * A cluster c of full given to a held-out rows, r of them rightly (full put
 * them in c), gets stability (r + 1) / (a + 1): 1 for a cluster no held-out
 * row was given, at most 1.  dac_mixture_assign multiplies the posterior
 * by it, so that a row's probability is the chance that clustering it with
 * the set would have put it in that cluster: the leave-one-out temperature
 * accounts for overlapping Gaussians, the stability for a cluster that
 * clustering splits or merges when the rows change.  Fewer than
 * DAC_CALIBRATE_HOLD · 4 rows or one cluster: every stability stays 1.
 * gaussian as for dac_mixture_from_clustering.
 */


#endif
