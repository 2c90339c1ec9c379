/*
 * test_gen.c
 *	  Generator statistics against the spec (model.md §6): range of n,
 *	  distribution of k, spread of σ and μ, determinism of the seed; the
 *	  kept normal streams.
 */
#include "unit.h"
#include "gen.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
n_range(void)
{
	dac_rng		r;
	int			i,
				lo = 1 << 30,
				hi = 0;
	double		mean = 0;

	dac_rng_seed(&r, 1);
	for (i = 0; i < 20000; i++)
	{
		int			n = dac_sample_n(&r, 1000);

		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
		mean += n;
	}
	mean /= 20000;
	CHECK(lo == 300 && hi == 999, "n ranges over {300 .. 999}: saw %d .. %d", lo, hi);
	CHECK(fabs(mean - 649.5) < 3, "mean n %.1f (649.5 expected)", mean);
}

static void
mog_stats(void)
{
	dac_rng		r;
	int			sets = 3000,
				n = 1000,
				K = 4,
				s,
				i,
				j,
				d;
	int			kcount[5] = {0};
	dac_real   *X = malloc(sizeof(dac_real) * n * 2);
	int		   *y = malloc(sizeof(int) * n);
	int			k;
	double		logsd_sum = 0,
				logsd_sq = 0,
				mu_sq = 0;
	long		nsd = 0,
				nmu = 0;

	dac_rng_seed(&r, 2);
	for (s = 0; s < sets; s++)
	{
		dac_generate(DAC_GEN_MOG, &r, 1, n, K, 2, X, y, &k, NULL);
		kcount[k]++;
		for (j = 0; j < k; j++)
		{
			double		sum[2] = {0, 0},
						sq[2] = {0, 0};
			int			cnt = 0;

			for (i = 0; i < n; i++)
				if (y[i] == j)
				{
					cnt++;
					for (d = 0; d < 2; d++)
					{
						sum[d] += X[2 * i + d];
						sq[d] += (double) X[2 * i + d] * X[2 * i + d];
					}
				}
			if (cnt < 200)
				continue;		/* too few points for a sharp estimate */
			for (d = 0; d < 2; d++)
			{
				double		m = sum[d] / cnt;
				double		sd = sqrt(sq[d] / cnt - m * m);

				logsd_sum += log(sd);
				logsd_sq += log(sd) * log(sd);
				nsd++;
				mu_sq += m * m;
				nmu++;
			}
		}
	}
	/* k − 1 ~ Binomial(3, ½) (empty components are rare at n = 1000) */
	CHECK(fabs(kcount[1] / (double) sets - 0.125) < 0.03, "P(k=1) %.3f (0.125)", kcount[1] / (double) sets);
	CHECK(fabs(kcount[2] / (double) sets - 0.375) < 0.03, "P(k=2) %.3f (0.375)", kcount[2] / (double) sets);
	CHECK(fabs(kcount[3] / (double) sets - 0.375) < 0.03, "P(k=3) %.3f (0.375)", kcount[3] / (double) sets);
	CHECK(fabs(kcount[4] / (double) sets - 0.125) < 0.03, "P(k=4) %.3f (0.125)", kcount[4] / (double) sets);
	{
		double		m = logsd_sum / nsd;
		double		sdv = sqrt(logsd_sq / nsd - m * m);

		/* log σ ~ N(log 0.25, 0.1²); the sample sd adds a little noise */
		CHECK(fabs(m - log(0.25)) < 0.01, "mean log σ %.4f (log 0.25 = %.4f)", m, log(0.25));
		CHECK(sdv > 0.09 && sdv < 0.12, "spread of log σ %.4f (0.1 plus sampling noise)", sdv);
	}
	CHECK(fabs(mu_sq / nmu - 9.0) < 0.6, "variance of μ %.3f (9)", mu_sq / nmu);
	free(X);
	free(y);
}

