/*
 * test_blas.c
 *	  The BLAS path against naive loops: every transpose combination with
 *	  odd sizes and leading dimensions, and whole network passes.
 */
#include "unit.h"
#include "linalg.h"
#include "model.h"
#include "nn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DAC_DOUBLE
#define GEMM_TOL 1e-12
#else
#define GEMM_TOL 2e-5
#endif

static void
gemm_cases(void)
{
	dac_rng		r;
	int			ta,
				tb,
				rep;

	dac_rng_seed(&r, 99);
	for (rep = 0; rep < 3; rep++)
		for (ta = 0; ta < 2; ta++)
			for (tb = 0; tb < 2; tb++)
			{
				int			M = 1 + dac_rng_int(&r, 70),
							N = 1 + dac_rng_int(&r, 70),
							K = 1 + dac_rng_int(&r, 70);
				int			lda = (ta ? M : K) + dac_rng_int(&r, 5);
				int			ldb = (tb ? K : N) + dac_rng_int(&r, 5);
				int			ldc = N + dac_rng_int(&r, 5);
				size_t		na = (size_t) (ta ? K : M) * lda,
							nb = (size_t) (tb ? N : K) * ldb,
							nc = (size_t) M * ldc,
							i;
				dac_real   *A = malloc(sizeof(dac_real) * na),
						   *B = malloc(sizeof(dac_real) * nb),
						   *C1 = malloc(sizeof(dac_real) * nc),
						   *C2 = malloc(sizeof(dac_real) * nc);
				double		worst = 0,
							scale = 0;
				dac_real	beta = rep == 0 ? 0 : (dac_real) 0.5;

				for (i = 0; i < na; i++)
					A[i] = (dac_real) (2 * dac_rng_uniform(&r) - 1);
				for (i = 0; i < nb; i++)
					B[i] = (dac_real) (2 * dac_rng_uniform(&r) - 1);
				for (i = 0; i < nc; i++)
					C1[i] = C2[i] = (dac_real) (2 * dac_rng_uniform(&r) - 1);
				dac_gemm(ta, tb, M, N, K, (dac_real) 1.5, A, lda, B, ldb, beta, C1, ldc);
				dac_gemm_naive(ta, tb, M, N, K, (dac_real) 1.5, A, lda, B, ldb, beta, C2, ldc);
				for (i = 0; i < nc; i++)
				{
					double		e = fabs((double) C1[i] - C2[i]);

					worst = e > worst ? e : worst;
					scale = fabs(C2[i]) > scale ? fabs(C2[i]) : scale;
				}
				CHECK(worst <= GEMM_TOL * (scale + 1), "gemm %c%c %dx%dx%d beta %.1f: blas vs naive %.2g",
					  ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, (double) beta, worst);
				free(A);
				free(B);
				free(C1);
				free(C2);
			}
}

/*
 * dac_gemm_direct against naive loops: every row remainder of its blocks
 * (6 rows for AVX2, 8 for AVX-512), column tails of 1..15 past each vector,
 * an inner dimension longer than one slice (1100), both layouts of A, a
 * transposed B packed or too large to pack (2 x 64 x 1100), beta 0 with
 * NaN in C (C must not be read), and guards around C that must not change.
 * Both kernels run where the CPU has them.
 */
