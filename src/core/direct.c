/*
 * direct.c
 *	  Matrix products too thin for a BLAS library's packing: register-blocked
 *	  AVX-512 and AVX2 kernels that read their operands where they lie.
 *
 * The attention products of a Set Transformer multiply an n x 32 slice of
 * one matrix by a 32 x 32 slice of another (one head, 32 dimensions), or
 * reduce an n x 32 slice against another over n.  OpenBLAS copies both
 * operands into its own panels before every such product, which on this
 * shape costs about as much as the arithmetic.  Here one block of C is kept
 * in registers for the whole inner dimension (8 x 32 in sixteen AVX-512
 * registers, 6 x 16 in twelve AVX2 ones): every element of op(A) is
 * broadcast from where it lies (rows or columns alike) and B is read by
 * rows, so nothing is copied except a small transposed B (at most
 * DAC_DIRECT_MAX_PACK elements).
 *
 * Chosen at run time: AVX-512 where the CPU has it, else AVX2 with FMA
 * (every x86-64 CPU since 2013-2015); elsewhere, and in the float64 build,
 * the same call goes to dac_gemm.  The summation order differs from a BLAS
 * library's, so results agree with it to rounding, not bit for bit.
 */
#include "linalg.h"

#include <math.h>
#include <stddef.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(DAC_DOUBLE)
#define DAC_DIRECT_AVX2 1
#include <immintrin.h>
#endif

#ifndef DIRECT_KC
#define DIRECT_KC 512			/* a slice of the inner dimension: see below */
#endif

int			dac_direct_disabled = 0;
int			dac_direct_avx2_only = 0;
int			dac_vector_plain = 0;

int
dac_vector_level(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	static int	known = -1;

	if (known < 0)
	{
		__builtin_cpu_init();
		known = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
	}
	if (dac_vector_plain)
		return 0;
	return known == 2 && dac_direct_avx2_only ? 1 : known;
#else
	return 0;
#endif
}

#ifdef DAC_DIRECT_AVX2

#define MR 6					/* rows of C per block */

/*
 * One block of C: mr rows (1..MR), nv vectors of 8 columns (1 or 2), the last
 * masked when masked is set.  Constants at every call, so each combination
 * compiles to straight-line code.
 */
__attribute__((target("avx2,fma"), always_inline))
static inline void
block(const int mr, const int nv, const int masked, __m256i mask, int K,
	  const float *A, ptrdiff_t ars, ptrdiff_t acs, const float *B, ptrdiff_t ldb,
	  float alpha, float beta, float *C, ptrdiff_t ldc)
{
	__m256		c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(),
				c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps(),
				c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(),
				c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps(),
				c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps(),
				c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
	__m256		va = _mm256_set1_ps(alpha),
				vb = _mm256_set1_ps(beta);
	int			k;

	for (k = 0; k < K; k++)
	{
		const float *a = A + k * acs;
		const float *b = B + k * ldb;
		__m256		b0,
					b1 = _mm256_setzero_ps(),
					x;

		if (nv == 1)
			b0 = masked ? _mm256_maskload_ps(b, mask) : _mm256_loadu_ps(b);
		else
		{
			b0 = _mm256_loadu_ps(b);
			b1 = masked ? _mm256_maskload_ps(b + 8, mask) : _mm256_loadu_ps(b + 8);
		}
#define ROW(r, c0, c1) \
		if (mr > r) \
		{ \
			x = _mm256_broadcast_ss(a + r * ars); \
			c0 = _mm256_fmadd_ps(x, b0, c0); \
			if (nv == 2) \
				c1 = _mm256_fmadd_ps(x, b1, c1); \
		}
		ROW(0, c00, c01);
		ROW(1, c10, c11);
		ROW(2, c20, c21);
		ROW(3, c30, c31);
		ROW(4, c40, c41);
		ROW(5, c50, c51);
#undef ROW
	}

	/* C = alpha·acc + beta·C; beta == 0 never reads C */
#define OUT(ptr, acc, last) \
	do { \
		__m256		y = _mm256_mul_ps(va, acc); \
		if ((last) && masked) \
		{ \
			if (beta != 0) \
				y = _mm256_fmadd_ps(vb, _mm256_maskload_ps(ptr, mask), y); \
			_mm256_maskstore_ps(ptr, mask, y); \
		} \
		else \
		{ \
			if (beta != 0) \
				y = _mm256_fmadd_ps(vb, _mm256_loadu_ps(ptr), y); \
			_mm256_storeu_ps(ptr, y); \
		} \
	} while (0)
#define STORE(r, c0, c1) \
	if (mr > r) \
	{ \
		OUT(C + r * ldc, c0, nv == 1); \
		if (nv == 2) \
			OUT(C + r * ldc + 8, c1, 1); \
	}
	STORE(0, c00, c01);
	STORE(1, c10, c11);
	STORE(2, c20, c21);
	STORE(3, c30, c31);
	STORE(4, c40, c41);
	STORE(5, c50, c51);
#undef STORE
#undef OUT
}

