/*
 * linalg.c
 *	  The one place the core calls BLAS.
 */
#include "linalg.h"

#include <cblas.h>

int			dac_gemm_use_naive = 0;
double		dac_gemm_flops = 0.0;

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
	if (dac_gemm_use_naive || K <= 0)
	{
		dac_gemm_naive(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
		return;
	}
#ifdef DAC_DOUBLE
	cblas_dgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
				transB ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
				beta, C, ldc);
#else
	cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
				transB ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
				beta, C, ldc);
#endif
}