static void
direct_cases(void)
{
	static const int Ms[] = {1, 2, 3, 5, 6, 7, 8, 9, 13, 16, 17, 37};
	static const int Ns[] = {1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 64};
	static const int Ks[] = {1, 4, 32, 129, 1100};
	dac_rng		r;
	int			isa,
				bad = 0,
				cases = 0;

	dac_rng_seed(&r, 7);
	for (isa = 0; isa < 2; isa++)
	{
		size_t		mi,
					ni;

		dac_direct_avx2_only = isa;
		for (mi = 0; mi < sizeof(Ms) / sizeof(Ms[0]); mi++)
			for (ni = 0; ni < sizeof(Ns) / sizeof(Ns[0]); ni++)
			{
				int			M = Ms[mi],
							N = Ns[ni],
							K = Ks[(mi + ni) % 5],
							ta = (int) ((mi + ni) % 2),
							tb = (int) ((mi + 2 * ni) % 3 == 0);
				int			lda = (ta ? M : K) + 3,
							ldb = (tb ? K : N) + 2,
							ldc = N + 5,
							rows = M + 2;
				size_t		na = (size_t) (ta ? K : M) * lda,
							nb = (size_t) (tb ? N : K) * ldb,
							nc = (size_t) rows * ldc,
							i;
				dac_real   *A = malloc(sizeof(dac_real) * na),
						   *B = malloc(sizeof(dac_real) * nb),
						   *C1 = malloc(sizeof(dac_real) * nc),
						   *C2 = malloc(sizeof(dac_real) * nc);
				dac_real	beta = (mi + ni) % 3 == 0 ? 0 : (dac_real) 0.5;
				double		worst = 0;

				for (i = 0; i < na; i++)
					A[i] = (dac_real) (2 * dac_rng_uniform(&r) - 1);
				for (i = 0; i < nb; i++)
					B[i] = (dac_real) (2 * dac_rng_uniform(&r) - 1);
				for (i = 0; i < nc; i++)
				{
					int			inside = (int) (i / ldc) < M && (int) (i % ldc) < N;

					/* NaN inside C when beta is 0: it must not be read */
					C1[i] = C2[i] = (inside && beta == 0) ? (dac_real) NAN :
						(dac_real) (2 * dac_rng_uniform(&r) - 1);
				}
				dac_gemm_direct(ta, tb, M, N, K, (dac_real) 1.5, A, lda, B, ldb, beta, C1, ldc);
				for (i = 0; i < nc; i++)
					if ((int) (i / ldc) < M && (int) (i % ldc) < N && beta == 0)
						C2[i] = 0;
				dac_gemm_naive(ta, tb, M, N, K, (dac_real) 1.5, A, lda, B, ldb, beta, C2, ldc);
				for (i = 0; i < nc; i++)
				{
					double		e = fabs((double) C1[i] - C2[i]);

					if ((int) (i / ldc) >= M || (int) (i % ldc) >= N)
						e = C1[i] == C2[i] ? 0 : INFINITY;	/* outside C: untouched */
					if (!(e <= worst))
						worst = isnan(e) ? INFINITY : e;
				}
				cases++;
				if (!(worst <= GEMM_TOL * (K + 1)))
				{
					bad++;
					printf("#   direct (%s) %c%c %dx%dx%d beta %.1f: worst %.3g\n",
						   isa ? "avx2" : "best", ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K,
						   (double) beta, worst);
				}
				free(A);
				free(B);
				free(C1);
				free(C2);
			}
	}
	dac_direct_avx2_only = 0;
	CHECK(bad == 0, "dac_gemm_direct agrees with naive loops in %d of %d cases (kernel: %s)",
		  cases - bad, cases, dac_direct_available() ? "own" : "dac_gemm");
}

/*
 * dac_softmax_rows_short against softmax in double: every width from 1 to
 * 32, a score far below the row's largest (exp underflows), a row of
 * equal scores, NaN propagated; wider rows are declined.
 */
static void
softmax_short_cases(void)
{
	dac_rng		r;
	int			cols,
				bad = 0,
				done = 1;
	dac_real	S[5 * 33],
				nanrow[3] = {1, NAN, 2},
				wide[33] = {0};

	dac_rng_seed(&r, 11);
	for (cols = 1; cols <= 32; cols++)
	{
		int			rows = 5,
					i,
					j;
		double		worst = 0;
		dac_real	orig[5 * 33];

		for (i = 0; i < rows * cols; i++)
			S[i] = (dac_real) (60 * dac_rng_uniform(&r) - 30);
		S[cols - 1] = -1e30f;	/* row 0: one score that underflows */
		for (j = 0; j < cols; j++)
			S[cols + j] = 3;	/* row 1: equal scores */
		memcpy(orig, S, sizeof(dac_real) * rows * cols);
		if (!dac_softmax_rows_short(S, rows, cols))
		{
			done = 0;
			break;
		}
		for (i = 0; i < rows; i++)
		{
			double		mx = -INFINITY,
						sum = 0;

			for (j = 0; j < cols; j++)
				mx = fmax(mx, orig[i * cols + j]);
			for (j = 0; j < cols; j++)
				sum += exp((double) orig[i * cols + j] - mx);
			for (j = 0; j < cols; j++)
			{
				double		want = exp((double) orig[i * cols + j] - mx) / sum;

				/* below e^-87 the kernel's exp stops at e^-87 (about 1e-38) */
				worst = fmax(worst, fabs(want - S[i * cols + j]) / (want + 1e-30));
				if (want == 0 && !(fabs(S[i * cols + j]) < 1e-37))
					worst = INFINITY;
			}
		}
		if (!(worst < 1e-5))
		{
			bad++;
			printf("#   softmax of %d columns: worst relative error %.3g\n", cols, worst);
		}
	}
	if (!done)
	{
		CHECK(!dac_softmax_rows_short(S, 1, 8), "short softmax declined without AVX-512");
		return;
	}
	CHECK(bad == 0, "short-row softmax matches softmax in double for widths 1-32");
	CHECK(dac_softmax_rows_short(nanrow, 1, 3) && isnan(nanrow[0]) && isnan(nanrow[2]),
		  "a NaN score makes its row NaN, as the scalar softmax does");
	CHECK(!dac_softmax_rows_short(wide, 1, 33) && wide[0] == 0, "rows of 33 columns are declined");
}

