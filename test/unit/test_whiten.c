/*
 * test_whiten.c
 *	  A table's within-label whitening (whiten.h): the scatter and the map
 *	  worked out by hand, M A Mᵀ = I on random rows, the refusals; a model
 *	  carrying the map (net.h's map_dim): it clusters rows as the plain
 *	  model clusters the mapped rows, refuses other widths, and keeps the
 *	  map through its configuration and its weights file.
 */
#include "unit.h"
#include "cluster.h"
#include "gen.h"
#include "model.h"
#include "whiten.h"
#include "linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef DAC_DOUBLE
#define TOL 1e-12
#else
#define TOL 2e-6
#endif

static void
by_hand(void)
{
	/*
	 * label 0: (0,0), (2,2), mean (1,1), residuals ±(1,1); label 1: (3,0),
	 * (3,2), mean (3,1), residuals ±(0,1).  S = ¼ [[2,2],[2,2]] + ¼ [[0,0],[0,2]]
	 * = [[0.5, 0.5], [0.5, 1]].  α = 1: ridge 1·(1.5/2) = 0.75, A = [[1.25,
	 * 0.5], [0.5, 1.75]], L = [[√1.25, 0], [0.5/√1.25, √1.55]], M = L⁻¹ =
	 * [[1/√1.25, 0], [−0.4/√1.55, 1/√1.55]].
	 */
	dac_real	X[8] = {0, 0, 2, 2, 3, 0, 3, 2};
	int			y[4] = {0, 0, 1, 1};
	double		S[4];
	dac_real	M[4];
	dac_labelled *ds;
	dac_error	err;
	dac_status	st;

	CHECK(dac_labelled_new(X, y, NULL, 4, 2, &ds, &err) == DAC_OK, "a table of 4 rows, 2 labels");
	st = dac_within_scatter(ds, S, &err);
	CHECK(st == DAC_OK &&
		  fabs(S[0] - 0.5) < TOL && fabs(S[1] - 0.5) < TOL && fabs(S[2] - 0.5) < TOL && fabs(S[3] - 1) < TOL,
		  "the within-label scatter [[0.5, 0.5], [0.5, 1]]: [[%g, %g], [%g, %g]]", S[0], S[1], S[2], S[3]);
	st = dac_whitening_map(S, 2, 1.0, M, &err);
	CHECK(st == DAC_OK &&
		  fabs(M[0] - 1 / sqrt(1.25)) < TOL && M[1] == 0 &&
		  fabs(M[2] + 0.4 / sqrt(1.55)) < TOL && fabs(M[3] - 1 / sqrt(1.55)) < TOL,
		  "the map at ridge 1: [[%.7f, %g], [%.7f, %.7f]] (by hand [[0.8944272, 0], [-0.3212877, 0.8032193]])",
		  M[0], M[1], M[2], M[3]);
	CHECK(dac_whitening_map(S, 2, 0, M, &err) == DAC_ERR_INVALID, "a ridge of 0 is refused: %s", err.msg);
	CHECK(dac_whitening_map(S, 2, NAN, M, &err) == DAC_ERR_INVALID, "and a ridge that is not a number");
	dac_labelled_destroy(ds);

	/* every label's rows equal: no spread to whiten */
	{
		dac_real	Z[8] = {1, 2, 1, 2, 5, 5, 5, 5};

		CHECK(dac_labelled_new(Z, y, NULL, 4, 2, &ds, &err) == DAC_OK &&
			  dac_within_scatter(ds, S, &err) == DAC_OK && S[0] == 0 && S[3] == 0,
			  "rows equal within their labels have no scatter");
		CHECK(dac_whitening_map(S, 2, 1.0, M, &err) == DAC_ERR_INVALID && strstr(err.msg, "do not vary") != NULL,
			  "and nothing to whiten: %s", err.msg);
		dac_labelled_destroy(ds);
	}
	CHECK(dac_labelled_new(X, y, NULL, 1, 2, &ds, &err) == DAC_OK &&
		  dac_within_scatter(ds, S, &err) == DAC_ERR_INVALID, "one row has no scatter: %s", err.msg);
	dac_labelled_destroy(ds);
}

