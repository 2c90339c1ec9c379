/*
 * dac_pg.h
 *	  Shared declarations of the PostgreSQL glue (src/pg).  The glue checks
 *	  arguments, finds models, converts arrays and reports errors; the core
 *	  (src/core) does the arithmetic.
 */
#ifndef DAC_PG_H
#define DAC_PG_H

#include "postgres.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/guc.h"

#include "dac.h"

/*
 * An SQL entry point: PG_FUNCTION_INFO_V1 and the function itself exported
 * (the module is built with -fvisibility=hidden; PostgreSQL 15 marks only
 * the info function).
 */
#define DAC_SQL_FUNCTION(name) \
	PG_FUNCTION_INFO_V1(name); \
	extern PGDLLEXPORT Datum name(PG_FUNCTION_ARGS)

/* The module's initialisation, which PostgreSQL calls by name. */
extern PGDLLEXPORT void _PG_init(void);

/*
 * The glue's modules, each below the ones that call it (no cycle):
 * dac.c (the module) -> train.c -> cluster.c -> models.c -> arrays.c ->
 * base.c.  Each defines its own settings in its *_init.
 */

/* base.c: what every module uses. */
extern int	dac_blas_threads;
extern int	dac_memory_limit_kb;
extern void dac_base_init(void);
/* Report a core error as an ERROR with a fitting SQLSTATE. */
extern void dac_report(const dac_error *err) pg_attribute_noreturn();
/* ERROR unless OpenBLAS is loaded; set its thread count from dac.blas_threads. */
extern void dac_blas_ready(void);
/*
 * ERROR naming dac.memory_limit when need bytes and the decoded models in
 * use (dac_models_pinned_bytes) exceed it; first, when need and every live
 * decoded model would, the ones no statement uses are evicted
 * (dac_models_evict, set by models.c).
 */
extern void dac_check_memory(double need, const char *what);
extern double dac_models_live_bytes;
extern double dac_models_pinned_bytes;
extern void (*dac_models_evict) (void);
/* dac_model_load, after checking what it allocates against dac.memory_limit. */
extern dac_status dac_load_weights(dac_model **m, const uint8_t *buf, size_t len, dac_error *err);

/*
 * Run SPI queries with search_path = pg_catalog, pg_temp, whatever the
 * caller's: level = dac_pin_search_path(); ...; dac_unpin_search_path(level).
 * An error in between unwinds it with the (sub)transaction.
 */
extern int	dac_pin_search_path(void);
extern void dac_unpin_search_path(int level);

/*
 * A training or evaluation source: "mog" and "warped_mog" as they are, any
 * other text a relation name (qualified or not, resolved with the current
 * search_path) that must exist, returned schema-qualified and quoted (never
 * the caller's text spliced into SQL).  what: "training", "evaluation".
 */
/* A generator's name ('mog', 'warped_mog', 'embed'): true and its kind (kind may be NULL). */
extern bool dac_generator_kind(const char *name, dac_gen_kind *kind);
extern char *dac_resolve_source(const char *source, const char *what, bool *generated);

/* cluster.c: the clustering entry points and the settings of the clustering loop. */
extern int	dac_max_passes;
extern int	dac_leftover;
extern int	dac_min_cluster_size;
extern int	dac_absorb_size;
extern double dac_pair_merge_setting;
extern int	dac_rotations;
extern int	dac_refine_rounds;
extern bool dac_pair_split;
extern bool dac_reassign;
extern int	dac_em_steps;
extern int	dac_kmeans_steps;
extern int	dac_k_search;
extern int	dac_graph_neighbors;
extern int	dac_k;
extern int	dac_max_k;
extern double dac_graph_resolution;
extern double dac_graph_merge_setting;
extern int	dac_sample_size;
extern double dac_noise;
extern double dac_progress_seconds;
extern void dac_cluster_init(void);
/* Clustering options from the settings. */
/* The clustering options for model m (NULL: none): each dac.* setting as set, else m's own, else its default. */
extern dac_cluster_opts dac_settings_opts(const dac_model *m);
/* Where the value of clustering option name comes from for m: "setting", "model" or "default". */
extern const char *dac_setting_source(const dac_model *m, const char *name);

