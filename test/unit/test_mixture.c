/*
 * test_mixture.c
 *	  What is kept of a clustering and what is done with it: the χ² tail
 *	  against scipy.stats.chi2.logsf; the same rows in any order give the
 *	  same clustering (MLF and AF fixture models); matching new ids to
 *	  previous ones; the mixture of a clustering (sizes, means, σ,
 *	  representatives) worked out by hand; its JSON form read back bit for
 *	  bit and hostile forms refused; assigning points by hand; noise.
 */
#include "unit.h"
#include "cluster.h"
#include "gen.h"
#include "json.h"
#include "calibrate.h"
#include "mixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
chi2_case(void)
{
	/* scipy.stats.chi2.logsf(x, dof), scipy 1.10; dof need not be whole (the noise test's tail shapes) */
	static const struct
	{
		double		dof;
		double		x,
					want;
	}			ref[] = {
		{1, 0.5, -0.73501112983708461},
		{1, 10, -6.4596124541501219},
		{2, 3, -1.5},
		{2, 50, -25},
		{32, 20, -0.049968281346201009},
		{32, 32, -0.76197244169203759},
		{32, 80, -12.117332965844797},
		{384, 300, -0.00055538608161227613},
		{384, 384, -0.71252845834152811},
		{384, 600, -25.310072764674036},
		{1536, 1536, -0.70279065871540403},
		{1536, 1800, -12.717810809499763},
		{1536, 2500, -111.68063024366876},
		{5, 0.001, -1.681487728248219e-09},
		{1.5, 4.0, -2.46445111965949},
		{7.3, 20.0, -4.997098443088077},
		{0.5, 0.3, -1.0990969991752004},
		{12.75, 60.0, -16.968958594251873},
	};
	size_t		i;
	double		worst = 0;

	for (i = 0; i < sizeof(ref) / sizeof(ref[0]); i++)
	{
		double		got = dac_chi2_log_sf(ref[i].x, ref[i].dof),
					rel = fabs(got - ref[i].want) / fabs(ref[i].want);

		worst = fmax(worst, rel);
		/* scipy's own value is log(1 - P) in double: about 1e-16 absolute */
		CHECK(rel < 1e-9 || fabs(got - ref[i].want) < 2e-16 / fabs(exp(ref[i].want) - 1), "log P(chi2_%g >= %g) = %.15g (scipy %.15g)", ref[i].dof, ref[i].x, got,
			  ref[i].want);
	}
	printf("# chi2 tail: worst relative error %.2e\n", worst);
	CHECK(dac_chi2_log_sf(0, 7) == 0 && dac_chi2_log_sf(-1, 7) == 0, "log P(chi2 >= 0) = 0");
}

/* The standard normal quantile against scipy's norm.ppf, its symmetry and its ends. */
static void
normal_quantile_case(void)
{
	static const struct
	{
		double		p,
					want;
	}			ref[] = {
		{0.5, 0},
		{0.975, 1.959963984540054},
		{0.025, -1.9599639845400545},
		{0.001, -3.090232306167813},
		{1e-10, -6.361340902404056},
		{1e-300, -37.0470962993612},
		{0.8413447460685429, 1.0},
		{1.0 / 3, -0.43072729929545756},
	};
	size_t		i;

	for (i = 0; i < sizeof(ref) / sizeof(ref[0]); i++)
	{
		double		got = dac_normal_quantile(ref[i].p);

		CHECK(fabs(got - ref[i].want) <= 1e-13 * (1 + fabs(ref[i].want)), "normal quantile at %g = %.16g (scipy %.16g)",
			  ref[i].p, got, ref[i].want);
	}
	CHECK(dac_normal_quantile(0.25) == -dac_normal_quantile(0.75), "the normal quantile is odd about 1/2");
	CHECK(dac_normal_quantile(0) == -INFINITY && dac_normal_quantile(1) == INFINITY &&
		  isnan(dac_normal_quantile(-0.1)) && isnan(dac_normal_quantile(NAN)), "the normal quantile's ends");
}

/* Load a fixture model; 0 on failure. */
static int
load_fixture_model(const char *name, dac_model *m)
{
	size_t		len;
	uint8_t    *buf = unit_read_file(unit_fixture(name), &len);
	int			ok = buf != NULL && dac_model_load(m, buf, len, NULL) == DAC_OK;

	free(buf);
	CHECK(ok, "load %s", name);
	return ok;
}

