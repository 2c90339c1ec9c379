/*
 * test_front.c
 *	  The front door (dac.h): the options' values by hand, a new model's
 *	  configuration and a run's schedule read from options as the glue and
 *	  dac-cli give them, the bare loop's defaults from the table, and the
 *	  opaque model, trainer and training table through their constructors.
 */
#include "unit.h"

#include "net.h"
#include "train.h"
#include "frame.h"
#include "labels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options as name/value pairs ended by NULL: the getter a host would pass. */
static const char *
pairs_get(void *ctx, const char *name)
{
	const char *const *p;

	for (p = ctx; p[0]; p += 2)
		if (strcmp(p[0], name) == 0)
			return p[1];
	return NULL;
}

static void
test_values(void)
{
	double		v;
	dac_error	err;

	CHECK(dac_option_value(dac_train_option("steps"), "250", &v, NULL) == DAC_OK && v == 250, "steps 250");
	CHECK(dac_option_value(dac_train_option("steps"), NULL, &v, NULL) == DAC_OK && v == 1000,
		  "steps absent: the table's 1000");
	CHECK(dac_option_value(dac_train_option("steps"), "2.5", &v, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "whole number") != NULL, "steps 2.5 refused: %s", err.msg);
	CHECK(dac_option_value(dac_train_option("lr"), "0", &v, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "greater than 0 and at most 1") != NULL, "lr 0 refused: %s", err.msg);
	CHECK(dac_option_value(dac_train_option("lr"), "1e-3x", &v, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "must be a number") != NULL, "lr 1e-3x refused: %s", err.msg);
	CHECK(dac_option_value(dac_train_option("dim"), NULL, &v, &err) == DAC_ERR_INVALID,
		  "dim has no default of its own: %s", err.msg);
	CHECK(dac_option_value(dac_train_option("density"), "maf", &v, NULL) == DAC_OK && v == 1,
		  "density maf: the second name");
	CHECK(dac_option_value(dac_train_option("density"), "Maf", &v, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "one of gaussian_diag|maf|ns|none") != NULL, "density Maf refused: %s", err.msg);
	CHECK(dac_option_value(dac_train_option("density"), "ma", &v, NULL) == DAC_ERR_INVALID &&
		  dac_option_value(dac_train_option("density"), "maf|ns", &v, NULL) == DAC_ERR_INVALID,
		  "a prefix or two names are no name");
	CHECK(dac_option_value(dac_train_option("input"), "scaled", &v, NULL) == DAC_ERR_INVALID,
		  "a new model is not made scaled (dac-cli scale does that)");
	CHECK(dac_option_value(dac_train_option("fixed_n"), "true", &v, NULL) == DAC_OK && v == 1 &&
		  dac_option_value(dac_train_option("fixed_n"), NULL, &v, NULL) == DAC_OK && v == 0 &&
		  dac_option_value(dac_train_option("fixed_n"), "yes", &v, NULL) == DAC_ERR_INVALID,
		  "booleans: true, the default false, and nothing else");
	CHECK(dac_option_value(dac_cluster_option("leftover"), "first", &v, NULL) == DAC_OK &&
		  v == DAC_LEFTOVER_FIRST, "leftover first: the enum's value");
	CHECK(dac_train_option("nope") == NULL && dac_cluster_option("nope") == NULL, "unknown names");
}

static void
test_config(void)
{
	static const char *const none[] = {NULL};
	static const char *const ns[] = {"density", "ns", "image_filters", "8", NULL};
	static const char *const ns6[] = {"density", "ns", "maf_blocks", "3", NULL};
	static const char *const setnorm[] = {"input", "setnorm", "density", "none", "dim", "16",
	"strategy", "af", "shared_blocks", "false", "num_inds", "8", NULL};
	static const char *const bad[] = {"num_heads", "0", NULL};
	dac_config	c;
	dac_error	err;
	double		bytes;

	CHECK(dac_config_from_options(pairs_get, (void *) none, 0, &c, &err) == DAC_OK &&
		  c.strategy == DAC_MLF && c.density == DAC_DENSITY_GAUSSIAN && c.input == DAC_INPUT_RAW &&
		  c.dim_input == 2 && c.dim_hidden == 128 && c.num_heads == 4 && c.num_inds == 32 &&
		  c.num_blocks == 4 && c.shared_blocks && c.maf_blocks == 4,
		  "no options: the 2-D MLF of dac_config_default");
	CHECK(dac_config_from_options(pairs_get, (void *) none, 37, &c, &err) == DAC_OK && c.dim_input == 37,
		  "a raw model takes its rows' width");
	CHECK(dac_config_from_options(pairs_get, (void *) ns, 0, &c, &err) == DAC_OK &&
		  c.density == DAC_DENSITY_NS && c.dim_input == 784 && c.maf_blocks == 6 && c.image_filters == 8,
		  "the image model: 784 pixels, the authors' six MADE blocks unless told");
	CHECK(dac_config_from_options(pairs_get, (void *) ns6, 0, &c, &err) == DAC_OK && c.maf_blocks == 3,
		  "the image model's blocks as told");
	CHECK(dac_config_from_options(pairs_get, (void *) setnorm, 64, &c, &err) == DAC_OK &&
		  c.strategy == DAC_AF && c.input == DAC_INPUT_SETNORM && c.dim_input == 16 &&
		  !c.shared_blocks && c.num_inds == 8 && c.density == DAC_DENSITY_NONE,
		  "a normalising model takes \"dim\", not its rows' width");
	CHECK(dac_config_from_options(pairs_get, (void *) bad, 0, &c, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "\"num_heads\" must be between 1") != NULL, "num_heads 0 refused: %s", err.msg);
	CHECK(dac_model_new_bytes(pairs_get, (void *) bad, 0, &bytes, &err) == DAC_ERR_INVALID,
		  "the bytes of a model of bad options: refused as the model is");
	CHECK(dac_model_new_bytes(pairs_get, (void *) none, 0, &bytes, &err) == DAC_OK,
		  "the bytes of a new model and its optimiser");
	{
		dac_model  *m;
		double		pb;

		dac_config_from_options(pairs_get, (void *) none, 0, &c, &err);
		dac_config_param_bytes(&c, &pb, &err);
		CHECK(dac_model_new(pairs_get, (void *) none, 0, &m, &err) == DAC_OK &&
			  dac_model_dim_input(m) == 2 && bytes == 4 * pb && !dac_model_is_anchored(m) &&
			  dac_model_has_density(m) && dac_model_num_inds(m) == 32,
			  "dac_model_new: a 2-D MLF, its bytes four times its parameters'");
		dac_model_destroy(m);
	}
}

