/*
 * test_frame.c
 *	  The units frame (frame.h): the Rayleigh constant, the cluster width by
 *	  hand and on Gaussian sets, invariance of the frame, the order and a
 *	  whole clustering to units and origin, the degenerate sets.
 */
#include "unit.h"

#include "cluster.h"
#include "frame.h"
#include "mixture.h"
#include "net.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* k isotropic Gaussian clusters of width sd, centres 20·sd apart on a line */
static void
blobs(dac_rng *r, int n, int k, double sd, double *X, int *y)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		int			c = i % k;

		X[2 * i] = 20 * sd * c + sd * dac_rng_normal(r);
		X[2 * i + 1] = sd * dac_rng_normal(r);
		if (y)
			y[i] = c;
	}
}

static void
rayleigh_constant(void)
{
	double		u = dac_frame_rayleigh_u(),
				r2 = DAC_FRAME_RATIO * DAC_FRAME_RATIO,
				lhs = 1 - exp(-r2 * u),
				rhs = DAC_FRAME_MULT * (1 - exp(-u));

	CHECK(fabs(lhs - rhs) < 1e-12, "u* solves 1 - e^(-r^2 u) = MULT (1 - e^(-u)) (u* %.6f, residual %.2g)",
		  u, lhs - rhs);
	/* the root is the only one above 0: below it the left side is larger */
	CHECK(1 - exp(-r2 * u * 0.9) > DAC_FRAME_MULT * (1 - exp(-u * 0.9)) &&
		  1 - exp(-r2 * u * 1.1) < DAC_FRAME_MULT * (1 - exp(-u * 1.1)),
		  "the count ratio crosses MULT at u* from above");
}

static void
width_by_hand(void)
{
	double		X[8],
				w,
				u = dac_frame_rayleigh_u();
	dac_frame	f;

	/* two points 3 apart: too few pairs for the law, so the one distance / (2 sqrt u*) */
	X[0] = 1;
	X[1] = 1;
	X[2] = 4;
	X[3] = 1;
	dac_frame_width(X, 2, 2, &w, NULL);
	CHECK(fabs(w - 3 / (2 * sqrt(u))) < 0.02 * w, "two points 3 apart: width %.4f (by hand %.4f)", w,
		  3 / (2 * sqrt(u)));
	/* one point, and equal points: no spread, scale 1, centred */
	dac_frame_width(X, 1, 2, &w, NULL);
	CHECK(w == 0, "one point has width 0");
	X[2] = 1;
	X[4] = 1;
	X[5] = 1;
	dac_frame_width(X, 3, 2, &w, NULL);
	CHECK(w == 0, "equal points have width 0");
	dac_frame_fit(X, NULL, 3, 2, 0.25, 0, &f, NULL);
	CHECK(f.scale == 1 && f.center[0] == 1 && f.center[1] == 1, "equal points: scale 1, centre the point");
	dac_frame_free(&f);
}

static void
width_of_gaussians(void)
{
	int			n = 1200,
				ks[3] = {1, 3, 8},
				t;
	double	   *X = malloc(sizeof(double) * n * 2);
	dac_rng		r;

	dac_rng_seed(&r, 17);
	for (t = 0; t < 3; t++)
	{
		double		w;

		blobs(&r, n, ks[t], 2.0, X, NULL);
		dac_frame_width(X, n, 2, &w, NULL);
		CHECK(fabs(w / 2.0 - 1) < 0.08, "%d Gaussian cluster(s) of width 2: width %.3f (within 8%%)", ks[t], w);
	}
	free(X);
}

/*
 * Coordinates rounded to a grid (as a gazetteer's cities are, to 0.01°) and
 * the same moved by a fiftieth of the grid: the width reads the same.
 * Read at the fiftieth-closest pair, as it once was, it swung by 10 to 80%
 * here, the closest pairs being the grid's.
 */
static void
width_of_rounded_points(void)
{
	int			n = 254,
				i,
				t;
	double		grids[4] = {0.10, 0.15, 0.20, 0.25};
	double	   *X = malloc(sizeof(double) * n * 2),
			   *J = malloc(sizeof(double) * n * 2);
	dac_rng		r;

	for (t = 0; t < 4; t++)
	{
		double		g = grids[t],
					w0,
					w1;

		dac_rng_seed(&r, 3);
		/* a long, thin spread (20 by about 2) */
		for (i = 0; i < n; i++)
		{
			X[2 * i] = round(20 * dac_rng_uniform(&r) / g) * g;
			X[2 * i + 1] = round(dac_rng_normal(&r) / g) * g;
			J[2 * i] = X[2 * i] + 0.02 * (dac_rng_uniform(&r) - 0.5);
			J[2 * i + 1] = X[2 * i + 1] + 0.02 * (dac_rng_uniform(&r) - 0.5);
		}
		dac_frame_width(X, n, 2, &w0, NULL);
		dac_frame_width(J, n, 2, &w1, NULL);
		CHECK(fabs(w1 / w0 - 1) < 0.05, "points on a grid of %.2f: width %.4f, moved by 0.01: %.4f (within 5%%)",
			  g, w0, w1);
	}
	free(X);
	free(J);
}