/* A column strip of C (nv vectors, masked or not), every block of rows. */
__attribute__((target("avx2,fma"), always_inline))
static inline void
strip(const int nv, const int masked, __m256i mask, int M, int K,
	  const float *A, ptrdiff_t ars, ptrdiff_t acs, const float *B, ptrdiff_t ldb,
	  float alpha, float beta, float *C, ptrdiff_t ldc)
{
	int			i;

	for (i = 0; i + MR <= M; i += MR)
		block(MR, nv, masked, mask, K, A + i * ars, ars, acs, B, ldb, alpha, beta,
			  C + i * ldc, ldc);
	/* the last 0-5 rows as 4 + 2 + 1 */
	if (M - i >= 4)
	{
		block(4, nv, masked, mask, K, A + i * ars, ars, acs, B, ldb, alpha, beta, C + i * ldc, ldc);
		i += 4;
	}
	if (M - i >= 2)
	{
		block(2, nv, masked, mask, K, A + i * ars, ars, acs, B, ldb, alpha, beta, C + i * ldc, ldc);
		i += 2;
	}
	if (M - i >= 1)
		block(1, nv, masked, mask, K, A + i * ars, ars, acs, B, ldb, alpha, beta, C + i * ldc, ldc);
}

__attribute__((target("avx2,fma")))
static void
direct_avx2(int M, int N, int K, float alpha, const float *A, ptrdiff_t ars,
			ptrdiff_t acs, const float *B, ptrdiff_t ldb, float beta, float *C,
			ptrdiff_t ldc)
{
	static const int ones[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
	int			j;

	for (j = 0; j + 16 <= N; j += 16)
		strip(2, 0, _mm256_setzero_si256(), M, K, A, ars, acs, B + j, ldb, alpha, beta,
			  C + j, ldc);
	if (N - j > 8)
	{
		__m256i		mask = _mm256_loadu_si256((const __m256i *) (ones + 8 - (N - j - 8)));

		strip(2, 1, mask, M, K, A, ars, acs, B + j, ldb, alpha, beta, C + j, ldc);
	}
	else if (N - j == 8)
		strip(1, 0, _mm256_setzero_si256(), M, K, A, ars, acs, B + j, ldb, alpha, beta,
			  C + j, ldc);
	else if (N - j > 0)
	{
		__m256i		mask = _mm256_loadu_si256((const __m256i *) (ones + 8 - (N - j)));

		strip(1, 1, mask, M, K, A, ars, acs, B + j, ldb, alpha, beta, C + j, ldc);
	}
}


/*
 * The AVX-512 kernel: 8 rows by 2 vectors of 16 columns (16 of the 32
 * registers), the tail of the columns masked.
 */
#define MR16 8

__attribute__((target("avx512f"), always_inline))
static inline void
block16(const int mr, const int nv, __mmask16 m0, __mmask16 m1, int K,
		const float *A, ptrdiff_t ars, ptrdiff_t acs, const float *B, ptrdiff_t ldb,
		float alpha, float beta, float *C, ptrdiff_t ldc)
{
	__m512		c[MR16][2];
	__m512		va = _mm512_set1_ps(alpha),
				vb = _mm512_set1_ps(beta);
	int			k,
				r;

	for (r = 0; r < mr; r++)
		c[r][0] = c[r][1] = _mm512_setzero_ps();
	for (k = 0; k < K; k++)
	{
		const float *a = A + k * acs;
		const float *b = B + k * ldb;
		__m512		b0 = _mm512_maskz_loadu_ps(m0, b),
					b1 = nv == 2 ? _mm512_maskz_loadu_ps(m1, b + 16) : _mm512_setzero_ps();

		for (r = 0; r < mr; r++)
		{
			__m512		x = _mm512_set1_ps(a[r * ars]);

			c[r][0] = _mm512_fmadd_ps(x, b0, c[r][0]);
			if (nv == 2)
				c[r][1] = _mm512_fmadd_ps(x, b1, c[r][1]);
		}
	}
	for (r = 0; r < mr; r++)
	{
		float	   *p = C + r * ldc;
		__m512		y = _mm512_mul_ps(va, c[r][0]);

		if (beta != 0)
			y = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, p), y);
		_mm512_mask_storeu_ps(p, m0, y);
		if (nv == 2)
		{
			y = _mm512_mul_ps(va, c[r][1]);
			if (beta != 0)
				y = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, p + 16), y);
			_mm512_mask_storeu_ps(p + 16, m1, y);
		}
	}
}

