/*
 * test_infer.c
 *	  The inference pass (dac_net_infer) against the training pass: the same
 *	  θ, ll and logits bit for bit, for MLF and AF, with and without a density
 *	  head, one or several sets, one or several blocks; the arena it uses
 *	  stays within dac_net_infer_bytes and leaves nothing behind; it refuses
 *	  a backward pass; the clustering memory limit is enforced before any
 *	  allocation.
 */
#include "unit.h"
#include "linalg.h"
#include "cluster.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Max |a - b| / max |b|.  The row layout gives the same bits as the
 * training pass; the transposed scores (few keys) reorder a few sums.
 */
static double
relerr(const dac_real *a, const dac_real *b, size_t n)
{
	double		e = 0,
				sc = 1e-30;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		e = fmax(e, fabs((double) a[i] - b[i]));
		sc = fmax(sc, fabs((double) b[i]));
	}
	return e / sc;
}

#ifdef DAC_DOUBLE
#define INFER_TOL 1e-13
#else
#define INFER_TOL 1e-5
#endif

static void
infer_case(dac_strategy s, dac_density dens, int blocks, int shared, int B, int n, int wide)
{
	dac_config	cfg = dac_config_default(s, 3);
	dac_model	m;
	dac_rng		r;
	dac_arena	ar;
	dac_forward fw,
				fi;
	dac_real   *X;
	int		   *anchors;
	int			i,
				tdim;
	double		e_theta,
				e_ll,
				e_logits;
	double		bound;
	char		what[96];

	cfg.density = dens;
	if (!wide)
	{
		cfg.dim_hidden = 16;
		cfg.num_heads = 4;
		cfg.num_inds = 5;
		cfg.maf_hidden = 12;
		cfg.maf_context = 8;
	}
	cfg.num_blocks = blocks;
	cfg.shared_blocks = shared;
	snprintf(what, sizeof(what), "%s %s D=%d L=%d %s B=%d n=%d", s == DAC_AF ? "AF" : "MLF",
			 dac_density_name(dens), cfg.dim_hidden, blocks,
			 shared ? "shared" : "independent", B, n);
	if (unit_random_model(&m, &cfg, 7 + n, &r) != DAC_OK)
	{
		CHECK(0, "%s: model", what);
		return;
	}
	X = malloc(sizeof(dac_real) * B * n * 3);
	anchors = malloc(sizeof(int) * B);
	for (i = 0; i < B * n * 3; i++)
		X[i] = (dac_real) (6 * dac_rng_uniform(&r) - 3);
	for (i = 0; i < B; i++)
		anchors[i] = dac_rng_int(&r, n);
	tdim = dac_net_theta_dim(&m.net);

	dac_arena_init(&ar, 0);
	CHECK(dac_net_forward(&m.net, m.P, X, B, n, anchors, &ar, &fw, NULL) == DAC_OK,
		  "%s: training pass", what);

	{
		dac_arena	ai;
		dac_error	err;
		dac_real	g = 0;

		/* a small block size, so peak counts the bytes handed out */
		dac_arena_init(&ai, 64);
		CHECK(dac_net_infer(&m.net, m.P, NULL, X, B, n, anchors, &ai, &fi, NULL) == DAC_OK,
			  "%s: inference pass", what);
		e_theta = relerr(fi.theta, fw.theta, (size_t) B * tdim);
		e_ll = dens == DAC_DENSITY_NONE ? (fi.ll == NULL ? 0 : 1) : relerr(fi.ll, fw.ll, (size_t) B * n);
		e_logits = relerr(fi.logits, fw.logits, (size_t) B * n);
		CHECK(e_theta <= INFER_TOL && e_ll <= INFER_TOL && e_logits <= INFER_TOL,
			  "%s: inference equals the training pass (θ %.2g, ll %.2g, logits %.2g)",
			  what, e_theta, e_ll, e_logits);
		bound = dac_net_infer_bytes(&m.net, B, n);
		CHECK((double) ai.peak <= bound && bound <= 1.15 * ai.peak + 4096,
			  "%s: peak arena %zu bytes within the estimate %.0f (and close to it)",
			  what, ai.peak, bound);
		CHECK((double) ai.peak < 0.5 * ar.total,
			  "%s: inference keeps %zu bytes, training %zu", what, ai.peak, ar.total);
		CHECK(dac_net_backward(&m.net, m.P, &g, &fi, fi.logits, NULL, &ai, &err) == DAC_ERR_INVALID,
			  "%s: no backward pass after inference", what);

		/* the learned queries' fc_q computed once (dac_net_fixed): the same pass, bit for bit */
		{
			dac_arena	af;
			dac_forward ff;
			double		gemm0,
						saved;

			dac_model_refresh(&m);
			CHECK(m.F != NULL, "%s: derived buffer", what);
			dac_arena_init(&af, 64);
			gemm0 = dac_gemm_flops;
			dac_net_infer(&m.net, m.P, NULL, X, B, n, anchors, &af, &ff, NULL);
			saved = dac_gemm_flops - gemm0;
			dac_arena_reset_to(&af, (dac_arena_mark) {NULL, 0, 0});
			gemm0 = dac_gemm_flops;
			CHECK(dac_net_infer(&m.net, m.P, m.F, X, B, n, anchors, &af, &ff, NULL) == DAC_OK,
				  "%s: inference pass with the fixed products", what);
			saved -= dac_gemm_flops - gemm0;
			CHECK(memcmp(ff.logits, fi.logits, sizeof(dac_real) * B * n) == 0 &&
				  memcmp(ff.theta, fi.theta, sizeof(dac_real) * B * tdim) == 0,
				  "%s: the fixed products change no bit of θ or the logits", what);
			/* 2·m·D² per ISAB block and 2·D² for the pooling seed */
			CHECK(fabs(saved - 2.0 * cfg.dim_hidden * cfg.dim_hidden *
					   (2 * blocks * cfg.num_inds + 1)) < 0.5,
				  "%s: %.0f FLOPs fewer per pass", what, saved);
			CHECK((double) af.peak <= bound, "%s: within the same memory bound", what);
			dac_arena_free(&af);
		}
		dac_arena_free(&ai);
	}
	dac_arena_free(&ar);
	free(X);
	free(anchors);
	dac_model_free(&m);
}