static void
frame_invariance(void)
{
	int			n = 1500,			/* more than DAC_FRAME_SAMPLE: the sample is read */
				i,
				same = 1,
				t;
	double	   *X = malloc(sizeof(double) * n * 2),
			   *Y = malloc(sizeof(double) * n * 2),
			   *R = malloc(sizeof(double) * n * 2);
	dac_real   *Z1 = malloc(sizeof(dac_real) * n * 2),
			   *Z2 = malloc(sizeof(dac_real) * n * 2);
	int		   *p1 = malloc(sizeof(int) * n),
			   *p2 = malloc(sizeof(int) * n),
			   *p3 = malloc(sizeof(int) * n);
	double		scales[3] = {1e-3, 1e6, 7.25},
				shifts[3] = {1e6, -1e6, 3};
	dac_rng		r;
	dac_frame	f1,
				f2;

	dac_rng_seed(&r, 23);
	blobs(&r, n, 3, 0.25, X, NULL);
	dac_frame_order(X, n, 2, p1, NULL);
	dac_frame_fit(X, p1, n, 2, 0.25, 0, &f1, NULL);
	dac_frame_apply(&f1, X, p1, n, Z1);
	for (t = 0; t < 3; t++)
	{
		double		diff = 0;

		for (i = 0; i < 2 * n; i++)
			Y[i] = X[i] * scales[t] + shifts[t];
		dac_frame_order(Y, n, 2, p2, NULL);
		for (i = 0; i < n; i++)
			same &= p1[i] == p2[i];
		dac_frame_fit(Y, p2, n, 2, 0.25, 0, &f2, NULL);
		dac_frame_apply(&f2, Y, p2, n, Z2);
		for (i = 0; i < 2 * n; i++)
			diff = fmax(diff, fabs((double) Z1[i] - Z2[i]));
		CHECK(same, "the order is the same after x * %g + %g", scales[t], shifts[t]);
		CHECK(diff < 1e-5, "the network's input is the same after x * %g + %g (max diff %.2g)",
			  scales[t], shifts[t], diff);
		CHECK(fabs(f2.scale * scales[t] / f1.scale - 1) < 1e-5 &&
			  fabs(f2.center[0] - (f1.center[0] * scales[t] + shifts[t])) < 1e-12 * fabs(shifts[t]) + 1e-9 * scales[t],
			  "the frame follows the units: scale / %g, centre * %g + %g", scales[t], scales[t], shifts[t]);
		dac_frame_free(&f2);
	}
	/* the same rows in reverse: the same order of rows */
	for (i = 0; i < n; i++)
		memcpy(R + 2 * i, X + 2 * (n - 1 - i), sizeof(double) * 2);
	dac_frame_order(R, n, 2, p3, NULL);
	same = 1;
	for (i = 0; i < n; i++)
		same &= memcmp(X + 2 * p1[i], R + 2 * p3[i], sizeof(double) * 2) == 0;
	CHECK(same, "the order of the rows does not depend on the order they come in");
	dac_frame_free(&f1);
	free(X);
	free(Y);
	free(R);
	free(Z1);
	free(Z2);
	free(p1);
	free(p2);
	free(p3);
}