static void
test_schedule(void)
{
	static const char *const o[] = {"steps", "300", "batch", "7", "n_max", "50", "k_max", "3",
		"mix_n_max", "100", "mix_k_max", "6", "seed", "9007199254740991", "lr", "0.001",
	"clip", "2.5", "fixed_n", "true", NULL};
	static const char *const bad[] = {"n_max", "3", NULL};
	dac_train_opts to = dac_train_opts_default();
	dac_error	err;
	dac_strbuf	sb;

	CHECK(dac_train_opts_read(pairs_get, (void *) o, &to, &err) == DAC_OK &&
		  to.steps == 300 && to.batch == 7 && to.n_max == 50 && to.k_max == 3 && to.alt_n_max == 100 &&
		  to.alt_k_max == 6 && to.alt_ratio == 1 && to.seed == 9007199254740991ULL && to.adam.lr == 0.001 &&
		  to.adam.clip == 2.5 && to.fixed_n && to.adam.total_steps == 300,
		  "the schedule from options (mix_ratio absent: 1, alternating)");
	dac_strbuf_init(&sb);
	dac_train_opts_json(&to, &sb);
	CHECK(!sb.failed && strcmp(sb.data, "\"batch\": 7, \"n_max\": 50, \"k_max\": 3, \"mix_n_max\": 100, "
							   "\"mix_k_max\": 6, \"mix_ratio\": 1, \"lr\": 0.001, \"clip\": 2.5, "
							   "\"seed\": 9007199254740991, \"total_steps\": 300") == 0,
		  "the training record's members: %s", sb.data ? sb.data : "(none)");
	dac_strbuf_free(&sb);
	CHECK(dac_train_opts_read(pairs_get, (void *) bad, &to, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "\"n_max\" must be between 4 and 1000000") != NULL, "n_max 3 refused: %s", err.msg);
}

static void
test_bare(void)
{
	static const char *const o[] = {"kmeans_steps", "10", "leftover", "best", "reassign", "true",
	"graph_resolution", "0.2", "k", "3", "graph_merge", "0.07", NULL};
	static const char *const bad[] = {"k_search", "65", NULL};
	dac_cluster_opts d = dac_cluster_opts_default(),
				c = d;
	dac_error	err;

	CHECK(d.max_passes == 50 && d.leftover == DAC_LEFTOVER_OWN && d.min_size == 1 && !d.reassign &&
		  d.em_steps == 0 && d.kmeans_steps == 0 && d.k_search == 0 && d.graph_neighbors == 0 &&
		  d.graph_resolution == 0.05 && d.k_exact == 0 && d.k_max == 0 && d.sample_size == 0 &&
		  d.noise == 0 && d.canonical == 1 && d.want_ll == 1 && d.graph_start == 1 && d.graph_merge == 0,
		  "the bare loop: the authors' (the table's bare column)");
	CHECK(dac_cluster_opts_read(pairs_get, (void *) o, &c, &err) == DAC_OK && c.kmeans_steps == 10 &&
		  c.leftover == DAC_LEFTOVER_BEST && c.reassign && c.graph_resolution == 0.2 && c.k_exact == 3 && c.graph_merge == 0.07 &&
		  c.max_passes == 50, "clustering options read over the bare ones");
	CHECK(dac_cluster_opts_read(pairs_get, (void *) bad, &c, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "\"k_search\" must be between 0 and 64") != NULL, "k_search 65 refused: %s", err.msg);
	CHECK(dac_option_default(dac_cluster_option("kmeans_steps")) == 10 &&
		  dac_option_default(dac_cluster_option("seed")) == 1 &&
		  dac_option_default(dac_cluster_option("graph_merge")) == 0.04 &&
		  strcmp(dac_cluster_option("seed")->bare, "7") == 0,
		  "the database's defaults beside the bare ones (k-means 10; seed 1, dac-cli's 7; graph_merge 0.04, off bare)");
}

