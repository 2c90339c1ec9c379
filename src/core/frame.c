/*
 * frame.c
 *	  The units frame (frame.h): a set's centre and cluster width, measured
 *	  in double precision, and an order of its rows that does not depend on
 *	  the units.
 */
#include "frame.h"
#include "labels.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NBINS (DAC_FRAME_OCTAVES * DAC_FRAME_BINS)

double
dac_frame_rayleigh_u(void)
{
	double		lo = 1e-9,
				hi = 50,
				r2 = DAC_FRAME_RATIO * DAC_FRAME_RATIO;
	int			it;

	/* f(u) = 1 − e^(−r² u) − MULT (1 − e^(−u)) is > 0 below the root, < 0 above */
	for (it = 0; it < 200; it++)
	{
		double		u = 0.5 * (lo + hi),
					f = -expm1(-r2 * u) + DAC_FRAME_MULT * expm1(-u);

		if (f > 0)
			lo = u;
		else
			hi = u;
	}
	return 0.5 * (lo + hi);
}

double
dac_frame_bytes(int n, int d)
{
	double		m = n < DAC_FRAME_SAMPLE ? n : DAC_FRAME_SAMPLE;

	return sizeof(double) * (2.0 * NBINS + (double) d + m * d) + 256;
}

/* r² at the lower edge (f = 0) .. upper edge (f = 1) of bin b, over B */
static double
bin_t(int b, double f)
{
	int			o = DAC_FRAME_OCTAVES - 1 - b / DAC_FRAME_BINS,
				sub = b % DAC_FRAME_BINS;

	return ldexp(1 + (sub + f) / DAC_FRAME_BINS, -o);
}

/* the distance at which the cumulative count reaches j (1 <= j <= cum[NBINS-1]) */
static double
quantile(const double *cum, double B, double j)
{
	int			lo = 0,
				hi = NBINS - 1;
	double		below,
				f;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (cum[mid] >= j)
			hi = mid;
		else
			lo = mid + 1;
	}
	below = lo > 0 ? cum[lo - 1] : 0;
	f = cum[lo] > below ? (j - below) / (cum[lo] - below) : 1;
	return sqrt(B * bin_t(lo, f));
}

/*
 * σ̂ of the m rows S [m, d]: 0 when no two differ.  The pair distances are
 * counted in a histogram of log r² (DAC_FRAME_BINS per octave), below the
 * square of the rows' bounding-box diagonal.
 */