/*
 * Progress of one clustering of n rows under dac.progress: a NOTICE at most
 * every dac.progress seconds (dac_pg_progress, the core's progress hook),
 * and one when it ends (done) if it took longer.  dac_progress_end(false)
 * after an error.
 */
extern void dac_progress_begin(int n);
extern void dac_progress_end(bool done);
extern void dac_pg_progress(const char *stage, int64_t done, int64_t total);

/* Training (train.c): release this session's training lock and trainer. */
extern void dac_train_init_callbacks(void);

/* models.c: the model cache, and the settings that choose a model. */
extern char *dac_default_model;
extern char *dac_default_embedding_model;
extern char *dac_small_group_models;
extern int	dac_small_group_size;
extern char *dac_large_group_models;
extern int	dac_large_group_size;
extern void dac_models_init(void);

/*
 * A decoded model from dac_models, pinned until the current memory context
 * is reset or deleted (a newer version of the row, read meanwhile, never
 * frees it).  NULL name: dac.default_model.
 */
extern const dac_model *dac_get_model(const char *name);
extern const dac_model *dac_get_model_text(text *name);
/*
 * The model a setting names (dac.default_model, ...): like dac_get_model,
 * but only a shipped model or one the current role owns (else an error).
 */
extern const dac_model *dac_get_default_model(const char *name);
/*
 * The model a call that names none uses for vectors of width d (0: not
 * known): dac.default_model when it takes that width, else
 * dac.default_embedding_model (when set).
 */
extern const char *dac_default_model_for(int d);
/*
 * The model for a group of n points of width d (d, n: 0 when not known):
 * the named one, else the default for d (dac_default_model_for), or the
 * model dac.small_group_models maps it to when n <= dac.small_group_size, or
 * dac.large_group_models when n >= dac.large_group_size (not 0), and that
 * model exists for this role and takes width d.
 */
extern const dac_model *dac_model_for_group(const char *name, int d, int64 n);
extern bool dac_check_small_group_models(char **newval, void **extra, GucSource source);
extern bool dac_check_large_group_models(char **newval, void **extra, GucSource source);
/* The name and version of the row a model returned above was decoded from. */
extern void dac_model_identity(const dac_model *m, const char **name, int64 *version);

/*
 * arrays.c: vectors from SQL arrays (real[], double precision[], numeric[],
 * integer arrays), checked for NULL elements, non-finite values and the
 * expected width.
 */
typedef struct dac_points
{
	int			n;
	int			d;
	dac_real   *X;				/* [n, d] */
	double	   *X64;			/* [n, d] the same in double, or NULL */
} dac_points;

/*
 * One vector (a 1-D array) of width d into out[d]; what: "the vector of row
 * 3".  d is the model's width, or (model_width false: a model that takes
 * any width) the width of the group's first vector.
 */
extern void dac_vector_from_array(ArrayType *a, Oid elemtype, int d, bool model_width,
								  dac_real *out, double *out64, const char *what);
/* A float8[] of the n values v [n]. */
extern ArrayType *dac_float8_array(const double *v, int n);
/* The width of a vector (a non-empty 1-D array) a model of any width takes. */
extern int	dac_vector_width(ArrayType *a, const char *what);
/* The same for a vector of type type: an array, or a point (two coordinates). */
extern int	dac_vector_width_datum(Datum v, Oid type, const char *what);
extern void dac_vector_from_datum(Datum v, Oid type, int d, bool model_width, dac_real *out, double *out64,
								  const char *what);
/* A 2-D array, one row per point; keep64: in double precision too (p->X64). */
extern void dac_points_from_matrix(ArrayType *a, Oid elemtype, int d, bool keep64, dac_points *p);

#endif							/* DAC_PG_H */
