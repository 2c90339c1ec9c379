/*
 * dac_cli.c
 *	  dac-cli: train and evaluate DAC models without a database, from the
 *	  same core as the extension.
 *
 *	  dac-cli train --out FILE [options]      train on generated sets
 *	  dac-cli eval  --model FILE [options]    cluster generated sets, print metrics
 *	  dac-cli info  --model FILE              print a model's configuration
 */
#include "dac.h"

#include <limits.h>

#include <cblas.h>
#include "blas_env.h"
#include "read_file.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
cpu_seconds(void)
{
	return (double) clock() / CLOCKS_PER_SEC;
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: dac-cli train --out FILE [--strategy mlf|af] [--density gaussian_diag|maf|ns|none]\n"
			"                     [--filters 32] [--latent 128] (ns: the image model)\n"
			"                     [--input raw|setnorm] [--data mog|warped|embed] [--data-dim N]\n"
			"                     [--labelled FILE [--grouped] [--synthetic-share 0]] [--distort 0] [--dim 2] [--hidden 128] [--heads 4] [--inds 32]\n"
			"                     [--blocks 4] [--independent-blocks]\n"
			"                     [--maf-blocks 4] [--maf-hidden 128] [--maf-context 128] [--steps 1000] [--batch 10]\n"
			"                     [--n-max 300] [--fixed-n] [--k-max 4] [--mix N:K[:R]] [--lr 5e-4] [--clip 10]\n"
			"                     [--seed 1] [--init FILE] [--log-every 50] [--save-every 0]\n"
			"                     [--stop-after N] [--threads 1]\n"
			"       dac-cli eval --model FILE [--data mog|warped|embed] [--data-dim N] [--labelled FILE [--grouped]]\n"
			"                     [--sets 100] [--n-max 1000]\n"
			"                     [--k-max 4] [--seed 7] [--leftover own] [--max-passes 50] [--min-size 1] [--absorb 1] [--pair-merge 0] [--pair-split] [--rotations 1] [--reassign] [--em 0] [--kmeans 0] [--sample 0] [--noise 0] [--per-set]\n"
			"                     [--no-fixed] [--scale 1] [--shift 0] [--units raw|scaled:WIDTH] [--k-search 0]\n"
			"                     [--graph 0] [--resolution 0.05] [--graph-alone]\n"
			"                     [--k 0|true] [--max-k 0]\n"
			"                     [--threads 1]\n"
			"       dac-cli info --model FILE\n"
			"       dac-cli options\n"
			"       dac-cli scale --model IN --out OUT --unit-width W   (0: raw input)\n"
			"       dac-cli whiten --model IN --labelled FILE --ridge R --out OUT   (the table's whitening)\n"
			"       dac-cli project --model IN --labelled FILE --held FILE --out OUT [--else-ridge R]\n"
			"                                     (the table's projection, gated; R: other groups whitened)\n"
			"       dac-cli average --out OUT IN IN...   (each parameter the inputs' mean)\n"
			"       dac-cli width [--data mog|warped] [--sets 1000] [--n-max 1000] [--k-max 4] [--seed 7]\n");
	exit(2);
}

static void
die(const char *what, const dac_error *err)
{
	fprintf(stderr, "dac-cli: %s: %s\n", what, err ? err->msg : "");
	exit(1);
}

static dac_model *
load_model(const char *path)
{
	dac_model  *m;
	dac_error	err;

	if (dac_read_model(path, &m, &err) != DAC_OK)
		die(path, &err);
	return m;
}

/* Option parsing: --name value pairs. */
typedef struct
{
	int			argc;
	char	  **argv;
} args_t;

static const char *
opt(args_t *a, const char *name)
{
	int			i;

	for (i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], name) == 0)
		{
			if (i + 1 >= a->argc)
			{
				fprintf(stderr, "dac-cli: %s needs a value\n", name);
				exit(2);
			}
			return a->argv[i + 1];
		}
	return NULL;
}

static int
flag(args_t *a, const char *name)
{
	int			i;

	for (i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], name) == 0)
			return 1;
	return 0;
}

static long
opt_long(args_t *a, const char *name, long def, long lo, long hi)
{
	const char *v = opt(a, name);
	char	   *end;
	long		x;

	if (v == NULL)
		return def;
	x = strtol(v, &end, 10);
	if (*v == '\0' || *end != '\0' || x < lo || x > hi)
	{
		fprintf(stderr, "dac-cli: %s must be an integer between %ld and %ld\n", name, lo, hi);
		exit(2);
	}
	return x;
}

static double
opt_double(args_t *a, const char *name, double def)
{
	const char *v = opt(a, name);
	char	   *end;
	double		x;

	if (v == NULL)
		return def;
	x = strtod(v, &end);
	if (*v == '\0' || *end != '\0' || !isfinite(x))
	{
		fprintf(stderr, "dac-cli: %s must be a number\n", name);
		exit(2);
	}
	return x;
}