__attribute__((target("avx512f"), always_inline))
static inline void
strip16(const int nv, __mmask16 m0, __mmask16 m1, int M, int K,
		const float *A, ptrdiff_t ars, ptrdiff_t acs, const float *B, ptrdiff_t ldb,
		float alpha, float beta, float *C, ptrdiff_t ldc)
{
	int			i;

	for (i = 0; i + MR16 <= M; i += MR16)
		block16(MR16, nv, m0, m1, K, A + i * ars, ars, acs, B, ldb, alpha, beta,
				C + i * ldc, ldc);
	/* the last 0-7 rows as 4 + 2 + 1 */
	if (M - i >= 4)
	{
		block16(4, nv, m0, m1, K, A + i * ars, ars, acs, B, ldb, alpha, beta, C + i * ldc, ldc);
		i += 4;
	}
	if (M - i >= 2)
	{
		block16(2, nv, m0, m1, K, A + i * ars, ars, acs, B, ldb, alpha, beta, C + i * ldc, ldc);
		i += 2;
	}
	if (M - i >= 1)
		block16(1, nv, m0, m1, K, A + i * ars, ars, acs, B, ldb, alpha, beta, C + i * ldc, ldc);
}

__attribute__((target("avx512f")))
static void
direct_avx512(int M, int N, int K, float alpha, const float *A, ptrdiff_t ars,
			  ptrdiff_t acs, const float *B, ptrdiff_t ldb, float beta, float *C,
			  ptrdiff_t ldc)
{
	int			j;

	for (j = 0; j + 32 <= N; j += 32)
		strip16(2, 0xFFFF, 0xFFFF, M, K, A, ars, acs, B + j, ldb, alpha, beta, C + j, ldc);
	if (N - j > 16)
		strip16(2, 0xFFFF, (__mmask16) ((1u << (N - j - 16)) - 1), M, K, A, ars, acs,
				B + j, ldb, alpha, beta, C + j, ldc);
	else if (N - j > 0)
		strip16(1, (__mmask16) ((1u << (N - j)) - 1), 0, M, K, A, ars, acs,
				B + j, ldb, alpha, beta, C + j, ldc);
}

/*
 * exp(x) for x <= 0, sixteen at a time: the same reduction and polynomial as
 * nn.c's exp_nonpos (Cody-Waite, degree 7, 2^n in the exponent bits).
 */
__attribute__((target("avx512f"), always_inline))
static inline __m512
exp_nonpos16(__m512 x)
{
	const __m512 shifter = _mm512_set1_ps(12582912.0f);
	__m512		t,
				n,
				r,
				p;
	__m512i		e;

	/* NaN in, NaN out (MAXPS returns its second operand when either is NaN) */
	x = _mm512_max_ps(_mm512_set1_ps(-87.0f), x);
	t = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), shifter);
	n = _mm512_sub_ps(t, shifter);
	r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
	r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860682030941723212e-6f), r);
	p = _mm512_set1_ps(1.0f / 5040);
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
	e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(t),
															_mm512_set1_epi32(0x4B400000)),
										   _mm512_set1_epi32(127)), 23);
	return _mm512_mul_ps(p, _mm512_castsi512_ps(e));
}

