/*
 * test_setnorm.c
 *	  Set normalisation (setnorm.h): the eigen-solver on matrices worked out
 *	  by hand, a PCA worked out by hand, invariance to the rows' order and to
 *	  a rotation, shift and scaling of the space, the block method against
 *	  the exact one, degenerate sets; the embed generator; and clustering
 *	  with a model that takes any width.
 */
#include "unit.h"
#include "cluster.h"
#include "gen.h"
#include "setnorm.h"
#include "linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef DAC_DOUBLE
#define TOL 1e-9
#else
#define TOL 2e-4
#endif

static void
eigen_by_hand(void)
{
	/* [[2,1,0],[1,2,0],[0,0,5]]: 5 (e3), 3 ((e1+e2)/√2), 1 ((e1−e2)/√2) */
	double		A[9] = {2, 1, 0, 1, 2, 0, 0, 0, 5},
				ev[3],
				V[9];
	double		s = 1 / sqrt(2.0);

	dac_sym_eigen(A, 3, ev, V);
	CHECK(fabs(ev[0] - 5) < 1e-12 && fabs(ev[1] - 3) < 1e-12 && fabs(ev[2] - 1) < 1e-12,
		  "eigenvalues 5, 3, 1 in decreasing order: %g %g %g", ev[0], ev[1], ev[2]);
	CHECK(fabs(fabs(V[2 * 3 + 0]) - 1) < 1e-12 && fabs(fabs(V[0 * 3 + 1]) - s) < 1e-12 &&
		  fabs(V[0 * 3 + 1] - V[1 * 3 + 1]) < 1e-12 && fabs(V[0 * 3 + 2] + V[1 * 3 + 2]) < 1e-12,
		  "eigenvectors e3, (e1+e2)/√2, (e1−e2)/√2");
}

static void
pca_by_hand(void)
{
	/*
	 * Four points (4,1), (−2,1), (1,3), (1,−1) around (1,1): offsets (±3,0)
	 * and (0,±2).  Covariance diag(4.5, 2): the first component is x − 1,
	 * the second y − 1; the mean squared length is (9+9+4+4)/4 = 6.5, so
	 * Z = offsets / √6.5, signs making Σz³ ≥ 0 (both sums are 0 here: kept
	 * as the eigen-solver gives them, so compare magnitudes), padded to 3.
	 */
	dac_real	X[8] = {4, 1, -2, 1, 1, 3, 1, -1},
				Z[12];
	double		r = sqrt(6.5);
	int			ok = 1,
				i;
	double		want[4][2] = {{3, 0}, {-3, 0}, {0, 2}, {0, -2}};

	CHECK(dac_setnorm(X, 4, 2, 3, Z, NULL) == DAC_OK, "a 2-D set normalises to width 3");
	for (i = 0; i < 4; i++)
		ok &= fabs(fabs(Z[i * 3 + 0]) - fabs(want[i][0]) / r) < TOL &&
			fabs(fabs(Z[i * 3 + 1]) - fabs(want[i][1]) / r) < TOL && Z[i * 3 + 2] == 0;
	CHECK(ok, "coordinates on the principal axes over the RMS length √6.5, third column zero");

	/* a skewed set: the sign makes the third moment positive */
	{
		dac_real	Y[5] = {0, 0, 0, 0, 10},
					W[5];

		dac_setnorm(Y, 5, 1, 1, W, NULL);
		CHECK(W[4] > 0 && fabs(W[4] - 2.0) < TOL && fabs(W[0] + 0.5) < TOL,
			  "1-D {0,0,0,0,10}: the outlier positive, z = (−0.5 ×4, 2): %g %g", W[0], W[4]);
	}
}

/* Columns of A [n, w] equal those of B up to tol (max abs). */
static double
max_diff(const dac_real *A, const dac_real *B, size_t count)
{
	double		m = 0;
	size_t		i;

	for (i = 0; i < count; i++)
		if (fabs((double) A[i] - B[i]) > m)
			m = fabs((double) A[i] - B[i]);
	return m;
}

/* n points in d dims with spread decaying along the axes, then rotated. */
static void
skewed_cloud(dac_rng *r, int n, int d, dac_real *X)
{
	int			i,
				k;

	for (i = 0; i < n; i++)
		for (k = 0; k < d; k++)
		{
			double		e = dac_rng_gamma(r, 1.0 + k) - (1.0 + k);	/* skewed, distinct spreads */

			X[(size_t) i * d + k] = (dac_real) (e * pow(0.7, k) * 2);
		}
}