/*
 * The options' tables (dac.h) read through dac-cli's flags: the text of the
 * option of that name, or NULL when its flag is absent (then the table's
 * default; a clustering option's is the bare loop's, o->bare).  Booleans
 * are flags without a value; --independent-blocks turns shared_blocks off;
 * --mix N:K[:R] gives mix_n_max, mix_k_max and mix_ratio.
 */
typedef struct cli_options
{
	args_t	   *a;
	const dac_option *table;
	char		mix[3][24];
	int			has_mix;
} cli_options;

static const char *
cli_get(void *ctx, const char *name)
{
	cli_options *c = ctx;
	const dac_option *o;

	if (strcmp(name, "shared_blocks") == 0)
		return flag(c->a, "--independent-blocks") ? "false" : NULL;
	if (strncmp(name, "mix_", 4) == 0)
		return !c->has_mix ? NULL : strcmp(name, "mix_n_max") == 0 ? c->mix[0]
			: strcmp(name, "mix_k_max") == 0 ? c->mix[1] : c->mix[2][0] ? c->mix[2] : NULL;
	for (o = c->table; o->name && strcmp(o->name, name) != 0; o++)
		;
	if (o->name == NULL || o->flag == NULL)
		return NULL;
	if (o->kind == DAC_OPT_BOOL)
		return flag(c->a, o->flag) ? "true" : o->bare;
	/* --k true: each set's own count, given per set (cmd_eval) */
	if (opt(c->a, o->flag) && !(strcmp(name, "k") == 0 && strcmp(opt(c->a, o->flag), "true") == 0))
		return opt(c->a, o->flag);
	return o->bare;
}

static cli_options
cli_options_of(args_t *a, const dac_option *table)
{
	cli_options c;
	const char *s = opt(a, "--mix");
	char		junk;
	int			nk[3] = {0, 0, 0};

	memset(&c, 0, sizeof(c));
	c.a = a;
	c.table = table;
	/* the ranges are checked with the other options (dac_train_opts_read) */
	if (s != NULL)
	{
		int			fields = sscanf(s, "%d:%d%c", &nk[0], &nk[1], &junk) == 2 ? 2 :
			sscanf(s, "%d:%d:%d%c", &nk[0], &nk[1], &nk[2], &junk) == 3 ? 3 : 0;

		if (fields == 0)
		{
			fprintf(stderr, "dac-cli: --mix takes N_MAX:K_MAX[:RATIO], e.g. --mix 3000:12 or --mix 3000:12:2\n");
			exit(2);
		}
		snprintf(c.mix[0], sizeof(c.mix[0]), "%d", nk[0]);
		snprintf(c.mix[1], sizeof(c.mix[1]), "%d", nk[1]);
		if (fields == 3)
			snprintf(c.mix[2], sizeof(c.mix[2]), "%d", nk[2]);
		c.has_mix = 1;
	}
	return c;
}

/* An option's value through dac-cli's flags, or exit naming the flag. */
static double
opt_table(cli_options *c, const char *name)
{
	const dac_option *o;
	double		x;
	dac_error	err;

	for (o = c->table; o->name && strcmp(o->name, name) != 0; o++)
		;
	if (o->name == NULL)
	{
		fprintf(stderr, "dac-cli: no option %s\n", name);
		exit(2);
	}
	if (dac_option_value(o, cli_get(c, name), &x, &err) != DAC_OK)
	{
		fprintf(stderr, "dac-cli: %s: %s\n", o->flag ? o->flag : name, err.msg);
		exit(2);
	}
	return x;
}

/* Exit naming the flag of the option err is about, or what. */
static void
die_option(const char *what, const dac_error *err)
{
	const dac_option *o;

	for (o = dac_train_options; o->name; o++)
	{
		char		quoted[80];

		snprintf(quoted, sizeof(quoted), "\"%s\"", o->name);
		if (o->flag && strstr(err->msg, quoted))
		{
			fprintf(stderr, "dac-cli: %s: %s\n", o->flag, err->msg);
			exit(2);
		}
	}
	die(what, err);
}

static dac_gen_kind
opt_data(args_t *a)
{
	const char *v = opt(a, "--data");

	if (v == NULL || strcmp(v, "mog") == 0)
		return DAC_GEN_MOG;
	if (strcmp(v, "warped") == 0 || strcmp(v, "warped_mog") == 0)
		return DAC_GEN_WARPED;
	if (strcmp(v, "embed") == 0)
		return DAC_GEN_EMBED;
	fprintf(stderr, "dac-cli: --data must be mog, warped or embed\n");
	exit(2);
}

/*
 * Write the model with its training record to "out", atomically (a temporary
 * file renamed over it), so a reader never sees half a file.
 */