/* Softmax along rows of at most 32 columns: a row in two registers. */
__attribute__((target("avx512f")))
static void
softmax_short_avx512(float *S, int rows, int cols)
{
	__mmask16	m0 = cols >= 16 ? 0xFFFF : (__mmask16) ((1u << cols) - 1),
				m1 = cols <= 16 ? 0 : cols == 32 ? 0xFFFF : (__mmask16) ((1u << (cols - 16)) - 1);
	const __m512 lowest = _mm512_set1_ps(-INFINITY);
	int			r;

	for (r = 0; cols <= 16 && r < rows; r++)
	{
		float	   *row = S + (size_t) r * cols;
		__m512		a = _mm512_mask_loadu_ps(lowest, m0, row),
					mx = _mm512_set1_ps(_mm512_reduce_max_ps(a));

		a = _mm512_maskz_mov_ps(m0, exp_nonpos16(_mm512_sub_ps(a, mx)));
		_mm512_mask_storeu_ps(row, m0,
							  _mm512_mul_ps(a, _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(a))));
	}
	for (r = 0; cols > 16 && r < rows; r++)
	{
		float	   *row = S + (size_t) r * cols;
		__m512		a = _mm512_mask_loadu_ps(lowest, m0, row),
					b = _mm512_mask_loadu_ps(lowest, m1, row + 16),
					mx = _mm512_set1_ps(_mm512_reduce_max_ps(_mm512_max_ps(a, b))),
					inv;

		a = _mm512_maskz_mov_ps(m0, exp_nonpos16(_mm512_sub_ps(a, mx)));
		b = _mm512_maskz_mov_ps(m1, exp_nonpos16(_mm512_sub_ps(b, mx)));
		inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(_mm512_add_ps(a, b)));
		_mm512_mask_storeu_ps(row, m0, _mm512_mul_ps(a, inv));
		_mm512_mask_storeu_ps(row + 16, m1, _mm512_mul_ps(b, inv));
	}
}

static int
have_avx2(void)
{
	static int	known = -1;

	if (known < 0)
	{
		__builtin_cpu_init();
		known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	}
	return known;
}

static int
have_avx512(void)
{
	static int	known = -1;

	if (known < 0)
	{
		__builtin_cpu_init();
		known = __builtin_cpu_supports("avx512f");
	}
	return known;
}
#endif							/* DAC_DIRECT_AVX2 */

int
dac_direct_available(void)
{
#ifdef DAC_DIRECT_AVX2
	return have_avx2() && !dac_direct_disabled;
#else
	return 0;
#endif
}

void
dac_gemm_direct(int transA, int transB, int M, int N, int K, dac_real alpha,
				const dac_real *A, int lda, const dac_real *B, int ldb,
				dac_real beta, dac_real *C, int ldc)
{
#ifdef DAC_DIRECT_AVX2
	float		packed[DAC_DIRECT_MAX_PACK];
	ptrdiff_t	ars,
				acs;
	int			k,
				j,
				k0;

	if (M <= 0 || N <= 0)
		return;
	if (dac_gemm_use_naive || K <= 0 || !dac_direct_available())
	{
		dac_gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
		return;
	}
	if (transB)
	{
		/*
		 * Bᵀ [K, N] from B [N, K], on the stack: when it is small, and small
		 * beside C (a copy of a layer's weights for a few rows would cost
		 * more than the product); otherwise the library's packing.
		 */
		if ((size_t) K * N > DAC_DIRECT_MAX_PACK || (size_t) K * N > (size_t) 8 * M)
		{
			dac_gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
			return;
		}
		for (j = 0; j < N; j++)
			for (k = 0; k < K; k++)
				packed[(size_t) k * N + j] = B[(size_t) j * ldb + k];
		B = packed;
		ldb = N;
	}
	dac_gemm_flops += 2.0 * M * N * K;
	ars = transA ? 1 : lda;
	acs = transA ? lda : 1;
	/*
	 * A long inner dimension in slices of DIRECT_KC, so that the slice of B
	 * one strip of C reads again for every block of rows stays in cache;
	 * every slice after the first adds to C.
	 */
	for (k0 = 0; k0 < K; k0 += DIRECT_KC)
	{
		int			kc = K - k0 < DIRECT_KC ? K - k0 : DIRECT_KC;
		dac_real	b = k0 == 0 ? beta : 1;

		if (have_avx512() && !dac_direct_avx2_only)
			direct_avx512(M, N, kc, alpha, A + k0 * acs, ars, acs, B + (size_t) k0 * ldb, ldb,
						  b, C, ldc);
		else
			direct_avx2(M, N, kc, alpha, A + k0 * acs, ars, acs, B + (size_t) k0 * ldb, ldb,
						b, C, ldc);
	}
#else
	dac_gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#endif
}

