/*
 * linalg.c
 *	  The one place the core calls BLAS.
 */
#include "linalg.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#ifdef DAC_BLAS_RUNTIME
/*
 * Built into a host that loads OpenBLAS itself (the PostgreSQL module): the
 * library is opened by dac_blas_open, after OPENBLAS_CORETYPE is set for this
 * CPU, because OpenBLAS 0.3.21 reads its CPU type once, when it is loaded,
 * and takes some AVX-512 virtual machines for an SSE3 "Prescott" (4-5x slower
 * sgemm).  Nothing links against it, so the host loads even without it and
 * the first product reports the problem.
 */
#include <dlfcn.h>

static __typeof__(&cblas_sgemm) p_sgemm;
static __typeof__(&cblas_dgemm) p_dgemm;
static __typeof__(&cblas_strmm) p_strmm;
static __typeof__(&cblas_dtrmm) p_dtrmm;
static void (*p_set_threads) (int);
static char *(*p_corename) (void);
static char blas_error[256];

#define SGEMM p_sgemm
#define DGEMM p_dgemm
#define STRMM p_strmm
#define DTRMM p_dtrmm
#else
#define SGEMM cblas_sgemm
#define DGEMM cblas_dgemm
#define STRMM cblas_strmm
#define DTRMM cblas_dtrmm
#endif

/* The OpenBLAS core type this CPU should use, or NULL to leave the choice. */
const char *
dac_blas_wanted_coretype(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return "SkylakeX";
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return "Haswell";
#endif
	return NULL;
}

#ifdef DAC_BLAS_RUNTIME
int
dac_blas_open(void)
{
	static const char *const names[] = {"libopenblas.so.0", "libopenblas.so", NULL};
	const char *want = dac_blas_wanted_coretype();
	void	   *h = NULL;
	int			i;

	if (p_sgemm != NULL)
		return 1;
	if (want != NULL && getenv("OPENBLAS_CORETYPE") == NULL)
		setenv("OPENBLAS_CORETYPE", want, 0);

	/*
	 * OpenBLAS starts its worker threads as it loads, one a core unless the
	 * environment says otherwise, and each spins a while (yielding) before
	 * it sleeps: every backend that loads it would spend the other cores on
	 * them, though dac.blas_threads is 1 by default.  Loaded with one
	 * thread, it starts more when openblas_set_num_threads asks.
	 */
	if (getenv("OPENBLAS_NUM_THREADS") == NULL && getenv("GOTO_NUM_THREADS") == NULL &&
		getenv("OMP_NUM_THREADS") == NULL)
		setenv("OPENBLAS_NUM_THREADS", "1", 0);
	for (i = 0; names[i] && h == NULL; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
	{
		const char *e = dlerror();

		strncpy(blas_error, e ? e : "libopenblas.so.0 not found", sizeof(blas_error) - 1);
		return 0;
	}
	p_dgemm = (__typeof__(p_dgemm)) dlsym(h, "cblas_dgemm");
	p_set_threads = (void (*) (int)) dlsym(h, "openblas_set_num_threads");
	p_corename = (char *(*) (void)) dlsym(h, "openblas_get_corename");
	p_strmm = (__typeof__(p_strmm)) dlsym(h, "cblas_strmm");
	p_dtrmm = (__typeof__(p_dtrmm)) dlsym(h, "cblas_dtrmm");
	p_sgemm = (__typeof__(p_sgemm)) dlsym(h, "cblas_sgemm");
	if (p_sgemm == NULL || p_dgemm == NULL)
	{
		p_sgemm = NULL;
		strncpy(blas_error, "libopenblas has no cblas_sgemm", sizeof(blas_error) - 1);
		return 0;
	}
	return 1;
}

const char *
dac_blas_error(void)
{
	return blas_error;
}

void
dac_blas_set_threads(int n)
{
	if (p_set_threads)
		p_set_threads(n);
}

const char *
dac_blas_corename(void)
{
	return p_corename ? p_corename() : "not loaded";
}
#else
int
dac_blas_open(void)
{
	return 1;
}

const char *
dac_blas_error(void)
{
	return "";
}

void
dac_blas_set_threads(int n)
{
	openblas_set_num_threads(n);
}

const char *
dac_blas_corename(void)
{
	return openblas_get_corename();
}
#endif

int			dac_gemm_use_naive = 0;
double		dac_gemm_flops = 0.0;

/* Whether the products go to BLAS: not under dac_gemm_use_naive, nor without the library. */
static int
blas_ready(void)
{
	if (dac_gemm_use_naive)
		return 0;
#ifdef DAC_BLAS_RUNTIME
	if (p_sgemm == NULL)
		dac_blas_open();
	/* without the library (dac_blas_open failed; the host says so): plain loops */
	return p_sgemm != NULL;
#else
	return 1;
#endif
}

void
dac_gemm_naive(int transA, int transB, int M, int N, int K, dac_real alpha,
			   const dac_real *A, int lda, const dac_real *B, int ldb,
			   dac_real beta, dac_real *C, int ldc)
{
	int			i,
				j,
				k;

	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++)
		{
			double		acc = 0.0;

			for (k = 0; k < K; k++)
			{
				double		a = transA ? A[(size_t) k * lda + i] : A[(size_t) i * lda + k];
				double		b = transB ? B[(size_t) j * ldb + k] : B[(size_t) k * ldb + j];

				acc += a * b;
			}
			if (beta == 0)
				C[(size_t) i * ldc + j] = (dac_real) (alpha * acc);
			else
				C[(size_t) i * ldc + j] = (dac_real) (alpha * acc + beta * C[(size_t) i * ldc + j]);
		}
}