static size_t
write_trained(const char *out, dac_model *m, const dac_train_opts *to,
			  long steps_done, double wall, double cpu)
{
	dac_strbuf	meta;
	char		tmp[4096];
	const char *metav[3];
	uint8_t    *buf;
	size_t		len;
	dac_error	err;
	FILE	   *f;

	dac_strbuf_init(&meta);
	dac_strbuf_printf(&meta, "{\"trainer\": \"dac-cli\", \"data\": \"%s\", \"steps\": %ld, ",
					  to->source ? "labelled" : to->data == DAC_GEN_WARPED ? "warped_mog" :
					  to->data == DAC_GEN_EMBED ? "embed" : "mog", steps_done);
	dac_train_opts_json(to, &meta);
	dac_strbuf_printf(&meta, ", \"data_dim\": %d, \"distort\": %g, ", to->data_dim, to->distort);
	if (to->synthetic_share > 0)
		dac_strbuf_printf(&meta, "\"synthetic_share\": %g, \"synthetic\": \"%s\", ", to->synthetic_share,
						  to->data == DAC_GEN_WARPED ? "warped_mog" : to->data == DAC_GEN_EMBED ? "embed" : "mog");
	dac_strbuf_printf(&meta, "\"wall_s\": %.1f, \"cpu_s\": %.1f}", wall, cpu);
	if (meta.failed)
	{
		fprintf(stderr, "dac-cli: out of memory\n");
		exit(1);
	}
	metav[0] = "dac.training";
	metav[1] = meta.data;
	metav[2] = NULL;
	if (dac_model_save(m, metav, &buf, &len, &err) != DAC_OK)
		die("save", &err);
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	f = fopen(tmp, "wb");
	if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0 || rename(tmp, out) != 0)
	{
		fprintf(stderr, "dac-cli: cannot write \"%s\"\n", out);
		exit(1);
	}
	dac_free(buf);
	dac_strbuf_free(&meta);
	return len;
}

/*
 * A labelled file for --labelled: one row a line, "label v1 v2 ... vd"
 * (whitespace-separated, the same d on every line; labels any integers).
 * With --grouped, "group label v1 ... vd": a training set draws its labels
 * from one group (a group a source; labels numbered per file, so the same
 * label number in two groups names two labels).
 */
typedef struct labelled_file
{
	dac_labelled *ds;
	dac_real   *X;
	int		   *y;
	int		   *g;
} labelled_file;

static dac_labelled *
read_labelled(const char *path, labelled_file *lf, int grouped)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0,
				rows = 0,
				rcap = 0;
	int			d = -1,
				i,
				lmax = 0;
	long	   *raw = NULL,
			   *graw = NULL;
	int			gmax = 0;
	dac_error	err;

	if (f == NULL)
	{
		fprintf(stderr, "dac-cli: cannot read \"%s\"\n", path);
		exit(1);
	}
	lf->X = NULL;
	while (getline(&line, &cap, f) > 0)
	{
		char	   *p = line,
				   *end;
		long		grp = 0,
					lab;
		int			k = 0;

		if (grouped)
		{
			grp = strtol(p, &end, 10);
			if (end == p)
				continue;
			p = end;
		}
		lab = strtol(p, &end, 10);
		if (end == p)
			continue;
		p = end;
		if (rows == rcap)
		{
			rcap = rcap ? 2 * rcap : 1024;
			raw = realloc(raw, sizeof(long) * rcap);
			graw = realloc(graw, sizeof(long) * rcap);
			lf->X = realloc(lf->X, sizeof(dac_real) * rcap * (d > 0 ? d : 4096));
		}
		raw[rows] = lab;
		graw[rows] = grp;
		for (;;)
		{
			double		v = strtod(p, &end);

			if (end == p)
				break;
			if (k >= 4096 || (d > 0 && k >= d))
			{
				fprintf(stderr, "dac-cli: %s: line %zu is too long\n", path, rows + 1);
				exit(1);
			}
			lf->X[rows * (d > 0 ? d : 4096) + k++] = (dac_real) v;
			p = end;
		}
		if (d < 0)
		{
			d = k;
			lf->X = realloc(lf->X, sizeof(dac_real) * rcap * d);
		}
		if (k != d || d < 1)
		{
			fprintf(stderr, "dac-cli: %s: line %zu has %d values, not %d\n", path, rows + 1, k, d);
			exit(1);
		}
		rows++;
	}
	fclose(f);
	free(line);
	if (rows == 0)
	{
		fprintf(stderr, "dac-cli: %s has no rows\n", path);
		exit(1);
	}
	/*
	 * dense labels 0 .. L-1 (a label a (group, label) pair) and groups 0 ..
	 * G-1, in order of first appearance
	 */
	lf->y = malloc(sizeof(int) * rows);
	lf->g = grouped ? malloc(sizeof(int) * rows) : NULL;
	{
		long	   *seen = malloc(sizeof(long) * rows),
				   *seen_g = malloc(sizeof(long) * rows),
				   *gseen = malloc(sizeof(long) * rows);

		for (i = 0; i < (int) rows; i++)
		{
			int			j;

			for (j = 0; j < lmax && (seen[j] != raw[i] || seen_g[j] != graw[i]); j++)
				;
			if (j == lmax)
			{
				seen[lmax] = raw[i];
				seen_g[lmax++] = graw[i];
			}
			lf->y[i] = j;
			if (grouped)
			{
				for (j = 0; j < gmax && gseen[j] != graw[i]; j++)
					;
				if (j == gmax)
					gseen[gmax++] = graw[i];
				lf->g[i] = j;
			}
		}
		free(seen);
		free(seen_g);
		free(gseen);
	}
	free(raw);
	free(graw);
	if (dac_labelled_new(lf->X, lf->y, lf->g, (int) rows, d, &lf->ds, &err) != DAC_OK)
		die(path, &err);
	if (grouped)
		printf("%s: %zu rows of dimension %d, %d labels in %d groups\n", path, rows, d, lmax, gmax);
	else
		printf("%s: %zu rows of dimension %d, %d labels\n", path, rows, d, lmax);
	return lf->ds;
}

