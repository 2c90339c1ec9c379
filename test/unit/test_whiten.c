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
#include "setnorm.h"
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
	CHECK(mapped->lower == DAC_LOWER_MAP, "its map is zero above the diagonal: it takes the triangular product");
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
	CHECK(back->lower == DAC_LOWER_MAP, "and, read again, knows it for triangular");
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
	st = dac_whitening_choose(&plain, train, val, NULL, NULL, sets, 100, 3, 5, &co, perfect, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && chosen == NULL && rep.chosen == -1, "against perfect scores no map is kept (best %.3f)",
		  rep.eval[rep.best].ari / sets);
	for (r = 0; r < DAC_WHITEN_RIDGES; r++)
		CHECK(rep.eval[r].sets == sets && rep.eval[r].ari <= rep.eval[rep.best].ari,
			  "ridge %g scored on %d sets, no better than the best (%g)", rep.ridge[r], rep.eval[r].sets, rep.ridge[rep.best]);
	st = dac_whitening_choose(&plain, train, val, NULL, NULL, sets, 100, 3, 5, &co, zero, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && (chosen != NULL) == (rep.diff > DAC_WHITEN_SE * rep.se) && fabs(rep.diff - rep.eval[rep.best].ari / sets) < 1e-9,
		  "against zero scores: the difference is the best's mean (%.3f ± %.3f), kept by the rule (%s)",
		  rep.diff, rep.se, chosen ? "kept" : "not kept");
	dac_model_destroy(chosen);
	/* against scores of −1 (ARI's floor) the best map is far ahead: kept */
	for (i = 0; i < sets; i++)
		zero[i] = -1;
	st = dac_whitening_choose(&plain, train, val, NULL, NULL, sets, 100, 3, 5, &co, zero, Xs, ys, &rep, &chosen, &err);
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
		st = dac_whitening_choose(&plain, flat, val, NULL, NULL, sets, 100, 3, 5, &co, zero, Xs, ys, &rep, &chosen, &err);
		CHECK(st == DAC_OK && chosen == NULL && rep.skipped != NULL && rep.eval[0].sets == 0,
			  "no map is tried, and the report says why: %s", rep.skipped ? rep.skipped : "(none)");
		dac_labelled_destroy(flat);
	}
	{
		dac_labelled *wide;
		dac_real   *W = calloc((size_t) 4 * (DAC_MAX_MAP_DIM + 1), sizeof(dac_real));
		int			yw[4] = {0, 0, 1, 1};

		CHECK(dac_labelled_new(W, yw, NULL, 4, DAC_MAX_MAP_DIM + 1, &wide, &err) == DAC_OK &&
			  dac_whitening_choose(&plain, wide, val, NULL, NULL, sets, 100, 3, 5, &co, zero, Xs, ys, &rep, &chosen, &err) ==
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
 * six coordinates of noise wider than the circle (as sql/dac_embed.sql):
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
	st = dac_whitening_choose(&m, train, all, known, NULL, sets, n_max, 4, 5, &co, base, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && rep.known == 1 && rep.without.sets == sets && rep.guard.sets == sets,
		  "with a known part: the model without a map and the best map are scored there and on every held-out row");
	CHECK(chosen != NULL && rep.diff > DAC_WHITEN_SE * rep.se && rep.guard_diff > -DAC_WHITEN_GUARD_SE * rep.guard_se,
		  "the whitened model is kept: %.3f -> %.3f ARI on the known part (%.3f +- %.3f); %+.3f +- %.3f on every held-out row",
		  rep.without.ari / sets, rep.eval[rep.best].ari / sets, rep.diff, rep.se, rep.guard_diff, rep.guard_se);
	CHECK(fabs(rep.guard_diff - (rep.guard.ari - e.ari) / sets) < 1e-9,
		  "the guard's difference is the map's mean ARI on the held-out sets less the model's");
	CHECK(rep.candidates == DAC_WHITEN_CANDIDATES && rep.lda_classes == 8 && rep.gate_threshold > 0 &&
		  rep.eval[DAC_WHITEN_RIDGES].sets == sets,
		  "the projection onto the 8 trained labels' directions is a fourth candidate (gate at %.2f)", rep.gate_threshold);
	CHECK((rep.best == DAC_WHITEN_RIDGES) == (rep.large_n > 0) &&
		  (rep.large_n == 0 || (rep.large_n == 3 * n_max && rep.large_k == 12 && rep.large.sets == sets)),
		  "the projection, when best, is tried on large sets of the new rows too (n %d, k %d; best %d)",
		  rep.large_n, rep.large_k, rep.best);
	CHECK((rep.chosen >= 0) == (rep.diff > DAC_WHITEN_SE * rep.se && rep.guard_diff >= -DAC_WHITEN_GUARD_SE * rep.guard_se &&
								(rep.large_n == 0 || rep.large_diff >= -DAC_WHITEN_GUARD_SE * rep.large_se)),
		  "kept by the rule: %+.3f +- %.3f, guard %+.3f +- %.3f, large %+.3f +- %.3f",
		  rep.diff, rep.se, rep.guard_diff, rep.guard_se, rep.large_diff, rep.large_se);
	CHECK(rep.chosen == DAC_WHITEN_RIDGES ? rep.else_best >= 0 && rep.else_eval[rep.else_best].sets == sets &&
		  rep.else_kept == (rep.else_diff > DAC_WHITEN_SE * rep.else_se) &&
		  (chosen->net.cfg.map_else != 0) == rep.else_kept : rep.else_best == -1,
		  "the projection kept: the other groups' map kept by its rule (%+.3f +- %.3f, %s)", rep.else_diff, rep.else_se,
		  rep.else_kept ? "kept" : "not kept");
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
	{
		dac_labelled *every;

		CHECK(dac_labelled_new(X, y, NULL, N, d, &every, &err) == DAC_OK, "every row of the table");
		st = dac_whitening_choose(&m, train, all, known, every, sets, n_max, 4, 5, &co, base, Xs, ys, &rep, &chosen,
								  &err);
		CHECK(st == DAC_OK && (rep.refit == (chosen != NULL && rep.chosen == DAC_WHITEN_RIDGES)) &&
			  (!rep.refit || (chosen->net.cfg.gate_classes == L && dac_model_map_dim(chosen) == d)),
			  "a projection kept is fit again on every row, all %d labels (refit %d, best %d)", L, rep.refit, rep.best);
		dac_model_destroy(chosen);
		chosen = NULL;
		dac_labelled_destroy(every);
	}
	best = rep.best;
	diff = rep.diff;
	se = rep.se;
	for (i = 0; i < sets; i++)
		perfect[i] = 1;
	st = dac_whitening_choose(&m, train, all, known, NULL, sets, n_max, 4, 5, &co, perfect, Xs, ys, &rep, &chosen, &err);
	CHECK(st == DAC_OK && chosen == NULL && rep.chosen == -1 && rep.best == best && rep.diff == diff && rep.se == se &&
		  rep.guard_diff < -DAC_WHITEN_GUARD_SE * rep.guard_se,
		  "against perfect held-out scores the guard sets the same map aside (%+.3f +- %.3f)", rep.guard_diff, rep.guard_se);
	st = dac_whitening_choose(&m, train, all, NULL, NULL, sets, n_max, 4, 5, &co, base, Xs, ys, &rep, &chosen, &err);
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

/* More labels than a projection takes: refused before its allocations. */
static void
too_many_labels_case(void)
{
	dac_labelled *many;
	int			n = 2 * (DAC_MAX_GATE_CLASSES + 1),
				classes = 0,
				prows = 0,
				i;
	int		   *ym = malloc(sizeof(int) * n);
	dac_real   *Xm = malloc(sizeof(dac_real) * n * 2),
				P[4],
				G[4],
				means[6];
	dac_error	err;
	dac_status	st;

	for (i = 0; i < n; i++)
	{
		ym[i] = i / 2;
		Xm[i * 2] = (dac_real) (i / 2) + (dac_real) (i % 2) * 0.1f;
		Xm[i * 2 + 1] = (dac_real) (i % 2);
	}
	CHECK(dac_labelled_new(Xm, ym, NULL, n, 2, &many, &err) == DAC_OK, "a table of %d labels", n / 2);
	st = dac_lda_map(many, NULL, DAC_LDA_RIDGE, P, &prows, G, means, &classes, &err);
	CHECK(st == DAC_ERR_TOO_LARGE, "%d labels are more than a projection takes: %s", n / 2, err.msg);
	dac_labelled_destroy(many);
	free(ym);
	free(Xm);
}

/*
 * The projection onto the labels' directions (dac_lda_map) and its gate
 * (dac_gate_beyond, dac_gate_opens), worked out by hand; a model with a
 * gated map maps a group of the table's classes and leaves any other as it
 * is; its configuration and weights file keep the gate; hostile gates.
 */
static void
projection_and_gate(void)
{
	enum
	{
		PER = 200, L = 3, D = 2
	};
	static dac_real X[L * PER * D];
	static int	y[L * PER];
	dac_real	P[D * D],
				G[D * D],
				means[L * D];
	int			classes = 0,
				prows = 0,
				i,
				beyond = -1;
	double		dist[3];
	dac_rng		r;
	dac_labelled *ds;
	dac_error	err;
	dac_status	st;

	/* three labels whose means lie on the first axis, the same round spread each */
	dac_rng_seed(&r, 4);
	for (i = 0; i < L * PER; i++)
	{
		y[i] = i / PER;
		X[i * D] = (dac_real) (4.0 * (y[i] - 1) + dac_rng_normal(&r));
		X[i * D + 1] = (dac_real) (dac_rng_normal(&r));
	}
	CHECK(dac_labelled_new(X, y, NULL, L * PER, D, &ds, &err) == DAC_OK, "three labels along the first axis");
	st = dac_lda_map(ds, NULL, DAC_LDA_RIDGE, P, &prows, G, means, &classes, &err);
	CHECK(st == DAC_OK && classes == 3 && prows == 2, "the projection separates 3 labels, two directions (%d)", prows);
	/*
	 * S_w ≈ I, so G ≈ I / √(1 + ridge): the means' directions are the first
	 * axis alone (collinear means: one direction of two), of unit length
	 * in G's coordinates, so P's first row ≈ (±1/√1.1, 0) and its second 0
	 */
	CHECK(fabs(fabs(P[0]) - 1 / sqrt(1 + DAC_LDA_RIDGE)) < 0.05 && fabs(P[1]) < 0.05,
		  "the one direction is the first axis, through the whitening (%.3f, %.3f)", P[0], P[1]);
	/* three labels, two directions: the second, of little spread between the means, is the other axis */
	CHECK(fabs(P[2]) < 0.05 && fabs(fabs(P[3]) - 1 / sqrt(1 + DAC_LDA_RIDGE)) < 0.05,
		  "the second row is the other axis, of unit length in G's coordinates too (%.3f, %.3f)", P[2], P[3]);
	CHECK(fabs(means[0] - (-4 * G[0])) < 0.3 && fabs(means[4] - 4 * G[0]) < 0.3,
		  "the means in G's coordinates: about -4 and 4 times G's scale (%.3f, %.3f)", means[0], means[4]);
	{
		/* the gate by hand: G = I, means (0, 0) and (10, 0), threshold 1 */
		dac_real	I2[4] = {1, 0, 0, 1},
					mu[4] = {0, 0, 10, 0},
					rows[6] = {0.5, 0, 5, 0, 10, -0.9},
					Y[6];

		st = dac_gate_beyond(rows, 3, 2, I2, 1, mu, 2, 1.0, Y, &beyond, dist, &err);
		CHECK(st == DAC_OK && beyond == 1 && fabs(dist[0] - 0.25) < 1e-6 && fabs(dist[1] - 25) < 1e-6 &&
			  fabs(dist[2] - 0.81) < 1e-6, "distances 0.25, 25, 0.81 to the nearest mean: one row beyond 1 (%d)", beyond);
	}
	/* 5% + two binomial standard errors: at n = 100, 0.05 + 2·0.0218 */
	CHECK(dac_gate_opens(100, 9) && !dac_gate_opens(100, 10) && dac_gate_opens(20, 2) && !dac_gate_opens(0, 0),
		  "the gate opens at 9 of 100 rows beyond, not at 10; at 2 of 20; never for no rows");

	/* a gated model: the table's own rows are mapped, rows far from every class are not */
	{
		dac_model	plain,
				   *gated = NULL,
				   *back = NULL;
		dac_real	Z1[PER * 32],
					Z2[PER * 32],
					far[PER * D],
					mapped[PER * D];
		double		threshold = 6.0;
		uint8_t    *buf = NULL;
		size_t		len = 0;
		char	   *js;
		int			same;

		unit_small_setnorm_model(&plain, 8, 13, &r);
		st = dac_model_with_gated_map(&plain, P, D, D, G, means, classes, threshold, NULL, &gated, &err);
		CHECK(st == DAC_OK && dac_model_map_dim(gated) == D, "a model with a gated %dx%d map", D, D);
		/* the first 200 rows (label 0) lie near a mean: Z = setnorm(X Pᵀ) */
		for (i = 0; i < PER; i++)
		{
			mapped[i * D] = P[0] * X[i * D] + P[1] * X[i * D + 1];
			mapped[i * D + 1] = P[2] * X[i * D] + P[3] * X[i * D + 1];
		}
		st = dac_model_normalise(gated, X, PER, D, Z1, &err);
		dac_setnorm(mapped, PER, D, plain.net.cfg.dim_input, Z2, NULL);
		{
			double		worst = 0;

			for (i = 0; i < PER * plain.net.cfg.dim_input; i++)
				worst = fmax(worst, fabs((double) Z1[i] - Z2[i]));
			CHECK(st == DAC_OK && worst < 1e-4, "a group of the table's rows is normalised through the map (%.2g)", worst);
		}
		/* the same rows moved 30 along the second axis: outside every class, normalised as they are */
		for (i = 0; i < PER; i++)
		{
			far[i * D] = X[i * D];
			far[i * D + 1] = X[i * D + 1] + 30;
		}
		st = dac_model_normalise(gated, far, PER, D, Z1, &err);
		dac_setnorm(far, PER, D, plain.net.cfg.dim_input, Z2, NULL);
		same = st == DAC_OK && memcmp(Z1, Z2, sizeof(dac_real) * PER * plain.net.cfg.dim_input) == 0;
		CHECK(same, "a group far from the table's classes is normalised as it is, without the map");
		CHECK(dac_model_map_flops(gated, 100) > 4.0 * 100 * D * D, "the gate's products and distances are counted");
		{
			/* a map of its own for the groups the gate turns away: the far rows pass through it */
			dac_real	E[D * D] = {2, 0, 1, 3},
						mapped_far[PER * D];
			dac_model  *with_else = NULL;
			double		worst = 0;
			char	   *ej;

			st = dac_model_with_gated_map(&plain, P, D, D, G, means, classes, threshold, E, &with_else, &err);
			for (i = 0; i < PER; i++)
			{
				mapped_far[i * D] = E[0] * far[i * D] + E[1] * far[i * D + 1];
				mapped_far[i * D + 1] = E[2] * far[i * D] + E[3] * far[i * D + 1];
			}
			if (st == DAC_OK)
				st = dac_model_normalise(with_else, far, PER, D, Z1, &err);
			dac_setnorm(mapped_far, PER, D, plain.net.cfg.dim_input, Z2, NULL);
			for (i = 0; i < PER * plain.net.cfg.dim_input; i++)
				worst = fmax(worst, fabs((double) Z1[i] - Z2[i]));
			CHECK(st == DAC_OK && worst < 1e-4, "a group the gate turns away passes through the other map (%.2g)", worst);

			ej = with_else ? dac_model_config_json(with_else) : NULL;
			CHECK(ej && strstr(ej, "\"input_map_else\": true") != NULL, "the configuration says so: %s", ej ? ej : "");
			dac_free(ej);
			dac_model_destroy(with_else);
		}
		js = dac_model_config_json(gated);
		CHECK(js && strstr(js, "\"input_gate\": 3, \"input_gate_threshold\": 6") != NULL,
			  "the configuration says the gate's classes and threshold: %s", js ? js : "");
		dac_free(js);
		st = dac_model_save(gated, NULL, &buf, &len, &err);
		if (st == DAC_OK)
			st = dac_model_read(buf, len, &back, &err);
		{
			double		worst = 0;
			size_t		k;

			/* bit for bit in float32; to float32's rounding in the double build */
			for (k = 0; st == DAC_OK && k < gated->net.nparams; k++)
				worst = fmax(worst, fabs((double) back->P[k] - gated->P[k]) / (1e-30 + fabs((double) gated->P[k])));
			CHECK(st == DAC_OK && dac_model_same_config(back, gated) == 1 && worst < 1e-6,
				  "the gate's map, means and threshold go through the weights file (relative %.2g)", worst);
		}
		dac_free(buf);
		dac_model_destroy(back);
		dac_model_destroy(gated);
		dac_model_free(&plain);
	}
	{
		/* hostile configurations */
		static const char *const bad[] = {
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_gate\": 3, \"input_gate_threshold\": 1}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_gate\": 3}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_gate\": 3, \"input_gate_threshold\": -1}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_gate\": 1, \"input_gate_threshold\": 1}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_gate\": 5000, \"input_gate_threshold\": 1}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_gate_threshold\": 1}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_map_else\": true}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_gate\": 3, \"input_gate_threshold\": 1, \"input_map_else\": 1}",
			/* a map's rows (0.24.0): between 1 and its width, an integer, with a map */
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_map_rows\": 5}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_map_rows\": -1}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map_rows\": 2}",
			"{\"strategy\": \"mlf\", \"density\": \"none\", \"dim_input\": 32, \"input\": \"setnorm\", \"input_map\": 4, \"input_map_rows\": 2.5}",
		};
		dac_config	cfg;

		for (i = 0; i < (int) (sizeof(bad) / sizeof(bad[0])); i++)
		{
			st = dac_config_from_json(bad[i], strlen(bad[i]), &cfg, &err);
			CHECK(st == DAC_ERR_CONFIG, "a hostile gate or map is refused (%d): %s", i, err.msg);
		}
	}
	too_many_labels_case();
	/* two labels: nothing to project */
	{
		dac_labelled *two;

		CHECK(dac_labelled_new(X, y, NULL, 2 * PER, D, &two, &err) == DAC_OK, "a table of two labels");
		st = dac_lda_map(two, NULL, DAC_LDA_RIDGE, P, &prows, G, means, &classes, &err);
		CHECK(st == DAC_ERR_INVALID, "two labels have no projection: %s", err.msg);
		dac_labelled_destroy(two);
	}
	dac_labelled_destroy(ds);
}

/*
 * A projection keeps only its directions' rows (0.24.0): three labels in
 * four dimensions give two directions, the map is [2, 4], the network sees
 * two coordinates, exactly what the square map of 0.23.0 (the same rows and
 * two of zeros) gave; the configuration and weights file say so; a square
 * map's file reads as before (hostile row counts: projection_and_gate).
 */
static void
projection_rows(void)
{
	enum
	{
		PER = 150, L = 3, D = 4, W = 32
	};
	static dac_real X[L * PER * D],
				Z1[PER * W],
				Z2[PER * W],
				Y[PER * 2];
	dac_real	P[D * D],
				G[D * D],
				means[L * D];
	int			classes = 0,
				prows = 0,
				i,
				k,
				w,
				zero = 1;
	double		worst = 0;
	dac_rng		r;
	dac_labelled *ds;
	dac_model	plain,
			   *rowed = NULL,
			   *square = NULL,
			   *back = NULL;
	uint8_t    *buf = NULL;
	size_t		len = 0;
	char	   *js;
	dac_error	err;
	dac_status	st;

	/* three labels at the corners of a triangle in the first two axes; the other two axes noise alone */
	dac_rng_seed(&r, 9);
	for (i = 0; i < L * PER; i++)
	{
		int			c = i / PER;

		X[i * D] = (dac_real) ((c == 1 ? 5.0 : 0.0) + dac_rng_normal(&r));
		X[i * D + 1] = (dac_real) ((c == 2 ? 5.0 : 0.0) + dac_rng_normal(&r));
		X[i * D + 2] = (dac_real) (2 * dac_rng_normal(&r));
		X[i * D + 3] = (dac_real) (0.5 * dac_rng_normal(&r));
	}
	{
		int			y[L * PER];

		for (i = 0; i < L * PER; i++)
			y[i] = i / PER;
		st = dac_labelled_new(X, y, NULL, L * PER, D, &ds, &err);
	}
	CHECK(st == DAC_OK, "three labels in four dimensions");
	st = dac_lda_map(ds, NULL, DAC_LDA_RIDGE, P, &prows, G, means, &classes, &err);
	for (k = 2 * D; k < D * D; k++)
		zero &= P[k] == 0;
	CHECK(st == DAC_OK && prows == 2 && zero, "three labels: two directions, P's other rows zero (%d rows)", prows);
	unit_small_setnorm_model(&plain, 8, 17, &r);
	w = plain.net.cfg.dim_input;
	st = dac_model_with_gated_map(&plain, P, prows, D, G, means, classes, 50.0, NULL, &rowed, &err);
	CHECK(st == DAC_OK && dac_model_map_dim(rowed) == D && dac_config_map_rows(&rowed->net.cfg) == 2,
		  "the model keeps the map's two rows for four-wide rows");
	st = dac_model_with_gated_map(&plain, P, D, D, G, means, classes, 50.0, NULL, &square, &err);
	CHECK(rowed->lower == DAC_LOWER_GATE && square->lower == DAC_LOWER_GATE,
		  "the gate's whitening takes the triangular product, the projection the general one (%d, %d)",
		  rowed->lower, square->lower);
	CHECK(st == DAC_OK && square->net.nparams == rowed->net.nparams + 2 * D,
		  "the square map of 0.23.0 holds two rows more (%zu against %zu parameters)",
		  square ? square->net.nparams : 0, rowed ? rowed->net.nparams : 0);
	js = rowed ? dac_model_config_json(rowed) : NULL;
	CHECK(js && strstr(js, "\"input_map\": 4, \"input_map_rows\": 2") != NULL, "the configuration says the rows: %s",
		  js ? js : "");
	dac_free(js);
	js = square ? dac_model_config_json(square) : NULL;
	CHECK(js && strstr(js, "input_map_rows") == NULL, "a square map's configuration is 0.23.0's: %s", js ? js : "");
	dac_free(js);

	/* a group of the table's first label (the gate opens): Z = setnorm of its two projected coordinates */
	for (i = 0; i < PER; i++)
		for (k = 0; k < 2; k++)
			Y[i * 2 + k] = P[k * D] * X[i * D] + P[k * D + 1] * X[i * D + 1] + P[k * D + 2] * X[i * D + 2] +
				P[k * D + 3] * X[i * D + 3];
	st = dac_model_normalise(rowed, X, PER, D, Z1, &err);
	dac_setnorm(Y, PER, 2, w, Z2, NULL);
	for (i = 0; i < PER * w; i++)
		worst = fmax(worst, fabs((double) Z1[i] - Z2[i]));
	CHECK(st == DAC_OK && worst < 1e-4, "the group is normalised in the projection's two coordinates (%.2g)", worst);
	st = dac_model_normalise(square, X, PER, D, Z2, &err);
	worst = 0;
	for (i = 0; i < PER * w; i++)
		worst = fmax(worst, fabs((double) Z1[i] - Z2[i]));
	CHECK(st == DAC_OK && worst < 1e-4, "as the square map with its rows of zeros normalised it (%.2g)", worst);
	CHECK(dac_model_map_flops(rowed, 100) < dac_model_map_flops(square, 100),
		  "the map's product is counted at its rows");
	{
		/*
		 * with a map for the groups the gate turns away (square, not
		 * triangular), the count's bound is that map's 2·n·d², not the
		 * projection's 2·n·d·rows
		 */
		dac_real	E[D * D];
		dac_model  *rowed_else = NULL;

		for (k = 0; k < D * D; k++)
			E[k] = (dac_real) (1 + k % 3);
		st = dac_model_with_gated_map(&plain, P, prows, D, G, means, classes, 50.0, E, &rowed_else, &err);
		CHECK(st == DAC_OK && dac_model_map_flops(rowed_else, 100) - dac_model_map_flops(rowed, 100) ==
			  2.0 * 100 * D * D - 2.0 * 100 * D * prows,
			  "the other groups' square product bounds the map's count (%g against %g)",
			  rowed_else ? dac_model_map_flops(rowed_else, 100) : 0, dac_model_map_flops(rowed, 100));
		dac_model_destroy(rowed_else);
	}
	{
		/*
		 * the gate reads a group far from the classes a block at a time and
		 * stops once it cannot open: the same decision as reading every row
		 */
		static dac_real far[PER * D],
					Yg[PER * D];
		static double dist[PER];
		int			all = -1,
					some = -1,
					near_all = -1,
					near_some = -1;

		for (i = 0; i < PER * D; i++)
			far[i] = X[i] + (i % D == 3 ? 40 : 0);
		st = dac_gate_beyond(far, PER, D, G, 1, means, classes, 50.0, Yg, &all, dist, &err);
		if (st == DAC_OK)
			st = dac_gate_beyond(far, PER, D, G, 1, means, classes, 50.0, Yg, &some, NULL, &err);
		CHECK(st == DAC_OK && all == PER && some == DAC_GATE_STEP && !dac_gate_opens(PER, some),
			  "a far group: %d of %d rows beyond, the gate closed after the first %d (%d)", all, PER, DAC_GATE_STEP,
			  some);
		st = dac_gate_beyond(X, PER, D, G, 1, means, classes, 50.0, Yg, &near_all, dist, &err);
		if (st == DAC_OK)
			st = dac_gate_beyond(X, PER, D, G, 1, means, classes, 50.0, Yg, &near_some, NULL, &err);
		CHECK(st == DAC_OK && near_all == near_some && dac_gate_opens(PER, near_some),
			  "a group of the table's rows: every row read, the same count (%d, %d), the gate open", near_all,
			  near_some);
	}

	/* the weights file keeps the rows; a square map's file reads square */
	st = dac_model_save(rowed, NULL, &buf, &len, &err);
	if (st == DAC_OK)
		st = dac_model_read(buf, len, &back, &err);
	CHECK(st == DAC_OK && dac_model_same_config(back, rowed) == 1 && back->net.nparams == rowed->net.nparams,
		  "the rows go through the weights file");
	dac_free(buf);
	dac_model_destroy(back);
	back = NULL;
	buf = NULL;
	st = dac_model_save(square, NULL, &buf, &len, &err);
	if (st == DAC_OK)
		st = dac_model_read(buf, len, &back, &err);
	CHECK(st == DAC_OK && dac_config_map_rows(&back->net.cfg) == D && dac_model_same_config(back, square) == 1,
		  "a square map's file reads square");
	dac_free(buf);
	dac_model_destroy(back);

	st = dac_model_with_gated_map(&plain, P, D + 1, D, G, means, classes, 50.0, NULL, &back, &err);
	CHECK(st == DAC_ERR_INVALID && back == NULL, "a map of more rows than its width is refused: %s", err.msg);

	/*
	 * dac-cli project --else-ridge: the projection of the same rows, and
	 * for the groups its gate turns away the rows' own whitening at that
	 * ridge, element for element; without it, no such map
	 */
	{
		dac_model  *pe = NULL,
				   *pn = NULL;
		double		S[D * D];
		dac_real	W[D * D];
		double		off = 0;

		st = dac_projection_model(&plain, ds, ds, 1.0, &pe, &err);
		if (st == DAC_OK)
			st = dac_projection_model(&plain, ds, ds, 0, &pn, &err);
		if (st == DAC_OK)
			st = dac_within_scatter(ds, S, &err);
		if (st == DAC_OK)
			st = dac_whitening_map(S, D, 1.0, W, &err);
		for (k = 0; st == DAC_OK && k < D * D; k++)
			off = fmax(off, fabs(pe->P[pe->net.map_else + k] - W[k]));
		CHECK(st == DAC_OK && pe->net.cfg.map_else && !pn->net.cfg.map_else && off == 0 &&
			  pe->net.cfg.gate_threshold == pn->net.cfg.gate_threshold &&
			  dac_config_map_rows(&pe->net.cfg) == dac_config_map_rows(&pn->net.cfg),
			  "an other groups' map at ridge 1: the rows' own whitening (off by %g), the same projection and gate",
			  off);
		dac_model_destroy(pe);
		dac_model_destroy(pn);
	}
	dac_model_destroy(rowed);
	dac_model_destroy(square);
	dac_model_free(&plain);
	dac_labelled_destroy(ds);
}

void
test_whiten(void)
{
	by_hand();
	identity_property();
	model_with_map();
	trainer_adopts();
	known_part_rule();
	projection_and_gate();
	projection_rows();
	choice_rule();
}