/*
 * The same rows in another order: every row keeps its cluster id, θ is the
 * same bit for bit.  For AF the anchor is the first unassigned row of the
 * canonical order, so this holds with the default (deterministic) anchors.
 */
static void
order_case(const char *fixture, const char *what)
{
	dac_model	m;
	dac_rng		r;
	int			n = 400,
				B = 3,
				b,
				i;
	dac_real   *X = malloc(sizeof(dac_real) * B * n * 2),
			   *Y = malloc(sizeof(dac_real) * n * 2);
	int		   *lab = malloc(sizeof(int) * B * n),
			   *perm = malloc(sizeof(int) * n);
	dac_cluster_opts o = dac_cluster_opts_default();
	int			differs_without = 0;

	if (!load_fixture_model(fixture, &m))
		return;
	dac_rng_seed(&r, 77);
	dac_generate(DAC_GEN_MOG, &r, B, n, 4, 2, X, lab, NULL, NULL);
	for (b = 0; b < B; b++)
	{
		const dac_real *Xb = X + (size_t) b * n * 2;
		dac_clustering c1,
					c2,
					c3;
		int			same = 1,
					theta_same;

		/* a random permutation */
		for (i = 0; i < n; i++)
			perm[i] = i;
		for (i = n - 1; i > 0; i--)
		{
			int			j = dac_rng_int(&r, i + 1),
						t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		for (i = 0; i < n; i++)
			memcpy(Y + 2 * i, Xb + 2 * perm[i], sizeof(dac_real) * 2);
		if (dac_cluster_set(&m, Xb, n, m.net.cfg.dim_input, &o, &c1, NULL) != DAC_OK ||
			dac_cluster_set(&m, Y, n, m.net.cfg.dim_input, &o, &c2, NULL) != DAC_OK)
		{
			CHECK(0, "%s: cluster set %d", what, b);
			continue;
		}
		for (i = 0; i < n; i++)
			same &= c2.labels[i] == c1.labels[perm[i]] && c2.prob[i] == c1.prob[perm[i]];
		theta_same = c1.num_clusters == c2.num_clusters &&
			memcmp(c1.theta, c2.theta, sizeof(dac_real) * c1.num_clusters * c1.theta_dim) == 0;
		CHECK(same && theta_same, "%s set %d (%d clusters): any order of the rows gives the same ids, probabilities and θ",
			  what, b, c1.num_clusters);
		/* without the canonical order the ids follow the rows' order (AF at least) */
		o.canonical = 0;
		if (dac_cluster_set(&m, Xb, n, m.net.cfg.dim_input, &o, &c3, NULL) == DAC_OK)
		{
			dac_clustering c4;

			if (dac_cluster_set(&m, Y, n, m.net.cfg.dim_input, &o, &c4, NULL) == DAC_OK)
			{
				for (i = 0; i < n; i++)
					differs_without |= c4.labels[i] != c3.labels[perm[i]];
				dac_clustering_free(&c4);
			}
			dac_clustering_free(&c3);
		}
		o.canonical = 1;
		dac_clustering_free(&c1);
		dac_clustering_free(&c2);
	}
	if (strstr(what, "AF"))
		CHECK(differs_without, "%s: without the canonical order, another order gives other ids (the test can fail)", what);
	free(X);
	free(Y);
	free(lab);
	free(perm);
	dac_model_free(&m);
}

static int
same_ints(const int *a, const int *b, int n)
{
	return memcmp(a, b, sizeof(int) * n) == 0;
}

static void
match_case(void)
{
	int			out[12];
	dac_error	err;
	unsigned char all[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
				none[12] = {0};

	{
		/* the same partition under other names: the previous names */
		int			ids[8] = {1, 1, 2, 2, 3, 3, 3, 1},
					prev[8] = {7, 7, 4, 4, 9, 9, 9, 7},
					want[8] = {7, 7, 4, 4, 9, 9, 9, 7};

		CHECK(dac_match_ids(ids, prev, all, 8, out, &err) == DAC_OK && same_ints(out, want, 8),
			  "match: a renamed partition takes the previous names");
	}
	{
		/* no previous ids at all: unchanged */
		int			ids[5] = {2, 1, 2, 3, 0},
					prev[5] = {0};

		CHECK(dac_match_ids(ids, prev, none, 5, out, &err) == DAC_OK && out[0] == 2 && out[1] == 1 &&
			  out[2] == 2 && out[3] == 3 && out[4] == 0, "match: without previous ids the ids stay");
	}
	{
		/*
		 * A split (previous 5 -> new 1 (3 points) and new 2 (2 points)) and a
		 * new cluster 3 of rows that had no id: 1 keeps 5, 2 and 3 are new:
		 * 6 and 7 (after the largest previous id, 5), in new-id order.
		 */
		int			ids[8] = {1, 1, 1, 2, 2, 3, 3, 3},
					prev[8] = {5, 5, 5, 5, 5, 0, 0, 0},
					want[8] = {5, 5, 5, 6, 6, 7, 7, 7};
		unsigned char has[8] = {1, 1, 1, 1, 1, 0, 0, 0};

		CHECK(dac_match_ids(ids, prev, has, 8, out, &err) == DAC_OK && same_ints(out, want, 8),
			  "match: a split keeps the id on its larger part; new clusters get fresh ids");
	}
	{
		/* a merge: the larger previous cluster's id survives */
		int			ids[6] = {1, 1, 1, 1, 1, 2},
					prev[6] = {3, 3, 3, 8, 8, 1},
					want[6] = {3, 3, 3, 3, 3, 1};

		CHECK(dac_match_ids(ids, prev, all, 6, out, &err) == DAC_OK && same_ints(out, want, 6),
			  "match: a merge takes the id of its larger part");
	}
	{
		/* greedy by overlap: new 1 overlaps 10 in 3, 20 in 2; new 2 overlaps 10 in 2 */
		int			ids[7] = {1, 1, 1, 1, 1, 2, 2},
					prev[7] = {10, 10, 10, 20, 20, 10, 10},
					want[7] = {10, 10, 10, 10, 10, 21, 21};

		CHECK(dac_match_ids(ids, prev, all, 7, out, &err) == DAC_OK && same_ints(out, want, 7),
			  "match: each previous id goes to one new cluster, largest overlap first");
	}
	{
		/* previous id 0 and negative ids are ids like any other */
		int			ids[4] = {1, 1, 2, 2},
					prev[4] = {0, 0, -4, -4},
					want[4] = {0, 0, -4, -4};

		CHECK(dac_match_ids(ids, prev, all, 4, out, &err) == DAC_OK && same_ints(out, want, 4),
			  "match: previous ids 0 and -4 are kept");
	}
	{
		int			ids[2] = {1, 2},
					prev[2] = {2147483647, 2147483647};

		CHECK(dac_match_ids(ids, prev, all, 2, out, &err) == DAC_ERR_TOO_LARGE,
			  "match: no fresh id after INT_MAX: %s", err.msg);
	}
	{
		/* ids of any size in O(n) memory (an id of 2^31 - 1 once allocated 8 GB); fresh ids in new-id order: 5 -> 1, 2e9 -> 2 */
		int			ids[4] = {2147483647, 2147483647, 2000000000, 5},
					prev[4] = {-2147483647 - 1, -2147483647 - 1, 0, 0},
					want[4] = {-2147483647 - 1, -2147483647 - 1, 2, 1};
		unsigned char has[4] = {1, 1, 0, 0};

		CHECK(dac_match_ids(ids, prev, has, 4, out, &err) == DAC_OK && same_ints(out, want, 4),
			  "match: the largest and smallest ints as ids");
	}
	{
		int			ids[2] = {1, -1},
					prev[2] = {1, 1};

		CHECK(dac_match_ids(ids, prev, all, 2, out, &err) == DAC_ERR_INVALID, "match: negative new ids refused");
	}
}

/* A hand-built clustering (labels, θ) of n points. */
static void
hand(dac_clustering *c, int n, int K, int tdim, int *labels, float *prob, dac_real *theta)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->num_clusters = K;
	c->theta_dim = tdim;
	c->labels = labels;
	c->prob = prob;
	c->theta = theta;
}

static void
mixture_case(void)
{
	/* 1-D points: cluster 1 = {0, 2} (mean 1, sd 1), cluster 2 = {10, 11, 15}, one noise */
	dac_real	X[6] = {0, 10, 2, 11, 15, 100};
	int			labels[6] = {1, 2, 1, 2, 2, 0};
	float		prob[6] = {0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.2f};
	dac_real	theta[4] = {1.5, 2, 11, 0.5};
	dac_clustering c;
	dac_mixture mix,
				back;
	dac_error	err;
	dac_strbuf	sb;
	int			id;
	double		p;

	hand(&c, 6, 2, 2, labels, prob, theta);
	if (dac_mixture_from_clustering(X, 1, &c, 0, &mix, &err) != DAC_OK)
	{
		CHECK(0, "mixture: %s", err.msg);
		return;
	}
	CHECK(mix.k == 2 && mix.n == 6 && mix.noise == 1 && mix.size[0] == 2 && mix.size[1] == 3,
		  "mixture: 2 clusters of 2 and 3 points, 1 noise");
	CHECK(fabs(mix.mean[0] - 1) < 1e-12 && fabs(mix.sd[0] - 1) < 1e-12 &&
		  fabs(mix.mean[1] - 12) < 1e-12 && fabs(mix.sd[1] - sqrt(14.0 / 3)) < 1e-12,
		  "mixture without a head: members' mean and σ (1, 1; 12, √(14/3))");
	/* nearest the mean: cluster 1 tie (0 and 2 both at 1) to the smaller ord; cluster 2: 11 */
	CHECK(mix.rep[0] == 1 && mix.rep[1] == 4, "representatives: ord 1 (tie to the smaller), ord 4 (11 nearest 12)");
	/* assignment by hand: w = 2/5, 3/5; x = 5 */
	{
		dac_real	x = 5;
		double		l1 = log(0.4) - log(1.0) - 0.5 * 16,
					l2 = log(0.6) - log(sqrt(14.0 / 3)) - 0.5 * 49 / (14.0 / 3);

		/* l1 = -8.92, l2 = -6.53: the wide cluster 2 is likelier */
		dac_mixture_assign(&mix, &x, 0, &id, &p);
		CHECK(id == 2 && fabs(p - 1 / (1 + exp(l1 - l2))) < 1e-12,
			  "assign 5: cluster 2 with posterior %.6f (by hand %.6f)", p, 1 / (1 + exp(l1 - l2)));
		x = 40;
		dac_mixture_assign(&mix, &x, 0, &id, &p);
		CHECK(id == 2, "assign 40: cluster 2 without noise");
		dac_mixture_assign(&mix, &x, 1e-3, &id, &p);
		CHECK(id == 0, "assign 40 with noise 0.001: noise (28/2.16 σ out)");
		x = 12.5;
		dac_mixture_assign(&mix, &x, 1e-3, &id, &p);
		CHECK(id == 2, "assign 12.5 with noise 0.001: cluster 2");
	}
	/* the JSON form reads back bit for bit */
	dac_strbuf_init(&sb);
	mix.model = strdup("m\"1");
	mix.model_version = 3;
	dac_mixture_to_json(&mix, &sb);
	dac_strbuf_append(&sb, "", 1);
	if (dac_mixture_from_json(sb.data, sb.len - 1, &back, &err) != DAC_OK)
		CHECK(0, "JSON read back: %s (%s)", err.msg, sb.data);
	else
	{
		CHECK(back.k == 2 && back.n == 6 && back.noise == 1 && back.gaussian == 0 &&
			  back.model_version == 3 && strcmp(back.model, "m\"1") == 0 &&
			  memcmp(back.mean, mix.mean, sizeof(double) * 2) == 0 &&
			  memcmp(back.sd, mix.sd, sizeof(double) * 2) == 0 &&
			  memcmp(back.sd_eff, mix.sd_eff, sizeof(double) * 2) == 0 &&
			  back.rep[0] == 1 && back.rep[1] == 4 && back.id[1] == 2 &&
			  back.temperature == mix.temperature && back.stability[1] == mix.stability[1],
			  "JSON: %s reads back the same", sb.data);
		dac_mixture_free(&back);
	}
	dac_strbuf_free(&sb);
	dac_mixture_free(&mix);

	/* a Gaussian head: θ as mean and σ; representative in the σ metric */
	hand(&c, 6, 2, 2, labels, prob, theta);
	if (dac_mixture_from_clustering(X, 1, &c, 1, &mix, &err) == DAC_OK)
	{
		CHECK(mix.mean[0] == 1.5 && mix.sd[0] == 2 && mix.mean[1] == 11 && mix.sd[1] == 0.5 &&
			  mix.rep[0] == 3 && mix.rep[1] == 4, "mixture of a Gaussian head: θ; representatives ord 3 and 4");
		dac_mixture_free(&mix);
	}
	/* a one-point cluster: its σ 0 is floored at the smallest positive σ */
	{
		dac_real	Y[3] = {0, 1, 7};
		int			lab[3] = {1, 1, 2};

		hand(&c, 3, 2, 2, lab, prob, theta);
		if (dac_mixture_from_clustering(Y, 1, &c, 0, &mix, &err) == DAC_OK)
		{
			CHECK(mix.sd[1] == 0 && mix.sd_eff[1] == 0.5 && mix.sd_eff[0] == 0.5,
				  "one-point cluster: σ 0 reported, 0.5 (the other's) used");
			dac_mixture_free(&mix);
		}
	}
}

/* The negative log likelihood of labels y under log-odds z [m, 2] tempered by T. */
static double
tempered_nll(const double *z, const int *y, int m, double T)
{
	double		f = 0;
	int			i;

	for (i = 0; i < m; i++)
	{
		double		a = z[2 * i] / T,
					b = z[2 * i + 1] / T,
					mx = fmax(a, b);

		f += mx + log(exp(a - mx) + exp(b - mx)) - (y[i] == 0 ? a : b);
	}
	return f;
}

static void
calibration_case(void)
{
	float		prob[10] = {0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.9f};
	dac_clustering c;
	dac_mixture mix;
	dac_error	err;

	/*
	 * A Gaussian head, θ μ = +1, −1, σ = 1, equal sizes: the log-odds of
	 * cluster 1 at x are 2x.  x = 1 (1), −1 (2) are right by a margin of 2,
	 * 0.5 (2), −0.5 (1) wrong by 1: the loss 2 log(1 + e^−2β) + 2 log(1 + e^β)
	 * is least where σ(β) = 2 σ(−2β), β = 0.4196176, T = 2.383122.
	 */
	{
		dac_real	X[4] = {1, -1, 0.5, -0.5};
		int			labels[4] = {1, 2, 2, 1};
		dac_real	theta[4] = {1, 1, -1, 1};
		double		t;

		hand(&c, 4, 2, 2, labels, prob, theta);
		if (dac_mixture_from_clustering(X, 1, &c, 1, &mix, &err) != DAC_OK)
			CHECK(0, "calibration: %s", err.msg);
		else
		{
			t = mix.temperature;
			CHECK(fabs(t - 2.383122015) < 1e-6, "calibration of a Gaussian head: T %.9f (by hand 2.383122015)", t);
			dac_mixture_free(&mix);
		}
		/* all four right: the mixture's own posterior (T = 1) */
		labels[2] = 1;
		labels[3] = 2;
		hand(&c, 4, 2, 2, labels, prob, theta);
		if (dac_mixture_from_clustering(X, 1, &c, 1, &mix, &err) == DAC_OK)
		{
			t = mix.temperature;
			CHECK(t == 1, "calibration, every member on its side: T %g (1)", t);
			dac_mixture_free(&mix);
		}
	}

	/*
	 * Members' Gaussians, overlapping: 6 in cluster 1 and 4 in cluster 2
	 * sit on the other's side once left out of their own.  The T found is
	 * where the loss, with each member's own Gaussian refit without it
	 * (done here directly from the other members), is least.
	 */
	{
		dac_real	X[10] = {0, 1, 2, 3, 6, 4, 7, 8, 9, 10};
		int			labels[10] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2};
		double		z[20],
					t,
					mu[2],
					sd[2],
					fl;
		int			y[10],
					i,
					s,
					j;

		for (s = 0; s < 2; s++)
		{
			mu[s] = sd[s] = 0;
			for (j = 0; j < 5; j++)
				mu[s] += X[5 * s + j] / 5;
			for (j = 0; j < 5; j++)
				sd[s] += (X[5 * s + j] - mu[s]) * (X[5 * s + j] - mu[s]) / 5;
			sd[s] = sqrt(sd[s]);
		}
		fl = fmin(sd[0], sd[1]);
		for (i = 0; i < 10; i++)
		{
			y[i] = labels[i] - 1;
			for (s = 0; s < 2; s++)
			{
				double		m = 0,
							v = 0,
							n = s == y[i] ? 4 : 5;

				for (j = 0; j < 5; j++)
					if (5 * s + j != i)
						m += X[5 * s + j] / n;
				for (j = 0; j < 5; j++)
					if (5 * s + j != i)
						v += (X[5 * s + j] - m) * (X[5 * s + j] - m) / n;
				v = fmax(sqrt(v), s == y[i] ? fl : sd[s]);
				z[2 * i + s] = log(n / (s == y[i] ? 9.0 : 10.0)) - log(v) - 0.5 * log(2 * M_PI) -
					0.5 * (X[i] - m) * (X[i] - m) / (v * v);
			}
		}
		hand(&c, 10, 2, 2, labels, prob, NULL);
		if (dac_mixture_from_clustering(X, 1, &c, 0, &mix, &err) != DAC_OK)
			CHECK(0, "calibration: %s", err.msg);
		else
		{
			double		f = tempered_nll(z, y, 10, mix.temperature),
						up = tempered_nll(z, y, 10, mix.temperature * 1.001),
						down = tempered_nll(z, y, 10, mix.temperature / 1.001);

			t = mix.temperature;
			CHECK(t > 1.5 && f <= up && f <= down,
				  "calibration, members left out: T %.4f, the loss %.9f least (%.9f at T·1.001, %.9f at T/1.001)",
				  t, f, up, down);
			dac_mixture_free(&mix);
		}
	}
}