/*
 * --init FILE --inds N: the same network with N inducing points per ISAB
 * instead of the file's, starting from the file's first N (every other
 * tensor copied), for fine-tuning a cheaper network for small sets.
 */
static void
shrink_inducing(dac_model *m, int inds)
{
	int			was = dac_model_num_inds(m);
	dac_error	err;

	if (inds == was)
		return;
	if (dac_model_shrink_inds(m, inds, &err) != DAC_OK)
		die("model", &err);
	printf("inducing points: %d -> %d (the first %d of each ISAB kept)\n", was, inds, inds);
}

static int
cmd_train(args_t *a)
{
	const char *out = opt(a, "--out");
	const char *init = opt(a, "--init");
	cli_options c = cli_options_of(a, dac_train_options);
	dac_model  *m;
	dac_train_opts to = dac_train_opts_default();
	dac_trainer *tr;
	dac_error	err;
	long		log_every = (long) opt_table(&c, "log_every");
	double		t0,
				c0,
				sum = 0;
	int			cnt = 0;
	long		save_every = opt_long(a, "--save-every", 0, 0, 1L << 40);
	long		stop_after;
	size_t		len;
	labelled_file lab_store;

	if (out == NULL)
		usage();
	if (init)
	{
		m = load_model(init);
		if (opt(a, "--inds"))
			shrink_inducing(m, (int) opt_long(a, "--inds", dac_model_num_inds(m), 1, dac_model_num_inds(m)));
	}
	else if (dac_model_new(cli_get, &c, 0, &m, &err) != DAC_OK)
		die_option("model", &err);
	to.data = opt_data(a);
	to.data_dim = (int) opt_long(a, "--data-dim", 0, 0, DAC_MAX_DIM_INPUT);
	to.distort = opt_double(a, "--distort", 0);
	to.synthetic_share = opt_double(a, "--synthetic-share", 0);
	if (opt(a, "--labelled"))
		to.source = read_labelled(opt(a, "--labelled"), &lab_store, flag(a, "--grouped"));
	if (dac_train_opts_read(cli_get, &c, &to, &err) != DAC_OK)
		die_option("options", &err);
	dac_blas_set_threads((int) opt_long(a, "--threads", 1, 1, 256));

	/* --stop-after N: end after N steps of the --steps schedule (lr not yet at 0) */
	stop_after = opt_long(a, "--stop-after", to.steps, 1, to.steps);
	if (dac_trainer_new(m, &to, init == NULL, &tr, &err) != DAC_OK)
		die("train", &err);
	printf("training %s (%zu parameters) on %s sets: %ld steps, batch %d, n_max %d, k_max %d, seed %llu\n",
		   dac_model_is_anchored(m) ? "AF" : "MLF", dac_model_nparams(m),
		   to.source ? "labelled" : to.data == DAC_GEN_WARPED ? "warped" : to.data == DAC_GEN_EMBED ? "embed" : "MoG", to.steps, to.batch, to.n_max, to.k_max,
		   (unsigned long long) to.seed);
	fflush(stdout);
	t0 = now_seconds();
	c0 = cpu_seconds();
	while (dac_trainer_steps_done(tr) < stop_after)
	{
		dac_loss_parts p;
		long		step;

		if (dac_trainer_step(tr, &p, &err) != DAC_OK)
			die("train step", &err);
		step = dac_trainer_steps_done(tr);
		sum += p.loss;
		cnt++;
		if (step % log_every == 0 || step == stop_after)
		{
			double		el = now_seconds() - t0;

			printf("step %ld/%ld  loss %.4f  (mean of last %d)  %.2f steps/s  %.0f s left\n",
				   step, to.steps, sum / cnt, cnt, step / el, (to.steps - step) * el / step);
			fflush(stdout);
			sum = 0;
			cnt = 0;
		}
		if (save_every > 0 && step % save_every == 0 && step < stop_after)
			write_trained(out, m, &to, step, now_seconds() - t0, cpu_seconds() - c0);
	}
	len = write_trained(out, m, &to, dac_trainer_steps_done(tr), now_seconds() - t0, cpu_seconds() - c0);
	printf("wrote %s (%zu bytes) after %.1f s wall, %.1f s CPU\n", out, len,
		   now_seconds() - t0, cpu_seconds() - c0);
	dac_trainer_destroy(tr);
	dac_model_destroy(m);
	return 0;
}