/*
 * dac_elu (the flow's activation, vectorized) against expm1 in double:
 * every count from 1 to 40 (the vector tails), values across the exp's
 * range, and the edges: 0 and −0 give 0, below −87 gives −1, positive
 * values and +inf pass through, a NaN stays NaN.
 */
static void
elu_cases(void)
{
	dac_real	a[40],
				edge[7] = {0, -0.0, -90, -1e30, 3.5, INFINITY, NAN};
	double		worst = 0;
	int			count,
				i,
				bad = 0;

	for (count = 1; count <= 40; count++)
	{
		for (i = 0; i < count; i++)
			a[i] = (dac_real) (-30.0 + 31.0 * i / 39.0 + 0.01 * count);
		dac_elu(a, (size_t) count);
		for (i = 0; i < count; i++)
		{
			double		x = -30.0 + 31.0 * i / 39.0 + 0.01 * count,
						want,
						err;

			x = (double) (dac_real) x;
			want = x > 0 ? x : expm1(x);
			err = fabs((double) a[i] - want);
			worst = fmax(worst, err);
			if (err > (x > 0 ? 0 : 2e-7 + 4e-7 * fabs(want)))
				bad++;
		}
	}
	if (unit_verbose)
		printf("#   ELU: worst absolute error %.3g\n", worst);
	CHECK(bad == 0, "dac_elu matches expm1 for every count 1-40 (worst error %.2g)", worst);
	dac_elu(edge, 7);
	CHECK(edge[0] == 0 && edge[1] == 0, "ELU of 0 and -0 is 0");
	CHECK(edge[2] == -1 && edge[3] == -1, "ELU below the exp's range is -1");
	CHECK(edge[4] == (dac_real) 3.5 && isinf(edge[5]) && edge[5] > 0, "positive values pass through");
	CHECK(isnan(edge[6]), "a NaN stays NaN");
}

/* A whole forward and backward pass through BLAS and through naive loops. */
static void
network_case(dac_strategy s)
{
	dac_config	cfg = dac_config_default(s, 2);
	dac_model	m;
	dac_rng		r;
	dac_real   *X,
			   *L1,
			   *G1,
			   *G2,
			   *dl;
	dac_arena	ar;
	dac_forward fw;
	int			n = 37,
				anchor = 5,
				i;
	double		we = 0,
				ws = 0,
				ge = 0,
				gs = 0;

	cfg.dim_hidden = 16;
	cfg.num_inds = 5;
	unit_random_model(&m, &cfg, 4, &r);
	X = malloc(sizeof(dac_real) * n * 2);
	L1 = malloc(sizeof(dac_real) * n);
	dl = malloc(sizeof(dac_real) * n);
	G1 = calloc(m.net.nparams, sizeof(dac_real));
	G2 = calloc(m.net.nparams, sizeof(dac_real));
	for (i = 0; i < 2 * n; i++)
		X[i] = (dac_real) (4 * dac_rng_uniform(&r) - 2);
	for (i = 0; i < n; i++)
		dl[i] = (dac_real) (dac_rng_uniform(&r) - 0.5);

	dac_arena_init(&ar, 0);
	dac_net_forward(&m.net, m.P, X, 1, n, &anchor, &ar, &fw, NULL);
	memcpy(L1, fw.logits, sizeof(dac_real) * n);
	dac_net_backward(&m.net, m.P, G1, &fw, dl, fw.ll, &ar, NULL);
	dac_arena_free(&ar);

	dac_gemm_use_naive = 1;
	dac_arena_init(&ar, 0);
	dac_net_forward(&m.net, m.P, X, 1, n, &anchor, &ar, &fw, NULL);
	dac_net_backward(&m.net, m.P, G2, &fw, dl, fw.ll, &ar, NULL);
	dac_gemm_use_naive = 0;
	for (i = 0; i < n; i++)
	{
		we = fmax(we, fabs((double) fw.logits[i] - L1[i]));
		ws = fmax(ws, fabs((double) fw.logits[i]));
	}
	for (i = 0; i < (int) m.net.nparams; i++)
	{
		ge = fmax(ge, fabs((double) G1[i] - G2[i]));
		gs = fmax(gs, fabs((double) G2[i]));
	}
	dac_arena_free(&ar);
	CHECK(we <= 50 * GEMM_TOL * ws, "%s forward: blas vs naive logits %.2g (scale %.3g)",
		  s == DAC_AF ? "AF" : "MLF", we, ws);
	CHECK(ge <= 50 * GEMM_TOL * gs, "%s backward: blas vs naive gradients %.2g (scale %.3g)",
		  s == DAC_AF ? "AF" : "MLF", ge, gs);
	free(X);
	free(L1);
	free(dl);
	free(G1);
	free(G2);
	dac_model_free(&m);
}