/* y = s·R x + t with a random orthogonal R (Householder reflections). */
static void
transform(dac_rng *r, const dac_real *X, int n, int d, double s, dac_real *Y)
{
	double	   *v = malloc(sizeof(double) * d),
			   *t = malloc(sizeof(double) * d);
	int			i,
				k,
				h;

	for (k = 0; k < d; k++)
		t[k] = 5 * dac_rng_normal(r);
	for (i = 0; i < n * d; i++)
		Y[i] = X[i];
	for (h = 0; h < 3; h++)
	{
		double		nv = 0;

		for (k = 0; k < d; k++)
		{
			v[k] = dac_rng_normal(r);
			nv += v[k] * v[k];
		}
		for (i = 0; i < n; i++)
		{
			double		dot = 0;

			for (k = 0; k < d; k++)
				dot += v[k] * Y[(size_t) i * d + k];
			for (k = 0; k < d; k++)
				Y[(size_t) i * d + k] = (dac_real) (Y[(size_t) i * d + k] - 2 * dot / nv * v[k]);
		}
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < d; k++)
			Y[(size_t) i * d + k] = (dac_real) (s * Y[(size_t) i * d + k] + t[k]);
	free(v);
	free(t);
}

static void
invariance(void)
{
	int			n = 200,
				d = 6,
				w = 8,
				i;
	dac_rng		r;
	dac_real   *X = malloc(sizeof(dac_real) * n * d),
			   *Y = malloc(sizeof(dac_real) * n * d),
			   *P = malloc(sizeof(dac_real) * n * d),
			   *Z1 = malloc(sizeof(dac_real) * n * w),
			   *Z2 = malloc(sizeof(dac_real) * n * w),
			   *Z3 = malloc(sizeof(dac_real) * n * w);
	double		rms = 0,
				s3min = 1;
	int			k;

	dac_rng_seed(&r, 5);
	skewed_cloud(&r, n, d, X);
	transform(&r, X, n, d, 7.5, Y);
	/* reversed order */
	for (i = 0; i < n; i++)
		memcpy(P + (size_t) i * d, X + (size_t) (n - 1 - i) * d, sizeof(dac_real) * d);
	dac_setnorm(X, n, d, w, Z1, NULL);
	dac_setnorm(Y, n, d, w, Z2, NULL);
	dac_setnorm(P, n, d, w, Z3, NULL);
	CHECK(max_diff(Z1, Z2, (size_t) n * w) < 50 * TOL,
		  "the same Z after a rotation, a shift and a scaling by 7.5 (max diff %.2g)",
		  max_diff(Z1, Z2, (size_t) n * w));
	for (i = 0; i < n; i++)
		memcpy(Z2 + (size_t) i * w, Z3 + (size_t) (n - 1 - i) * w, sizeof(dac_real) * w);
	CHECK(max_diff(Z1, Z2, (size_t) n * w) < 10 * TOL, "the same Z row for row in reversed order (max diff %.2g)",
		  max_diff(Z1, Z2, (size_t) n * w));
	for (i = 0; i < n * w; i++)
		rms += (double) Z1[i] * Z1[i];
	for (k = 0; k < d; k++)
	{
		double		s3 = 0,
					s1 = 0;

		for (i = 0; i < n; i++)
		{
			s3 += pow(Z1[(size_t) i * w + k], 3);
			s1 += Z1[(size_t) i * w + k];
		}
		s3min = s3 < s3min ? s3 : s3min;
		CHECK(fabs(s1) < 1e-3, "column %d is centred (sum %.2g)", k, s1);
	}
	CHECK(fabs(rms / n - 1) < 1e-4, "mean squared length 1 (%.6f)", rms / n);
	CHECK(s3min >= 0, "every column's third moment is non-negative");
	CHECK(Z1[(size_t) 3 * w + 6] == 0 && Z1[(size_t) 3 * w + 7] == 0, "columns d .. w−1 are zero");
	free(X);
	free(Y);
	free(P);
	free(Z1);
	free(Z2);
	free(Z3);
}