/* Size of the smallest of clusters first .. first+k-1 in labels [n]. */
static int
smallest_cluster(const int *labels, int first, int k, int n)
{
	int			best = n,
				j,
				i;

	for (j = first; j < first + k; j++)
	{
		int			c = 0;

		for (i = 0; i < n; i++)
			c += labels[i] == j;
		if (c < best)
			best = c;
	}
	return best;
}

static int
cmd_eval(args_t *a)
{
	int			k_true;
	const char *path = opt(a, "--model");
	cli_options c = cli_options_of(a, dac_cluster_options);
	dac_model  *m;
	dac_cluster_opts co = dac_cluster_opts_default();
	dac_gen_kind kind = opt_data(a);
	int			sets = (int) opt_table(&c, "sets");
	int			n_max = (int) opt_table(&c, "n_max");
	int			k_max = (int) opt_table(&c, "k_max");
	uint64_t	seed = (uint64_t) opt_table(&c, "seed");
	dac_rng		rng;
	dac_eval_sums e = {0, 0, 0, 0, 0, 0, 0, 0};
	double		oll;
	long		leftover = 0,
				dissolved = 0,
				absorbed = 0,
				merged = 0,
				pair_merged = 0,
				pair_split = 0,
				turned = 0,
				reassigned = 0,
				refine_moved = 0,
				em_steps = 0;
	int			per_set = flag(a, "--per-set");
	/* --scale A --shift B: the sets as A·x + B (units and origin), in double */
	double		scale = atof(opt(a, "--scale") ? opt(a, "--scale") : "1"),
				shift = atof(opt(a, "--shift") ? opt(a, "--shift") : "0");
	double	   *Xd = NULL;
	int			s,
				i,
				d;
	labelled_file lab_store;
	dac_labelled *src = NULL;
	dac_error	err;

	if (path == NULL)
		usage();
	m = load_model(path);
	/* --no-fixed: passes compute the inducing points' fc_q themselves (for measuring it) */
	if (flag(a, "--no-fixed"))
		dac_model_forget_fixed(m);
	d = (int) opt_long(a, "--data-dim", dac_model_dim_input(m), 1, DAC_MAX_DIM_INPUT);
	if (opt(a, "--labelled"))
	{
		src = read_labelled(opt(a, "--labelled"), &lab_store, flag(a, "--grouped"));
		d = dac_labelled_width(src);
	}
	/* the clustering options of the table, at the bare loop's defaults */
	if (dac_cluster_opts_read(cli_get, &c, &co, &err) != DAC_OK)
		die("options", &err);
	co.graph_start = !flag(a, "--graph-alone");
	/* --k true: each set's own true count (what a user who knows k gets) */
	k_true = opt(a, "--k") && strcmp(opt(a, "--k"), "true") == 0;
	if (k_true)
		co.k_exact = 0;
	if (opt(a, "--units"))
	{
		/* --units raw | scaled:WIDTH: the model's input, overridden (to measure the frame) */
		const char *u = opt(a, "--units");

		if (strcmp(u, "raw") != 0 && !(strncmp(u, "scaled:", 7) == 0 && atof(u + 7) > 0))
			usage();
		if (dac_model_set_units(m, strcmp(u, "raw") == 0 ? 0 : atof(u + 7), &err) != DAC_OK)
			die("--units", &err);
	}
	dac_blas_set_threads((int) opt_long(a, "--threads", 1, 1, 256));
	dac_rng_seed(&rng, seed);
	for (s = 0; s < sets; s++)
	{
		int			n = dac_sample_n(&rng, n_max);
		dac_real   *X = malloc(sizeof(dac_real) * n * d);
		int		   *y = malloc(sizeof(int) * n);
		int			k;
		dac_clustering cl;
		double		t0,
					a1,
					n1;

		if (src)
		{
			if (dac_sample_labelled(src, &rng, 1, n, k_max, X, y, &err) != DAC_OK)
				die("sample", &err);
			k = dac_count_labels(y, n);
			oll = NAN;
		}
		else if (dac_generate_oracle(kind, &rng, 1, n, k_max, d, X, y, &k, &oll, &err) != DAC_OK)
			die("generate", &err);
		e.oracle += oll;
		if (Xd == NULL)
			Xd = malloc(sizeof(double) * n_max * d);
		for (i = 0; i < n * d; i++)
			Xd[i] = X[i] * scale + shift;
		if (k_true)
			co.k_exact = k;
		t0 = now_seconds();
		if (dac_cluster_set_f64(m, Xd, n, d, &co, &cl, &err) != DAC_OK)
			die("cluster", &err);
		a1 = e.ari;
		n1 = e.nmi;
		dac_eval_add(&e, y, &cl, now_seconds() - t0);
		a1 = e.ari - a1;
		n1 = e.nmi - n1;
		if (per_set)
			printf("set %d  n %d  k %d  found %d  ARI %.4f  NMI %.4f  LL %.4f  leftover %d  smallest %d / %d\n",
				   s, n, k, cl.num_clusters, a1, n1, cl.ll, cl.leftover,
				   smallest_cluster(y, 0, k, n), smallest_cluster(cl.labels, 1, cl.num_clusters, n));
		leftover += cl.leftover;
		dissolved += cl.dissolved;
		absorbed += cl.absorbed;
		merged += cl.share_merged;
		pair_merged += cl.pair_merged;
		pair_split += cl.pair_split;
		turned += cl.turned > 0;
		reassigned += cl.reassigned;
		refine_moved += cl.refine_moved;
		em_steps += cl.em_steps;
		dac_clustering_free(&cl);
		free(X);
		free(y);
	}
	printf("sets %d  n_max %d  k_max %d  min-size %d  seed %llu  leftover-policy %s\n", sets, n_max, k_max, co.min_size,
		   (unsigned long long) seed, dac_leftover_name(co.leftover));
	printf("ARI %.4f  NMI %.4f  k-MAE %.3f  LL %.4f  s/set %.6f  GFLOP/set %.3f  GFLOP/s %.1f  leftover points %ld\n",
		   e.ari / sets, e.nmi / sets, e.kmae / sets, e.ll / sets, e.secs / sets, e.flops / sets / 1e9,
		   e.flops / e.secs / 1e9, leftover);
	if (co.absorb_size > 1)
		printf("points absorbed from clusters under %d points: %ld\n", co.absorb_size, absorbed);
	if (co.rotations > 1)
		printf("sets whose clustering was kept turned (--rotations %d): %ld of %d\n", co.rotations, turned, sets);
	if (co.pair_merge > 0)
		printf("clusters joined by pair passes (--pair-merge %g): %ld\n", co.pair_merge, pair_merged);
	if (co.pair_merge > 0 && co.pair_split)
		printf("pairs shared out anew by pair passes (--pair-split): %ld\n", pair_split);
	if (co.graph_merge > 0 && co.graph_neighbors > 0)
		printf("sets whose clusters are the merged finer communities (--merge %g): %ld of %d\n", co.graph_merge,
			   merged, sets);
	if (co.min_size > 1)
		printf("points moved out of clusters under %d points: %ld\n", co.min_size, dissolved);
	if (co.reassign || co.em_steps > 0)
		printf("points reassigned to their likeliest cluster: %ld\n", reassigned);
	if (co.em_steps > 0)
		printf("EM steps per set: %.1f (at most %d)\n", (double) em_steps / sets, co.em_steps);
	if (co.refine_rounds > 0)
		printf("points moved by the refine rounds (--refine %d): %ld\n", co.refine_rounds, refine_moved);
	if (kind == DAC_GEN_MOG)
		printf("oracle LL (true parameters) %.4f\n", e.oracle / sets);
	free(Xd);
	dac_model_destroy(m);
	return 0;
}

