/*
 * rng.c
 *	  xoshiro256** (Blackman & Vigna), Box-Muller normals and
 *	  Marsaglia-Tsang gamma variates.
 */
#include "rng.h"

#include <math.h>

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t	z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

void
dac_rng_seed(dac_rng *r, uint64_t seed)
{
	uint64_t	x = seed;
	int			i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
dac_rng_next(dac_rng *r)
{
	uint64_t   *s = r->s;
	uint64_t	result = rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double
dac_rng_uniform(dac_rng *r)
{
	return (double) (dac_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

int
dac_rng_int(dac_rng *r, int n)
{
	uint64_t	limit,
				x;

	if (n <= 1)
		return 0;
	/* reject the top partial range so every value is equally likely */
	limit = UINT64_MAX - (UINT64_MAX % (uint64_t) n);
	do
		x = dac_rng_next(r);
	while (x >= limit);
	return (int) (x % (uint64_t) n);
}

double
dac_rng_normal(dac_rng *r)
{
	double		u1,
				u2;

	do
		u1 = dac_rng_uniform(r);
	while (u1 <= 0.0);
	u2 = dac_rng_uniform(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/*
 * the kept streams: their seeds, normals and states after them (static:
 * pages the process touches only once it keeps a stream)
 */
static double kept_normals[DAC_KEPT_STREAMS][DAC_KEPT_NORMALS];
static struct
{
	uint64_t	seed;
	dac_rng		after;
}			kept_streams[DAC_KEPT_STREAMS];
static int	n_kept_streams;

void
dac_normals_open(dac_normals *s, uint64_t seed)
{
	int			i;

	s->kept = NULL;
	s->nkept = 0;
	s->at = 0;
	for (i = 0; i < n_kept_streams; i++)
		if (kept_streams[i].seed == seed)
			break;
	if (i == n_kept_streams && n_kept_streams < DAC_KEPT_STREAMS)
	{
		/* a new seed while there is room: its first normals made once */
		dac_rng		r;
		size_t		j;

		dac_rng_seed(&r, seed);
		for (j = 0; j < DAC_KEPT_NORMALS; j++)
			kept_normals[i][j] = dac_rng_normal(&r);
		kept_streams[i].seed = seed;
		kept_streams[i].after = r;
		n_kept_streams++;
	}
	if (i < n_kept_streams)
	{
		s->kept = kept_normals[i];
		s->nkept = DAC_KEPT_NORMALS;
		s->r = kept_streams[i].after;
	}
	else
		dac_rng_seed(&s->r, seed);
}

double
dac_rng_gamma(dac_rng *r, double alpha)
{
	double		d,
				c;

	if (alpha < 1.0)
	{
		/* Gamma(a) = Gamma(a+1) * U^(1/a) */
		double		u;

		do
			u = dac_rng_uniform(r);
		while (u <= 0.0);
		return dac_rng_gamma(r, alpha + 1.0) * pow(u, 1.0 / alpha);
	}
	d = alpha - 1.0 / 3.0;
	c = 1.0 / sqrt(9.0 * d);
	for (;;)
	{
		double		x,
					v,
					u;

		do
		{
			x = dac_rng_normal(r);
			v = 1.0 + c * x;
		} while (v <= 0.0);
		v = v * v * v;
		u = dac_rng_uniform(r);
		if (u < 1.0 - 0.0331 * x * x * x * x)
			return d * v;
		if (u > 0.0 && log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
			return d * v;
	}
}