/* M (S + ridge·I) Mᵀ = I on random rows of 3 labels in 20-D; the scatter against a plain sum. */
static void
identity_property(void)
{
	int			N = 300,
				d = 20,
				i,
				j,
				k;
	dac_real   *X = malloc(sizeof(dac_real) * N * d),
			   *M = malloc(sizeof(dac_real) * d * d);
	double	   *S = malloc(sizeof(double) * d * d),
			   *R = calloc((size_t) d * d, sizeof(double)),
				mean[3][20],
				tr = 0,
				worst = 0,
				alpha = 0.3;
	int		   *y = malloc(sizeof(int) * N),
				cnt[3] = {0, 0, 0};
	dac_rng		r;
	dac_labelled *ds;
	dac_error	err;

	dac_rng_seed(&r, 11);
	memset(mean, 0, sizeof(mean));
	for (i = 0; i < N; i++)
	{
		y[i] = i % 3;
		for (k = 0; k < d; k++)
			X[i * d + k] = (dac_real) (3.0 * y[i] + dac_rng_normal(&r) * (1 + k % 4) +
									   (k > 0 ? 0.5 * X[i * d + k - 1] : 0));
		cnt[y[i]]++;
		for (k = 0; k < d; k++)
			mean[y[i]][k] += X[i * d + k];
	}
	for (j = 0; j < 3; j++)
		for (k = 0; k < d; k++)
			mean[j][k] /= cnt[j];
	for (i = 0; i < N; i++)
		for (j = 0; j < d; j++)
			for (k = 0; k < d; k++)
				R[j * d + k] += (X[i * d + j] - mean[y[i]][j]) * (X[i * d + k] - mean[y[i]][k]) / N;
	CHECK(dac_labelled_new(X, y, NULL, N, d, &ds, &err) == DAC_OK && dac_within_scatter(ds, S, &err) == DAC_OK,
		  "the scatter of 300 rows, 3 labels, 20-D");
	for (i = 0; i < d * d; i++)
		worst = fmax(worst, fabs(S[i] - R[i]) / (1 + fabs(R[i])));
	CHECK(worst < 1e-5, "equals the plain sum (max relative difference %.2g)", worst);
	/* a training run's table is a subset of the rows (the held-out ones masked): its scatter is theirs alone */
	{
		unsigned char *mask = malloc(N);
		dac_labelled *sub,
				   *own;
		double	   *Ss = malloc(sizeof(double) * d * d),
				   *So = malloc(sizeof(double) * d * d),
					w2 = 0;
		dac_real   *Xo = malloc(sizeof(dac_real) * N * d);
		int		   *yo = malloc(sizeof(int) * N),
					m = 0;

		for (i = 0; i < N; i++)
		{
			mask[i] = i % 5 == 0;
			if (!mask[i])
			{
				memcpy(Xo + (size_t) m * d, X + (size_t) i * d, sizeof(dac_real) * d);
				yo[m++] = y[i];
			}
		}
		CHECK(dac_labelled_new_subset(X, y, NULL, N, d, mask, 0, &sub, &err) == DAC_OK &&
			  dac_labelled_new(Xo, yo, NULL, m, d, &own, &err) == DAC_OK &&
			  dac_within_scatter(sub, Ss, &err) == DAC_OK && dac_within_scatter(own, So, &err) == DAC_OK,
			  "the scatter of a subset of %d rows, and of the same rows as a table of their own", m);
		for (i = 0; i < d * d; i++)
			w2 = fmax(w2, fabs(Ss[i] - So[i]) / (1 + fabs(So[i])));
		CHECK(w2 < 1e-6, "are the same (max relative difference %.2g)", w2);
		dac_labelled_destroy(sub);
		dac_labelled_destroy(own);
		free(mask);
		free(Ss);
		free(So);
		free(Xo);
		free(yo);
	}
	CHECK(dac_whitening_map(S, d, alpha, M, &err) == DAC_OK, "its map at ridge %g", alpha);
	for (i = 0; i < d; i++)
		tr += S[i * d + i];
	worst = 0;
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
		{
			/* (M A Mᵀ)[i][j] = Σ_a Σ_b M[i][a] A[a][b] M[j][b] */
			double		s = 0;
			int			a,
						b;

			for (a = 0; a < d; a++)
				for (b = 0; b < d; b++)
					s += (double) M[i * d + a] * (S[a * d + b] + (a == b ? alpha * tr / d : 0)) * M[j * d + b];
			worst = fmax(worst, fabs(s - (i == j)));
			if (j > i)
				worst = fmax(worst, fabs((double) M[i * d + j]));
		}
	CHECK(worst < 1e-4, "M (S + ridge) Mᵀ = I and M is lower triangular (max error %.2g)", worst);
	dac_labelled_destroy(ds);
	free(X);
	free(M);
	free(S);
	free(R);
	free(y);
}