static void
limit_case(void)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 2);
	dac_model	m;
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c;
	dac_error	err;
	dac_real   *X;
	double		need,
				need2;
	int			n = 400,
				i;
	dac_rng		r;

	cfg.dim_hidden = 16;
	cfg.num_inds = 4;
	unit_random_model(&m, &cfg, 5, &r);
	X = malloc(sizeof(dac_real) * n * 2);
	for (i = 0; i < 2 * n; i++)
		X[i] = (dac_real) dac_rng_normal(&r);
	need = dac_cluster_bytes(&m, n, m.net.cfg.dim_input, &o);
	need2 = dac_cluster_bytes(&m, 2 * n, m.net.cfg.dim_input, &o);
	CHECK(need > n * 16 * sizeof(dac_real) && need2 > 1.9 * need && need2 < 2.1 * need,
		  "cluster memory grows linearly: %.0f for %d points, %.0f for %d", need, n, need2, 2 * n);
	o.mem_limit = (size_t) need - 1;
	CHECK(dac_cluster_set(&m, X, n, m.net.cfg.dim_input, &o, &c, &err) == DAC_ERR_TOO_LARGE && c.labels == NULL,
		  "one byte under the estimate is refused before allocating: %s", err.msg);
	CHECK(strstr(err.msg, "400 points") != NULL && strstr(err.msg, "limit") != NULL,
		  "the message names the size and the limit: %s", err.msg);
	o.mem_limit = (size_t) need;
	CHECK(dac_cluster_set(&m, X, n, m.net.cfg.dim_input, &o, &c, &err) == DAC_OK && c.num_clusters >= 1,
		  "at the estimate it runs (%d clusters)", c.num_clusters);
	dac_clustering_free(&c);
	free(X);
	dac_model_free(&m);
}

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>

static unsigned hook_csr = 0xffffffffu;

static int
record_csr(void)
{
	hook_csr = _mm_getcsr();
	return 0;
}

/* The core flushes subnormals while it computes, never while the host runs. */
static void
fpu_case(void)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 2);
	dac_model	m;
	dac_rng		r;
	dac_arena	ar;
	dac_forward fw;
	dac_real	X[40];
	dac_hooks	hooks = {NULL, NULL, record_csr, NULL};
	unsigned	before = _mm_getcsr();
	volatile float tiny = 1e-40f;
	int			i;

	cfg.dim_hidden = 16;
	cfg.num_inds = 4;
	unit_random_model(&m, &cfg, 1, &r);
	for (i = 0; i < 40; i++)
		X[i] = (dac_real) dac_rng_normal(&r);
	dac_set_hooks(&hooks);
	dac_arena_init(&ar, 0);
	dac_net_infer(&m.net, m.P, NULL, X, 1, 20, NULL, &ar, &fw, NULL);
	dac_arena_free(&ar);
	dac_set_hooks(NULL);
	CHECK(hook_csr != 0xffffffffu && (hook_csr & DAC_FPU_FLUSH) == 0,
		  "the interrupt hook runs with the host's float mode (MXCSR %#x)", hook_csr);
	CHECK(_mm_getcsr() == before && tiny * 1.0f > 0,
		  "after a pass the host's float mode is back and subnormals work");
	{
		unsigned	s = dac_fpu_enter();

		CHECK(tiny * 1.0f == 0, "inside dac_fpu_enter subnormals flush to zero");
		dac_fpu_leave(s);
	}
	dac_model_free(&m);
}
#else
static void
fpu_case(void)
{
}
#endif

void
test_infer(void)
{
	static const int ns[] = {1, 2, 37};
	int			k,
				s;

	for (s = 0; s < 2; s++)
		for (k = 0; k < 3; k++)
		{
			infer_case(s ? DAC_AF : DAC_MLF, DAC_DENSITY_GAUSSIAN, 4, 1, 1, ns[k], 0);
			infer_case(s ? DAC_AF : DAC_MLF, DAC_DENSITY_NONE, 3, 0, 2, ns[k], 0);
		}
	infer_case(DAC_MLF, DAC_DENSITY_GAUSSIAN, 1, 1, 3, 50, 0);
	infer_case(DAC_AF, DAC_DENSITY_GAUSSIAN, 2, 0, 1, 300, 0);
	infer_case(DAC_MLF, DAC_DENSITY_GAUSSIAN, 4, 1, 1, 1000, 0);
	/* the flow: tiny sets, and chunks of rows that cross set boundaries */
	for (k = 0; k < 3; k++)
		infer_case(k == 1 ? DAC_AF : DAC_MLF, DAC_DENSITY_MAF, 2, 1, 1, ns[k], 0);
	infer_case(DAC_MLF, DAC_DENSITY_MAF, 2, 0, 3, 300, 0);
	infer_case(DAC_AF, DAC_DENSITY_MAF, 4, 1, 1, 700, 1);
	/* the shipped shape: 128 wide, 32 inducing points (transposed scores) */
	infer_case(DAC_MLF, DAC_DENSITY_GAUSSIAN, 4, 1, 1, 700, 1);
	infer_case(DAC_AF, DAC_DENSITY_GAUSSIAN, 4, 1, 2, 300, 1);
	limit_case();
	fpu_case();
}
