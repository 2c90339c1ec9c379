/*
 * bench.c
 *	  Speed of the core against OpenBLAS sgemm measured in the same run, on
 *	  one thread:
 *	  - sgemm GFLOP/s: large square (1024³) and the network's own shape
 *	    (1000 x 128 x 128);
 *	  - MLF forward pass GFLOP/s for n = 1000 and n = 3000 (matrix FLOPs
 *	    counted by dac_net_forward_flops; 1.38 GFLOP at n = 1000);
 *	  - one training step at B = 10, n = 1000 (MLF, reference sizes).
 *	  Prints a markdown table.  Each figure is the best of several runs.
 *	  DAC_BENCH_AVX2=1 OPENBLAS_CORETYPE=Haswell: as on an AVX2-only CPU.
 */
#include "linalg.h"
#include "loss.h"
#include "model.h"
#include "train.h"

#include <cblas.h>
#include "../../src/cli/blas_env.h"
#include "../../src/cli/read_file.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
bench_sgemm(int M, int N, int K, int reps)
{
	float	   *A = malloc(sizeof(float) * M * K),
			   *B = malloc(sizeof(float) * K * N),
			   *C = malloc(sizeof(float) * M * N);
	double		best = 1e30;
	int			i,
				r;

	for (i = 0; i < M * K; i++)
		A[i] = (float) (i % 13) * 0.01f;
	for (i = 0; i < K * N; i++)
		B[i] = (float) (i % 7) * 0.02f;
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1, A, K, B, K, 0, C, N);
	for (r = 0; r < reps; r++)
	{
		double		t = now();

		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1, A, K, B, K, 0, C, N);
		t = now() - t;
		best = t < best ? t : best;
	}
	free(A);
	free(B);
	free(C);
	return 2.0 * M * N * K / best / 1e9;
}

int
main(int argc, char **argv)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 2);
	dac_model	m;
	dac_rng		r;
	dac_arena	ar;
	double		peak,
				shape_rate;
	int			sizes[2] = {1000, 3000},
				s;
	int			steps = argc > 1 ? atoi(argv[1]) : 3;

	dac_fix_blas_coretype(argv);
	/*
	 * DAC_BENCH_AVX2=1: dac's kernels as on a CPU without AVX-512 (run with
	 * OPENBLAS_CORETYPE=Haswell for OpenBLAS's side of such a CPU).
	 */
	if (getenv("DAC_BENCH_AVX2") && strcmp(getenv("DAC_BENCH_AVX2"), "1") == 0)
		dac_direct_avx2_only = 1;
	openblas_set_num_threads(1);
	dac_model_create(&m, &cfg, NULL);
	dac_rng_seed(&r, 1);
	dac_net_init_params(&m.net, m.P, &r);
	dac_model_refresh(&m);
	dac_arena_init(&ar, 0);

	peak = bench_sgemm(1024, 1024, 1024, 5);
	shape_rate = bench_sgemm(1000, 128, 128, 50);
	printf("| measurement | figure |\n|---|---|\n");
	printf("| OpenBLAS sgemm 1024x1024x1024, 1 thread | %.1f GFLOP/s |\n", peak);
	printf("| OpenBLAS sgemm 1000x128x128 (the network's shape) | %.1f GFLOP/s |\n", shape_rate);

	for (s = 0; s < 2; s++)
	{
		int			n = sizes[s],
					i,
					rep,
					mode;
		dac_real   *X = malloc(sizeof(dac_real) * n * 2);
		double		flops;
		dac_forward fw;

		for (i = 0; i < 2 * n; i++)
			X[i] = (dac_real) (3 * (2 * dac_rng_uniform(&r) - 1));
		/*
		 * mode 0: inference, as clustering runs it; 1: keeping activations
		 * for training; 2: inference with the attention products through
		 * OpenBLAS instead of the direct kernels (what they buy)
		 */
		for (mode = 0; mode < 3; mode++)
		{
			double		best = 1e30;

			dac_direct_disabled = mode == 2;

			/* the products each pass runs (inference skips the inducing points' fc_q) */
			flops = dac_gemm_flops;
			if (mode != 1)
				dac_net_infer(&m.net, m.P, m.F, X, 1, n, NULL, &ar, &fw, NULL);
			else
				dac_net_forward(&m.net, m.P, X, 1, n, NULL, &ar, &fw, NULL);
			flops = dac_gemm_flops - flops;

			for (rep = 0; rep < 8; rep++)
			{
				double		t = now();

				if (mode != 1)
					dac_net_infer(&m.net, m.P, m.F, X, 1, n, NULL, &ar, &fw, NULL);
				else
					dac_net_forward(&m.net, m.P, X, 1, n, NULL, &ar, &fw, NULL);
				t = now() - t;
				{
					/* drop the pass; the arena keeps one block for the next */
					dac_arena_mark empty = {NULL, 0, 0};

					dac_arena_reset_to(&ar, empty);
				}
				if (rep > 0)
					best = t < best ? t : best;
			}
			printf("| MLF forward%s, n = %d (%.3f GFLOP) | %.1f ms, %.1f GFLOP/s = %.0f%% of sgemm 1024³ |\n",
				   mode == 0 ? " (inference)" : mode == 1 ? " keeping activations (training)" :
				   " (inference), direct kernels off (attention through OpenBLAS)",
				   n, flops / 1e9, best * 1e3, flops / best / 1e9, 100 * flops / best / 1e9 / peak);
		}
		dac_direct_disabled = 0;
		free(X);
	}

	/*
	 * Training steps from fresh weights, then from the shipped MLF's trained
	 * weights with subnormals flushed (as always) and, to show what that
	 * buys, without.
	 */
	{
		size_t		wlen = 0;
		uint8_t    *wbuf = dac_read_file("weights/mlf_mog2d.safetensors", &wlen);
		dac_model	trained;
		int			have = wbuf && dac_model_load(&trained, wbuf, wlen, NULL) == DAC_OK;
		int			run;

		for (run = 0; run < 4; run++)
		{
			dac_train_opts to = dac_train_opts_default();
			dac_trainer tr;
			dac_loss_parts p;
			dac_model	mm;
			double		best = 1e30;
			int			i;
			static const char *const what[] = {
				"initial weights", "shipped mlf_mog2d weights",
				"shipped mlf_mog2d weights, subnormals not flushed",
				"initial weights, direct kernels off (attention through OpenBLAS)"};

			if (run > 0 && run < 3 && !have)
				continue;
			to.batch = 10;
			to.n_max = 1000;
			to.fixed_n = 1;
			to.steps = 1000;
			dac_model_create(&mm, &m.net.cfg, NULL);
			memcpy(mm.P, run == 0 || run == 3 ? m.P : trained.P, sizeof(dac_real) * mm.net.nparams);
			dac_fpu_flush = run != 2;
			dac_direct_disabled = run == 3;
			dac_trainer_init(&tr, &mm, &to, 0, NULL);
			for (i = 0; i < steps; i++)
			{
				double		t = now();

				dac_trainer_step(&tr, &p, NULL);
				t = now() - t;
				best = t < best ? t : best;
			}
			printf("| MLF training step, B = 10, n = 1000, %s | %.2f s (%.2f steps/s) |\n",
				   what[run], best, 1 / best);
			dac_trainer_free(&tr);
			dac_model_free(&mm);
		}
		dac_fpu_flush = 1;
		dac_direct_disabled = 0;
		if (have)
			dac_model_free(&trained);
		free(wbuf);
	}
	dac_arena_free(&ar);
	dac_model_free(&m);
	return 0;
}