/* A model with a map clusters X as the plain model clusters X Mᵀ; widths; configuration and file. */
static void
model_with_map(void)
{
	dac_model	plain,
			   *mapped = NULL,
			   *back = NULL,
			   *unmapped = NULL;
	dac_rng		r;
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c1,
				c2;
	dac_error	err;
	int			n = 200,
				d = 12,
				i,
				same = 1;
	dac_real   *X = malloc(sizeof(dac_real) * n * d),
			   *Y = malloc(sizeof(dac_real) * n * d),
			   *M = malloc(sizeof(dac_real) * d * d);
	int		   *y = malloc(sizeof(int) * n);
	uint8_t    *buf = NULL;
	size_t		len = 0;
	char	   *js;

	unit_small_setnorm_model(&plain, 8, 5, &r);
	dac_generate(DAC_GEN_EMBED, &r, 1, n, 4, d, X, y, NULL, NULL);
	/* a lower-triangular map that is far from a rotation */
	for (i = 0; i < d * d; i++)
		M[i] = (i / d >= i % d) ? (dac_real) ((i / d == i % d ? 1 + (i % 5) : 0.3 * dac_rng_normal(&r))) : 0;
	/* weights files hold float32: round first so the float64 build round-trips exactly */
	for (i = 0; i < (int) plain.net.nparams; i++)
		plain.P[i] = (dac_real) (float) plain.P[i];
	dac_model_refresh(&plain);
	for (i = 0; i < d * d; i++)
		M[i] = (dac_real) (float) M[i];
	CHECK(dac_model_with_map(&plain, M, d, &mapped, &err) == DAC_OK, "the model with a %dx%d map", d, d);
	CHECK(dac_model_width(mapped) == 0 && dac_model_takes_width(mapped, d) && !dac_model_takes_width(mapped, d + 1) &&
		  dac_model_nparams(mapped) == dac_model_nparams(&plain) + (size_t) d * d,
		  "takes rows of width %d only, and holds the map's %d values besides the network's", d, d * d);
	dac_gemm_naive(0, 1, n, d, d, 1, X, d, M, d, 0, Y, d);
	CHECK(dac_cluster_set(mapped, X, n, d, &o, &c1, &err) == DAC_OK &&
		  dac_cluster_set(&plain, Y, n, d, &o, &c2, &err) == DAC_OK, "clusters the rows, and the plain model the mapped rows");
	for (i = 0; i < n; i++)
		same &= c1.labels[i] == c2.labels[i];
	CHECK(same && c1.num_clusters == c2.num_clusters, "into the same clusters (%d and %d)", c1.num_clusters, c2.num_clusters);
	CHECK(c1.flops > c2.flops, "the map's products are counted");
	dac_clustering_free(&c1);
	dac_clustering_free(&c2);
	CHECK(dac_cluster_set(mapped, X, n, d - 1, &o, &c1, &err) == DAC_ERR_INVALID && strstr(err.msg, "takes 12") != NULL,
		  "rows of another width are refused: %s", err.msg);

	js = dac_model_config_json(mapped);
	CHECK(js && strstr(js, "\"input_map\": 12") != NULL, "the configuration says \"input_map\": 12: %s", js ? js : "");
	dac_free(js);
	CHECK(dac_model_save(mapped, NULL, &buf, &len, &err) == DAC_OK && dac_model_read(buf, len, &back, &err) == DAC_OK &&
		  dac_model_same_config(mapped, back) == 1 &&
		  memcmp((back)->P, (mapped)->P, sizeof(dac_real) * dac_model_nparams(mapped)) == 0,
		  "the weights file keeps the map bit for bit");
	/* a file whose configuration and map disagree, or names a map on no width, is refused */
	{
		const char *key = "input_map\\\": 12";
		uint8_t    *at = NULL;
		size_t		k,
					kl = strlen(key);
		dac_model  *bad = NULL;
		dac_status	st;

		for (k = 0; k + kl <= len && at == NULL; k++)
			if (memcmp(buf + k, key, kl) == 0)
				at = buf + k;
		CHECK(at != NULL, "the weights file's configuration names the map");
		if (at)
		{
			at[kl - 1] = '3';	/* "input_map": 13, the tensor 12x12 */
			st = dac_model_read(buf, len, &bad, &err);
			CHECK(st == DAC_ERR_FORMAT && bad == NULL, "a map of another width than the configuration's is refused: %s",
				  err.msg);
			at[kl - 2] = '-';	/* "input_map": -3 */
			st = dac_model_read(buf, len, &bad, &err);
			CHECK(st != DAC_OK && bad == NULL, "and a negative width: %s", err.msg);
		}
	}
	dac_free(buf);
	CHECK(dac_model_with_map(mapped, NULL, 0, &unmapped, &err) == DAC_OK && dac_model_same_config(unmapped, &plain) == 1 &&
		  memcmp((unmapped)->P, (&plain)->P, sizeof(dac_real) * dac_model_nparams(&plain)) == 0,
		  "and without it the network is the plain model's");
	{
		dac_config	cfg;
		const char *raw = "{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 8, \"input_map\": 12}";
		const char *big = "{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 8, \"input\": \"setnorm\", \"input_map\": 4096}";

		CHECK(dac_config_from_json(raw, strlen(raw), &cfg, &err) == DAC_ERR_CONFIG,
			  "a map on a raw input is refused: %s", err.msg);
		CHECK(dac_config_from_json(big, strlen(big), &cfg, &err) == DAC_ERR_CONFIG,
			  "and a map wider than %d: %s", DAC_MAX_MAP_DIM, err.msg);
	}
	/* a hostile map (finite, but its products overflow): an error, not NaN labels */
	{
		dac_model  *huge = NULL;
		dac_status	st;

		for (i = 0; i < d * d; i++)
			M[i] = (dac_real) (i % (d + 1) == 0 ? 3e38 : 0);
		st = dac_model_with_map(&plain, M, d, &huge, &err);
		CHECK(st == DAC_OK, "a model whose map scales rows by 3e38");
		st = dac_cluster_set(huge, X, n, d, &o, &c1, &err);
		CHECK(st == DAC_ERR_INVALID || (st == DAC_OK && c1.num_clusters >= 1),
			  "clusters or refuses, never crashes: %s", st == DAC_OK ? "clustered" : err.msg);
		if (st == DAC_OK)
		{
			int			ok = 1;

			for (i = 0; i < n; i++)
				ok &= c1.labels[i] >= 1 && c1.labels[i] <= c1.num_clusters;
			CHECK(ok, "and every row gets a cluster");
			dac_clustering_free(&c1);
		}
		dac_model_destroy(huge);
	}
	dac_model_destroy(mapped);
	dac_model_destroy(back);
	dac_model_destroy(unmapped);
	dac_model_free(&plain);
	free(X);
	free(Y);
	free(M);
	free(y);
}

