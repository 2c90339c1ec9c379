/*
 * rng.h
 *	  Explicit, seeded random numbers: xoshiro256** seeded through splitmix64.
 *	  The whole state is a plain struct, so it can be checkpointed.
 */
#ifndef DAC_RNG_H
#define DAC_RNG_H

#include "core.h"

/* dac_rng and dac_rng_seed are dac.h's. */

extern uint64_t dac_rng_next(dac_rng *r);
extern double dac_rng_uniform(dac_rng *r);	/* [0, 1) with 53 random bits */
extern int	dac_rng_int(dac_rng *r, int n); /* uniform on {0 .. n-1}, unbiased */
extern double dac_rng_normal(dac_rng *r);	/* N(0, 1), Box-Muller */
extern double dac_rng_gamma(dac_rng *r, double alpha);	/* Gamma(alpha, 1) */

/*
 * A reader of the normals dac_rng_normal draws, in order, from a fresh
 * stream seeded `seed`: the same numbers to the bit.  For draws every call
 * makes again from fixed seeds (the one-cluster test's Gaussians): the
 * first DAC_KEPT_NORMALS of the first DAC_KEPT_STREAMS seeds a process
 * opens are made once and kept (static memory, outside dac_alloc: 512 kB),
 * with the stream's state after them; the rest are drawn as they are read.
 * Not for threads.
 */
#define DAC_KEPT_STREAMS 8
#define DAC_KEPT_NORMALS 8192

typedef struct dac_normals
{
	const double *kept;			/* the stream's first nkept normals (NULL: none kept) */
	size_t		nkept,
				at;				/* normals read so far */
	dac_rng		r;				/* the stream after max(at, nkept) normals */
} dac_normals;

extern void dac_normals_open(dac_normals *s, uint64_t seed);

static inline double
dac_normals_next(dac_normals *s)
{
	return s->at < s->nkept ? s->kept[s->at++] : (s->at++, dac_rng_normal(&s->r));
}

#endif							/* DAC_RNG_H */