/* The block method (d > w + 8) finds the exact method's leading columns. */
static void
block_method(void)
{
	int			n = 300,
				d = 120,
				w = 4,
				i,
				k;
	dac_rng		r;
	dac_real   *X = malloc(sizeof(dac_real) * n * d),
			   *Y = malloc(sizeof(dac_real) * n * d),
			   *Zb = malloc(sizeof(dac_real) * n * w),
			   *Ze = malloc(sizeof(dac_real) * n * d);
	double		worst = 1;

	dac_rng_seed(&r, 9);
	/* three strong directions (spreads 6, 4, 2.5) in noise of 0.3, rotated */
	for (i = 0; i < n; i++)
		for (k = 0; k < d; k++)
			X[(size_t) i * d + k] = (dac_real) (dac_rng_normal(&r) *
												(k == 0 ? 6 : k == 1 ? 4 : k == 2 ? 2.5 : 0.3));
	transform(&r, X, n, d, 1, Y);
	CHECK(dac_setnorm(Y, n, d, w, Zb, NULL) == DAC_OK, "the block method runs (d 120, w 4)");
	dac_setnorm(Y, n, d, d, Ze, NULL);
	for (k = 0; k < 3; k++)
	{
		double		dot = 0,
					nb = 0,
					ne = 0;

		for (i = 0; i < n; i++)
		{
			dot += (double) Zb[(size_t) i * w + k] * Ze[(size_t) i * d + k];
			nb += (double) Zb[(size_t) i * w + k] * Zb[(size_t) i * w + k];
			ne += (double) Ze[(size_t) i * d + k] * Ze[(size_t) i * d + k];
		}
		if (dot / sqrt(nb * ne) < worst)
			worst = dot / sqrt(nb * ne);
	}
	CHECK(worst > 0.9999, "its three leading columns match the exact ones, signs included (cosine %.6f)", worst);
	free(X);
	free(Y);
	free(Zb);
	free(Ze);
}

static void
degenerate(void)
{
	dac_real	one[3] = {1, 2, 3},
				same[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3},
				Z[16];
	int			i,
				ok = 1;

	CHECK(dac_setnorm(one, 1, 3, 4, Z, NULL) == DAC_OK, "a single point normalises");
	for (i = 0; i < 4; i++)
		ok &= Z[i] == 0;
	CHECK(ok, "to zeros");
	CHECK(dac_setnorm(same, 4, 3, 4, Z, NULL) == DAC_OK, "identical points normalise");
	for (i = 0, ok = 1; i < 16; i++)
		ok &= Z[i] == 0;
	CHECK(ok, "to zeros, not NaN");
	CHECK(dac_setnorm(same, 0, 3, 4, Z, NULL) == DAC_ERR_INVALID, "an empty set is refused");
	CHECK(dac_setnorm_bytes(1000, 1536, 32) < 1.3 * 1000 * 1536 * sizeof(dac_real),
		  "scratch for 1000 × 1536 → 32 is within 1.3 copies of the set (%.0f bytes)",
		  dac_setnorm_bytes(1000, 1536, 32));
}

static void
embed_generator(void)
{
	int			B = 50,
				n = 200,
				d = 16,
				b,
				i,
				ok = 1,
				same;
	dac_rng		r1,
				r2;
	dac_real   *X = malloc(sizeof(dac_real) * B * n * d),
			   *X2 = malloc(sizeof(dac_real) * B * n * d);
	int		   *y = malloc(sizeof(int) * B * n),
			   *y2 = malloc(sizeof(int) * B * n),
				k[50];
	int			kc[5] = {0};

	dac_rng_seed(&r1, 3);
	dac_rng_seed(&r2, 3);
	CHECK(dac_generate(DAC_GEN_EMBED, &r1, B, n, 4, d, X, y, k, NULL) == DAC_OK, "embed sets generate");
	dac_generate(DAC_GEN_EMBED, &r2, B, n, 4, d, X2, y2, NULL, NULL);
	same = memcmp(X, X2, sizeof(dac_real) * B * n * d) == 0 && memcmp(y, y2, sizeof(int) * B * n) == 0;
	CHECK(same, "the same seed gives the same sets");
	for (i = 0; i < B * n * d; i++)
		ok &= isfinite(X[i]);
	CHECK(ok, "every coordinate is finite");
	for (b = 0, ok = 1; b < B; b++)
	{
		int			mx = 0;

		for (i = 0; i < n; i++)
		{
			ok &= y[b * n + i] >= 0 && y[b * n + i] < k[b];
			mx = y[b * n + i] > mx ? y[b * n + i] : mx;
		}
		ok &= mx == k[b] - 1;
		kc[k[b]]++;
	}
	CHECK(ok, "labels are 0 .. k−1, every one used");
	CHECK(kc[1] > 0 && kc[4] > 0, "k spans 1 .. 4 (k=1: %d sets, k=4: %d)", kc[1], kc[4]);
	free(X);
	free(X2);
	free(y);
	free(y2);
}