/* A trainer adopts its model with a map: the moments carried over, the map never moved, the loss finite. */
static void
trainer_adopts(void)
{
	int			N = 400,
				d = 10,
				i,
				finite = 1;
	dac_real   *X = malloc(sizeof(dac_real) * N * d),
			   *M = malloc(sizeof(dac_real) * d * d),
			   *before;
	double	   *S = malloc(sizeof(double) * d * d);
	int		   *y = malloc(sizeof(int) * N);
	dac_rng		r;
	dac_model	plain,
			   *mapped = NULL;
	dac_labelled *ds;
	dac_train_opts o = dac_train_opts_default();
	dac_trainer *t = NULL;
	dac_loss_parts p;
	dac_error	err;
	size_t		np;

	unit_small_setnorm_model(&plain, 8, 9, &r);
	dac_generate(DAC_GEN_EMBED, &r, 1, N, 8, d, X, y, NULL, NULL);
	CHECK(dac_labelled_new(X, y, NULL, N, d, &ds, &err) == DAC_OK && dac_within_scatter(ds, S, &err) == DAC_OK &&
		  dac_whitening_map(S, d, 1.0, M, &err) == DAC_OK, "a labelled table of 400 rows and its map");
	o.source = ds;
	o.steps = 6;
	o.batch = 2;
	o.n_max = 40;
	o.k_max = 3;
	CHECK(dac_trainer_new(&plain, &o, 0, &t, &err) == DAC_OK && dac_trainer_step(t, &p, &err) == DAC_OK,
		  "a step of training without the map");
	np = plain.net.nparams;
	CHECK(dac_model_with_map(&plain, M, d, &mapped, &err) == DAC_OK && dac_trainer_adopt(t, mapped, &err) == DAC_OK,
		  "the trainer adopts the model with the map");
	before = malloc(sizeof(dac_real) * d * d);
	memcpy(before, mapped->P + np, sizeof(dac_real) * d * d);
	for (i = 0; i < 3; i++)
		finite &= dac_trainer_step(t, &p, &err) == DAC_OK && isfinite(p.loss);
	CHECK(finite, "and goes on training on the mapped rows, the loss finite (%g)", p.loss);
	CHECK(memcmp(before, mapped->P + np, sizeof(dac_real) * d * d) == 0, "the map is not trained");
	for (i = 0; i < (int) mapped->net.nparams; i++)
		finite &= isfinite((double) mapped->P[i]);
	CHECK(finite, "every parameter finite");
	{
		dac_cluster_opts co = dac_cluster_opts_default();
		dac_clustering c;

		CHECK(dac_cluster_set(mapped, X, 200, d, &co, &c, &err) == DAC_OK, "and the trained model clusters: %s",
			  err.msg);
		dac_clustering_free(&c);
	}
	{
		uint8_t    *buf = NULL;
		size_t		len = 0;
		dac_trainer *t2 = NULL;

		uint8_t    *wbuf = NULL;
		size_t		wlen = 0;
		dac_model  *loaded = NULL;
		dac_cluster_opts co = dac_cluster_opts_default();
		dac_clustering c;

		/* as a checkpoint resumes: the weights file read back, the state loaded, one more step */
		o.steps = 7;
		CHECK(dac_trainer_save_state(t, &buf, &len, &err) == DAC_OK &&
			  dac_model_save(mapped, NULL, &wbuf, &wlen, &err) == DAC_OK &&
			  dac_model_read(wbuf, wlen, &loaded, &err) == DAC_OK &&
			  dac_trainer_new(loaded, &o, 0, &t2, &err) == DAC_OK &&
			  dac_trainer_load_state(t2, buf, len, &err) == DAC_OK,
			  "its state, saved, loads into a trainer of the mapped model read back");
		CHECK(dac_trainer_step(t2, &p, &err) == DAC_OK && isfinite(p.loss) &&
			  dac_cluster_set(loaded, X, 200, d, &co, &c, &err) == DAC_OK,
			  "which trains on and clusters: %s", err.msg);
		dac_clustering_free(&c);
		dac_free(buf);
		dac_free(wbuf);
		dac_trainer_destroy(t2);
		dac_model_destroy(loaded);
	}
	CHECK(dac_trainer_adopt(t, &plain, &err) == DAC_ERR_INVALID, "a model that is not its network is refused: %s",
		  err.msg);
	dac_trainer_destroy(t);
	dac_model_destroy(mapped);
	dac_model_free(&plain);
	dac_labelled_destroy(ds);
	free(X);
	free(M);
	free(S);
	free(y);
	free(before);
}