/* Write m with the metadata metav (key, value, …, NULL) to path, or exit. */
static void
save_model(const dac_model *m, const char *const *metav, const char *path)
{
	uint8_t    *obuf;
	size_t		olen;
	dac_error	err;
	FILE	   *fp;

	if (dac_model_save(m, metav, &obuf, &olen, &err) != DAC_OK)
		die("save", &err);
	fp = fopen(path, "wb");
	if (fp == NULL || fwrite(obuf, 1, olen, fp) != olen || fclose(fp) != 0)
	{
		fprintf(stderr, "dac-cli: cannot write \"%s\"\n", path);
		exit(1);
	}
	dac_free(obuf);
}

/*
 * dac-cli scale --model IN --out OUT --unit-width W: the same weights with
 * the input "scaled" at cluster width W (frame.h); the other metadata kept.
 * W = 0 makes the input raw again (the weights are the same either way).
 */
static int
cmd_scale(args_t *a)
{
	const char *in = opt(a, "--model"),
			   *out = opt(a, "--out"),
			   *wtext = opt(a, "--unit-width");
	size_t		len;
	uint8_t    *buf;
	dac_model  *m;
	dac_error	err;
	char	   *train_meta;
	const char *metav[3] = {NULL, NULL, NULL};

	if (in == NULL || out == NULL || wtext == NULL || !(atof(wtext) >= 0))
		usage();
	buf = dac_read_file(in, &len);
	if (buf == NULL)
	{
		fprintf(stderr, "dac-cli: cannot read \"%s\"\n", in);
		exit(1);
	}
	if (dac_model_read(buf, len, &m, &err) != DAC_OK)
		die(in, &err);
	/* the training record is kept; the configuration is the new one */
	train_meta = dac_weights_meta(buf, len, "dac.training", &err);
	if (train_meta)
	{
		metav[0] = "dac.training";
		metav[1] = train_meta;
	}
	if (dac_model_set_units(m, atof(wtext), &err) != DAC_OK)
		die("config", &err);
	save_model(m, metav, out);
	dac_free(train_meta);
	free(buf);
	dac_model_destroy(m);
	return 0;
}

