/*
 * dac.c
 *	  The PostgreSQL module: installs the core's hooks (palloc,
 *	  CHECK_FOR_INTERRUPTS, progress), has each glue module define its
 *	  settings, and holds the SQL functions about the module itself
 *	  (version, BLAS, weights files, training sources).  The top of the
 *	  glue: no other module calls into it.  No arithmetic here.
 */
#include "dac_pg.h"

#include <limits.h>
#include <math.h>
#include <sys/stat.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

PG_MODULE_MAGIC;

bool		dac_drop_models = false;

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
	dac_hooks	hooks = {dac_pg_alloc, dac_pg_free, dac_pg_interrupted, dac_pg_progress};

	dac_set_hooks(&hooks);
	/* OpenBLAS is opened by the first computation (dac_blas_ready), not here */

	/* each module defines its own settings */
	dac_base_init();
	dac_models_init();
	dac_cluster_init();

	DefineCustomBoolVariable("dac.drop_models",
							 "Lets DROP EXTENSION dac delete the user models it would take with it.",
							 "Off: DROP EXTENSION dac stops while user models exist (the event trigger dac_guard_drop reads this).",
							 &dac_drop_models, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("dac");
	dac_train_init_callbacks();
}

DAC_SQL_FUNCTION(dac_resolve_source_sql);

/*
 * dac_internal.dac_resolve_source(source text, what text) -> text: the
 * source as dac_train and dac_evaluate use it (see dac_resolve_source).
 * They call it before pinning their search_path, so that a table is found
 * where the caller would find it.
 */
Datum
dac_resolve_source_sql(PG_FUNCTION_ARGS)
{
	bool		generated;
	char	   *what = text_to_cstring(PG_GETARG_TEXT_PP(1));

	/*
	 * dac_train's first statement: it commits its checkpoints as it goes, so
	 * inside BEGIN ... COMMIT it would fail at its first COMMIT with
	 * PostgreSQL's bare "invalid transaction termination".  Only at the top
	 * level of a transaction block: a caller's exception block (a
	 * subtransaction) still sees the option errors first"
	 */
	if (strcmp(what, "training") == 0 && IsTransactionBlock() && GetCurrentTransactionNestLevel() == 1)
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("CALL dac_train cannot run inside a transaction block"),
				 errhint("Run it on its own, outside BEGIN ... COMMIT: it commits a checkpoint as it goes.")));
	PG_RETURN_TEXT_P(cstring_to_text(dac_resolve_source(text_to_cstring(PG_GETARG_TEXT_PP(0)),
														text_to_cstring(PG_GETARG_TEXT_PP(1)),
														&generated)));
}

DAC_SQL_FUNCTION(dac_version);

/*
 * dac_version() -> text
 */
Datum
dac_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(DAC_VERSION " (core " DAC_REAL_NAME ")"));
}

DAC_SQL_FUNCTION(dac_blas_info);

/*
 * dac_blas_info() -> text: the OpenBLAS kernels this backend uses.
 */
Datum
dac_blas_info(PG_FUNCTION_ARGS)
{
	dac_blas_ready();
	PG_RETURN_TEXT_P(cstring_to_text(dac_blas_corename()));
}

DAC_SQL_FUNCTION(dac_weights_info);

/*
 * dac_weights_info(weights bytea) -> jsonb
 *
 * Decodes a weights file as the model cache will, and describes it.
 */
Datum
dac_weights_info(PG_FUNCTION_ARGS)
{
	bytea	   *raw = PG_GETARG_BYTEA_PP(0);
	dac_model  *m;
	dac_error	err;
	char	   *cfg;
	char	   *json;

	if (dac_load_weights(&m, (const uint8_t *) VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), &err) != DAC_OK)
		dac_report(&err);
	cfg = dac_model_config_json(m);
	if (cfg == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	json = psprintf("{\"config\": %s, \"parameters\": %zu, \"tensors\": %d}",
					cfg, dac_model_nparams(m), dac_model_ntensors(m));
	dac_free(cfg);
	dac_model_destroy(m);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

DAC_SQL_FUNCTION(dac_weights_with_settings_sql);

/*
 * dac_weights_with_settings(weights bytea, settings jsonb) -> bytea
 *
 * The same weights file, its configuration carrying these settings in
 * place of those it had ('{}': none); checked as the model cache will.
 */
Datum
dac_weights_with_settings_sql(PG_FUNCTION_ARGS)
{
	bytea	   *raw = PG_GETARG_BYTEA_PP(0);
	Jsonb	   *settings = PG_GETARG_JSONB_P(1);
	const uint8_t *buf = (const uint8_t *) VARDATA_ANY(raw);
	size_t		len = VARSIZE_ANY_EXHDR(raw);
	char	   *json = JsonbToCString(NULL, &settings->root, VARSIZE(settings));
	dac_model  *m;
	dac_error	err;
	uint8_t    *out;
	size_t		out_len;
	bytea	   *result;

	/* a file the cache would refuse is refused here first */
	if (dac_load_weights(&m, buf, len, &err) != DAC_OK)
		dac_report(&err);
	dac_model_destroy(m);
	/* the new file, and its copy into the result */
	dac_check_memory(2.0 * len + 65536, "rewriting the weights of a model");
	if (dac_weights_with_settings(buf, len, json, strlen(json), &out, &out_len, &err) != DAC_OK)
		dac_report(&err);
	if (out_len > MaxAllocSize - VARHDRSZ)
	{
		dac_free(out);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("weights of %zu bytes are too large for a bytea", out_len),
				 errhint("Pass shorter settings: the weights with them must stay under 1 GB.")));
	}
	result = palloc(VARHDRSZ + out_len);
	SET_VARSIZE(result, VARHDRSZ + out_len);
	memcpy(VARDATA(result), out, out_len);
	dac_free(out);
	PG_RETURN_BYTEA_P(result);
}

DAC_SQL_FUNCTION(dac_shipped_weights);

/*
 * dac_shipped_weights(file text) -> bytea
 *
 * A weights file installed with the extension, from
 * $sharedir/extension/dac/.  Only plain file names ending in .safetensors
 * are accepted, so nothing outside that directory can be read.
 */
Datum
dac_shipped_weights(PG_FUNCTION_ARGS)
{
	char	   *file = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char		sharedir[MAXPGPATH];
	char	   *path;
	size_t		len = strlen(file);
	const char *c;
	struct stat st;
	FILE	   *f;
	bytea	   *out;

	for (c = file; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			break;
	if (len <= 12 || strcmp(c, ".safetensors") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid shipped weights file name \"%s\"", file),
				 errdetail("A name is lower-case letters, digits and underscores, then \".safetensors\"."),
				 errhint("Name a file the extension ships, such as \"mlf_mog2d.safetensors\".")));
	get_share_path(my_exec_path, sharedir);
	path = psprintf("%s/extension/dac/%s", sharedir, file);
	f = AllocateFile(path, PG_BINARY_R);
	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open shipped weights file \"%s\": %m", path)));
	if (fstat(fileno(f), &st) != 0 || st.st_size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read shipped weights file \"%s\"", path)));
	out = palloc(VARHDRSZ + st.st_size);
	if (fread(VARDATA(out), 1, st.st_size, f) != (size_t) st.st_size)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read shipped weights file \"%s\": %m", path)));
	FreeFile(f);
	SET_VARSIZE(out, VARHDRSZ + st.st_size);
	PG_RETURN_BYTEA_P(out);
}