/*
 * The choice: three ridges scored on the same sets, the best the argmax, kept
 * only when ahead of the model without a map by more than DAC_WHITEN_SE
 * standard errors: never against perfect scores, always against zero scores
 * when the best map scores well above them.
 */
static void
choice_rule(void)
{
	int			N = 600,
				d = 6,
				sets = 20,
				i,
				r;
	dac_real   *X = malloc(sizeof(dac_real) * N * d),
			   *Xs = malloc(sizeof(dac_real) * 300 * d);
	int		   *y = malloc(sizeof(int) * N),
			   *ys = malloc(sizeof(int) * 300);
	double		perfect[20],
				zero[20];
	dac_rng		rng;
	dac_model	plain;
	dac_model  *chosen = NULL;
	dac_labelled *train,
			   *val;
	dac_whitening_report rep;
	dac_cluster_opts co = dac_cluster_opts_default();
	dac_error	err;
	dac_status	st;

	unit_small_setnorm_model(&plain, 8, 13, &rng);
	/* six labels apart in two coordinates, four more of wide noise */
	for (i = 0; i < N; i++)
	{
		int			k;

		y[i] = i % 6;
		X[i * d] = (dac_real) (3 * cos(y[i]) + 0.1 * dac_rng_normal(&rng));
		X[i * d + 1] = (dac_real) (3 * sin(y[i]) + 0.1 * dac_rng_normal(&rng));
		for (k = 2; k < d; k++)
			X[i * d + k] = (dac_real) (4 * dac_rng_normal(&rng));
	}
	for (i = 0; i < sets; i++)
	{
		perfect[i] = 1;
		zero[i] = 0;
	}
	CHECK(dac_labelled_new(X, y, NULL, N / 2, d, &train, &err) == DAC_OK &&
		  dac_labelled_new(X + (size_t) (N / 2) * d, y + N / 2, NULL, N / 2, d, &val, &err) == DAC_OK,
		  "a training and a held-out table");
	/* each call before its CHECK: the message's arguments are read in no set order */
	st = dac_whitening_choose(&plain, train, val, NULL, sets, 100, 3, 5, &co, perfect, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && chosen == NULL && rep.chosen == -1, "against perfect scores no map is kept (best %.3f)",
		  rep.eval[rep.best].ari / sets);
	for (r = 0; r < DAC_WHITEN_RIDGES; r++)
		CHECK(rep.eval[r].sets == sets && rep.eval[r].ari <= rep.eval[rep.best].ari,
			  "ridge %g scored on %d sets, no better than the best (%g)", rep.ridge[r], rep.eval[r].sets, rep.ridge[rep.best]);
	st = dac_whitening_choose(&plain, train, val, NULL, sets, 100, 3, 5, &co, zero, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && (chosen != NULL) == (rep.diff > DAC_WHITEN_SE * rep.se) && fabs(rep.diff - rep.eval[rep.best].ari / sets) < 1e-9,
		  "against zero scores: the difference is the best's mean (%.3f ± %.3f), kept by the rule (%s)",
		  rep.diff, rep.se, chosen ? "kept" : "not kept");
	dac_model_destroy(chosen);
	/* against scores of −1 (ARI's floor) the best map is far ahead: kept */
	for (i = 0; i < sets; i++)
		zero[i] = -1;
	st = dac_whitening_choose(&plain, train, val, NULL, sets, 100, 3, 5, &co, zero, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && chosen != NULL && rep.chosen == rep.best && dac_model_map_dim(chosen) == d &&
		  rep.diff > DAC_WHITEN_SE * rep.se,
		  "against scores of -1 the best ridge's %dx%d map is kept (%.3f ± %.3f)", d, d, rep.diff, rep.se);
	dac_model_destroy(chosen);
	/* a table whose rows do not vary within their labels: no map tried, said so, not an error */
	{
		dac_labelled *flat;
		dac_real	F[12] = {1, 2, 1, 2, 5, 5, 5, 5, 0, 9, 0, 9};
		int			yf[6] = {0, 0, 1, 1, 2, 2};

		CHECK(dac_labelled_new(F, yf, NULL, 6, 2, &flat, &err) == DAC_OK, "a table of rows alike within labels");
		st = dac_whitening_choose(&plain, flat, val, NULL, sets, 100, 3, 5, &co, zero, Xs, ys, &rep, &chosen, &err);
		CHECK(st == DAC_OK && chosen == NULL && rep.skipped != NULL && rep.eval[0].sets == 0,
			  "no map is tried, and the report says why: %s", rep.skipped ? rep.skipped : "(none)");
		dac_labelled_destroy(flat);
	}
	{
		dac_labelled *wide;
		dac_real   *W = calloc((size_t) 4 * (DAC_MAX_MAP_DIM + 1), sizeof(dac_real));
		int			yw[4] = {0, 0, 1, 1};

		CHECK(dac_labelled_new(W, yw, NULL, 4, DAC_MAX_MAP_DIM + 1, &wide, &err) == DAC_OK &&
			  dac_whitening_choose(&plain, wide, val, NULL, sets, 100, 3, 5, &co, zero, Xs, ys, &rep, &chosen, &err) ==
			  DAC_ERR_TOO_LARGE && chosen == NULL, "rows wider than %d are refused before any allocation: %s",
			  DAC_MAX_MAP_DIM, err.msg);
		dac_labelled_destroy(wide);
		free(W);
	}
	dac_labelled_destroy(train);
	dac_labelled_destroy(val);
	dac_model_free(&plain);
	free(X);
	free(Xs);
	free(y);
	free(ys);
}