/*
 * dac_rows_times_lower_t (a whitening's product, half a general one's work)
 * against dac_gemm with the same lower-triangular map, through BLAS and
 * through its plain loops; dac_lower_triangular by hand.
 */
static void
lower_cases(void)
{
	dac_rng		r;
	int			rep;

	dac_rng_seed(&r, 41);
	for (rep = 0; rep < 4; rep++)
	{
		int			n = 1 + dac_rng_int(&r, 90),
					d = 1 + dac_rng_int(&r, 70),
					naive;
		size_t		i;
		dac_real   *L = malloc(sizeof(dac_real) * d * d),
				   *X = malloc(sizeof(dac_real) * n * d),
				   *Y1 = malloc(sizeof(dac_real) * n * d),
				   *Y2 = malloc(sizeof(dac_real) * n * d);
		double		before;

		for (i = 0; i < (size_t) d * d; i++)
			L[i] = (int) (i % d) <= (int) (i / d) ? (dac_real) (2 * dac_rng_uniform(&r) - 1) : 0;
		for (i = 0; i < (size_t) n * d; i++)
			X[i] = (dac_real) (2 * dac_rng_uniform(&r) - 1);
		dac_gemm_naive(0, 1, n, d, d, 1, X, d, L, d, 0, Y2, d);
		for (naive = 0; naive < 2; naive++)
		{
			double		worst = 0,
						scale = 0;

			dac_gemm_use_naive = naive;
			before = dac_gemm_flops;
			dac_rows_times_lower_t(n, d, L, X, Y1);
			dac_gemm_use_naive = 0;
			for (i = 0; i < (size_t) n * d; i++)
			{
				worst = fmax(worst, fabs((double) Y1[i] - Y2[i]));
				scale = fmax(scale, fabs((double) Y2[i]));
			}
			CHECK(worst <= GEMM_TOL * (scale + 1) && dac_gemm_flops - before == (double) n * d * d,
				  "X Lᵀ for lower L, %dx%d rows of %d (%s): %.2g from the general product, n·d² counted", n, d, d,
				  naive ? "plain loops" : "BLAS", worst);
		}
		CHECK(dac_lower_triangular(L, d), "a %dx%d lower map is lower triangular", d, d);
		if (d > 1)
		{
			L[1] = (dac_real) 1e-30;
			CHECK(!dac_lower_triangular(L, d), "one value above the diagonal and it is not");
		}
		free(L);
		free(X);
		free(Y1);
		free(Y2);
	}
}

/*
 * dac_distances_from_gram against its scalar loop, to the bit, on both
 * kernels: every width from 1 to 37 (the vectors' tails), a product larger
 * than the lengths allow (a negative square: 0), a NaN product (0), and the
 * diagonal set to 0.
 */
static void
gram_distance_cases(void)
{
	dac_rng		r;
	int			isa,
				m,
				bad = 0;

	dac_rng_seed(&r, 13);
	for (isa = 0; isa < 3; isa++)
	{
		dac_direct_avx2_only = isa == 1;
		dac_vector_plain = isa == 2;
		for (m = 1; m <= 37; m++)
		{
			dac_real	row[37],
						want[37],
						nrm[37];
			int			q,
						at = (int) dac_rng_int(&r, m);

			for (q = 0; q < m; q++)
			{
				nrm[q] = (dac_real) (3 * dac_rng_uniform(&r));
				row[q] = (dac_real) (2 * dac_rng_uniform(&r) - 1);
			}
			if (m > 3)
			{
				row[1] = nrm[at] + nrm[1];	/* the difference below 0 */
				row[2] = (dac_real) NAN;
			}
			for (q = 0; q < m; q++)
			{
				double		t = (double) nrm[at] + nrm[q] - 2.0 * row[q];

				want[q] = q == at ? 0 : (dac_real) sqrt(t > 0 ? t : 0);
			}
			dac_distances_from_gram(row, nrm, m, at);
			bad += memcmp(row, want, sizeof(dac_real) * m) != 0;
		}
	}
	dac_direct_avx2_only = dac_vector_plain = 0;
	CHECK(bad == 0, "distances from a Gram row are the scalar loop's to the bit, 1 to 37 wide, every kernel (%d differ)",
		  bad);
}

void
test_blas(void)
{
	gemm_cases();
	lower_cases();
	direct_cases();
	softmax_short_cases();
	gram_distance_cases();
	elu_cases();
	network_case(DAC_MLF);
	network_case(DAC_AF);
}