/* an allocator whose blocks hold NaN until written (all bits set) */
static void *
nan_alloc(size_t size)
{
	void	   *p = malloc(size);

	if (p)
		memset(p, 0xff, size);
	return p;
}

/*
 * Fewer points than the block's directions (n <= w + 8 < d): the Gram route
 * gives the exact method's columns, signs included, zeros beyond the n − 1
 * the centred points span, and no product through dac_gemm.
 */
static void
gram_route(void)
{
	int			n = 20,
				d = 384,
				w = 32,
				i,
				k;
	dac_rng		r;
	dac_real   *X = malloc(sizeof(dac_real) * n * d),
			   *Y = malloc(sizeof(dac_real) * n * d),
			   *Zg = malloc(sizeof(dac_real) * n * w),
			   *Zr = malloc(sizeof(dac_real) * n * w),
			   *Ze = malloc(sizeof(dac_real) * n * d);
	double		worst = 1,
				gemm0,
				zero = 0;

	dac_rng_seed(&r, 21);
	for (i = 0; i < n; i++)
		for (k = 0; k < d; k++)
			X[(size_t) i * d + k] = (dac_real) (dac_rng_normal(&r) * (k < 3 ? 5.0 / (k + 1) : 0.2) +
												(i < n / 2 && k == 5 ? 4 : 0));
	transform(&r, X, n, d, 1, Y);
	gemm0 = dac_gemm_flops;
	CHECK(dac_setnorm(Y, n, d, w, Zg, NULL) == DAC_OK, "20 points of width 384 normalise to 32 columns");
	CHECK(dac_gemm_flops == gemm0 && dac_setnorm_flops(n, d, w) == 0,
		  "through the 20 x 20 Gram matrix, no product through dac_gemm");
	dac_setnorm(Y, n, d, d, Ze, NULL);
	for (k = 0; k < n - 1; k++)
	{
		double		dot = 0,
					ng = 0,
					ne = 0;

		for (i = 0; i < n; i++)
		{
			dot += (double) Zg[(size_t) i * w + k] * Ze[(size_t) i * d + k];
			ng += (double) Zg[(size_t) i * w + k] * Zg[(size_t) i * w + k];
			ne += (double) Ze[(size_t) i * d + k] * Ze[(size_t) i * d + k];
		}
		if (dot / sqrt(ng * ne) < worst)
			worst = dot / sqrt(ng * ne);
	}
	for (i = 0; i < n; i++)
		for (k = n - 1; k < w; k++)
			zero = fmax(zero, fabs((double) Zg[(size_t) i * w + k]));
	CHECK(worst > 0.9999, "its 19 columns match the exact method's, signs included (cosine %.6f)", worst);
	CHECK(zero < 1e-3, "columns 19 .. 31 are zero (largest %.2g)", zero);
	/* reversed rows: the same rows of Z, reversed */
	for (i = 0; i < n; i++)
		memcpy(X + (size_t) i * d, Y + (size_t) (n - 1 - i) * d, sizeof(dac_real) * d);
	dac_setnorm(X, n, d, w, Zr, NULL);
	worst = 0;
	for (i = 0; i < n; i++)
		for (k = 0; k < 8; k++)
			worst = fmax(worst, fabs((double) Zr[(size_t) (n - 1 - i) * w + k] - Zg[(size_t) i * w + k]));
	CHECK(worst < 1e-4, "and the same Z row for row in reversed order (max diff %.2g on the leading 8 columns)", worst);
	/*
	 * Fewer points than the columns kept (n < w): the columns beyond n come
	 * from nothing.  With every allocation filled with NaN (memory a host
	 * gives back as it was) the output must still be finite: the columns
	 * beyond the Gram matrix's were once read past it and multiplied by 0.
	 */
	{
		dac_hooks	nan_fill = {nan_alloc, free, NULL, NULL};
		int			small = 10,
					bad = 0;
		dac_status	st;

		dac_set_hooks(&nan_fill);
		st = dac_setnorm(Y, small, d, w, Zg, NULL);
		dac_set_hooks(NULL);
		for (i = 0; i < small * w; i++)
			bad += !isfinite((double) Zg[i]);
		CHECK(st == DAC_OK && bad == 0, "10 points of width 384 in memory filled with NaN: every value finite (%d not)", bad);
	}
	free(X);
	free(Y);
	free(Zg);
	free(Zr);
	free(Ze);
}