static void
test_opaque(void)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 3);
	dac_model	small;
	dac_model  *m = NULL,
			   *c = NULL;
	dac_rng		r;
	dac_error	err;
	uint8_t    *buf = NULL;
	size_t		len = 0;
	const char *meta[] = {"dac.training", "{\"steps\": 5}", NULL};
	char	   *got;
	int			same = 1;
	size_t		i;

	cfg.dim_hidden = 16;
	cfg.num_heads = 2;
	cfg.num_inds = 4;
	cfg.num_blocks = 2;
	if (unit_random_model(&small, &cfg, 5, &r) != DAC_OK ||
		dac_model_save(&small, meta, &buf, &len, &err) != DAC_OK)
	{
		CHECK(0, "a small model to save");
		return;
	}
	if (dac_model_read(buf, len, &m, &err) != DAC_OK)
	{
		CHECK(0, "dac_model_read: %s", err.msg);
		return;
	}
	/* the file holds float32 (the float64 build reads back its values rounded) */
	for (i = 0; i < small.net.nparams; i++)
		same &= (float) m->P[i] == (float) small.P[i];
	CHECK(dac_model_dim_input(m) == 3 && dac_model_nparams(m) == small.net.nparams && same,
		  "dac_model_read gives the saved parameters");
	got = dac_weights_meta(buf, len, "dac.training", &err);
	CHECK(got != NULL && strcmp(got, "{\"steps\": 5}") == 0, "the training record read back");
	dac_free(got);
	CHECK(dac_weights_meta(buf, len, "nope", &err) == NULL, "an absent key: NULL");
	CHECK(dac_model_copy(m, &c, &err) == DAC_OK && memcmp(c->P, m->P, sizeof(dac_real) * m->net.nparams) == 0 &&
		  c->P != m->P, "dac_model_copy: the same parameters in a buffer of its own");
	CHECK(dac_model_set_units(c, 0.25, &err) == DAC_OK && dac_model_keeps_doubles(c) &&
		  c->net.cfg.unit_width == 0.25 && dac_model_set_units(c, 0, &err) == DAC_OK && !dac_model_keeps_doubles(c),
		  "units scaled at 0.25, then raw again");
	CHECK(dac_model_shrink_inds(c, 9, &err) == DAC_ERR_INVALID, "more inducing points than it has: refused");
	CHECK(dac_model_shrink_inds(c, 2, &err) == DAC_OK && dac_model_num_inds(c) == 2, "shrunk to 2 inducing points");
	{
		const dac_param_info *a = dac_net_find_param(&m->net, "isab1.blocks.0.pma.I");
		const dac_param_info *b = dac_net_find_param(&c->net, "isab1.blocks.0.pma.I");

		same = 1;
		if (a && b)
			for (i = 0; i < (size_t) b->count; i++)
				same &= c->P[b->offset + i] == m->P[a->offset + i];
		CHECK(a && b && b->count == 2 * 16 && same, "an ISAB keeps its first inducing points");
	}
	/* the average: m with two copies whose parameters are shifted by +1 and by +5 */
	{
		dac_model  *p1 = NULL,
				   *p2 = NULL;
		const dac_model *others[2];
		dac_real	first = m->P[0],
					last = m->P[m->net.nparams - 1];
		int			ok;

		ok = dac_model_copy(m, &p1, &err) == DAC_OK && dac_model_copy(m, &p2, &err) == DAC_OK;
		for (i = 0; ok && i < m->net.nparams; i++)
		{
			p1->P[i] += 1;
			p2->P[i] += 5;
		}
		others[0] = p1;
		others[1] = p2;
		CHECK(ok && dac_model_average(m, others, 2, &err) == DAC_OK &&
			  fabs(m->P[0] - (first + 2)) < 1e-5 && fabs(m->P[m->net.nparams - 1] - (last + 2)) < 1e-5,
			  "average of x, x + 1 and x + 5: x + 2 in every parameter");
		CHECK(ok && dac_model_average(p1, (const dac_model *const *) &p1, 1, &err) == DAC_OK &&
			  fabs(p1->P[0] - (first + 1)) < 1e-5, "a model averaged with itself is unchanged");
		others[0] = c;			/* 2 inducing points: another configuration */
		CHECK(dac_model_average(m, others, 1, &err) == DAC_ERR_INVALID &&
			  strstr(err.msg, "another configuration") != NULL &&
			  fabs(m->P[0] - (first + 2)) < 1e-5, "another configuration: refused, nothing changed");
		/* assign: m takes p2's parameters (x + 5), not another configuration's */
		CHECK(dac_model_same_config(m, p2) == 1 && dac_model_same_config(m, c) == 0,
			  "same configuration: m and its copy yes, the shrunk copy no");
		CHECK(dac_model_assign(m, p2, &err) == DAC_OK && memcmp(m->P, p2->P, sizeof(dac_real) * m->net.nparams) == 0,
			  "dac_model_assign copies every parameter");
		CHECK(dac_model_assign(m, c, &err) == DAC_ERR_INVALID && m->P[0] == p2->P[0],
			  "assigning another configuration: refused, nothing changed");
		dac_model_destroy(p1);
		dac_model_destroy(p2);
	}
	dac_model_destroy(c);
	dac_model_destroy(m);
	dac_model_destroy(NULL);
	dac_free(buf);
	dac_model_free(&small);
}