/*
 * dac-cli whiten --model IN --labelled FILE --ridge R --out OUT: IN with the
 * within-label whitening map of FILE's rows at ridge R (whiten.h; what
 * dac_train's "whiten" keeps when its held-out sets favour it), so that it
 * takes rows of FILE's width only.
 */
static int
cmd_whiten(args_t *a)
{
	const char *in = opt(a, "--model"),
			   *out = opt(a, "--out"),
			   *rtext = opt(a, "--ridge"),
			   *lab = opt(a, "--labelled");
	dac_model  *m,
			   *w;
	dac_error	err;
	labelled_file lab_store;
	dac_labelled *src;

	if (in == NULL || out == NULL || rtext == NULL || lab == NULL || !(atof(rtext) > 0))
		usage();
	m = load_model(in);
	src = read_labelled(lab, &lab_store, 0);
	if (dac_whitening_model(m, src, atof(rtext), &w, &err) != DAC_OK)
		die("whiten", &err);
	save_model(w, NULL, out);
	printf("%s: %s with the whitening of %s at ridge %g (%d-wide rows)\n", out, in, lab, atof(rtext),
		   dac_labelled_width(src));
	dac_model_destroy(m);
	dac_model_destroy(w);
	return 0;
}

/*
 * dac-cli project --model IN --labelled FIT --held HELD --out OUT
 * [--else-ridge R]: IN with the projection onto the directions that
 * separate FIT's labels, applied only to groups that look like FIT's
 * classes, the gate's threshold from HELD's rows, new rows of the same
 * labels (whiten.h; what dac_train's "whiten" keeps when its held-out sets
 * favour it); with R, the groups the gate turns away pass through FIT's
 * within-label whitening at ridge R (dac_train's map for the other groups).
 */
static int
cmd_project(args_t *a)
{
	const char *in = opt(a, "--model"),
			   *out = opt(a, "--out"),
			   *lab = opt(a, "--labelled"),
			   *held = opt(a, "--held"),
			   *etext = opt(a, "--else-ridge");
	dac_model  *m,
			   *p;
	dac_error	err;
	labelled_file fit_store,
				held_store;
	dac_labelled *fit,
			   *calib;

	if (in == NULL || out == NULL || lab == NULL || held == NULL || (etext && !(atof(etext) > 0)))
		usage();
	m = load_model(in);
	fit = read_labelled(lab, &fit_store, 0);
	calib = read_labelled(held, &held_store, 0);
	if (dac_projection_model(m, fit, calib, etext ? atof(etext) : 0, &p, &err) != DAC_OK)
		die("project", &err);
	save_model(p, NULL, out);
	printf("%s: %s with the projection onto the labels of %s, gated (%d-wide rows to %d coordinates)%s\n", out, in,
		   lab, dac_labelled_width(fit), dac_model_map_rows(p),
		   etext ? "; other groups whitened" : "");
	dac_model_destroy(m);
	dac_model_destroy(p);
	return 0;
}

/*
 * dac-cli average --out OUT IN IN...: a model whose every parameter is the
 * mean of the inputs' (dac_model_average), which must share one
 * configuration; the first input's configuration and training record are
 * kept, with "dac.average" saying how many models were averaged.
 */
static int
cmd_average(args_t *a)
{
	const char *out = opt(a, "--out");
	const char **ins = malloc(sizeof(char *) * (a->argc + 1));
	dac_model **ms;
	int			n = 0,
				i;
	size_t		len;
	uint8_t    *buf;
	dac_error	err;
	char	   *train_meta;
	char		avg_meta[64];
	const char *metav[5] = {NULL, NULL, NULL, NULL, NULL};

	if (ins == NULL || (ms = malloc(sizeof(dac_model *) * (a->argc + 1))) == NULL)
	{
		fprintf(stderr, "dac-cli: out of memory\n");
		exit(1);
	}
	for (i = 0; i < a->argc; i++)
	{
		if (strcmp(a->argv[i], "--out") == 0)
			i++;
		else if (strncmp(a->argv[i], "--", 2) == 0)
			usage();
		else
			ins[n++] = a->argv[i];
	}
	if (out == NULL || n < 2)
		usage();
	/* the first file read once: its model and its training record */
	buf = dac_read_file(ins[0], &len);
	if (buf == NULL)
	{
		fprintf(stderr, "dac-cli: cannot read \"%s\"\n", ins[0]);
		exit(1);
	}
	if (dac_model_read(buf, len, &ms[0], &err) != DAC_OK)
		die(ins[0], &err);
	train_meta = dac_weights_meta(buf, len, "dac.training", &err);
	for (i = 1; i < n; i++)
		ms[i] = load_model(ins[i]);
	if (dac_model_average(ms[0], (const dac_model *const *) (ms + 1), n - 1, &err) != DAC_OK)
		die("average", &err);
	snprintf(avg_meta, sizeof(avg_meta), "{\"models\": %d}", n);
	metav[0] = "dac.average";
	metav[1] = avg_meta;
	if (train_meta)
	{
		metav[2] = "dac.training";
		metav[3] = train_meta;
	}
	save_model(ms[0], metav, out);
	dac_free(train_meta);
	free(buf);
	for (i = 0; i < n; i++)
		dac_model_destroy(ms[i]);
	free(ms);
	free(ins);
	return 0;
}