/* What the progress hook heard: calls, the last network-pass report, the calibration's. */
static int	progress_calls,
			progress_passes_done,
			progress_passes_total,
			progress_calibrating;

static void
record_progress(const char *stage, int64_t done, int64_t total)
{
	progress_calls++;
	if (strcmp(stage, "network passes, rows in a cluster") == 0)
	{
		progress_passes_done = (int) done;
		progress_passes_total = (int) total;
	}
	if (strncmp(stage, "calibrating", 11) == 0)
		progress_calibrating = (int) done;
}

/*
 * Stability by hand, through the authors' trained MLF (the reference
 * fixture): blobs A at (−1.5, 0) with 100 rows and B at (1.5, 0) with 80,
 * and a blob C at (1.5, 1.5) made only of held-out rows (i % 5 = 4, i ≥ 100:
 * 20 rows).  Clustered again without the held-out rows there is no C: its
 * rows go to B, wrongly.  A: 20 held-out rows, all right: (20 + 1) / (20 +
 * 1) = 1; B: 20 given, none right: 1 / 21; C: none given: 1.
 */
static void
stability_case(void)
{
	size_t		len;
	uint8_t    *wbuf = unit_read_file(unit_fixture("mlf_mog.weights.safetensors"), &len);
	dac_model	m;
	dac_rng		r;
	dac_real	X[400];
	int			n = 200,
				i,
				s,
				blob[200];
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c;
	dac_mixture mix;
	dac_error	err;
	dac_hooks	heard = {NULL, NULL, NULL, record_progress};
	dac_status	st0;

	if (wbuf == NULL || dac_model_load(&m, wbuf, len, NULL) != DAC_OK)
	{
		CHECK(0, "read the MLF reference weights");
		dac_free(wbuf);
		return;
	}
	CHECK(dac_model_width(&m) == 2 && dac_model_takes_width(&m, 2) && !dac_model_takes_width(&m, 3) &&
		  dac_model_has_density(&m) && dac_model_theta_is_gaussian(&m) && !dac_model_is_anchored(&m) &&
		  !dac_model_keeps_doubles(&m) && dac_model_nparams(&m) > 0 && dac_model_ntensors(&m) > 0,
		  "the MLF reference model: width 2, a Gaussian head, not anchored, raw input");
	dac_rng_seed(&r, 5);
	for (i = 0; i < n; i++)
	{
		blob[i] = i % 5 <= 1 || (i % 5 == 4 && i < 100) ? 0 : i % 5 <= 3 ? 1 : 2;
		X[2 * i] = (dac_real) ((blob[i] == 0 ? -1.5 : 1.5) + 0.1 * dac_rng_normal(&r));
		X[2 * i + 1] = (dac_real) ((blob[i] == 2 ? 1.5 : 0) + 0.1 * dac_rng_normal(&r));
	}
	dac_set_hooks(&heard);
	st0 = dac_cluster_set(&m, X, n, 2, &o, &c, &err);
	dac_set_hooks(NULL);
	/* the host hears each pass: the last report has every row in a cluster */
	CHECK(progress_calls >= 3 && progress_passes_done == n && progress_passes_total == n,
		  "progress: %d reports, the last pass's %d of %d rows", progress_calls, progress_passes_done,
		  progress_passes_total);
	if (st0 != DAC_OK)
		CHECK(0, "stability: %s", err.msg);
	else
	{
		int			pure = c.num_clusters == 3,
					lab[3] = {0, 0, 0};

		for (i = 0; i < n; i++)
		{
			if (lab[blob[i]] == 0)
				lab[blob[i]] = c.labels[i];
			pure &= c.labels[i] == lab[blob[i]];
		}
		CHECK(pure, "stability: the whole set clustered as its three blobs (%d clusters)", c.num_clusters);
		if (pure && dac_mixture_from_clustering(X, 2, &c, 1, &mix, &err) == DAC_OK)
		{
			double		got[3] = {0, 0, 0};
			dac_status	st;

			dac_set_hooks(&heard);
			st = dac_calibrate_split(&m, X, NULL, n, 2, &o, &c, 1, &mix, &err);
			dac_set_hooks(NULL);
			CHECK(progress_calibrating == n - n / 5, "progress: the calibration reports its %d rows (%d)",
				  n - n / 5, progress_calibrating);

			for (s = 0; s < mix.k; s++)
				for (i = 0; i < 3; i++)
					if (mix.id[s] == lab[i])
						got[i] = mix.stability[s];
			CHECK(st == DAC_OK && got[0] == 1 && fabs(got[1] - 1.0 / 21) < 1e-15 && got[2] == 1,
				  "stability: A %.6f (1), B %.6f (1/21), C %.6f (1)", got[0], got[1], got[2]);
			/* a row at B's centre: its posterior times B's stability */
			{
				dac_real	x[2] = {1.5, 0};
				int			id;
				double		p;

				dac_mixture_assign(&mix, x, 0, &id, &p);
				CHECK(st == DAC_OK && id == lab[1] && p <= 1.0 / 21 + 1e-12 && p > 0.9 / 21,
					  "stability: a row at B's centre gets B with probability %.6f (at most 1/21)", p);
			}
			dac_mixture_free(&mix);
		}
		dac_clustering_free(&c);
	}
	dac_model_free(&m);
	dac_free(wbuf);
}

