/*
 * options.c
 *	  The options' tables (dac.h): training, and clustering.  Each option is
 *	  defined here once; everything else reads it.
 */
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density.h"
#include "flow.h"
#include "image.h"
#include "net.h"
#include "nn.h"

#define STR_(x) #x
#define STR(x) STR_(x)

#define I DAC_OPT_INT
#define R DAC_OPT_REAL
#define B DAC_OPT_BOOL
#define T DAC_OPT_TEXT

const dac_option dac_train_options[] = {
	/* architecture (a new model) */
	{"strategy", "--strategy", T, "mlf", "mlf|af", "", 0, NULL},
	{"density", "--density", T, "gaussian_diag", "gaussian_diag|maf|ns|none", "", 0, NULL},
	{"input", "--input", T, "raw", "raw|setnorm", "", 0, NULL},
	{"dim", "--dim", I, "", "1", STR(DAC_MAX_DIM_INPUT), 0, NULL},
	{"dim_hidden", "--hidden", I, "128", "1", STR(DAC_MAX_DIM_HIDDEN), 0, NULL},
	{"num_heads", "--heads", I, "4", "1", STR(DAC_MAX_DIM_HIDDEN), 0, NULL},
	{"num_inds", "--inds", I, "32", "1", STR(DAC_MAX_INDS), 0, NULL},
	{"num_blocks", "--blocks", I, "4", "1", STR(DAC_MAX_BLOCKS), 0, NULL},
	{"shared_blocks", NULL, B, "true", "", "", 0, NULL},
	{"maf_blocks", "--maf-blocks", I, "4", "1", STR(DAC_MAX_MADE), 0, NULL},
	{"maf_hidden", "--maf-hidden", I, "128", "1", STR(DAC_MAX_DIM_HIDDEN), 0, NULL},
	{"maf_context", "--maf-context", I, "128", "1", STR(DAC_MAX_DIM_HIDDEN), 0, NULL},
	{"image_filters", "--filters", I, "32", "1", STR(DAC_MAX_FILTERS), 0, NULL},
	{"image_latent", "--latent", I, "128", "2", STR(DAC_MAX_DIM_HIDDEN), 0, NULL},
	/* the sets and the schedule */
	{"steps", "--steps", I, "1000", "1", "1000000000", 0, NULL},
	{"batch", "--batch", I, "10", "1", "100000", 0, NULL},
	{"n_max", "--n-max", I, "300", "4", "1000000", 0, NULL},
	{"fixed_n", "--fixed-n", B, "false", "", "", 0, NULL},
	{"k_max", "--k-max", I, "4", "1", "10000", 0, NULL},
	{"mix_n_max", NULL, I, "0", "0", "1000000", 0, NULL},
	{"mix_k_max", NULL, I, "0", "0", "10000", 0, NULL},
	{"mix_ratio", NULL, I, "1", "1", "1000", 0, NULL},
	{"lr", "--lr", R, "0.0005", "0", "1", 1, NULL},
	{"clip", "--clip", R, "10", "0", "1000000000000000000000000000000", 0, NULL},
	{"seed", "--seed", I, "1", "0", "9007199254740991", 0, NULL},
	/* the database's run */
	{"checkpoint_every", NULL, I, "100", "1", "1000000000", 0, NULL},
	{"log_every", "--log-every", I, "50", "1", "1000000000", 0, NULL},
	{"run_steps", NULL, I, "1000000000", "1", "1000000000", 0, NULL},
	{NULL, NULL, 0, NULL, NULL, NULL, 0, NULL}
};

/*
 * Clustering: the dac.* settings (def, their defaults) and dac-cli eval's
 * flags (bare, the defaults of the bare loop, which dac-cli keeps so that
 * it measures the authors' loop unless told).  Then an evaluation's sets.
 */