static void
test_table(void)
{
	/* two groups: labels 0, 1 in group 0; label 2 in group 1 */
	static const dac_real X[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	static const int y[] = {1, 0, 2, 1, 0},
				g[] = {0, 0, 1, 0, 0};
	dac_labelled *ds;
	dac_error	err;
	dac_real	Xo[10];
	int			yo[5],
				n;

	if (dac_labelled_new(X, y, g, 5, 2, &ds, &err) != DAC_OK)
	{
		CHECK(0, "a labelled table: %s", err.msg);
		return;
	}
	CHECK(dac_labelled_width(ds) == 2 && dac_labelled_groups(ds) == 2 &&
		  dac_labelled_group_size(ds, 0) == 4 && dac_labelled_group_size(ds, 1) == 1,
		  "width 2, two groups of 4 and 1 rows");
	CHECK(dac_labelled_group(ds, 0, Xo, yo, &n, &err) == DAC_OK && n == 4 && yo[0] == 0 && yo[1] == 0 &&
		  yo[2] == 1 && yo[3] == 1 && Xo[0] == 3 && Xo[2] == 9 && Xo[4] == 1 && Xo[6] == 7,
		  "group 0 by label, labels 0 .. k-1 within it");
	CHECK(dac_labelled_group(ds, 1, Xo, yo, &n, &err) == DAC_OK && n == 1 && yo[0] == 0 &&
		  Xo[0] == 5 && Xo[1] == 6, "group 1: its one row, label 0");
	CHECK(dac_labelled_group(ds, 2, Xo, yo, &n, &err) == DAC_ERR_INVALID && n == 0, "group 2 of 2: refused");
	CHECK(dac_labelled_group_size(ds, 2) == 0 && dac_labelled_group_size(ds, -1) == 0, "no group 2 or -1: no rows");
	dac_labelled_destroy(ds);
	{
		static const int ybad[] = {0, 0, 0, 1, 1},
					gbad[] = {0, 1, 0, 0, 0};

		CHECK(dac_labelled_new(X, ybad, gbad, 5, 2, &ds, &err) != DAC_OK && ds == NULL,
			  "a label in two groups refused, nothing returned: %s", err.msg);
	}
}

/* dac_train's "validate": the rows held out, the sets drawn from them, the scores and the choice */
static void
test_holdout(void)
{
	enum
	{
		N = 1000, L = 10
	};
	static int	y[N];
	static unsigned char val[N],
				again[N];
	int			held = 0,
				labels = 0,
				i,
				l,
				whole = 0,
				part = 0,
				kept[L] = {0},
				out[L] = {0};
	dac_status	st;
	dac_error	err;

	for (i = 0; i < N; i++)
		y[i] = (i * 7) % L;
	st = dac_holdout_rows(y, N, 42, val, &held, &labels, &err);
	CHECK(st == DAC_OK && labels == 2, "10 labels: a fifth of them, 2, held out whole (%d)", labels);
	for (i = 0; i < N; i++)
		(val[i] ? out : kept)[y[i]]++;
	for (l = 0; l < L; l++)
	{
		whole += kept[l] == 0 && out[l] == N / L;
		part += kept[l] > 0 && out[l] > 0;
	}
	for (i = 0, l = 0; i < N; i++)
		l += val[i] != 0 && val[i] != (kept[y[i]] == 0 ? DAC_HELD_LABEL : DAC_HELD_ROW);
	CHECK(l == 0, "rows of labels held out whole are marked DAC_HELD_LABEL, new rows of the others DAC_HELD_ROW (%d not)", l);
	/* 8 labels of 100 rows each lose about 15 rows each: 120 ± 3 SD of 10 */
	CHECK(whole == 2 && part == 8 && held - 200 > 90 && held - 200 < 150,
		  "2 labels wholly out, 8 partly (%d rows of theirs out of 800)", held - 200);
	CHECK(dac_holdout_rows(y, N, 42, again, &i, &l, &err) == DAC_OK && i == held &&
		  memcmp(val, again, N) == 0, "the same seed holds out the same rows");
	CHECK(dac_holdout_rows(y, N, 43, again, &i, &l, &err) == DAC_OK && memcmp(val, again, N) != 0,
		  "another seed, other rows");
	/* 4 labels and 199 rows: nothing; 4 labels and 200 rows: rows only; 5 labels: one whole */
	for (i = 0; i < N; i++)
		y[i] = i % 4;
	CHECK(dac_holdout_rows(y, 199, 1, val, &held, &labels, &err) == DAC_OK && held == 0 && labels == 0,
		  "4 labels, 199 rows: too small, nothing held out");
	CHECK(dac_holdout_rows(y, 200, 1, val, &held, &labels, &err) == DAC_OK && held > 0 && labels == 0,
		  "4 labels, 200 rows: rows held out (%d), no label", held);
	for (i = 0; i < N; i++)
		y[i] = i % 5;
	CHECK(dac_holdout_rows(y, 50, 1, val, &held, &labels, &err) == DAC_OK && held == 10 && labels == 1,
		  "5 labels, 50 rows: one label's 10 rows, no other row");
	/* 5 labels but one of them alone has rows: the rounded fifth is one, the only one, so nothing */
	for (i = 0; i < N; i++)
		y[i] = i < 3 ? i : 4;
	CHECK(dac_holdout_rows(y, 3, 1, val, &held, &labels, &err) == DAC_OK && held == 0 && labels == 0,
		  "3 labels with rows of 5: too few to hold one out");
	y[0] = -1;
	CHECK(dac_holdout_rows(y, 3, 1, val, &held, &labels, &err) == DAC_ERR_INVALID, "a negative label: refused");
}

/* A table of groups: a fifth of the groups whole and a fifth of the label values in every group. */
static void
test_holdout_groups(void)
{
	enum
	{
		N = 1200, G = 12, L = 10
	};
	static int	g[N],
				lv[N];
	static unsigned char val[N],
				again[N];
	int			held = 0,
				groups = 0,
				labels = 0,
				i,
				j,
				gout[G] = {0},
				gin[G] = {0},
				lout[L] = {0},
				lin[L] = {0},
				whole_g = 0,
				whole_l = 0,
				wrong = 0,
				a,
				b,
				c;
	dac_error	err;

	for (i = 0; i < N; i++)
	{
		g[i] = i % G;
		lv[i] = (i / G) % L;	/* every value in every group */
	}
	CHECK(dac_holdout_groups(g, lv, N, 42, val, &held, &groups, &labels, &err) == DAC_OK && groups == 2 &&
		  labels == 2, "12 groups and 10 label values: 2 of each held out (%d, %d)", groups, labels);
	for (i = 0; i < N; i++)
	{
		(val[i] ? gout : gin)[g[i]]++;
		(val[i] ? lout : lin)[lv[i]]++;
	}
	for (i = 0; i < N; i++)
		wrong += val[i] != 0 && val[i] != (gin[g[i]] == 0 ? DAC_HELD_LABEL : DAC_HELD_ASIDE);
	for (i = 0; i < G; i++)
		whole_g += gin[i] == 0;
	for (i = 0; i < L; i++)
		whole_l += lin[i] == 0;
	/* rows: 2 groups of 100, and of the other 10 groups' 1000 rows, 2 values' 200 */
	CHECK(whole_g == 2 && whole_l == 2 && held == 400 && wrong == 0,
		  "2 groups and 2 values never trained on, %d rows held (400): the groups' DAC_HELD_LABEL, the rest DAC_HELD_ASIDE",
		  held);
	/* every other row: only those of a held group or a held value */
	for (i = 0, j = 0; i < N; i++)
		j += !val[i] && (gin[g[i]] == 0 || lin[lv[i]] == 0);
	CHECK(j == 0, "no row of a held group or value is trained on");
	{
		static dac_real X[N];
		static int	y[N];
		dac_labelled *tr = NULL,
				   *ho = NULL,
				   *kn = NULL;
		int			in_held = 0;

		for (i = 0; i < N; i++)
		{
			X[i] = i;
			y[i] = lv[i] * G + g[i];	/* labels within groups: (value, group) */
		}
		CHECK(dac_holdout_split(X, y, g, N, 1, val, &tr, &ho, &kn, &err) == DAC_OK && tr && ho && kn == NULL,
			  "split: rows to train on and rows to score, no new rows of trained labels");
		for (i = 0; ho && i < G; i++)
			in_held += dac_labelled_group_size(ho, i);
		CHECK(ho && in_held == 200, "only the 2 held groups' 200 rows are scored (%d)", in_held);
		dac_labelled_destroy(tr);
		dac_labelled_destroy(ho);
	}
	CHECK(dac_holdout_groups(g, lv, N, 42, again, &a, &b, &c, &err) == DAC_OK && a == held &&
		  memcmp(val, again, N) == 0, "the same seed holds out the same rows");
	CHECK(dac_holdout_groups(g, lv, N, 43, again, &a, &b, &c, &err) == DAC_OK && memcmp(val, again, N) != 0,
		  "another seed, other rows");
	/* labels numbered within groups (values 0 .. 3): too few values, groups alone */
	for (i = 0; i < N; i++)
		lv[i] = (i / G) % 4;
	CHECK(dac_holdout_groups(g, lv, N, 42, val, &held, &groups, &labels, &err) == DAC_OK && groups == 2 &&
		  labels == 0 && held == 200, "4 label values: 2 groups' 200 rows alone (%d)", held);
	/* 9 groups: none (the caller holds labels and rows out instead) */
	for (i = 0; i < N; i++)
		g[i] = i % 9;
	CHECK(dac_holdout_groups(g, lv, N, 42, val, &held, &groups, &labels, &err) == DAC_OK && held == 0 &&
		  groups == 0 && labels == 0, "9 groups: nothing held out");
	g[5] = -1;
	CHECK(dac_holdout_groups(g, lv, N, 42, val, &held, &groups, &labels, &err) == DAC_ERR_INVALID,
		  "a negative group: refused");
}

/* A labelled table over part of its rows, the sets drawn from it scored, and the choice. */
static void
test_validation(void)
{
	enum
	{
		N = 400, D = 3
	};
	static dac_real X[N * D];
	static int	y[N];
	static unsigned char mask[N];
	dac_config	cfg = dac_config_default(DAC_MLF, D);
	dac_model	small;
	dac_labelled *fit = NULL,
			   *held = NULL;
	dac_cluster_opts co = dac_cluster_opts_default();
	dac_eval_sums a,
				b;
	dac_strbuf	sb;
	dac_real	Xs[100 * D];
	int			ys[100],
				i,
				only_held = 1;
	dac_rng		r;
	dac_error	err;

	/* 4 labels, far apart on the first axis; the even rows of labels 0 and 1 held out */
	dac_rng_seed(&r, 9);
	for (i = 0; i < N; i++)
	{
		y[i] = i % 4;
		X[i * D] = 10 * y[i] + 0.1 * dac_rng_normal(&r);
		X[i * D + 1] = 0.1 * dac_rng_normal(&r);
		mask[i] = y[i] < 2 && i % 2 == 0;
		X[i * D + 2] = mask[i] ? 7 : 0;	/* the held-out rows are marked here */
	}
	if (dac_labelled_new_subset(X, y, NULL, N, D, mask, 0, &fit, &err) != DAC_OK ||
		dac_labelled_new_subset(X, y, NULL, N, D, mask, 1, &held, &err) != DAC_OK)
	{
		CHECK(0, "labelled subsets: %s", err.msg);
		return;
	}
	/* every set drawn from the held-out part has only held-out rows, of labels 0 and 1 */
	for (i = 0; i < 20; i++)
	{
		int			j;

		if (dac_sample_labelled(held, &r, 1, 50, 4, Xs, ys, &err) != DAC_OK)
			only_held = 0;
		for (j = 0; j < 50; j++)
			only_held &= Xs[j * D + 2] == 7 && Xs[j * D] < 15;
	}
	CHECK(only_held, "sets of the held-out subset draw only its rows");
	/* capped: 300 asked of 100 rows, none drawn twice */
	{
		static dac_real Xc[300 * D];
		static int	yc[300];
		int			got = 0,
					dup = 0,
					j,
					q;

		for (i = 0; i < 5; i++)
		{
			if (dac_sample_labelled_capped(held, &r, 300, 4, Xc, yc, &got, &err) != DAC_OK || got > 100 || got < 1)
				dup = -1000;
			for (j = 0; j < got; j++)
				for (q = 0; q < j; q++)
					dup += Xc[j * D] == Xc[q * D] && Xc[j * D + 1] == Xc[q * D + 1];
		}
		CHECK(dup == 0, "capped sets of 300 asked of 100 rows: at most 100, no row twice (last %d rows)", got);
	}
	dac_labelled_destroy(held);
	CHECK(dac_labelled_new_subset(X, y, NULL, N, D, mask, 2, &held, &err) == DAC_ERR_INVALID && held == NULL,
		  "a subset of no rows: refused, nothing returned");
	if (dac_labelled_new_subset(X, y, NULL, N, D, mask, 1, &held, &err) != DAC_OK)
		return;
	cfg.dim_hidden = 16;
	cfg.num_heads = 2;
	cfg.num_inds = 4;
	cfg.num_blocks = 2;
	if (unit_random_model(&small, &cfg, 5, &r) != DAC_OK)
	{
		CHECK(0, "a small model");
		return;
	}
	co.max_passes = 6;
	co.kmeans_steps = 10;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	CHECK(dac_evaluate_labelled(&small, fit, 10, 100, 4, 5, &co, Xs, ys, &a, NULL, &err) == DAC_OK &&
		  dac_evaluate_labelled(&small, fit, 10, 100, 4, 5, &co, Xs, ys, &b, NULL, &err) == DAC_OK &&
		  a.sets == 10 && b.sets == 10 && a.ari == b.ari && a.nmi == b.nmi && a.kmae == b.kmae,
		  "10 sets scored, the same again from the same seed (ARI %.3f)", a.ari / 10);
	/* the choice: the start only when ahead by more than the paired standard error */
	{
		double		tr[4] = {0.5, 0.6, 0.7, 0.8},
					st[4] = {0.6, 0.7, 0.8, 0.9},
					mixed[4] = {0.9, 0.5, 0.8, 0.7},
					diff,
					se,
					perset[10];

		CHECK(dac_validation_prefers(tr, st, 4, 1, &diff, &se) && fabs(diff - 0.1) < 1e-12 && se < 1e-12,
			  "ahead by 0.1 on every set: the start kept");
		CHECK(!dac_validation_prefers(st, tr, 4, 1, &diff, &se) && fabs(diff + 0.1) < 1e-12,
			  "behind: the trained model stays");
		/* differences +0.4, -0.1, +0.1, -0.1: mean 0.075, SD 0.2363, SE 0.1181 */
		CHECK(!dac_validation_prefers(tr, mixed, 4, 1, &diff, &se) && fabs(diff - 0.075) < 1e-12 &&
			  fabs(se - 0.118145) < 1e-5, "ahead by less than its standard error (%.4f ± %.4f): the trained stays",
			  diff, se);
		CHECK(!dac_validation_prefers(tr, st, 1, 1, &diff, &se), "one set: never");
		/* the same differences against half a standard error (0.059): ahead */
		CHECK(dac_validation_prefers(tr, mixed, 4, 0.5, &diff, &se), "ahead by more than half its SE: kept at ses 0.5");
		/* dac_tune's check: each group scored by the choice of the other three, against candidate 0 */
		{
			double		holds[12] = {0.5, 0.5, 0.5, 0.5, 0.9, 0.9, 0.9, 0.7, 0.6, 0.6, 0.6, 0.6},
						one_group[12] = {0.5, 0.5, 0.5, 0.5, 1.0, 0.45, 0.45, 0.45, 0.55, 0.52, 0.52, 0.52},
						work[7],
						loo;

			/* candidate 1 the best without any group: left out 0.9, 0.9, 0.9, 0.7; leads by 0.35 ± 0.05 */
			int			kept = -1;

			CHECK(dac_choice_validated(holds, 3, 4, work, &loo, &diff, &se, &kept) == DAC_OK && kept == 1 &&
				  fabs(loo - 0.85) < 1e-12 &&
				  fabs(diff - 0.35) < 1e-12 && fabs(se - 0.05) < 1e-12,
				  "a choice every left-out group confirms holds (%.3f, %.3f ± %.3f)", loo, diff, se);
			/*
			 * candidate 1 is best overall (mean 0.5875) by its first group alone: without it, candidate 2
			 * is (0.55 there); without another, candidate 1 (0.45): left out 0.475 against the start's 0.5
			 */
			CHECK(dac_choice_validated(one_group, 3, 4, work, &loo, &diff, &se, &kept) == DAC_OK && kept == 0 &&
				  fabs(loo - 0.475) < 1e-12 &&
				  fabs(diff + 0.025) < 1e-12, "a choice one group makes does not hold (%.3f, %.3f)", loo, diff);
			CHECK(dac_choice_validated(holds, 3, 1, work, &loo, &diff, &se, &kept) == DAC_OK && kept == 0 && loo == 0.5,
				  "one group: the start's score, never a lead");
		}
		memset(&a, 0, sizeof(a));
		CHECK(dac_evaluate_labelled(&small, fit, 10, 100, 4, 5, &co, Xs, ys, &a, perset, &err) == DAC_OK &&
			  fabs(perset[0] + perset[1] + perset[2] + perset[3] + perset[4] + perset[5] + perset[6] +
				   perset[7] + perset[8] + perset[9] - a.ari) < 1e-9, "the per-set ARIs sum to the total");
	}
	/* whole groups: each group's rows clustered as one set, in the groups' order, as dac_cluster_set does */
	{
		static int	grp[N];
		static dac_real Xg[N * D];
		dac_labelled *byg = NULL;
		dac_clustering c;
		double		ari[4];
		int			sets = 0,
					n,
					ok = 1,
					gi;
		static int	yy[N];

		for (i = 0; i < N; i++)
			grp[i] = (i / 4) % 3;	/* every label in every group: labels numbered by (label, group) */
		{
			static int	yg[N];

			for (i = 0; i < N; i++)
				yg[i] = y[i] * 3 + grp[i];
			if (dac_labelled_new_subset(X, yg, grp, N, D, mask, 0, &byg, &err) != DAC_OK)
			{
				CHECK(0, "a table of groups: %s", err.msg);
				byg = NULL;
			}
		}
		memset(&a, 0, sizeof(a));
		if (byg && dac_evaluate_whole_groups(&small, byg, &co, Xg, yy, &a, ari, &sets, &err) == DAC_OK)
		{

			for (gi = 0; gi < 3; gi++)
			{
				ok &= dac_labelled_group(byg, gi, Xg, yy, &n, &err) == DAC_OK && n > 0 &&
					dac_cluster_set(&small, Xg, n, D, &co, &c, &err) == DAC_OK;
				ok &= fabs(dac_ari(yy, c.labels, n) - ari[gi]) < 1e-12;
				dac_clustering_free(&c);
			}
			CHECK(ok && sets == 3 && a.sets == 3 && fabs(ari[0] + ari[1] + ari[2] - a.ari) < 1e-9,
				  "3 groups scored whole, each as dac_cluster_set scores it alone (%d sets)", sets);
		}
		else
			CHECK(0, "whole groups scored: %s", err.msg);
		dac_labelled_destroy(byg);
	}
	a.sets = 4;
	a.ari = 2.0;
	a.nmi = 1.0;
	a.kmae = 3;
	dac_strbuf_init(&sb);
	dac_eval_sums_json(&a, &sb);
	CHECK(!sb.failed && strcmp(sb.data, "{\"sets\": 4, \"ari\": 0.5000, \"nmi\": 0.2500, \"k_mae\": 0.750}") == 0,
		  "the scores as JSON, means by hand: %s", sb.data);
	dac_strbuf_free(&sb);
	dac_labelled_destroy(fit);
	dac_labelled_destroy(held);
	dac_model_free(&small);
}

static void
test_trainer(void)
{
	static const char *const o[] = {"dim_hidden", "16", "num_heads", "2", "num_inds", "4",
	"num_blocks", "2", "steps", "3", "batch", "2", "n_max", "20", NULL};
	dac_model  *m;
	dac_trainer *t;
	dac_train_opts to = dac_train_opts_default();
	dac_error	err;
	dac_loss_parts p;
	double		X[200],
				w;
	dac_rng		r;
	dac_frame	f;
	int			i;

	if (dac_model_new(pairs_get, (void *) o, 0, &m, &err) != DAC_OK ||
		dac_train_opts_read(pairs_get, (void *) o, &to, &err) != DAC_OK ||
		dac_trainer_new(m, &to, 1, &t, &err) != DAC_OK)
	{
		CHECK(0, "a trainer: %s", err.msg);
		return;
	}
	CHECK(dac_trainer_steps_done(t) == 0 && dac_trainer_steps_total(t) == 3, "0 of 3 steps");
	while (dac_trainer_steps_done(t) < dac_trainer_steps_total(t))
		if (dac_trainer_step(t, &p, &err) != DAC_OK || !isfinite(p.loss))
			break;
	CHECK(dac_trainer_steps_done(t) == 3, "three steps run");
	dac_trainer_destroy(t);
	dac_model_destroy(m);
	dac_rng_seed(&r, 3);
	for (i = 0; i < 200; i++)
		X[i] = 1e4 * dac_rng_normal(&r) + 5e5;
	CHECK(dac_set_width(X, 100, 2, &w, &err) == DAC_OK &&
		  dac_frame_fit(X, NULL, 100, 2, 1, 0, &f, &err) == DAC_OK && w == f.width && w > 0,
		  "dac_set_width is the frame's width (%g)", w);
	dac_frame_free(&f);
}

/*
 * A model's own settings: written into a file and read back, over the
 * table's defaults and under a host's, in every form the table allows;
 * refused where a model may not carry them.
 */
static void
test_model_settings(void)
{
	static const char *const none[] = {"dim_hidden", "16", "num_inds", "4", NULL};
	static const char *const host[] = {"graph_resolution", "0.2", "leftover", "best", NULL};
	dac_model  *m,
			   *back,
			   *copy;
	uint8_t    *buf,
			   *buf2,
			   *buf3;
	size_t		len,
				len2,
				len3;
	dac_error	err;
	dac_cluster_opts o;
	double		v;
	char	   *js;
	const char *settings = "{\"graph_resolution\": 0.5, \"leftover\": \"first\", "
		"\"pair_split\": false, \"kmeans_steps\": 3}";
	int			i,
				n;

	CHECK(dac_model_new(pairs_get, (void *) none, 0, &m, &err) == DAC_OK &&
		  dac_model_save(m, NULL, &buf, &len, &err) == DAC_OK, "a small model's file");
	CHECK(dac_weights_with_settings(buf, len, settings, strlen(settings), &buf2, &len2, &err) == DAC_OK &&
		  dac_model_read(buf2, len2, &back, &err) == DAC_OK, "its copy with settings reads back: %s", err.msg);
	CHECK(dac_model_setting(back, "graph_resolution", &v) && v == 0.5 &&
		  dac_model_setting(back, "leftover", &v) && v == DAC_LEFTOVER_FIRST &&
		  dac_model_setting(back, "pair_split", &v) && v == 0 &&
		  dac_model_setting(back, "kmeans_steps", &v) && v == 3 &&
		  !dac_model_setting(back, "graph_neighbors", &v) && !dac_model_setting(m, "kmeans_steps", &v),
		  "each setting as written; none the file lacks");
	js = dac_model_config_json(back);
	CHECK(js && strstr(js, "\"settings\": {\"leftover\": \"first\", \"pair_split\": false, "
					   "\"kmeans_steps\": 3, \"graph_resolution\": 0.5}") != NULL,
		  "the configuration shows them in the table's order: %s", js ? js : "");
	dac_free(js);
	CHECK(dac_model_same_config(m, back) == 1, "the same network whatever its settings");
	CHECK(dac_model_copy(back, &copy, &err) == DAC_OK && dac_model_setting(copy, "kmeans_steps", &v) && v == 3,
		  "a copy (a trained model's start) carries them");
	dac_model_destroy(copy);

	/* the model's over the table's default, a host's over the model's */
	o = dac_cluster_opts_default();
	CHECK(dac_cluster_opts_model(back, NULL, NULL, &o, &err) == DAC_OK &&
		  o.graph_resolution == 0.5 && o.leftover == DAC_LEFTOVER_FIRST && o.pair_split == 0 &&
		  o.kmeans_steps == 3 && o.graph_neighbors == 5 && o.absorb_size == 4,
		  "the model's own, the table's defaults (not the bare loop's) elsewhere");
	CHECK(dac_cluster_opts_model(back, pairs_get, (void *) host, &o, &err) == DAC_OK &&
		  o.graph_resolution == 0.2 && o.leftover == DAC_LEFTOVER_BEST && o.kmeans_steps == 3,
		  "a host's setting wins over the model's");
	CHECK(dac_cluster_opts_model(NULL, NULL, NULL, &o, &err) == DAC_OK && o.graph_resolution == 0.05 &&
		  o.leftover == DAC_LEFTOVER_OWN && o.pair_split == 1 && o.kmeans_steps == 10,
		  "no model: the table's defaults");

	/* {} takes them away */
	CHECK(dac_weights_with_settings(buf2, len2, "{}", 2, &buf3, &len3, &err) == DAC_OK && len3 == len,
		  "{} gives back a file of the first's length");
	dac_free(buf3);

	/* refused: a call's own, unknown names, wrong types, out of range, not an object */
	{
		static const char *const bad[][2] = {
			{"{\"k\": 3}", "not a setting a model can carry"},
			{"{\"noise\": 0.01}", "not a setting a model can carry"},
			{"{\"sets\": 10}", "not a setting a model can carry"},
			{"{\"graph_resolution\": \"0.2\"}", "must be a number"},
			{"{\"pair_split\": 1}", "must be true or false"},
			{"{\"leftover\": \"nowhere\"}", "one of best|first|own"},
			{"{\"kmeans_steps\": 2.5}", "whole number"},
			{"{\"graph_resolution\": 0}", "between 0.0001 and 100"},
			{"[1]", "must be a JSON object"},
		};

		n = (int) (sizeof(bad) / sizeof(bad[0]));
		for (i = 0; i < n; i++)
			CHECK(dac_weights_with_settings(buf, len, bad[i][0], strlen(bad[i][0]), &buf3, &len3, &err) ==
				  DAC_ERR_INVALID && strstr(err.msg, bad[i][1]) != NULL && buf3 == NULL,
				  "%s refused: %s", bad[i][0], err.msg);
	}
	CHECK(dac_model_setting_index("k") < 0 && dac_model_setting_index("max_k") < 0 &&
		  dac_model_setting_index("noise") < 0 && dac_model_setting_index("cluster_width") < 0 &&
		  dac_model_setting_index("absorb_size") >= 0 &&
		  dac_model_setting_option(dac_model_setting_index("absorb_size")) == dac_cluster_option("absorb_size"),
		  "k, max_k, noise and cluster_width belong to a call");
	for (i = 0, n = 0; i < DAC_MAX_MODEL_SETTINGS; i++)
		n += dac_model_setting_option(i) != NULL;
	CHECK(n == 17, "17 settings a model can carry, all within the bits of settings_set (%d)", n);
	dac_free(buf);
	dac_free(buf2);
	dac_model_destroy(back);
	dac_model_destroy(m);
}

void
test_front(void)
{
	test_values();
	test_config();
	test_schedule();
	test_bare();
	test_opaque();
	test_table();
	test_holdout();
	test_holdout_groups();
	test_validation();
	test_trainer();
	test_model_settings();
}