static void
json_hostile_case(void)
{
	static const char *bad[] = {
		"[]",
		"{}",
		"{\"dac_clustering\":2,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":2,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":2,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]},{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[-1]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":3,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"gaussian_diag\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"maf\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[1e39],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":1,\"size\":1,\"representative\":2,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0],\"stability\":0}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0],\"stability\":1.5}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"temperature\":0.5,\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"temperature\":\"2\",\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"temperature\":1e5,\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"model\":5,\"clusters\":[{\"id\":1,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[]}",
		"{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[7]}",
	};
	size_t		i;
	dac_mixture mix;
	dac_error	err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		dac_status	st = dac_mixture_from_json(bad[i], strlen(bad[i]), &mix, &err);

		CHECK(st == DAC_ERR_FORMAT && mix.id == NULL, "hostile clustering %zu refused: %s", i, err.msg);
	}
	{
		const char *ok = "{\"dac_clustering\":1,\"dim\":1,\"n\":1,\"noise\":0,\"density\":\"none\",\"clusters\":[{\"id\":-3,\"size\":1,\"mean\":[0],\"stddev\":[0]}]}";

		CHECK(dac_mixture_from_json(ok, strlen(ok), &mix, &err) == DAC_OK && mix.id[0] == -3 &&
			  mix.sd_eff[0] == 1e-6, "a minimal clustering reads (no model, σ floored at 1e-6)");
		dac_mixture_free(&mix);
	}
}

