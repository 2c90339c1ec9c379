/*
 * dac.c
 *	  PostgreSQL glue of the dac extension: installs the core's hooks
 *	  (palloc, interrupts) and exposes SQL functions.  No arithmetic here.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "core.h"
#include "model.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Core allocations come from the current memory context; NULL on failure. */
static void *
dac_pg_alloc(size_t size)
{
	return palloc_extended(size, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

static void
dac_pg_free(void *ptr)
{
	pfree(ptr);
}

/* CHECK_FOR_INTERRUPTS() leaves by longjmp; memory goes with the context. */
static int
dac_pg_interrupted(void)
{
	CHECK_FOR_INTERRUPTS();
	return 0;
}

void
_PG_init(void)
{
	dac_hooks	hooks = {dac_pg_alloc, dac_pg_free, dac_pg_interrupted};

	dac_set_hooks(&hooks);
}

/* Report a core error as a PostgreSQL error with a fitting SQLSTATE. */
static void
dac_report(const dac_error *err) pg_attribute_noreturn();

static void
dac_report(const dac_error *err)
{
	int			code;

	switch (err->code)
	{
		case DAC_ERR_NOMEM:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		case DAC_ERR_FORMAT:
			code = ERRCODE_INVALID_BINARY_REPRESENTATION;
			break;
		case DAC_ERR_TOO_LARGE:
			code = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			break;
		case DAC_ERR_INTERRUPTED:
			code = ERRCODE_QUERY_CANCELED;
			break;
		default:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
	}
	ereport(ERROR, (errcode(code), errmsg("%s", err->msg)));
}

PG_FUNCTION_INFO_V1(dac_version);

/*
 * dac_version() -> text
 */
Datum
dac_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(DAC_VERSION " (core " DAC_REAL_NAME ")"));
}

PG_FUNCTION_INFO_V1(dac_weights_info);

/*
 * dac_weights_info(weights bytea) -> jsonb
 *
 * Decodes a weights file as the model cache will, and describes it.
 */
Datum
dac_weights_info(PG_FUNCTION_ARGS)
{
	bytea	   *raw = PG_GETARG_BYTEA_PP(0);
	dac_model	m;
	dac_error	err;
	char	   *cfg;
	char	   *json;

	if (dac_model_load(&m, (const uint8_t *) VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), &err) != DAC_OK)
		dac_report(&err);
	cfg = dac_config_to_json(&m.net.cfg);
	if (cfg == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	json = psprintf("{\"config\": %s, \"parameters\": %zu, \"tensors\": %d}",
					cfg, m.net.nparams, m.net.ntensors);
	dac_free(cfg);
	dac_model_free(&m);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