/*
 * The choice on a table that holds out whole labels and new rows of the
 * others: the maps are scored on the new rows of the trained labels, and
 * every held-out row guards.  Ten labels on a circle in two coordinates and
 * six coordinates of noise wider than the circle (as test/sql/dac_embed.sql):
 * the shipped mlf_embed cannot see the classes, whitened it can, so the
 * trained labels' new rows keep a map; against held-out scores it cannot
 * reach (every set perfect) the guard sets the same map aside.
 */
static void
known_part_rule(void)
{
	size_t		len;
	uint8_t    *wbuf = unit_read_file("weights/mlf_embed.safetensors", &len);
	int			L = 10,
				per = 60,
				N = 600,
				d = 8,
				sets = 20,
				n_max = 100,
				i,
				k,
				held,
				labels,
				known_rows = 0,
				whole_rows = 0;
	dac_real   *X = malloc(sizeof(dac_real) * N * d),
			   *Xs = malloc(sizeof(dac_real) * n_max * d);
	int		   *y = malloc(sizeof(int) * N),
			   *ys = malloc(sizeof(int) * n_max);
	unsigned char *val = malloc(N);
	double		base[20],
				perfect[20],
				diff,
				se;
	int			best;
	dac_rng		rng;
	dac_model	m;
	dac_model  *chosen = NULL;
	dac_labelled *train = NULL,
			   *all = NULL,
			   *known = NULL;
	dac_whitening_report rep;
	dac_eval_sums e;
	dac_cluster_opts co = dac_cluster_opts_default();
	dac_error	err;
	dac_status	st;

	if (wbuf == NULL || dac_model_load(&m, wbuf, len, NULL) != DAC_OK)
	{
		CHECK(0, "read weights/mlf_embed.safetensors");
		free(wbuf);
		return;
	}
	dac_rng_seed(&rng, 25);
	for (i = 0; i < N; i++)
	{
		y[i] = i / per;
		for (k = 0; k < d; k++)
			X[i * d + k] = (dac_real) (k == 0 ? 3 * cos(0.628 * y[i]) + 0.3 * (dac_rng_uniform(&rng) - 0.5) :
									   k == 1 ? 3 * sin(0.628 * y[i]) + 0.3 * (dac_rng_uniform(&rng) - 0.5) :
									   6 * (dac_rng_uniform(&rng) - 0.5));
	}
	st = dac_holdout_rows(y, N, 3, val, &held, &labels, &err);
	for (i = 0; i < N; i++)
	{
		known_rows += val[i] == DAC_HELD_ROW;
		whole_rows += val[i] == DAC_HELD_LABEL;
	}
	CHECK(st == DAC_OK && labels == 2 && whole_rows == 2 * per && known_rows > 0 && held == known_rows + whole_rows,
		  "two labels held out whole (%d rows) and %d new rows of the others", whole_rows, known_rows);
	st = dac_holdout_split(X, y, NULL, N, d, val, &train, &all, &known, &err);
	CHECK(st == DAC_OK && train && all && known, "the split gives the training rows, every held-out row and the known part");
	if (st != DAC_OK || !train || !all || !known)
		goto done;
	memset(&e, 0, sizeof(e));
	st = dac_evaluate_labelled(&m, all, sets, n_max, 4, 5, &co, Xs, ys, &e, base, &err);
	CHECK(st == DAC_OK, "mlf_embed scores the held-out sets");
	st = dac_whitening_choose(&m, train, all, known, sets, n_max, 4, 5, &co, base, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && rep.known == 1 && rep.without.sets == sets && rep.guard.sets == sets,
		  "with a known part: the model without a map and the best map are scored there and on every held-out row");
	CHECK(chosen != NULL && rep.diff > DAC_WHITEN_SE * rep.se && rep.guard_diff > -DAC_WHITEN_GUARD_SE * rep.guard_se,
		  "the whitened model is kept: %.3f -> %.3f ARI on the known part (%.3f +- %.3f); %+.3f +- %.3f on every held-out row",
		  rep.without.ari / sets, rep.eval[rep.best].ari / sets, rep.diff, rep.se, rep.guard_diff, rep.guard_se);
	CHECK(fabs(rep.guard_diff - (rep.guard.ari - e.ari) / sets) < 1e-9,
		  "the guard's difference is the map's mean ARI on the held-out sets less the model's");
	dac_model_destroy(chosen);
	chosen = NULL;
	{
		dac_eval_sums again;
		double		scratch[20];

		memset(&again, 0, sizeof(again));
		st = dac_evaluate_labelled(&m, known, sets, n_max, 4, 5, &co, Xs, ys, &again, scratch, &err);
		CHECK(st == DAC_OK && again.ari == rep.without.ari && again.sets == sets,
			  "the known part's sets are drawn from the run's seed: the same sets every time");
	}
	best = rep.best;
	diff = rep.diff;
	se = rep.se;
	for (i = 0; i < sets; i++)
		perfect[i] = 1;
	st = dac_whitening_choose(&m, train, all, known, sets, n_max, 4, 5, &co, perfect, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && chosen == NULL && rep.chosen == -1 && rep.best == best && rep.diff == diff && rep.se == se &&
		  rep.guard_diff < -DAC_WHITEN_GUARD_SE * rep.guard_se,
		  "against perfect held-out scores the guard sets the same map aside (%+.3f +- %.3f)", rep.guard_diff, rep.guard_se);
	st = dac_whitening_choose(&m, train, all, NULL, sets, n_max, 4, 5, &co, base, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && rep.known == 0 && rep.guard.sets == 0 && rep.without.sets == 0 &&
		  (chosen != NULL) == (rep.diff > DAC_WHITEN_SE * rep.se),
		  "without a known part the maps are scored on every held-out row (%.3f +- %.3f)", rep.diff, rep.se);
	dac_model_destroy(chosen);
done:
	dac_labelled_destroy(train);
	dac_labelled_destroy(all);
	dac_labelled_destroy(known);
	dac_model_free(&m);
	free(wbuf);
	free(X);
	free(Xs);
	free(y);
	free(ys);
	free(val);
}

void
test_whiten(void)
{
	by_hand();
	identity_property();
	model_with_map();
	trainer_adopts();
	known_part_rule();
	choice_rule();
}