const dac_option dac_cluster_options[] = {
	{"max_passes", "--max-passes", I, "50", "1", "100000", 0, "50"},
	{"leftover", "--leftover", T, "own", "best|first|own", "", 0, "own"},
	{"min_cluster_size", "--min-size", I, "1", "1", "2147483647", 0, "1"},
	{"absorb_size", "--absorb", I, "4", "1", "2147483647", 0, "1"},
	{"mode_merge", "--modes", R, "0.1", "0", "1", 0, "0"},
	{"pair_merge", "--pair-merge", R, "0.9", "0", "1", 0, "0"},
	{"pair_split", "--pair-split", B, "true", "", "", 0, "false"},
	{"rotations", "--rotations", I, "1", "1", "64", 0, "1"},
	{"refine_rounds", "--refine", I, "0", "0", "100", 0, "0"},
	{"reassign", "--reassign", B, "false", "", "", 0, "false"},
	{"em_steps", "--em", I, "0", "0", "100000", 0, "0"},
	{"kmeans_steps", "--kmeans", I, "10", "0", "100000", 0, "0"},
	{"k_search", "--k-search", I, "2", "0", "64", 0, "0"},
	{"graph_neighbors", "--graph", I, "5", "0", "100", 0, "0"},
	{"graph_resolution", "--resolution", R, "0.05", "0.0001", "100", 0, "0.05"},
	{"graph_merge", "--merge", R, "0.04", "0", "1", 0, "0"},
	{"k", "--k", I, "0", "0", "10000", 0, "0"},
	{"max_k", "--max-k", I, "0", "0", "10000", 0, "0"},
	{"sample_size", "--sample", I, "1000", "0", "2147483647", 0, "0"},
	{"noise", "--noise", R, "0", "0", "0.5", 0, "0"},
	{"cluster_width", "--width", R, "0", "0", "1e300", 0, "0"},
	/* an evaluation's sets (dac_evaluate's options, dac-cli eval's flags) */
	{"sets", "--sets", I, "100", "1", "1000000", 0, "100"},
	{"n_max", "--n-max", I, "1000", "4", "1000000", 0, "1000"},
	{"k_max", "--k-max", I, "4", "1", "10000", 0, "4"},
	{"seed", "--seed", I, "1", "0", "9007199254740991", 0, "7"},
	{NULL, NULL, 0, NULL, NULL, NULL, 0, NULL}
};

#undef I
#undef R
#undef B
#undef T