static void
any_width(void)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 8);
	dac_model	m;
	dac_rng		r;
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c1,
				c2;
	dac_error	err;
	int			n = 150,
				d = 40;
	dac_real   *X = malloc(sizeof(dac_real) * n * d),
			   *Y = malloc(sizeof(dac_real) * n * d);
	int		   *y = malloc(sizeof(int) * n);

	cfg.input = DAC_INPUT_SETNORM;
	cfg.density = DAC_DENSITY_NONE;
	cfg.dim_hidden = 16;
	cfg.num_inds = 4;
	cfg.num_blocks = 2;
	unit_random_model(&m, &cfg, 4, &r);
	{
		int			w = dac_model_width(&m),
					w0 = dac_model_dim_input(&m),
					any = dac_model_takes_width(&m, 3) && dac_model_takes_width(&m, 1536),
					dens = dac_model_has_density(&m),
					gauss = dac_model_theta_is_gaussian(&m);

		CHECK(w == 0 && w0 == 8 && any && !dac_model_takes_width(&m, DAC_MAX_DIM_INPUT + 1) && !dens && !gauss &&
			  !dac_model_is_anchored(&m) && !dac_model_keeps_doubles(&m),
			  "a normalising model takes any width (width %d, configured %d), has no density head", w, w0);
	}
	dac_generate(DAC_GEN_EMBED, &r, 1, n, 4, d, X, y, NULL, NULL);
	transform(&r, X, n, d, 3, Y);
	CHECK(dac_cluster_set(&m, X, n, d, &o, &c1, &err) == DAC_OK, "clusters 40-D points with an 8-wide model");
	CHECK(dac_cluster_set(&m, Y, n, d, &o, &c2, &err) == DAC_OK, "and the same rotated, shifted, scaled");
	CHECK(dac_ari(c1.labels, c2.labels, n) > 0.99, "into the same clusters (ARI %.4f)", dac_ari(c1.labels, c2.labels, n));
	CHECK(c1.flops > dac_setnorm_flops(n, d, 8) && dac_setnorm_flops(n, d, 8) > 0,
		  "the normalisation's products are counted in the FLOPs");
	dac_clustering_free(&c1);
	dac_clustering_free(&c2);
	CHECK(dac_cluster_set(&m, X, n, 3, &o, &c1, &err) == DAC_OK, "and 3-D points");
	dac_clustering_free(&c1);
	CHECK(dac_cluster_set(&m, X, n, DAC_MAX_DIM_INPUT + 1, &o, &c1, &err) == DAC_ERR_INVALID,
		  "a width over %d is refused: %s", DAC_MAX_DIM_INPUT, err.msg);
	dac_model_free(&m);
	cfg.input = DAC_INPUT_RAW;
	unit_random_model(&m, &cfg, 4, &r);
	CHECK(dac_cluster_set(&m, X, n, d, &o, &c1, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "takes 8") != NULL, "a raw model refuses another width: %s", err.msg);
	dac_model_free(&m);
	{
		dac_config	c2cfg;
		char	   *js;
		const char *bad = "{\"strategy\": \"mlf\", \"dim_input\": 2, \"input\": \"pca\"}";

		cfg.input = DAC_INPUT_SETNORM;
		js = dac_config_to_json(&cfg);
		CHECK(dac_config_from_json(js, strlen(js), &c2cfg, &err) == DAC_OK && c2cfg.input == DAC_INPUT_SETNORM &&
			  strstr(js, "\"input\": \"setnorm\"") != NULL, "the configuration keeps \"input\": \"setnorm\"");
		dac_free(js);
		CHECK(dac_config_from_json(bad, strlen(bad), &c2cfg, &err) == DAC_ERR_CONFIG, "an unknown input is refused: %s", err.msg);
	}
	free(X);
	free(Y);
	free(y);
}

void
test_setnorm(void)
{
	eigen_by_hand();
	pca_by_hand();
	invariance();
	block_method();
	gram_route();
	degenerate();
	embed_generator();
	any_width();
}
