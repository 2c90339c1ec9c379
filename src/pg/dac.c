/*
 * dac.c
 *	  The PostgreSQL module: installs the core's hooks (palloc,
 *	  CHECK_FOR_INTERRUPTS), loads OpenBLAS, defines the dac.* settings and
 *	  maps core errors to SQLSTATEs.  No arithmetic here.
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

#include "linalg.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

char	   *dac_default_model = NULL;
char	   *dac_default_embedding_model = NULL;
char	   *dac_small_group_models = NULL;
int			dac_small_group_size = 100;
char	   *dac_large_group_models = NULL;
int			dac_large_group_size = 1000;
int			dac_max_passes = 50;
int			dac_blas_threads = 1;
int			dac_seed = -1;
int			dac_memory_limit_kb = 1024 * 1024;
int			dac_leftover = DAC_LEFTOVER_OWN;
int			dac_min_cluster_size = 1;
bool		dac_reassign = false;
int			dac_em_steps = 0;
int			dac_kmeans_steps = 10;
int			dac_k_search = 2;
int			dac_graph_neighbors = 5;
int			dac_k = 0;
int			dac_max_k = 0;
double		dac_graph_resolution = 0.05;
bool		dac_drop_models = false;
int			dac_sample_size = 1000;
double		dac_noise = 0;
double		dac_progress_seconds = 0;

/* the clustering under way (0: none) and when progress was last reported */
static TimestampTz progress_start = 0;
static TimestampTz progress_last = 0;
static int	progress_rows = 0;

static const struct config_enum_entry leftover_options[] = {
	{"best", DAC_LEFTOVER_BEST, false},
	{"first", DAC_LEFTOVER_FIRST, false},
	{"own", DAC_LEFTOVER_OWN, false},
	{NULL, 0, false}
};

static bool blas_loaded = false;

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

static double
seconds_since(TimestampTz t)
{
	return (double) (GetCurrentTimestamp() - t) / USECS_PER_SEC;
}

void
dac_progress_begin(int n)
{
	progress_start = progress_last = dac_progress_seconds > 0 ? GetCurrentTimestamp() : 0;
	progress_rows = n;
}

void
dac_progress_end(bool done)
{
	if (done && progress_start != 0 && seconds_since(progress_start) >= dac_progress_seconds)
		ereport(NOTICE,
				(errmsg("dac: clustered %d rows in %.1f s", progress_rows, seconds_since(progress_start))));
	progress_start = 0;
}

/* The core's progress hook: a NOTICE when dac.progress seconds have passed. */
static void
dac_pg_progress(const char *stage, int64_t done, int64_t total)
{
	if (progress_start == 0 || seconds_since(progress_last) < dac_progress_seconds)
		return;
	progress_last = GetCurrentTimestamp();
	if (total > 0)
		ereport(NOTICE,
				(errmsg("dac: clustering %d rows: %s: " INT64_FORMAT " of " INT64_FORMAT ", %.1f s",
						progress_rows, stage, done, total, seconds_since(progress_start))));
	else
		ereport(NOTICE,
				(errmsg("dac: clustering %d rows: %s, %.1f s", progress_rows, stage,
						seconds_since(progress_start))));
}

