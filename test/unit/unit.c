/*
 * unit.c
 *	  Harness and entry point of the core unit tests.
 *
 *	  usage: test_core [group ...]   (no argument: every group)
 */
#include "unit.h"
#include "model.h"
#include "../../src/cli/read_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			unit_passed = 0;
int			unit_failed = 0;
int			unit_verbose = 0;

void
unit_check(int ok, const char *file, int line, const char *fmt,...)
{
	va_list		ap;

	if (ok)
		unit_passed++;
	else
		unit_failed++;
	if (ok && !unit_verbose)
		return;
	printf("%s ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok)
		printf("  (%s:%d)", file, line);
	printf("\n");
	fflush(stdout);
}

uint8_t *
unit_read_file(const char *path, size_t *len)
{
	return dac_read_file(path, len);
}

const char *
unit_fixture(const char *name)
{
	static char path[1024];
	const char *dir = getenv("DAC_FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "test/data/reference", name);
	return path;
}

static const struct
{
	const char *name;
	void		(*fn) (void);
}			groups[] = {
	{"json", test_json},
	{"safetensors", test_safetensors},
	{"blas", test_blas},
	{"parity", test_parity},
	{"grad", test_grad},
	{"optim", test_optim},
	{"gen", test_gen},
	{"cluster", test_cluster},
	{"infer", test_infer},
	{"train", test_train},
	{"hostile", test_hostile},
	{"mixture", test_mixture},
	{"setnorm", test_setnorm},
	{"frame", test_frame},
	{"geo", test_geo},
	{"graph", test_graph},
	{"front", test_front},
	{"pipeline", test_pipeline},
	{"whiten", test_whiten},
};

int
main(int argc, char **argv)
{
	size_t		g;
	int			a;

	if (getenv("DAC_TEST_VERBOSE"))
		unit_verbose = 1;
	printf("# core unit tests, %s build\n", DAC_REAL_NAME);
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
	{
		int			run = argc < 2;
		int			before_p = unit_passed,
					before_f = unit_failed;

		for (a = 1; a < argc; a++)
			if (strcmp(argv[a], groups[g].name) == 0)
				run = 1;
		if (!run)
			continue;
		groups[g].fn();
		printf("# %-12s %d passed, %d failed\n", groups[g].name,
			   unit_passed - before_p, unit_failed - before_f);
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

dac_status
unit_random_model(dac_model *m, const dac_config *cfg, uint64_t seed, dac_rng *r)
{
	dac_status	st = dac_model_create(m, cfg, NULL);

	if (st != DAC_OK)
		return st;
	dac_rng_seed(r, seed);
	dac_net_init_params(&m->net, m->P, r);
	return DAC_OK;
}

dac_status
unit_small_setnorm_model(dac_model *m, int width, uint64_t seed, dac_rng *r)
{
	dac_config	cfg = dac_config_default(DAC_MLF, width);

	cfg.input = DAC_INPUT_SETNORM;
	cfg.density = DAC_DENSITY_NONE;
	cfg.dim_hidden = 16;
	cfg.num_heads = 2;
	cfg.num_inds = 4;
	cfg.num_blocks = 2;
	return unit_random_model(m, &cfg, seed, r);
}
