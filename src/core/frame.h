/*
 * frame.h
 *	  The units frame: the input transform of models that take points in any
 *	  units ("input": "scaled").  A set of n points of dimension d, read in
 *	  double precision, becomes
 *
 *	    Z = (X − c) · s,		c = the set's mean,  s = width / σ̂
 *
 *	  where σ̂ is the set's cluster width: the standard deviation per axis of
 *	  an isotropic Gaussian whose pair distances grow as the set's shortest
 *	  ones do.  Within a Gaussian cluster of width σ (d = 2) the pair
 *	  distances are Rayleigh with scale σ√2, so the count of pairs closer
 *	  than r, C(r) ∝ 1 − exp(−r²/4σ²), grows as r² while r ≪ σ and levels
 *	  off near σ, whatever the cluster's size; pairs from different clusters
 *	  come in at larger distances.  σ̂ is read off where that count stops
 *	  growing as fast: the smallest count j (at least DAC_FRAME_MIN_PAIRS
 *	  and DAC_FRAME_PAIRS_PER_ROW pairs a row counted) whose distance is
 *	  DAC_FRAME_RATIO times shorter than the distance at count
 *	  DAC_FRAME_MULT·j.  For the Rayleigh law that happens at r = 2σ√u*
 *	  (dac_frame_rayleigh_u).  Below a few pairs a row the count is of the
 *	  closest pairs alone, which the rounding of the coordinates and any
 *	  small noise decide: cities given to 0.01° read 2.8 km there, and 8 km
 *	  once moved by 100 m.
 *
 *	  Z depends only on the set of points up to a positive scaling and a
 *	  translation of the space (and rounding), so the network sees the same
 *	  input whether the points are in metres, kilometres or degrees.  width
 *	  is the cluster width the network was trained at (config "unit_width").
 *	  Sets of more than DAC_FRAME_SAMPLE points measure σ̂ on every
 *	  (n/DAC_FRAME_SAMPLE)-th row of the order the caller gives (the
 *	  clustering passes its canonical order, which does not depend on units).
 */
#ifndef DAC_FRAME_H
#define DAC_FRAME_H

#include "core.h"

#define DAC_FRAME_SAMPLE	1000	/* rows whose pair distances are counted */
#define DAC_FRAME_MIN_PAIRS 50		/* the smallest count read ... */
#define DAC_FRAME_PAIRS_PER_ROW 2	/* ... and at least this many a row */
#define DAC_FRAME_RATIO		2.5		/* distance ratio ... */
#define DAC_FRAME_MULT		4		/* ... between counts j and MULT·j */
#define DAC_FRAME_BIN_BITS	5
#define DAC_FRAME_BINS		(1 << DAC_FRAME_BIN_BITS)	/* histogram bins per octave of r² */
#define DAC_FRAME_OCTAVES	96		/* octaves of r² below the largest kept */

typedef struct dac_frame
{
	int			d;
	double	   *center;			/* [d]; NULL when the frame is the identity */
	double		scale;			/* Z = (X − center) · scale */
	double		width;			/* σ̂ measured (0 when the set has no spread) */
} dac_frame;

/*
 * Measure the frame of X [n, d] (double, row-major; rows taken through
 * perm [n] when not NULL) for a network trained at cluster width `width`.
 * given > 0: the set's cluster width in its own units, taken in place of
 * the one its rows would give (a user's scale); 0: measured.
 * A set with no two distinct points gets scale 1 (then only centred).
 * DAC_ERR_NOMEM, or DAC_ERR_INTERRUPTED from the host's interrupt check
 * (per coordinate of the mean, every 64 rows of pairs).  f->center is allocated: dac_frame_free.
 */
extern dac_status dac_frame_fit(const double *X, const int *perm, int n, int d, double width,
								double given, dac_frame *f, dac_error *err);
extern void dac_frame_free(dac_frame *f);

/* Z [n, d] = (X[perm[i]] − c) · s in the network's precision (perm may be NULL). */
extern void dac_frame_apply(const dac_frame *f, const double *X, const int *perm, int n,
							dac_real *Z);

/* σ̂ alone: the cluster width of X [n, d] (all rows counted), 0 if no spread. */
extern dac_status dac_frame_width(const double *X, int n, int d, double *width,
								  dac_error *err);

/* u* of the Rayleigh law: 1 − exp(−RATIO² u) = MULT (1 − exp(−u)). */
extern double dac_frame_rayleigh_u(void);

/*
 * A canonical order of the rows of X [n, d] into perm [n] that depends only
 * on the set of rows up to any increasing map of each axis (a positive
 * scaling and a translation included): rows are ordered by a hash of their
 * ranks on each axis (equal values, equal ranks), then by those ranks.
 * DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_frame_order(const double *X, int n, int d, int *perm, dac_error *err);

/* A value of one column and its row (dac_rank_column). */
typedef struct dac_axis_key
{
	double		v;
	int			idx;
} dac_axis_key;

/*
 * Sorts the n keys of one column and writes each row's rank to
 * rank[idx * stride]: dense ranks (0, 1, ... over the distinct values), or
 * with mid, twice the mean of the 1-based positions the row's value holds
 * (ties share it; twice, so that it stays an integer).
 */
extern void dac_rank_column(dac_axis_key *ak, int n, int mid, int *rank, int stride);
extern double dac_frame_order_bytes(int n, int d);

/* Bytes of scratch dac_frame_fit allocates for n points of dimension d, at most. */
extern double dac_frame_bytes(int n, int d);

#endif							/* DAC_FRAME_H */