/* a whole clustering by a scaled model: the same labels in any units, θ back in the caller's */
static void
clustering_invariance(void)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 2);
	dac_model	m;
	dac_rng		r;
	int			n = 400,
				i,
				t,
				same;
	double	   *X = malloc(sizeof(double) * n * 2),
			   *Y = malloc(sizeof(double) * n * 2);
	dac_real   *Xf = malloc(sizeof(dac_real) * n * 2);
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c1,
				c2,
				c3;
	double		scales[2] = {1e-3, 1e6},
				shifts[2] = {1e6, 1e6};

	cfg.dim_hidden = 16;
	cfg.num_inds = 4;
	cfg.input = DAC_INPUT_SCALED;
	cfg.unit_width = 0.25;
	CHECK(unit_random_model(&m, &cfg, 31, &r) == DAC_OK, "a small scaled model");
	blobs(&r, n, 3, 0.25, X, NULL);
	o.max_passes = 6;
	CHECK(dac_cluster_set_f64(&m, X, n, 2, &o, &c1, NULL) == DAC_OK, "clusters points in double");
	CHECK(c1.frame_center != NULL && c1.frame_scale > 0, "the clustering keeps its frame");
	for (t = 0; t < 2; t++)
	{
		for (i = 0; i < 2 * n; i++)
			Y[i] = X[i] * scales[t] + shifts[t];
		dac_cluster_set_f64(&m, Y, n, 2, &o, &c2, NULL);
		same = c1.num_clusters == c2.num_clusters;
		for (i = 0; i < n; i++)
			same &= c1.labels[i] == c2.labels[i];
		CHECK(same, "the same %d clusters and labels after x * %g + %g", c1.num_clusters, scales[t], shifts[t]);
		CHECK(fabs(c2.ll - (c1.ll - 2 * log(scales[t]))) < 1e-3 * (1 + fabs(c1.ll)),
			  "the LL moves by -d log(scale) (%.4f, %.4f)", c1.ll, c2.ll);
		if (c1.num_clusters > 0 && c2.num_clusters == c1.num_clusters)
		{
			dac_mixture m1,
						m2;
			dac_real   *Yf = malloc(sizeof(dac_real) * n * 2);

			for (i = 0; i < 2 * n; i++)
			{
				Xf[i] = (dac_real) X[i];
				Yf[i] = (dac_real) Y[i];
			}
			dac_mixture_from_clustering(Xf, 2, &c1, 1, &m1, NULL);
			dac_mixture_from_clustering(Yf, 2, &c2, 1, &m2, NULL);
			CHECK(fabs(m2.mean[0] - (m1.mean[0] * scales[t] + shifts[t])) < 1e-6 * fabs(shifts[t]) &&
				  fabs(m2.sd[0] / (m1.sd[0] * scales[t]) - 1) < 1e-4,
				  "the kept means and deviations are in the caller's units (%.9g vs %.9g)", m2.mean[0],
				  m1.mean[0] * scales[t] + shifts[t]);
			dac_mixture_free(&m1);
			dac_mixture_free(&m2);
			free(Yf);
		}
		dac_clustering_free(&c2);
	}
	/* float input reaches the same path */
	for (i = 0; i < 2 * n; i++)
		Xf[i] = (dac_real) X[i];
	dac_cluster_set(&m, Xf, n, 2, &o, &c3, NULL);
	same = c3.num_clusters == c1.num_clusters && c3.frame_center != NULL;
	for (i = 0; i < n; i++)
		same &= c1.labels[i] == c3.labels[i];
	CHECK(same, "points in the network's precision are framed too");
	dac_clustering_free(&c3);
	dac_clustering_free(&c1);
	dac_model_free(&m);
	free(X);
	free(Y);
	free(Xf);
}

static void
config_round_trip(void)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 2),
				back;
	char	   *js;
	dac_error	err;

	cfg.input = DAC_INPUT_SCALED;
	cfg.unit_width = 0.155;
	js = dac_config_to_json(&cfg);
	CHECK(js != NULL && dac_config_from_json(js, strlen(js), &back, NULL) == DAC_OK &&
		  back.input == DAC_INPUT_SCALED && back.unit_width == 0.155,
		  "input \"scaled\" and unit_width survive the JSON form");
	dac_free(js);
	cfg.unit_width = 0;
	CHECK(dac_config_check(&cfg, &err) == DAC_ERR_CONFIG, "a scaled input needs a unit_width: %s", err.msg);
	js = "{\"strategy\": \"mlf\", \"density\": \"gaussian_diag\", \"dim_input\": 2, \"unit_width\": 0.25}";
	CHECK(dac_config_from_json(js, strlen(js), &back, &err) == DAC_ERR_CONFIG,
		  "unit_width without input \"scaled\" is refused: %s", err.msg);
}

/* Ranks of one column by hand: dense, and twice the mid-rank of ties. */
static void
ranks_by_hand(void)
{
	static const double v[] = {3, 1, 2, 2, 5, 2};
	static const int dense[] = {2, 0, 1, 1, 3, 1},
				mid[] = {10, 2, 6, 6, 12, 6};	/* the three 2s hold 1-based positions 2..4: mean 3 */
	dac_axis_key ak[6];
	int			rank[12],
				m,
				i,
				ok = 1;

	for (m = 0; m < 2; m++)
	{
		for (i = 0; i < 6; i++)
		{
			ak[i].v = v[i];
			ak[i].idx = i;
			rank[2 * i + 1] = -7;
		}
		dac_rank_column(ak, 6, m, rank, 2);
		for (i = 0; i < 6; i++)
			ok &= rank[2 * i] == (m ? mid[i] : dense[i]) && rank[2 * i + 1] == -7;
	}
	CHECK(ok, "column ranks by hand: dense and twice the mid-rank, at their stride");
}

void
test_frame(void)
{
	ranks_by_hand();
	rayleigh_constant();
	width_by_hand();
	width_of_gaussians();
	width_of_rounded_points();
	frame_invariance();
	clustering_invariance();
	config_round_trip();
}