void
_PG_init(void)
{
	dac_hooks	hooks = {dac_pg_alloc, dac_pg_free, dac_pg_interrupted, dac_pg_progress};

	dac_set_hooks(&hooks);
	/* OpenBLAS is opened by the first computation (dac_blas_ready), not here */

	DefineCustomStringVariable("dac.default_model",
							   "Model used when a dac function is given none.",
							   "A name in the dac_models table.",
							   &dac_default_model, "mlf_mog2d",
							   PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("dac.default_embedding_model",
							   "Model used when a dac function is given none and dac.default_model does not take the vectors' width.",
							   "A name in the dac_models table; empty: none.",
							   &dac_default_embedding_model, "mlf_embed",
							   PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("dac.small_group_models",
							   "Cheaper models for small groups, as model=small_model pairs separated by commas.",
							   "When a dac function is given no model and the group has at most dac.small_group_size points, the default model it would use is replaced by the one it is paired with here (if that model exists for the role and takes the vectors' width).  Empty: never.",
							   &dac_small_group_models, "mlf_mog2d=mlf_small2d, mlf_fast2d=mlf_small2d",
							   PGC_USERSET, 0, dac_check_small_group_models, NULL, NULL);
	DefineCustomIntVariable("dac.small_group_size",
							"Most points of a group that dac.small_group_models applies to; 0: none.",
							NULL, &dac_small_group_size, 100, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("dac.large_group_models",
							   "Cheaper models for large groups, as model=large_model pairs separated by commas.",
							   "When a dac function is given no model and the group has at least dac.large_group_size points, the default model it would use is replaced by the one it is paired with here (if that model exists for the role and takes the vectors' width).  Empty: never.",
							   &dac_large_group_models, "mlf_mog2d=mlf_fast2d",
							   PGC_USERSET, 0, dac_check_large_group_models, NULL, NULL);
	DefineCustomIntVariable("dac.large_group_size",
							"Fewest points of a group that dac.large_group_models applies to; 0: none.",
							NULL, &dac_large_group_size, 1000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.max_passes",
							"Most network passes (clusters) per clustered set.",
							NULL, &dac_max_passes, 50, 1, 100000,
							PGC_USERSET, 0, NULL, NULL, NULL);
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
	DefineCustomIntVariable("dac.seed",
							"Seed for random anchors of anchored-filtering models; -1 takes the first unassigned row (deterministic).",
							NULL, &dac_seed, -1, -1, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.memory_limit",
							"Most memory one clustering call may use.",
							"Checked before allocating; a larger set is an error.  Superusers, and roles granted SET on it, may change it.",
							&dac_memory_limit_kb, 1024 * 1024, 1024, MAX_KILOBYTES,
							PGC_SUSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomEnumVariable("dac.leftover",
							 "Where points that no pass selected go: best (the found cluster that fits best), first (the authors' rule) or own (one more cluster).",
							 NULL, &dac_leftover, DAC_LEFTOVER_OWN, leftover_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.min_cluster_size",
							"Clusters with fewer points are dissolved into the others.",
							"Their points go to the cluster that fits each best; 1 keeps every cluster (the authors' loop).",
							&dac_min_cluster_size, 1, 1, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("dac.reassign",
							 "After the passes, moves each point to the found cluster likeliest to have drawn it.",
							 "Under the mixture of the clusters' densities weighted by their shares (Gaussian or flow density head); off keeps the authors' loop.",
							 &dac_reassign, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.kmeans_steps",
							"Most k-means steps that refine the clusters of a model without a density head.",
							"Run in the coordinates the network saw, from the clusters the passes found; 0: none.",
							&dac_kmeans_steps, 10, 0, 100000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.k_search",
							"Counts around the one the network found that k-means tries, for a model without a density head.",
							"k-means at every count from max(2, K - k_search) to K + k_search around the K clusters found; the count of the best mean silhouette is kept.  A group where one cluster was found keeps it.  0: none.",
							&dac_k_search, 2, 0, 64,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.graph_neighbors",
							"Neighbours per row of the graph whose communities become the clusters, for a model without a density head.",
							"After the count search, each of up to 1,000 rows of the group is linked to this many nearest; the clusters found start the graph's modularity communities (Leiden), which may split and merge them; other rows go to the nearest community.  0: none.",
							&dac_graph_neighbors, 5, 0, 100,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("dac.graph_resolution",
							 "Resolution of the graph's modularity (dac.graph_neighbors): lower gives fewer, larger clusters.",
							 "The configuration model's resolution, as leidenalg's RBConfigurationVertexPartition; near 0 the clusters approach the graph's connected components.",
							 &dac_graph_resolution, 0.05, 0.0001, 100,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.k",
							"Above 0, every group is cut into exactly this many clusters (fewer only when its points cannot be split further).",
							"For every clustering form and model.  Models without a density head reach it through the graph stage (its resolution raised to split, its cheapest merges to join); others merge the closest clusters or split the widest, a Gaussian's parameters refit.  No count search.  0 (the default): the count the model finds.",
							&dac_k, 0, 0, 10000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.max_k",
							"Above 0, no group gets more clusters than this.",
							"Groups with more are merged down to it, as dac.k merges; dac.k, when set, wins.  0 (the default): no bound.",
							&dac_max_k, 0, 0, 10000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.sample_size",
							"Groups of more rows are clustered through a sample of this many, for models without a density head.",
							"The network clusters every (n/sample)-th row; each other row goes to the nearest found cluster, then k-means steps (dac.kmeans_steps) refine over all rows.  Not under dac.noise; 0: every row through the network.",
							&dac_sample_size, 1000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dac.em_steps",
							"Most EM steps that refit the found clusters' mixture before each point moves to its likeliest cluster.",
							"Gaussian head: refit means, deviations and weights; flow (maf) head: the weights only.  Above 0 implies dac.reassign.  The steps stop early once the log-likelihood settles; 0 keeps the authors' loop.",
							&dac_em_steps, 0, 0, 100000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("dac.noise",
							 "Above 0, points that no cluster claims get NULL (noise) instead of a cluster.",
							 "A point is noise when no pass selected it, when its cluster has fewer than max(2, dac.min_cluster_size) points, or when a point of its cluster's Gaussian lies at least as far from the centre with probability under this level (e.g. 0.001).  0 (the default) labels every point.",
							 &dac_noise, 0, 0, 0.5,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("dac.progress",
							 "Above 0, a clustering reports where it is in a NOTICE at most every this many seconds.",
							 "The stage (network passes with the rows placed so far, k-means, the graph stage, rows assigned to a sample's clusters, ...) and the time taken; a last NOTICE when a clustering that took longer ends.  0 (the default): none.",
							 &dac_progress_seconds, 0, 0, 86400,
							 PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomBoolVariable("dac.drop_models",
							 "Lets DROP EXTENSION dac delete the user models it would take with it.",
							 "Off: DROP EXTENSION dac stops while user models exist (the event trigger dac_guard_drop reads this).",
							 &dac_drop_models, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("dac");
	dac_train_init_callbacks();
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
	ereport(ERROR, (errcode(code), errmsg("%s", err->msg)));
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

dac_cluster_opts
dac_settings_opts(void)
{
	dac_cluster_opts o = dac_cluster_opts_default();

	o.max_passes = dac_max_passes;
	o.leftover = (dac_leftover_policy) dac_leftover;
	o.random_anchors = dac_seed >= 0;
	o.seed = dac_seed >= 0 ? (uint64_t) dac_seed : 0;
	o.mem_limit = (size_t) dac_memory_limit_kb * 1024;
	o.min_size = dac_min_cluster_size;
	o.reassign = dac_reassign;
	o.em_steps = dac_em_steps;
	o.kmeans_steps = dac_kmeans_steps;
	o.k_search = dac_k_search;
	o.graph_neighbors = dac_graph_neighbors;
	o.graph_resolution = dac_graph_resolution;
	o.k_exact = dac_k;
	o.k_max = dac_max_k;
	o.sample_size = dac_sample_size;
	o.noise = dac_noise;
	return o;
}

void
dac_check_memory(double need, const char *what)
{
	double		limit = (double) dac_memory_limit_kb * 1024;

	if (need > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs %.0f kB of memory, more than dac.memory_limit (%d kB)",
						what, ceil(need / 1024), dac_memory_limit_kb),
				 errhint("Raise dac.memory_limit, or cluster smaller groups.")));
}

dac_status
dac_load_weights(dac_model *m, const uint8_t *buf, size_t len, dac_error *err)
{
	dac_config	cfg;
	double		bytes;
	dac_status	st;

	if ((st = dac_model_peek(buf, len, &cfg, &bytes, err)) != DAC_OK)
		return st;
	dac_check_memory(bytes, "decoding the weights of a model");
	return dac_model_load(m, buf, len, err);
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
	dac_model	m;
	dac_error	err;
	char	   *cfg;
	char	   *json;

	if (dac_load_weights(&m, (const uint8_t *) VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), &err) != DAC_OK)
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
				 errdetail("A name is lower-case letters, digits and underscores, then \".safetensors\".")));
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