/* dac-cli width --data mog|warped [--sets N --n-max N --k-max K --seed S]: σ̂ (frame.h) of generated sets */
static int
cmd_width(args_t *a)
{
	dac_gen_kind kind = opt_data(a);
	int			sets = (int) opt_long(a, "--sets", 1000, 1, 1000000);
	int			n_max = (int) opt_long(a, "--n-max", 1000, 2, 1000000);
	int			k_max = (int) opt_long(a, "--k-max", 4, 1, 10000);
	uint64_t	seed = (uint64_t) opt_long(a, "--seed", 7, 0, 1L << 62);
	double	   *w = malloc(sizeof(double) * sets);
	dac_rng		rng;
	int			s,
				i;

	dac_rng_seed(&rng, seed);
	for (s = 0; s < sets; s++)
	{
		int			n = dac_sample_n(&rng, n_max),
					k;
		dac_real   *X = malloc(sizeof(dac_real) * n * 2);
		double	   *Xd = malloc(sizeof(double) * n * 2);
		int		   *y = malloc(sizeof(int) * n);
		dac_error	err;
		double		oll;

		if (dac_generate_oracle(kind, &rng, 1, n, k_max, 2, X, y, &k, &oll, &err) != DAC_OK)
			die("generate", &err);
		for (i = 0; i < n * 2; i++)
			Xd[i] = X[i];
		if (dac_set_width(Xd, n, 2, &w[s], &err) != DAC_OK)
			die("frame", &err);
		free(X);
		free(Xd);
		free(y);
	}
	/* quantiles by insertion sort (sets are few) */
	for (s = 1; s < sets; s++)
	{
		double		v = w[s];

		for (i = s - 1; i >= 0 && w[i] > v; i--)
			w[i + 1] = w[i];
		w[i + 1] = v;
	}
	printf("sets %d  n_max %d  k_max %d  width p1 %.4f  p5 %.4f  median %.4f  p95 %.4f  p99 %.4f\n",
		   sets, n_max, k_max, w[sets / 100], w[sets / 20], w[sets / 2], w[sets * 95 / 100],
		   w[sets * 99 / 100]);
	free(w);
	return 0;
}

static int
cmd_info(args_t *a)
{
	const char *path = opt(a, "--model");
	dac_model  *m;
	char	   *cfg;

	if (path == NULL)
		usage();
	m = load_model(path);
	cfg = dac_model_config_json(m);
	printf("%s\nparameters %zu in %d tensors\n", cfg, dac_model_nparams(m), dac_model_ntensors(m));
	dac_free(cfg);
	dac_model_destroy(m);
	return 0;
}

/*
 * dac-cli options: the options' tables as dac-cli reads them, a line each:
 * table, name, flag (- for none), kind, default (- when it depends on the
 * data), least (a text option's names), greatest (- for none), whether the
 * least is excluded, and a clustering option's bare default (dac-cli's; -
 * for a training option).  test/options.sh compares them with the SQL
 * layer's.
 */
static int
cmd_options(void)
{
	const dac_option *tables[2] = {dac_train_options, dac_cluster_options};
	static const char *const kinds[] = {"real", "integer", "boolean", "text"};
	int			i;

	for (i = 0; i < 2; i++)
	{
		const dac_option *o;

		for (o = tables[i]; o->name; o++)
			printf("%s %s %s %s %s %s %s %d %s\n", i == 0 ? "train" : "cluster", o->name,
				   o->flag ? o->flag : "-", kinds[o->kind], o->def[0] ? o->def : "-",
				   o->lo[0] ? o->lo : "-", o->hi[0] ? o->hi : "-", o->lo_open, o->bare ? o->bare : "-");
	}
	return 0;
}

int
main(int argc, char **argv)
{
	args_t		a;

	dac_fix_blas_coretype(argv);
	if (argc < 2)
		usage();
	a.argc = argc - 2;
	a.argv = argv + 2;
	if (strcmp(argv[1], "train") == 0)
		return cmd_train(&a);
	if (strcmp(argv[1], "eval") == 0)
		return cmd_eval(&a);
	if (strcmp(argv[1], "info") == 0)
		return cmd_info(&a);
	if (strcmp(argv[1], "scale") == 0)
		return cmd_scale(&a);
	if (strcmp(argv[1], "whiten") == 0)
		return cmd_whiten(&a);
	if (strcmp(argv[1], "project") == 0)
		return cmd_project(&a);
	if (strcmp(argv[1], "average") == 0)
		return cmd_average(&a);
	if (strcmp(argv[1], "width") == 0)
		return cmd_width(&a);
	if (strcmp(argv[1], "options") == 0)
		return cmd_options();
	usage();
	return 2;
}