static void
determinism_and_warped(void)
{
	dac_rng		r1,
				r2;
	int			n = 500,
				i,
				ok = 1,
				k;
	dac_real   *A = malloc(sizeof(dac_real) * n * 2 * 3),
			   *B = malloc(sizeof(dac_real) * n * 2 * 3);
	int		   *ya = malloc(sizeof(int) * n * 3),
			   *yb = malloc(sizeof(int) * n * 3);
	int			kk[3];
	dac_error	err;

	dac_rng_seed(&r1, 77);
	dac_rng_seed(&r2, 77);
	dac_generate(DAC_GEN_MOG, &r1, 3, n, 4, 2, A, ya, NULL, NULL);
	dac_generate(DAC_GEN_MOG, &r2, 3, n, 4, 2, B, yb, NULL, NULL);
	CHECK(memcmp(A, B, sizeof(dac_real) * n * 6) == 0 && memcmp(ya, yb, sizeof(int) * n * 3) == 0,
		  "same seed, same sets");
	CHECK(dac_generate(DAC_GEN_WARPED, &r1, 3, n, 12, 2, A, ya, kk, NULL) == DAC_OK, "warped sets generate");
	for (i = 0; i < 3 * n * 2; i++)
		ok &= isfinite((double) A[i]) && fabs(A[i]) < 100;
	for (i = 0; i < 3 * n; i++)
		ok &= ya[i] >= 0 && ya[i] < kk[i / n];
	CHECK(ok, "warped points finite and labels in range");
	CHECK(dac_generate(DAC_GEN_WARPED, &r1, 1, n, 4, 3, A, ya, &k, &err) == DAC_ERR_INVALID,
		  "warped sets in 3-D refused: %s", err.msg);
	free(A);
	free(B);
	free(ya);
	free(yb);
}

/*
 * The oracle LL (true parameters).  With one component it is the mean log
 * density of the Gaussian that drew the points: the maximum-likelihood fit
 * to the same points scores at least as high, and only a little higher
 * (about 2 parameters per coordinate over 2n).  The same draws as
 * dac_generate; warped sets have none.
 */
static void
oracle_ll(void)
{
	dac_rng		r1,
				r2;
	int			n = 2000,
				s,
				i,
				d,
				ok_order = 1,
				ok_close = 1,
				ok_same = 1;
	dac_real   *X = malloc(sizeof(dac_real) * n * 2),
			   *X2 = malloc(sizeof(dac_real) * n * 2);
	int		   *y = malloc(sizeof(int) * n);
	double		ll[1],
				worst = 0;

	dac_rng_seed(&r1, 5);
	dac_rng_seed(&r2, 5);
	for (s = 0; s < 20; s++)
	{
		double		mle = 0;

		dac_generate_oracle(DAC_GEN_MOG, &r1, 1, n, 1, 2, X, y, NULL, ll, NULL);
		dac_generate(DAC_GEN_MOG, &r2, 1, n, 1, 2, X2, y, NULL, NULL);
		ok_same &= memcmp(X, X2, sizeof(dac_real) * n * 2) == 0;
		for (d = 0; d < 2; d++)
		{
			double		m = 0,
						v = 0;

			for (i = 0; i < n; i++)
				m += X[2 * i + d];
			m /= n;
			for (i = 0; i < n; i++)
				v += (X[2 * i + d] - m) * (X[2 * i + d] - m);
			v /= n;
			mle += -0.5 * log(2 * M_PI * v) - 0.5;
		}
		ok_order &= mle >= ll[0] - 1e-9;
		ok_close &= mle - ll[0] < 0.01;
		worst = fmax(worst, mle - ll[0]);
	}
	CHECK(ok_same, "dac_generate_oracle draws the same sets as dac_generate");
	CHECK(ok_order && ok_close, "one component: the MLE fit's LL is above the oracle's by 0 .. 0.01 (worst %.4f)",
		  worst);
	dac_rng_seed(&r1, 5);
	dac_generate_oracle(DAC_GEN_WARPED, &r1, 1, 300, 4, 2, X, y, NULL, ll, NULL);
	CHECK(isnan(ll[0]), "warped sets have no oracle LL");
	free(X);
	free(X2);
	free(y);
}

/*
 * dac_normals reads dac_rng_normal's stream to the bit, through the kept
 * first normals and past them, opened once or again, for the seeds the
 * one-cluster test's draws use (1, 3, 5, ...: the first DAC_KEPT_STREAMS
 * kept, whichever opened them first) and for more seeds than are kept.
 */
static void
kept_normal_streams(void)
{
	int			same = 1,
				kept = 1;

	for (int again = 0; again < 2; again++)
		for (int t = 0; t < DAC_KEPT_STREAMS + 4; t++)
		{
			dac_normals s;
			dac_rng		r;

			dac_normals_open(&s, 1 + 2 * (uint64_t) t);
			dac_rng_seed(&r, 1 + 2 * (uint64_t) t);
			if (t < DAC_KEPT_STREAMS)
				kept &= s.kept != NULL && s.nkept == DAC_KEPT_NORMALS;
			for (int i = 0; i < DAC_KEPT_NORMALS + 300; i++)
				same &= dac_normals_next(&s) == dac_rng_normal(&r);
		}
	CHECK(same, "kept normal streams: every normal is dac_rng_normal's, before and past the kept ones");
	CHECK(kept, "kept normal streams: the first %d draws' seeds are kept", DAC_KEPT_STREAMS);
}

void
test_gen(void)
{
	kept_normal_streams();
	n_range();
	mog_stats();
	determinism_and_warped();
	oracle_ll();
}
