/*
 * options.c
 *	  The training options' table (options.h).
 */
#include "options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "density.h"
#include "net.h"
#include "nn.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const dac_option dac_train_options[] = {
	/* architecture (a new model) */
	{"dim", "--dim", 1, "", "1", STR(DAC_MAX_DIM_INPUT), 0},
	{"dim_hidden", "--hidden", 1, "128", "1", STR(DAC_MAX_DIM_HIDDEN), 0},
	{"num_heads", "--heads", 1, "4", "1", STR(DAC_MAX_DIM_HIDDEN), 0},
	{"num_inds", "--inds", 1, "32", "1", STR(DAC_MAX_INDS), 0},
	{"num_blocks", "--blocks", 1, "4", "1", STR(DAC_MAX_BLOCKS), 0},
	{"maf_blocks", "--maf-blocks", 1, "4", "1", STR(DAC_MAX_MADE), 0},
	{"maf_hidden", "--maf-hidden", 1, "128", "1", STR(DAC_MAX_DIM_HIDDEN), 0},
	{"maf_context", "--maf-context", 1, "128", "1", STR(DAC_MAX_DIM_HIDDEN), 0},
	{"image_filters", "--filters", 1, "32", "1", STR(DAC_MAX_FILTERS), 0},
	{"image_latent", "--latent", 1, "128", "2", STR(DAC_MAX_DIM_HIDDEN), 0},
	/* the sets and the schedule */
	{"steps", "--steps", 1, "1000", "1", "1000000000", 0},
	{"batch", "--batch", 1, "10", "1", "100000", 0},
	{"n_max", "--n-max", 1, "300", "4", "1000000", 0},
	{"k_max", "--k-max", 1, "4", "1", "10000", 0},
	{"mix_n_max", NULL, 1, "0", "0", "1000000", 0},
	{"mix_k_max", NULL, 1, "0", "0", "10000", 0},
	{"mix_ratio", NULL, 1, "1", "1", "1000", 0},
	{"lr", "--lr", 0, "0.0005", "0", "1", 1},
	{"clip", "--clip", 0, "10", "0", "1000000000000000000000000000000", 0},
	{"seed", "--seed", 1, "1", "0", "9007199254740991", 0},
	/* the database's run */
	{"checkpoint_every", NULL, 1, "100", "1", "1000000000", 0},
	{"log_every", "--log-every", 1, "50", "1", "1000000000", 0},
	{"run_steps", NULL, 1, "1000000000", "1", "1000000000", 0},
	{NULL, NULL, 0, NULL, NULL, NULL, 0}
};

const dac_option *
dac_train_option(const char *name)
{
	const dac_option *o;

	for (o = dac_train_options; o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

double
dac_option_default(const dac_option *o)
{
	return o->def[0] ? strtod(o->def, NULL) : NAN;
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
	if (o->integer && v != floor(v))
		return dac_fail(err, DAC_ERR_INVALID, "option \"%s\" must be a whole number, not %g", o->name, v);
	return DAC_OK;
}
