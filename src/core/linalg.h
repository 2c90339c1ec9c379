/*
 * linalg.h
 *	  Row-major matrix products through CBLAS, with a naive reference path.
 */
#ifndef DAC_LINALG_H
#define DAC_LINALG_H

#include "core.h"

/*
 * C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C, all row-major.
 * transA/transB nonzero mean op(X) = Xᵀ.  With beta == 0, C is not read.
 */
extern void dac_gemm(int transA, int transB, int M, int N, int K, dac_real alpha,
					 const dac_real *A, int lda, const dac_real *B, int ldb,
					 dac_real beta, dac_real *C, int ldc);

/* The same product by plain loops (double accumulation): the reference. */
extern void dac_gemm_naive(int transA, int transB, int M, int N, int K, dac_real alpha,
						   const dac_real *A, int lda, const dac_real *B, int ldb,
						   dac_real beta, dac_real *C, int ldc);

/*
 * The same product without packing (direct.c), for thin products: op(A) is
 * read where it lies, B row by row.  A transposed B is copied once, on the
 * stack, when K·N <= DAC_DIRECT_MAX_PACK and K·N <= 8·M; otherwise, without
 * AVX2+FMA, in float64 or when dac_direct_disabled is set it is dac_gemm.
 * Agrees with dac_gemm to rounding.
 */
#define DAC_DIRECT_MAX_PACK 4096
extern void dac_gemm_direct(int transA, int transB, int M, int N, int K, dac_real alpha,
							const dac_real *A, int lda, const dac_real *B, int ldb,
							dac_real beta, dac_real *C, int ldc);
/* Whether dac_gemm_direct has its own kernel here (and is not disabled). */
extern int	dac_direct_available(void);
/* Nonzero sends dac_gemm_direct to dac_gemm and declines the short softmax (benchmarks). */
extern int	dac_direct_disabled;
/* Nonzero keeps dac_gemm_direct to its AVX2 kernel on an AVX-512 CPU (tests). */
extern int	dac_direct_avx2_only;

/*
 * Softmax along each row of S [rows, cols] in place, for rows of 1 to 32
 * columns on an AVX-512 CPU (a row in two registers); returns 0, leaving S
 * alone, where it does not apply.
 */
extern int	dac_softmax_rows_short(dac_real *S, int rows, int cols);
/*
 * Row r of the distances among m rows from row r of their Gram matrix
 * (row [m], in place) and their squared lengths nrm [m]:
 * sqrt(max(nrm [r] + nrm [q] − 2·row [q], 0)) in double, rounded, and 0 at
 * q = r.  The same values as that scalar loop, to the bit, eight or four at
 * a time where the CPU has AVX-512 or AVX2.
 */
extern void dac_distances_from_gram(dac_real *row, const dac_real *nrm, int m, int r);

/*
 * Y [n, d] = X [n, d] Lᵀ for L [d, d] zero above its diagonal (a whitening
 * map: whiten.h), row-major, X and Y distinct: BLAS's triangular product,
 * half a general one's work (plain loops under dac_gemm_use_naive or
 * without the library).  Counts n·d² in dac_gemm_flops.
 */
extern void dac_rows_times_lower_t(int n, int d, const dac_real *L, const dac_real *X, dac_real *Y);
/* 1 when M [d, d] is zero above its diagonal. */
extern int	dac_lower_triangular(const dac_real *M, int d);

/* When nonzero, dac_gemm routes through dac_gemm_naive (tests only). */
extern int	dac_gemm_use_naive;

/* Matrix-product FLOPs counted by dac_gemm since the last reset (2·M·N·K each). */
extern double dac_gemm_flops;

#endif							/* DAC_LINALG_H */