static const dac_option *
find(const dac_option *table, const char *name)
{
	const dac_option *o;

	for (o = table; o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

const dac_option *
dac_train_option(const char *name)
{
	return find(dac_train_options, name);
}

const dac_option *
dac_cluster_option(const char *name)
{
	return find(dac_cluster_options, name);
}

/*
 * The clustering options a model may carry as its own defaults: every one
 * of dac_cluster_options before an evaluation's sets, but a call's count
 * (k, max_k), dac.noise and dac.cluster_width (in the caller's units),
 * which say what the caller wants of a group.
 */
int
dac_model_setting_index(const char *name)
{
	int			i;

	for (i = 0; dac_cluster_options[i].name && strcmp(dac_cluster_options[i].name, "sets") != 0; i++)
		if (strcmp(dac_cluster_options[i].name, name) == 0)
			return strcmp(name, "k") == 0 || strcmp(name, "max_k") == 0 || strcmp(name, "noise") == 0 ||
				strcmp(name, "cluster_width") == 0 ? -1 : i;
	return -1;
}

const dac_option *
dac_model_setting_option(int i)
{
	const dac_option *o;

	if (i < 0 || i >= DAC_MAX_MODEL_SETTINGS)
		return NULL;
	for (o = dac_cluster_options; o->name && o - dac_cluster_options < i; o++)
		if (strcmp(o->name, "sets") == 0)
			return NULL;
	return o->name && dac_model_setting_index(o->name) == i ? o : NULL;
}

void
dac_option_text(const dac_option *o, double v, char *buf, size_t size)
{
	switch (o->kind)
	{
		case DAC_OPT_BOOL:
			snprintf(buf, size, "%s", v != 0 ? "true" : "false");
			break;
		case DAC_OPT_TEXT:
			{
				const char *p = o->lo;
				int			i;

				for (i = 0; i < (int) v && strchr(p, '|'); i++)
					p = strchr(p, '|') + 1;
				snprintf(buf, size, "%.*s", (int) (strchr(p, '|') ? strchr(p, '|') - p : (long) strlen(p)), p);
				break;
			}
		case DAC_OPT_INT:
			snprintf(buf, size, "%.0f", v);
			break;
		default:
			/* the shortest of 15 or 17 digits that reads back as v */
			snprintf(buf, size, "%.15g", v);
			if (strtod(buf, NULL) != v)
				snprintf(buf, size, "%.17g", v);
	}
}

double
dac_option_default(const dac_option *o)
{
	double		v;

	if (o->kind == DAC_OPT_REAL || o->kind == DAC_OPT_INT)
		return o->def[0] ? strtod(o->def, NULL) : NAN;
	return dac_option_value(o, NULL, &v, NULL) == DAC_OK ? v : NAN;
}

double
dac_option_lo(const dac_option *o)
{
	return strtod(o->lo, NULL);
}

double
dac_option_hi(const dac_option *o)
{
	return strtod(o->hi, NULL);
}

dac_status
dac_option_check(const dac_option *o, double v, dac_error *err)
{
	double		lo = dac_option_lo(o),
				hi = dac_option_hi(o);

	if (!(v == v) || v > hi || (o->lo_open ? v <= lo : v < lo))
		return dac_fail(err, DAC_ERR_INVALID, o->lo_open ? "option \"%s\" must be greater than %s and at most %s, not %g"
						: "option \"%s\" must be between %s and %s, not %g", o->name, o->lo, o->hi, v);
	if (o->kind == DAC_OPT_INT && v != floor(v))
		return dac_fail(err, DAC_ERR_INVALID, "option \"%s\" must be a whole number, not %g", o->name, v);
	return DAC_OK;
}

/* The index of name among the '|'-separated names, or -1. */
static int
name_index(const char *names, const char *name)
{
	size_t		len = strlen(name);
	int			i = 0;
	const char *p = names;

	for (;;)
	{
		const char *bar = strchr(p, '|');
		size_t		n = bar ? (size_t) (bar - p) : strlen(p);

		if (n == len && strncmp(p, name, n) == 0)
			return i;
		if (bar == NULL)
			return -1;
		p = bar + 1;
		i++;
	}
}

dac_status
dac_option_value(const dac_option *o, const char *text, double *v, dac_error *err)
{
	char	   *end;

	if (text == NULL || text[0] == '\0')
		text = o->def;
	switch (o->kind)
	{
		case DAC_OPT_BOOL:
			if (strcmp(text, "true") != 0 && strcmp(text, "false") != 0)
				return dac_fail(err, DAC_ERR_INVALID, "option \"%s\" must be true or false", o->name);
			*v = strcmp(text, "true") == 0;
			return DAC_OK;
		case DAC_OPT_TEXT:
			{
				int			i = name_index(o->lo, text);
				char		buf[64];

				if (i < 0)
					return dac_fail(err, DAC_ERR_INVALID, "option \"%s\" must be one of %s, not \"%s\"",
									o->name, o->lo, dac_printable(text, buf, sizeof(buf)));
				*v = i;
				return DAC_OK;
			}
		default:
			if (text[0] == '\0')
				return dac_fail(err, DAC_ERR_INVALID, "option \"%s\" has no default here", o->name);
			*v = strtod(text, &end);
			if (end == text || *end != '\0')
				return dac_fail(err, DAC_ERR_INVALID, "option \"%s\" must be a number", o->name);
			return dac_option_check(o, *v, err);
	}
}

dac_status
dac_options_read(const dac_option *table, const char *const *names, int n, dac_option_get get,
				 void *ctx, int bare, double *v, dac_error *err)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		const dac_option *o = find(table, names[i]);
		const char *text = get ? get(ctx, names[i]) : NULL;
		dac_status	st;

		if (o == NULL)
			return dac_fail(err, DAC_ERR_INVALID, "no option \"%s\"", names[i]);
		if ((st = dac_option_value(o, text ? text : bare ? o->bare : NULL, &v[i], err)) != DAC_OK)
			return st;
	}
	return DAC_OK;
}