#ifdef DAC_DIRECT_AVX2
/*
 * dac_distances_from_gram's lanes: (nr + nrm [q]) − 2·row [q] in double, the
 * larger of it and 0 (MAXPD returns its second operand, 0, for a NaN and for
 * two zeros: the scalar loop's t > 0 ? t : 0), its square root, rounded to
 * float.  The product by 2 is exact, so a fused multiply-subtract rounds as
 * the separate ones do.
 */
__attribute__((target("avx512f")))
static int
gram_distances_avx512(float *row, const float *nrm, double nr, int m)
{
	const __m512d two = _mm512_set1_pd(2.0),
				zero = _mm512_setzero_pd(),
				base = _mm512_set1_pd(nr);
	int			q;

	for (q = 0; q + 8 <= m; q += 8)
	{
		__m512d		t = _mm512_sub_pd(_mm512_add_pd(base, _mm512_cvtps_pd(_mm256_loadu_ps(nrm + q))),
									  _mm512_mul_pd(two, _mm512_cvtps_pd(_mm256_loadu_ps(row + q))));

		_mm256_storeu_ps(row + q, _mm512_cvtpd_ps(_mm512_sqrt_pd(_mm512_max_pd(t, zero))));
	}
	return q;
}

__attribute__((target("avx2")))
static int
gram_distances_avx2(float *row, const float *nrm, double nr, int m)
{
	const __m256d two = _mm256_set1_pd(2.0),
				zero = _mm256_setzero_pd(),
				base = _mm256_set1_pd(nr);
	int			q;

	for (q = 0; q + 4 <= m; q += 4)
	{
		__m256d		t = _mm256_sub_pd(_mm256_add_pd(base, _mm256_cvtps_pd(_mm_loadu_ps(nrm + q))),
									  _mm256_mul_pd(two, _mm256_cvtps_pd(_mm_loadu_ps(row + q))));

		_mm_storeu_ps(row + q, _mm256_cvtpd_ps(_mm256_sqrt_pd(_mm256_max_pd(t, zero))));
	}
	return q;
}
#endif

void
dac_distances_from_gram(dac_real *row, const dac_real *nrm, int m, int r)
{
	double		nr = nrm[r];
	int			q = 0;

#ifdef DAC_DIRECT_AVX2
	int			level = dac_vector_level();

	if (level == 2)
		q = gram_distances_avx512(row, nrm, nr, m);
	else if (level == 1)
		q = gram_distances_avx2(row, nrm, nr, m);
#endif
	for (; q < m; q++)
	{
		double		t = nr + nrm[q] - 2.0 * row[q];

		row[q] = (dac_real) sqrt(t > 0 ? t : 0);
	}
	row[r] = 0;
}

int
dac_softmax_rows_short(dac_real *S, int rows, int cols)
{
#ifdef DAC_DIRECT_AVX2
	if (cols >= 1 && cols <= 32 && !dac_direct_disabled && !dac_direct_avx2_only &&
		have_avx512())
	{
		softmax_short_avx512(S, rows, cols);
		return 1;
	}
#else
	(void) S;
	(void) rows;
	(void) cols;
#endif
	return 0;
}
