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
			"                     [--labelled FILE] [--distort 0] [--dim 2] [--hidden 128] [--heads 4] [--inds 32]\n"
			"                     [--blocks 4] [--independent-blocks]\n"
			"                     [--maf-blocks 4] [--maf-hidden 128] [--maf-context 128] [--steps 1000] [--batch 10]\n"
			"                     [--n-max 300] [--fixed-n] [--k-max 4] [--mix N:K[:R]] [--lr 5e-4] [--clip 10]\n"
			"                     [--seed 1] [--init FILE] [--log-every 50] [--save-every 0]\n"
			"                     [--stop-after N] [--threads 1]\n"
			"       dac-cli eval --model FILE [--data mog|warped|embed] [--data-dim N] [--labelled FILE]\n"
			"                     [--sets 100] [--n-max 1000]\n"
			"                     [--k-max 4] [--seed 7] [--leftover best|first|own] [--max-passes 50] [--min-size 1] [--reassign] [--em 0] [--kmeans 0] [--sample 0] [--per-set]\n"
			"                     [--no-fixed] [--scale 1] [--shift 0] [--units raw|scaled:WIDTH] [--k-search 0]\n"
			"                     [--graph 0] [--resolution 0.05] [--graph-alone]\n"
			"                     [--k 0|true] [--max-k 0]\n"
			"                     [--threads 1]\n"
			"       dac-cli info --model FILE\n"
			"       dac-cli scale --model IN --out OUT --unit-width W\n"
			"       dac-cli width [--data mog|warped] [--sets 1000] [--n-max 1000] [--k-max 4] [--seed 7]\n");
	exit(2);
}

static void
die(const char *what, const dac_error *err)
{
	fprintf(stderr, "dac-cli: %s: %s\n", what, err ? err->msg : "");
	exit(1);
}