static dac_status
width_of(const double *S, int m, int d, double *width, dac_error *err)
{
	double	   *hist,
			   *cum,
				invB,
				B = 0,
				P,
				jmin,
				j,
				u = dac_frame_rayleigh_u();
	int			i,
				k,
				l;

	*width = 0;
	if (m < 2)
		return DAC_OK;
	for (k = 0; k < d; k++)
	{
		double		lo = S[k],
					hi = S[k];

		for (i = 1; i < m; i++)
		{
			double		v = S[(size_t) i * d + k];

			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		B += (hi - lo) * (hi - lo);
	}
	if (!(B > 0) || !isfinite(B))
		return DAC_OK;
	invB = 1 / B;
	hist = dac_alloc(sizeof(double) * 2 * NBINS);
	if (hist == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory measuring the units of %d points", m);
	memset(hist, 0, sizeof(double) * 2 * NBINS);
	cum = hist + NBINS;
	for (i = 0; i < m; i++)
	{
		const double *a = S + (size_t) i * d;

		if ((i & 63) == 0 && dac_interrupted())
		{
			dac_free(hist);
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		}
		for (l = i + 1; l < m; l++)
		{
			const double *b = S + (size_t) l * d;
			double		q = 0;
			uint64_t	bits;
			int			o,
						sub;

			for (k = 0; k < d; k++)
				q += (a[k] - b[k]) * (a[k] - b[k]);
			if (q <= 0)
				continue;		/* equal points say nothing of the width */
			/* q/B = (1 + m) · 2^−o, read off the bits: o from the exponent, the bin from m's top bits */
			q *= invB;
			memcpy(&bits, &q, sizeof(bits));
			o = 1023 - (int) ((bits >> 52) & 0x7ff);
			if (o < 0)
				o = 0;			/* rounding past B: the top bin */
			if (o >= DAC_FRAME_OCTAVES)
			{
				hist[0] += 1;	/* far below the box (or subnormal): the lowest bin */
				continue;
			}
			sub = (int) ((bits >> (52 - DAC_FRAME_BIN_BITS)) & (DAC_FRAME_BINS - 1));
			hist[(DAC_FRAME_OCTAVES - 1 - o) * DAC_FRAME_BINS + sub] += 1;
		}
	}
	P = 0;
	for (k = 0; k < NBINS; k++)
	{
		P += hist[k];
		cum[k] = P;
	}
	if (P < 1)
	{
		dac_free(hist);
		return DAC_OK;
	}
	if (P < DAC_FRAME_MULT)
	{
		/* too few pairs to see the law: the largest distance */
		*width = quantile(cum, B, P) / (2 * sqrt(u));
		dac_free(hist);
		return DAC_OK;
	}
	jmin = fmax(DAC_FRAME_MIN_PAIRS, DAC_FRAME_PAIRS_PER_ROW * (double) m);
	if (jmin > P / (2.0 * DAC_FRAME_MULT))
		jmin = fmax(1, floor(P / (2.0 * DAC_FRAME_MULT)));
	for (j = jmin;; j = fmax(j + 1, floor(j * 1.02)))
	{
		if (j * DAC_FRAME_MULT >= P)
		{
			j = floor(P / DAC_FRAME_MULT);
			break;
		}
		if (quantile(cum, B, j * DAC_FRAME_MULT) >= DAC_FRAME_RATIO * quantile(cum, B, j))
			break;
	}
	*width = quantile(cum, B, j) / (2 * sqrt(u));
	dac_free(hist);
	return DAC_OK;
}

dac_status
dac_frame_width(const double *X, int n, int d, double *width, dac_error *err)
{
	return width_of(X, n, d, width, err);
}

dac_status
dac_frame_fit(const double *X, const int *perm, int n, int d, double width, double given,
			  dac_frame *f, dac_error *err)
{
	int			m = n < DAC_FRAME_SAMPLE ? n : DAC_FRAME_SAMPLE,
				i,
				k;
	double		stride = n > m ? (double) n / m : 1,
				span = 0;
	double	   *S;
	dac_status	st = DAC_OK;

	memset(f, 0, sizeof(*f));
	f->d = d;
	f->scale = 1;
	f->center = dac_alloc(sizeof(double) * (size_t) (d > 0 ? d : 1));
	S = dac_alloc(sizeof(double) * (size_t) (m > 0 ? m : 1) * (d > 0 ? d : 1));
	if (f->center == NULL || S == NULL)
	{
		dac_free(S);
		dac_frame_free(f);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory measuring the units of %d points", n);
	}
	for (k = 0; k < d; k++)
	{
		double		s = 0;

		if (dac_interrupted())
		{
			dac_free(S);
			dac_frame_free(f);
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		}
		for (i = 0; i < n; i++)
			s += X[(size_t) (perm ? perm[i] : i) * d + k];
		f->center[k] = n > 0 ? s / n : 0;
	}
	for (i = 0; i < m; i++)
	{
		int			r = (int) (i * stride);

		r = perm ? perm[r] : r;
		for (k = 0; k < d; k++)
		{
			S[(size_t) i * d + k] = X[(size_t) r * d + k] - f->center[k];
			span = fmax(span, fabs(S[(size_t) i * d + k]));
		}
	}
	if (given > 0)
		f->width = given;
	else
		st = width_of(S, m, d, &f->width, err);
	dac_free(S);
	if (st != DAC_OK)
	{
		dac_frame_free(f);
		return st;
	}
	if (f->width > 0 && width > 0)
	{
		f->scale = width / f->width;
		/* a set whose spread is all in a few far points: keep Z finite in float */
		if (span * f->scale > 1e30)
			f->scale = 1e30 / span;
	}
	return DAC_OK;
}

void
dac_frame_apply(const dac_frame *f, const double *X, const int *perm, int n, dac_real *Z)
{
	int			i,
				k,
				d = f->d;

	for (i = 0; i < n; i++)
	{
		const double *x = X + (size_t) (perm ? perm[i] : i) * d;

		for (k = 0; k < d; k++)
			Z[(size_t) i * d + k] = (dac_real) ((x[k] - (f->center ? f->center[k] : 0)) * f->scale);
	}
}

void
dac_frame_free(dac_frame *f)
{
	dac_free(f->center);
	f->center = NULL;
}

/* ---------------------------------------------------------------- order */

static int
cmp_axis_key(const void *a, const void *b)
{
	const dac_axis_key *x = a,
			   *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

void
dac_rank_column(dac_axis_key *ak, int n, int mid, int *rank, int stride)
{
	int			i = 0,
				r = 0;

	qsort(ak, (size_t) n, sizeof(dac_axis_key), cmp_axis_key);
	while (i < n)
	{
		int			j = i,
					t;

		while (j + 1 < n && ak[j + 1].v == ak[i].v)
			j++;
		/* positions i .. j (0-based) hold one value: twice their mean 1-based position is i + j + 2 */
		for (t = i; t <= j; t++)
			rank[(size_t) ak[t].idx * stride] = mid ? i + j + 2 : r;
		r++;
		i = j + 1;
	}
}

static uint64_t
mix64(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

double
dac_frame_order_bytes(int n, int d)
{
	return (double) n * (sizeof(dac_axis_key) + sizeof(dac_key2) + sizeof(int) * (double) d) + 64;
}

dac_status
dac_frame_order(const double *X, int n, int d, int *perm, dac_error *err)
{
	dac_axis_key *ak = dac_alloc(sizeof(dac_axis_key) * (size_t) (n > 0 ? n : 1));
	dac_key2   *rk = dac_alloc(sizeof(dac_key2) * (size_t) (n > 0 ? n : 1));
	int		   *rank = dac_alloc(sizeof(int) * (size_t) (n > 0 ? n : 1) * (d > 0 ? d : 1));
	int			i,
				k;

	if (ak == NULL || rk == NULL || rank == NULL)
	{
		dac_free(ak);
		dac_free(rk);
		dac_free(rank);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory ordering %d points", n);
	}
	for (k = 0; k < d; k++)
	{
		if (dac_interrupted())
		{
			dac_free(ak);
			dac_free(rk);
			dac_free(rank);
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		}
		for (i = 0; i < n; i++)
		{
			ak[i].v = X[(size_t) i * d + k];
			ak[i].idx = i;
		}
		dac_rank_column(ak, n, 0, rank + k, d);
	}
	if (dac_interrupted())
	{
		dac_free(ak);
		dac_free(rk);
		dac_free(rank);
		return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
	}
	for (i = 0; i < n; i++)
	{
		/* FNV-1a over the ranks, then a 64-bit finaliser (splitmix); and a sum */
		uint64_t	h = 1469598103934665603ULL,
					h2 = 0x9e3779b97f4a7c15ULL;

		for (k = 0; k < d; k++)
		{
			uint32_t	v = (uint32_t) rank[(size_t) i * d + k];
			int			b;

			for (b = 0; b < 4; b++)
				h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ULL;
			h2 = mix64(h2 + v);
		}
		/* a second hash: rows apart in both are told apart (equal rows in any order) */
		rk[i].a = mix64(h);
		rk[i].b = h2;
		rk[i].idx = i;
	}
	qsort(rk, (size_t) n, sizeof(dac_key2), dac_cmp_key2);
	for (i = 0; i < n; i++)
		perm[i] = rk[i].idx;
	dac_free(ak);
	dac_free(rk);
	dac_free(rank);
	return DAC_OK;
}

dac_status
dac_set_width(const double *X, int n, int d, double *width, dac_error *err)
{
	dac_frame	f;
	dac_status	st;

	if ((st = dac_frame_fit(X, NULL, n, d, 1, 0, &f, err)) != DAC_OK)
		return st;
	*width = f.width;
	dac_frame_free(&f);
	return DAC_OK;
}