/*
 * Noise on a fixture set with far outliers added: every outlier is noise,
 * few of the set's own points are; and the clusters found do not change.
 */
static void
noise_case(void)
{
	dac_model	m;
	dac_rng		r;
	int			n = 300,
				extra = 6,
				i,
				caught = 0,
				own = 0;
	dac_real   *X = malloc(sizeof(dac_real) * (n + extra) * 2);
	int		   *lab = malloc(sizeof(int) * (n + extra));
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c;

	if (!load_fixture_model("mlf_mog.weights.safetensors", &m))
		return;
	dac_rng_seed(&r, 5);
	dac_generate(DAC_GEN_MOG, &r, 1, n, 4, 2, X, lab, NULL, NULL);
	for (i = 0; i < extra; i++)
	{
		X[2 * (n + i)] = (dac_real) (i % 2 ? 40 : -40);
		X[2 * (n + i) + 1] = (dac_real) (10 * i - 25);
	}
	o.noise = 1e-3;
	if (dac_cluster_set(&m, X, n + extra, m.net.cfg.dim_input, &o, &c, NULL) != DAC_OK)
	{
		CHECK(0, "noise: cluster");
		return;
	}
	for (i = 0; i < n; i++)
		own += c.labels[i] == 0;
	for (i = n; i < n + extra; i++)
		caught += c.labels[i] == 0;
	CHECK(caught == extra && own <= n / 50 && c.noise == own + caught,
		  "noise 0.001: all %d far outliers are noise (%d), %d of %d set points are", extra, caught, own, n);
	for (i = 0; i < n + extra; i++)
		if (c.labels[i] < 0 || c.labels[i] > c.num_clusters)
			break;
	CHECK(i == n + extra && c.num_clusters >= 1, "noise: labels in 0 .. %d", c.num_clusters);
	dac_clustering_free(&c);
	o.noise = 0;
	if (dac_cluster_set(&m, X, n + extra, m.net.cfg.dim_input, &o, &c, NULL) == DAC_OK)
	{
		for (i = 0; i < n + extra && c.labels[i] > 0; i++)
			;
		CHECK(i == n + extra && c.noise == 0, "without noise every point has a cluster");
		dac_clustering_free(&c);
	}
	free(X);
	free(lab);
	dac_model_free(&m);
}

