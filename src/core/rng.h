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

#endif							/* DAC_RNG_H */
