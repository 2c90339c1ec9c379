/*
 * base.c
 *	  What every glue module uses and nothing else provides: the two
 *	  settings that bound what one backend takes (dac.memory_limit,
 *	  dac.blas_threads), core errors as SQLSTATEs, OpenBLAS, the memory
 *	  check, a pinned search_path for SPI, and training sources.  It calls
 *	  no other glue module.
 */
#include "dac_pg.h"

#include <limits.h>
#include <math.h>

#include "catalog/namespace.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"

int			dac_blas_threads = 1;
int			dac_memory_limit_kb = 1024 * 1024;

static bool blas_loaded = false;

void
dac_base_init(void)
{
	/*
	 * The two settings that bound what one backend takes from the server
	 * (memory, cores) are the DBA's, as temp_file_limit is: superusers set
	 * them, and GRANT SET ON PARAMETER hands one to a role.
	 */
	DefineCustomIntVariable("dac.blas_threads",
							"Threads OpenBLAS may use inside one backend.",
							"Superusers, and roles granted SET on it, may change it.",
							&dac_blas_threads, 1, 1, 256,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.memory_limit",
							"Most memory one clustering call may use.",
							"Checked before allocating; a larger set is an error.  Superusers, and roles granted SET on it, may change it.",
							&dac_memory_limit_kb, 1024 * 1024, 1024, MAX_KILOBYTES,
							PGC_SUSET, GUC_UNIT_KB, NULL, NULL, NULL);
}

int
dac_pin_search_path(void)
{
	int			level = NewGUCNestLevel();

	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return level;
}

void
dac_unpin_search_path(int level)
{
	AtEOXact_GUC(true, level);
}

bool
dac_generator_kind(const char *name, dac_gen_kind *kind)
{
	static const struct
	{
		const char *name;
		dac_gen_kind kind;
	}			gens[] = {{"mog", DAC_GEN_MOG}, {"warped_mog", DAC_GEN_WARPED}, {"embed", DAC_GEN_EMBED}};
	int			i;

	for (i = 0; i < (int) lengthof(gens); i++)
		if (strcmp(name, gens[i].name) == 0)
		{
			if (kind)
				*kind = gens[i].kind;
			return true;
		}
	return false;
}

char *
dac_resolve_source(const char *source, const char *what, bool *generated)
{
	List	   *names;
	Oid			rel;

	*generated = dac_generator_kind(source, NULL);
	if (*generated)
		return pstrdup(source);
	names = stringToQualifiedNameList(source);
	rel = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
	if (!OidIsValid(rel))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("%s source \"%s\" is neither a generator nor a table", what, source),
				 errhint("The source is 'mog', 'warped_mog', 'embed', or a table or view with a vector and a label column.")));
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(rel)), get_rel_name(rel));
}

void
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
	ereport(ERROR, (errcode(code), errmsg("%s", err->msg),
					err->hint ? errhint("%s", err->hint) : 0));
}

void
dac_blas_ready(void)
{
	if (!blas_loaded)
		blas_loaded = dac_blas_open() != 0;
	if (!blas_loaded)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("could not load OpenBLAS: %s", dac_blas_error()),
				 errhint("Install the libopenblas0 package.")));
	dac_blas_set_threads(dac_blas_threads);
}

double		dac_models_live_bytes = 0;
double		dac_models_pinned_bytes = 0;
void		(*dac_models_evict) (void) = NULL;

/*
 * What a role over dac.memory_limit can do: raise it when it may set it
 * (superusers, or a role granted SET on it), else cluster smaller groups or
 * ask for more.
 */
static int
memory_hint(void)
{
#if PG_VERSION_NUM >= 150000
	if (pg_parameter_aclcheck("dac.memory_limit", GetUserId(), ACL_SET) == ACLCHECK_OK)
#else
	if (superuser())
#endif
		return errhint("Raise dac.memory_limit, or cluster smaller groups.");
	return errhint("Cluster smaller groups, or ask a superuser to raise dac.memory_limit for your role "
				   "(ALTER ROLE ... SET dac.memory_limit, or GRANT SET ON PARAMETER dac.memory_limit).");
}

void
dac_check_memory(double need, const char *what)
{
	double		limit = (double) dac_memory_limit_kb * 1024;

	/* the decoded models count too: those no statement uses make room first */
	if (need + dac_models_live_bytes > limit && dac_models_evict)
		dac_models_evict();
	if (need + dac_models_pinned_bytes > limit)
	{
		if (dac_models_pinned_bytes > 0 && need <= limit)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s needs %.0f kB of memory beside the %.0f kB of the models in use, more than dac.memory_limit (%d kB)",
							what, ceil(need / 1024), ceil(dac_models_pinned_bytes / 1024), dac_memory_limit_kb),
					 memory_hint()));
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs %.0f kB of memory, more than dac.memory_limit (%d kB)",
						what, ceil(need / 1024), dac_memory_limit_kb),
				 memory_hint()));
	}
}

dac_status
dac_load_weights(dac_model **m, const uint8_t *buf, size_t len, dac_error *err)
{
	double		bytes;
	dac_status	st;

	if ((st = dac_model_read_bytes(buf, len, &bytes, err)) != DAC_OK)
		return st;
	dac_check_memory(bytes, "decoding the weights of a model");
	return dac_model_read(buf, len, m, err);
}