/* The core's one log-sum-exp, both forms, by hand. */
static void
lse_case(void)
{
	double		v[4] = {0, log(3.0), -INFINITY, -50},
				p[4],
				big[2] = {1000, 1000},
				got,
				one;
	dac_lse		s = {0, 0};
	int			k;

	got = dac_logsumexp(v, 4, -INFINITY, p);
	CHECK(fabs(got - log(4.0 + exp(-50.0))) < 1e-15 && fabs(p[0] - 0.25) < 1e-15 && fabs(p[1] - 0.75) < 1e-15 &&
		  p[2] == 0 && p[3] > 0, "log(e^0 + 3 + e^-50) = %.17g; softmax 1/4, 3/4, 0, e^-50/4", got);
	got = dac_logsumexp(v, 4, -40, p);
	CHECK(fabs(got - log(4.0)) < 1e-15 && p[3] == 0, "below e^-40 of the largest a term is 0: %.17g", got);
	CHECK(dac_logsumexp(big, 2, -INFINITY, NULL) == 1000 + log(2.0), "no overflow at 1000: 1000 + log 2");
	for (k = 0; k < 4; k++)
		dac_lse_add(&s, v[k]);
	one = dac_logsumexp(v, 4, -INFINITY, NULL);
	CHECK(fabs(dac_lse_value(&s) - one) < 1e-15 && s.mx == log(3.0),
		  "the running form agrees (%.17g against %.17g), its largest log 3", dac_lse_value(&s), one);
	s.z = 0;
	CHECK(dac_lse_value(&s) == -INFINITY, "nothing added: -inf");
	dac_lse_add(&s, -INFINITY);
	dac_lse_add(&s, 2);
	CHECK(dac_lse_value(&s) == 2, "-inf then 2: 2");
}

void
test_mixture(void)
{
	lse_case();
	chi2_case();
	normal_quantile_case();
	order_case("mlf_mog.weights.safetensors", "MLF");
	order_case("af_mog.weights.safetensors", "AF");
	match_case();
	mixture_case();
	calibration_case();
	stability_case();
	json_hostile_case();
	noise_case();
}