static void
load_model(const char *path, dac_model *m)
{
	size_t		len;
	uint8_t    *buf = dac_read_file(path, &len);
	dac_error	err;

	if (buf == NULL)
	{
		fprintf(stderr, "dac-cli: cannot read \"%s\"\n", path);
		exit(1);
	}
	if (dac_model_load(m, buf, len, &err) != DAC_OK)
		die(path, &err);
	free(buf);
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
 * A training option of the option table (options.h), by its flag: its
 * default (def_here when the table's depends on the data) and its range.
 */
static double
opt_train(args_t *a, const char *name, double def_here)
{
	const dac_option *o = dac_train_option(name);
	double		x;
	dac_error	err;

	if (o == NULL || o->flag == NULL)
	{
		fprintf(stderr, "dac-cli: no training option %s\n", name);
		exit(2);
	}
	x = o->integer ? (double) opt_long(a, o->flag, o->def[0] ? (long) dac_option_default(o) : (long) def_here,
									   LONG_MIN, LONG_MAX)
		: opt_double(a, o->flag, o->def[0] ? dac_option_default(o) : def_here);
	if (dac_option_check(o, x, &err) != DAC_OK)
	{
		fprintf(stderr, "dac-cli: %s: %s\n", o->flag, err.msg);
		exit(2);
	}
	return x;
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
	char		meta[512];
	char		tmp[4096];
	const char *metav[3];
	uint8_t    *buf;
	size_t		len;
	dac_error	err;
	FILE	   *f;

	snprintf(meta, sizeof(meta),
			 "{\"trainer\": \"dac-cli\", \"data\": \"%s\", \"steps\": %ld, \"batch\": %d, "
			 "\"n_max\": %d, \"k_max\": %d, \"mix_n_max\": %d, \"mix_k_max\": %d, \"mix_ratio\": %d, "
			 "\"lr\": %g, \"clip\": %g, \"seed\": %llu, \"total_steps\": %ld, \"data_dim\": %d, \"distort\": %g, "
			 "\"wall_s\": %.1f, \"cpu_s\": %.1f}",
			 to->source ? "labelled" : to->data == DAC_GEN_WARPED ? "warped_mog" : to->data == DAC_GEN_EMBED ? "embed" : "mog",
			 steps_done, to->batch, to->n_max,
			 to->k_max, to->alt_n_max, to->alt_k_max, to->alt_ratio, to->adam.lr, to->adam.clip, (unsigned long long) to->seed,
			 to->steps, to->data_dim, to->distort, wall, cpu);
	metav[0] = "dac.training";
	metav[1] = meta;
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
	return len;
}

/*
 * A labelled file for --labelled: one row a line, "label v1 v2 ... vd"
 * (whitespace-separated, the same d on every line; labels any integers).
 */
typedef struct labelled_file
{
	dac_labelled ds;
	dac_real   *X;
	int		   *y;
} labelled_file;

static dac_labelled *
read_labelled(const char *path, labelled_file *lf)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0,
				rows = 0,
				rcap = 0;
	int			d = -1,
				i,
				lmax = 0;
	long	   *raw = NULL;
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
		long		lab = strtol(p, &end, 10);
		int			k = 0;

		if (end == p)
			continue;
		p = end;
		if (rows == rcap)
		{
			rcap = rcap ? 2 * rcap : 1024;
			raw = realloc(raw, sizeof(long) * rcap);
			lf->X = realloc(lf->X, sizeof(dac_real) * rcap * (d > 0 ? d : 4096));
		}
		raw[rows] = lab;
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
	/* dense labels 0 .. L-1 in order of first appearance */
	lf->y = malloc(sizeof(int) * rows);
	{
		long	   *seen = malloc(sizeof(long) * rows);

		for (i = 0; i < (int) rows; i++)
		{
			int			j;

			for (j = 0; j < lmax && seen[j] != raw[i]; j++)
				;
			if (j == lmax)
				seen[lmax++] = raw[i];
			lf->y[i] = j;
		}
		free(seen);
	}
	free(raw);
	if (dac_labelled_init(&lf->ds, lf->X, lf->y, NULL, (int) rows, d, &err) != DAC_OK)
		die(path, &err);
	printf("%s: %zu rows of dimension %d, %d labels\n", path, rows, d, lmax);
	return &lf->ds;
}

/*
 * --init FILE --inds N: the same network with N inducing points per ISAB
 * instead of the file's, starting from the file's first N (every other
 * tensor copied), for fine-tuning a cheaper network for small sets.
 */
static void
shrink_inducing(dac_model *m, int inds)
{
	dac_config	cfg = m->net.cfg;
	dac_model	small;
	dac_error	err;
	int			t;

	if (inds == cfg.num_inds)
		return;
	cfg.num_inds = inds;
	if (dac_model_create(&small, &cfg, &err) != DAC_OK)
		die("model", &err);
	for (t = 0; t < small.net.ntensors; t++)
	{
		const dac_param_info *to = &small.net.params[t];
		const dac_param_info *from = dac_net_find_param(&m->net, to->name);

		/* a shrunk tensor (an ISAB's I, [inds, D]) keeps its first rows */
		if (from == NULL || from->ndim != to->ndim || from->count < to->count ||
			(to->ndim == 2 && from->shape[1] != to->shape[1]))
		{
			fprintf(stderr, "dac-cli: cannot shrink tensor %s\n", to->name);
			exit(1);
		}
		memcpy(small.P + to->offset, m->P + from->offset, sizeof(dac_real) * to->count);
	}
	printf("inducing points: %d -> %d (the first %d of each ISAB kept)\n", m->net.cfg.num_inds, inds, inds);
	dac_model_free(m);
	*m = small;
}

static int
cmd_train(args_t *a)
{
	const char *out = opt(a, "--out");
	const char *init = opt(a, "--init");
	const char *s;
	dac_config	cfg;
	dac_model	m;
	dac_train_opts to = dac_train_opts_default();
	dac_trainer tr;
	dac_error	err;
	long		log_every = (long) opt_train(a, "log_every", 0);
	double		t0,
				c0,
				sum = 0;
	int			cnt = 0;
	long		save_every = opt_long(a, "--save-every", 0, 0, 1L << 40);
	long		stop_after;
	size_t		len;
	char		junk;
	labelled_file lab_store;

	if (out == NULL)
		usage();
	if (init)
	{
		load_model(init, &m);
		cfg = m.net.cfg;
		if (opt(a, "--inds"))
			shrink_inducing(&m, (int) opt_long(a, "--inds", cfg.num_inds, 1, cfg.num_inds));
		cfg = m.net.cfg;
	}
	else
	{
		dac_strategy strategy = DAC_MLF;

		/* the names the core parses (net.h); a new model's input is raw or setnorm */
		s = opt(a, "--strategy");
		if (s && !dac_strategy_parse(s, &strategy))
			usage();
		cfg = dac_config_default(strategy, 2);
		s = opt(a, "--density");
		if (s && !dac_density_parse(s, &cfg.density))
			usage();
		s = opt(a, "--input");
		if (s && (!dac_input_parse(s, &cfg.input) || cfg.input == DAC_INPUT_SCALED))
			usage();
		cfg.dim_input = (int) opt_train(a, "dim", 2);
		cfg.dim_hidden = (int) opt_train(a, "dim_hidden", 0);
		cfg.num_heads = (int) opt_train(a, "num_heads", 0);
		cfg.num_inds = (int) opt_train(a, "num_inds", 0);
		cfg.num_blocks = (int) opt_train(a, "num_blocks", 0);
		cfg.maf_blocks = (int) opt_train(a, "maf_blocks", 0);
		cfg.maf_hidden = (int) opt_train(a, "maf_hidden", 0);
		cfg.maf_context = (int) opt_train(a, "maf_context", 0);
		cfg.shared_blocks = !flag(a, "--independent-blocks");
		cfg.image_filters = (int) opt_train(a, "image_filters", 0);
		cfg.latent = (int) opt_train(a, "image_latent", 0);
		if (cfg.density == DAC_DENSITY_NS)
		{
			/* the image model: 28x28 images, the authors' six MADE blocks unless told */
			cfg.dim_input = 784;
			if (opt(a, "--maf-blocks") == NULL)
				cfg.maf_blocks = 6;
		}
		if (dac_model_create(&m, &cfg, &err) != DAC_OK)
			die("model", &err);
	}
	to.data = opt_data(a);
	to.data_dim = (int) opt_long(a, "--data-dim", 0, 0, DAC_MAX_DIM_INPUT);
	to.distort = opt_double(a, "--distort", 0);
	if (opt(a, "--labelled"))
		to.source = read_labelled(opt(a, "--labelled"), &lab_store);
	to.steps = (long) opt_train(a, "steps", 0);
	to.batch = (int) opt_train(a, "batch", 0);
	to.n_max = (int) opt_train(a, "n_max", 0);
	to.fixed_n = flag(a, "--fixed-n");
	to.k_max = (int) opt_train(a, "k_max", 0);
	/*
	 * --mix N:K[:R], R mix steps per plain step (default 1, alternating); the
	 * ranges are checked with the other options by dac_trainer_init
	 */
	if ((s = opt(a, "--mix")) != NULL &&
		sscanf(s, "%d:%d%c", &to.alt_n_max, &to.alt_k_max, &junk) != 2 &&
		sscanf(s, "%d:%d:%d%c", &to.alt_n_max, &to.alt_k_max, &to.alt_ratio, &junk) != 3)
	{
		fprintf(stderr, "dac-cli: --mix takes N_MAX:K_MAX[:RATIO], e.g. --mix 3000:12 or --mix 3000:12:2\n");
		exit(2);
	}
	to.seed = (uint64_t) opt_train(a, "seed", 0);
	to.adam = dac_adam_default(to.steps);
	to.adam.lr = opt_train(a, "lr", 0);
	to.adam.clip = opt_train(a, "clip", 0);
	dac_blas_set_threads((int) opt_long(a, "--threads", 1, 1, 256));

	/* --stop-after N: end after N steps of the --steps schedule (lr not yet at 0) */
	stop_after = opt_long(a, "--stop-after", to.steps, 1, to.steps);
	if (dac_trainer_init(&tr, &m, &to, init == NULL, &err) != DAC_OK)
		die("train", &err);
	printf("training %s (%zu parameters) on %s sets: %ld steps, batch %d, n_max %d, k_max %d, seed %llu\n",
		   cfg.strategy == DAC_AF ? "AF" : "MLF", m.net.nparams,
		   to.source ? "labelled" : to.data == DAC_GEN_WARPED ? "warped" : to.data == DAC_GEN_EMBED ? "embed" : "MoG", to.steps, to.batch, to.n_max, to.k_max,
		   (unsigned long long) to.seed);
	fflush(stdout);
	t0 = now_seconds();
	c0 = cpu_seconds();
	while (tr.step < stop_after)
	{
		dac_loss_parts p;

		if (dac_trainer_step(&tr, &p, &err) != DAC_OK)
			die("train step", &err);
		sum += p.loss;
		cnt++;
		if (tr.step % log_every == 0 || tr.step == stop_after)
		{
			double		el = now_seconds() - t0;

			printf("step %ld/%ld  loss %.4f  (mean of last %d)  %.2f steps/s  %.0f s left\n",
				   tr.step, to.steps, sum / cnt, cnt, tr.step / el,
				   (to.steps - tr.step) * el / tr.step);
			fflush(stdout);
			sum = 0;
			cnt = 0;
		}
		if (save_every > 0 && tr.step % save_every == 0 && tr.step < stop_after)
			write_trained(out, &m, &to, tr.step, now_seconds() - t0, cpu_seconds() - c0);
	}
	len = write_trained(out, &m, &to, tr.step, now_seconds() - t0, cpu_seconds() - c0);
	printf("wrote %s (%zu bytes) after %.1f s wall, %.1f s CPU\n", out, len,
		   now_seconds() - t0, cpu_seconds() - c0);
	dac_trainer_free(&tr);
	dac_model_free(&m);
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
	const char *lp = opt(a, "--leftover");
	dac_model	m;
	dac_cluster_opts co = dac_cluster_opts_default();
	dac_gen_kind kind = opt_data(a);
	int			sets = (int) opt_long(a, "--sets", 100, 1, 1000000);
	int			n_max = (int) opt_long(a, "--n-max", 1000, 2, 1000000);
	int			k_max = (int) opt_long(a, "--k-max", 4, 1, 10000);
	uint64_t	seed = (uint64_t) opt_long(a, "--seed", 7, 0, 1L << 62);
	dac_rng		rng;
	dac_eval_sums e = {0, 0, 0, 0, 0, 0, 0, 0};
	double		oll;
	long		leftover = 0,
				dissolved = 0,
				reassigned = 0,
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

	if (path == NULL)
		usage();
	load_model(path, &m);
	/* --no-fixed: passes compute the inducing points' fc_q themselves (for measuring it) */
	if (flag(a, "--no-fixed"))
		dac_model_forget_fixed(&m);
	d = (int) opt_long(a, "--data-dim", m.net.cfg.dim_input, 1, DAC_MAX_DIM_INPUT);
	if (opt(a, "--labelled"))
	{
		src = read_labelled(opt(a, "--labelled"), &lab_store);
		d = src->d;
	}
	co.max_passes = (int) opt_long(a, "--max-passes", 50, 1, 100000);
	co.min_size = (int) opt_long(a, "--min-size", 1, 1, 1000000000);
	co.reassign = flag(a, "--reassign");
	co.em_steps = (int) opt_long(a, "--em", 0, 0, 100000);
	co.kmeans_steps = (int) opt_long(a, "--kmeans", 0, 0, 100000);
	co.sample_size = (int) opt_long(a, "--sample", 0, 0, 100000000);
	co.k_search = (int) opt_long(a, "--k-search", 0, 0, 64);
	co.graph_neighbors = (int) opt_long(a, "--graph", 0, 0, 1000);
	co.graph_resolution = opt_double(a, "--resolution", co.graph_resolution);
	if (!(co.graph_resolution > 0) || !(co.graph_resolution <= 1000))
		usage();
	co.graph_start = !flag(a, "--graph-alone");
	/* --k true: each set's own true count (what a user who knows k gets) */
	k_true = opt(a, "--k") && strcmp(opt(a, "--k"), "true") == 0;
	co.k_exact = k_true ? 0 : (int) opt_long(a, "--k", 0, 0, 100000);
	co.k_max = (int) opt_long(a, "--max-k", 0, 0, 100000);
	if (opt(a, "--units"))
	{
		/* --units raw | scaled:WIDTH: the model's input, overridden (to measure the frame) */
		const char *u = opt(a, "--units");

		if (strcmp(u, "raw") == 0)
			m.net.cfg.input = DAC_INPUT_RAW;
		else if (strncmp(u, "scaled:", 7) == 0 && atof(u + 7) > 0)
		{
			m.net.cfg.input = DAC_INPUT_SCALED;
			m.net.cfg.unit_width = atof(u + 7);
		}
		else
			usage();
	}
	if (lp && !dac_leftover_parse(lp, &co.leftover))
		usage();
	dac_blas_set_threads((int) opt_long(a, "--threads", 1, 1, 256));
	dac_rng_seed(&rng, seed);
	for (s = 0; s < sets; s++)
	{
		int			n = dac_sample_n(&rng, n_max);
		dac_real   *X = malloc(sizeof(dac_real) * n * d);
		int		   *y = malloc(sizeof(int) * n);
		int			k;
		dac_clustering c;
		dac_error	err;
		double		t0,
					a1;

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
		if (dac_cluster_set_f64(&m, Xd, n, d, &co, &c, &err) != DAC_OK)
			die("cluster", &err);
		a1 = e.ari;
		dac_eval_add(&e, y, &c, now_seconds() - t0);
		a1 = e.ari - a1;
		if (per_set)
			printf("set %d  n %d  k %d  found %d  ARI %.4f  LL %.4f  leftover %d  smallest %d / %d\n",
				   s, n, k, c.num_clusters, a1, c.ll, c.leftover,
				   smallest_cluster(y, 0, k, n), smallest_cluster(c.labels, 1, c.num_clusters, n));
		leftover += c.leftover;
		dissolved += c.dissolved;
		reassigned += c.reassigned;
		em_steps += c.em_steps;
		dac_clustering_free(&c);
		free(X);
		free(y);
	}
	printf("sets %d  n_max %d  k_max %d  min-size %d  seed %llu  leftover-policy %s\n", sets, n_max, k_max, co.min_size,
		   (unsigned long long) seed, dac_leftover_name(co.leftover));
	printf("ARI %.4f  NMI %.4f  k-MAE %.3f  LL %.4f  s/set %.6f  GFLOP/set %.3f  GFLOP/s %.1f  leftover points %ld\n",
		   e.ari / sets, e.nmi / sets, e.kmae / sets, e.ll / sets, e.secs / sets, e.flops / sets / 1e9,
		   e.flops / e.secs / 1e9, leftover);
	if (co.min_size > 1)
		printf("points moved out of clusters under %d points: %ld\n", co.min_size, dissolved);
	if (co.reassign || co.em_steps > 0)
		printf("points reassigned to their likeliest cluster: %ld\n", reassigned);
	if (co.em_steps > 0)
		printf("EM steps per set: %.1f (at most %d)\n", (double) em_steps / sets, co.em_steps);
	if (kind == DAC_GEN_MOG)
		printf("oracle LL (true parameters) %.4f\n", e.oracle / sets);
	free(Xd);
	dac_model_free(&m);
	return 0;
}

/*
 * dac-cli scale --model IN --out OUT --unit-width W: the same weights with
 * the input "scaled" at cluster width W (frame.h); the other metadata kept.
 */
static int
cmd_scale(args_t *a)
{
	const char *in = opt(a, "--model"),
			   *out = opt(a, "--out"),
			   *wtext = opt(a, "--unit-width");
	size_t		len,
				olen;
	uint8_t    *buf,
			   *obuf;
	dac_model	m;
	st_file		f;
	dac_error	err;
	const char *train_meta;
	const char *metav[3] = {NULL, NULL, NULL};
	FILE	   *fp;

	if (in == NULL || out == NULL || wtext == NULL || !(atof(wtext) > 0))
		usage();
	buf = dac_read_file(in, &len);
	if (buf == NULL)
	{
		fprintf(stderr, "dac-cli: cannot read \"%s\"\n", in);
		exit(1);
	}
	if (dac_model_load(&m, buf, len, &err) != DAC_OK)
		die(in, &err);
	if (st_open(buf, len, &f, &err) != DAC_OK)
		die(in, &err);
	train_meta = st_meta(&f, "dac.training");
	if (train_meta)
	{
		metav[0] = "dac.training";
		metav[1] = train_meta;
	}
	m.net.cfg.input = DAC_INPUT_SCALED;
	m.net.cfg.unit_width = atof(wtext);
	if (dac_config_check(&m.net.cfg, &err) != DAC_OK)
		die("config", &err);
	if (dac_model_save(&m, metav, &obuf, &olen, &err) != DAC_OK)
		die("save", &err);
	fp = fopen(out, "wb");
	if (fp == NULL || fwrite(obuf, 1, olen, fp) != olen || fclose(fp) != 0)
	{
		fprintf(stderr, "dac-cli: cannot write \"%s\"\n", out);
		exit(1);
	}
	st_close(&f);
	dac_free(obuf);
	free(buf);
	dac_model_free(&m);
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
		dac_frame	f;
		dac_error	err;
		double		oll;

		if (dac_generate_oracle(kind, &rng, 1, n, k_max, 2, X, y, &k, &oll, &err) != DAC_OK)
			die("generate", &err);
		for (i = 0; i < n * 2; i++)
			Xd[i] = X[i];
		if (dac_frame_fit(Xd, NULL, n, 2, 1, &f, &err) != DAC_OK)
			die("frame", &err);
		w[s] = f.width;
		dac_frame_free(&f);
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
	dac_model	m;
	char	   *cfg;

	if (path == NULL)
		usage();
	load_model(path, &m);
	cfg = dac_config_to_json(&m.net.cfg);
	printf("%s\nparameters %zu in %d tensors\n", cfg, m.net.nparams, m.net.ntensors);
	dac_free(cfg);
	dac_model_free(&m);
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
	if (strcmp(argv[1], "width") == 0)
		return cmd_width(&a);
	usage();
	return 2;
}