void
dac_gemm(int transA, int transB, int M, int N, int K, dac_real alpha,
		 const dac_real *A, int lda, const dac_real *B, int ldb,
		 dac_real beta, dac_real *C, int ldc)
{
	if (M <= 0 || N <= 0)
		return;
	dac_gemm_flops += 2.0 * M * N * K;
	if (K <= 0 || !blas_ready())
	{
		dac_gemm_naive(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
		return;
	}
#ifdef DAC_DOUBLE
	DGEMM(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
				transB ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
				beta, C, ldc);
#else
	SGEMM(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
				transB ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
				beta, C, ldc);
#endif
}

void
dac_rows_times_lower_t(int n, int d, const dac_real *L, const dac_real *X, dac_real *Y)
{
	int			i,
				j,
				k;
	int			blas;

	if (n <= 0 || d <= 0)
		return;
	dac_gemm_flops += 1.0 * n * d * d;
	blas = blas_ready();
#ifdef DAC_BLAS_RUNTIME
#ifdef DAC_DOUBLE
	blas = blas && p_dtrmm != NULL;
#else
	blas = blas && p_strmm != NULL;
#endif
#endif
	if (blas)
	{
		/* Y = X, then Y := Y Lᵀ in place */
		memcpy(Y, X, sizeof(dac_real) * (size_t) n * d);
#ifdef DAC_DOUBLE
		DTRMM(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, n, d, 1.0, L, d, Y, d);
#else
		STRMM(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, n, d, 1.0f, L, d, Y, d);
#endif
		return;
	}
	/* (X Lᵀ)_ij = Σ_{k <= j} X_ik L_jk: L is zero above its diagonal */
	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++)
		{
			double		acc = 0.0;

			for (k = 0; k <= j; k++)
				acc += (double) X[(size_t) i * d + k] * L[(size_t) j * d + k];
			Y[(size_t) i * d + j] = (dac_real) acc;
		}
}

int
dac_lower_triangular(const dac_real *M, int d)
{
	int			i,
				j;

	for (i = 0; i < d; i++)
		for (j = i + 1; j < d; j++)
			if (M[(size_t) i * d + j] != 0)
				return 0;
	return 1;
}
