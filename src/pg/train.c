/*
 * train.c
 *	  The compute half of CALL dac_train: one trainer per backend, driven by
 *	  the PL/pgSQL procedure dac_train (sql/), which owns the transactions
 *	  (checkpoints, run rows, progress).  The trainer lives in its own memory
 *	  context under TopMemoryContext, so it survives the procedure's COMMITs;
 *	  dac_train_end (or the next dac_train_begin) frees it.
 */
#include "dac_pg.h"

#include <math.h>
#include <time.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

typedef struct session_trainer
{
	MemoryContext cxt;
	dac_model  *model;
	dac_trainer *trainer;
	dac_labelled *data;			/* NULL: generated sets */
	dac_labelled *val;			/* "validate": the held-out rows (NULL: none) */
	dac_labelled *known;		/* of them, the new rows of trained labels
								 * when labels were held out whole too */
	dac_labelled *every;		/* every row, held out or not (a projection
								 * kept is fit again on them) */
	dac_real   *rows;			/* the labelled vectors, [N, d] */
	int			rows_total;		/* labelled rows read */
	int			held_rows;		/* of them held out */
	int			held_labels;	/* labels held out whole */
	int			held_groups;	/* groups held out whole (then labels held out
								 * are label values, in every group) */
	bool		whiten;			/* "whiten": validation may attach a whitening map */
	char		meta[512];		/* training record written into the weights */
} session_trainer;

static session_trainer *current = NULL;

/* Rows a table source is read in: each batch is counted before the next. */
#define LOAD_BATCH_ROWS 1000

static void load_labelled_split(MemoryContext cxt, const char *source, const char *vcol, const char *lcol,
								const char *gcol, int dim, session_trainer *s, uint64 seed,
								dac_labelled **out, dac_real **rows);

/*
 * One training run per model at a time: dac_train holds a session-level
 * lock on the model from its start to its end, so pg_locks shows which
 * backend trains which model (dac_training_status reads it).  It is an
 * advisory-type lock tag that no SQL function can take: the key is a 64-bit
 * hash of the model's name (classid: its high 32 bits, objid: its low ones)
 * and the fourth field (pg_locks.objsubid) is DAC_TRAIN_LOCK_KIND, where
 * pg_advisory_lock and its siblings always put 1 or 2.  So no role can keep
 * another's model from training by taking its lock (0.7.0 took the lock
 * pg_advisory_lock(int, int) takes), nor by naming a model whose 32-bit
 * hash collides.  Session locks outlive a transaction's abort, so an abort
 * of the (sub)transaction that took the lock, or of any around it,
 * releases it and frees the trainer: an error escaping dac_train never
 * leaves either behind.
 */
#define DAC_TRAIN_LOCK_KIND 17475	/* "DC" */

static bool lock_held = false;
static LOCKTAG lock_tag;
static int	lock_level = 0;		/* transaction nest level that took it */

static void
end_training(void)
{
	if (current)
	{
		MemoryContextDelete(current->cxt);
		current = NULL;
	}
}

static void
release_training(void)
{
	end_training();
	if (lock_held)
	{
		LockRelease(&lock_tag, ExclusiveLock, true);
		lock_held = false;
	}
}

static void
train_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		release_training();
}

static void
train_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	/* the subtransaction being aborted is at the current nest level */
	if (event == SUBXACT_EVENT_ABORT_SUB && (lock_held || current) &&
		GetCurrentTransactionNestLevel() <= lock_level)
		release_training();
}

void
dac_train_init_callbacks(void)
{
	RegisterXactCallback(train_xact_callback, NULL);
	RegisterSubXactCallback(train_subxact_callback, NULL);
}

static uint64
lock_id(text *model)
{
	return hash_bytes_extended((const unsigned char *) VARDATA_ANY(model), VARSIZE_ANY_EXHDR(model),
							   UINT64CONST(0x44414354524149));	/* "DACTRAI" */
}

DAC_SQL_FUNCTION(dac_train_lock_key);

/*
 * dac_train_lock_key(model text) -> int: 0.2.0 to 0.7.0's key of a model's
 * training lock (their dac_training_pid reads it; no lock uses it now).
 */
Datum
dac_train_lock_key(PG_FUNCTION_ARGS)
{
	text	   *model = PG_GETARG_TEXT_PP(0);

	PG_RETURN_INT32((int32) hash_any((const unsigned char *) VARDATA_ANY(model), VARSIZE_ANY_EXHDR(model)));
}

DAC_SQL_FUNCTION(dac_train_lock_id);

/*
 * dac_train_lock_id(model text) -> bigint: the 64-bit key of a model's
 * training lock: pg_locks shows its high 32 bits as classid and its low ones
 * as objid, with objsubid DAC_TRAIN_LOCK_KIND.
 */
Datum
dac_train_lock_id(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) lock_id(PG_GETARG_TEXT_PP(0)));
}

DAC_SQL_FUNCTION(dac_train_lock);

/*
 * dac_train_lock(model text) -> bool: takes the training lock of the model
 * for this session without waiting; false when another session holds it.
 * A session trains one model at a time: an earlier lock of this session is
 * released first.
 */
Datum
dac_train_lock(PG_FUNCTION_ARGS)
{
	LOCKTAG		tag;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {PG_GETARG_DATUM(0)};
	bool		mine,
				isnull;
	int			level;

	/*
	 * Only the owner's members may hold the lock of an existing model (so
	 * that no role can keep another's from training), and no model owned by
	 * public or dac_user is anyone's; a name no model has yet is free to all.
	 */
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	level = dac_pin_search_path();
	if (SPI_execute_with_args("SELECT o IS NULL OR (o OPERATOR(pg_catalog.<>) ALL (ARRAY['public', 'dac_user']::pg_catalog.name[]) "
							  "AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) o "
							  "AND pg_catalog.pg_has_role(r.oid, 'MEMBER'))) "
							  "FROM dac_internal.dac_model_owner($1) AS o",
							  1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "reading the owner of a model failed");
	mine = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	dac_unpin_search_path(level);
	SPI_finish();
	if (!mine)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("model \"%s\" belongs to another role", text_to_cstring(PG_GETARG_TEXT_PP(0))),
				 errhint("Only its owner (or a member of the owner) can train it; train a model of another name.")));
	release_training();
	{
		uint64		id = lock_id(PG_GETARG_TEXT_PP(0));

		SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (id >> 32), (uint32) id, DAC_TRAIN_LOCK_KIND);
	}
	if (LockAcquire(&tag, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
		PG_RETURN_BOOL(false);
	lock_tag = tag;
	lock_held = true;
	lock_level = GetCurrentTransactionNestLevel();
	PG_RETURN_BOOL(true);
}

static session_trainer *
need_trainer(void)
{
	if (current == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no training is in progress in this session"),
				 errhint("dac_train_* functions are called by CALL dac_train(...).")));
	return current;
}

/*
 * Read the labelled rows of a table or view: vectors as real[], labels and
 * groups as dense ranks (any type that sorts).  Rows with a NULL vector or
 * label are skipped.  With a group column a label names a class within its
 * group (labels 1..k in every group are k classes per group): the label's
 * rank is that of (label, group), the same ranks as the label's alone where
 * no label value is in two groups (so a run of 0.7.0 resumes on the same
 * rows).  The order is fixed (by label, group and vector), so a resumed run
 * sees the same rows in the same places.
 */
static void
load_labelled(MemoryContext cxt, const char *source, const char *vcol, const char *lcol,
			  const char *gcol, int dim, dac_labelled **out, dac_real **rows)
{
	load_labelled_split(cxt, source, vcol, lcol, gcol, dim, NULL, 0, out, rows);
}

/*
 * load_labelled, holding rows out when s is given ("validate"): s->data
 * gets the rows to train on, s->val the held-out ones (dac_holdout_rows,
 * from seed), or NULL with every row in s->data when the table is too
 * small to hold any out.
 */
static void
load_labelled_split(MemoryContext cxt, const char *source, const char *vcol, const char *lcol,
					const char *gcol, int dim, session_trainer *s, uint64 seed, dac_labelled **out,
					dac_real **rows)
{
	char	   *sql;
	uint64		i,
				N,
				cap = 0;
	int			d = -1;
	int		   *y = NULL,
			   *g = NULL,
			   *lv = NULL;
	dac_error	err;
	MemoryContext old;
	int			level;
	Portal		portal;

	*rows = NULL;
	/* source is resolved, qualified and quoted (dac_resolve_source) */
	/*
	 * the vector, the label within its group, the group, and (a run that
	 * holds groups out) the label over the table
	 */
	sql = psprintf("SELECT (%s)::pg_catalog.float4[], pg_catalog.dense_rank() OVER (ORDER BY %s%s%s) OPERATOR(pg_catalog.-) 1, %s, %s "
				   "FROM %s WHERE %s IS NOT NULL AND %s IS NOT NULL "
				   "ORDER BY 2, 3, 1",
				   quote_identifier(vcol), quote_identifier(lcol), gcol ? ", " : "",
				   gcol ? quote_identifier(gcol) : "",
				   gcol ? psprintf("pg_catalog.dense_rank() OVER (ORDER BY %s) OPERATOR(pg_catalog.-) 1", quote_identifier(gcol)) : "0",
				   gcol && s ? psprintf("pg_catalog.dense_rank() OVER (ORDER BY %s) OPERATOR(pg_catalog.-) 1",
										quote_identifier(lcol)) : "0",
				   source, quote_identifier(vcol), quote_identifier(lcol));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	level = dac_pin_search_path();
	/*
	 * Read through a cursor, a batch at a time: the rows are counted against
	 * dac.memory_limit as they arrive, never all materialised first.
	 */
	portal = SPI_cursor_open_with_args(NULL, sql, 0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
	N = 0;
	for (;;)
	{
		uint64		got;

		SPI_cursor_fetch(portal, true, LOAD_BATCH_ROWS);
		got = SPI_processed;
		if (got == 0)
			break;
		for (i = 0; i < got; i++)
		{
			bool		isnull;
			Datum		v = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			ArrayType  *a = DatumGetArrayTypeP(v);
			char		what[NAMEDATALEN * 2 + 32];

			CHECK_FOR_INTERRUPTS();
			if (d < 0)
			{
				d = ARR_NDIM(a) == 1 ? ARR_DIMS(a)[0] : 0;
				if (dim > 0 && d != dim)
					ereport(ERROR,
							(errcode(ERRCODE_DATA_EXCEPTION),
							 errmsg("the vectors of %s have length %d, but the model takes %d", source, d, dim),
							 errhint("Name a model that takes vectors of length %d.", d)));
				if (d < 1)
					ereport(ERROR,
							(errcode(ERRCODE_DATA_EXCEPTION),
							 errmsg("the vectors of %s must be non-empty one-dimensional arrays", source),
							 errhint("Leave those rows out of the source, e.g. through a view.")));
			}
			if (N == cap)
			{
				/*
				 * room for twice the rows: y, g and two indexes; held out, a
				 * second index, the mask and (with groups) the labels over
				 * the table
				 */
				uint64		more = cap ? cap * 2 : LOAD_BATCH_ROWS;

				if (more > INT_MAX / 4)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("%s has too many rows to train on (more than %llu)", source,
									(unsigned long long) N),
							 errhint("Train on a sample of it, e.g. a view with TABLESAMPLE.")));
				dac_check_memory((double) more * (d * sizeof(dac_real) + (s ? 9 + (gcol != NULL) : 4) * sizeof(int) + (s ? 2 : 0)),
								 psprintf("reading the rows of %s (room for %llu)", source,
										  (unsigned long long) more));
				old = MemoryContextSwitchTo(cxt);
				*rows = *rows ? repalloc_huge(*rows, sizeof(dac_real) * more * d)
					: palloc_extended(sizeof(dac_real) * more * d, MCXT_ALLOC_HUGE);
				y = y ? repalloc_huge(y, sizeof(int) * more) : palloc_extended(sizeof(int) * more, MCXT_ALLOC_HUGE);
				if (gcol)
					g = g ? repalloc_huge(g, sizeof(int) * more) : palloc_extended(sizeof(int) * more, MCXT_ALLOC_HUGE);
				if (gcol && s)
					lv = lv ? repalloc_huge(lv, sizeof(int) * more) : palloc_extended(sizeof(int) * more, MCXT_ALLOC_HUGE);
				MemoryContextSwitchTo(old);
				cap = more;
			}
			snprintf(what, sizeof(what), "a vector of %s", source);
			dac_vector_from_array(a, ARR_ELEMTYPE(a), d, false, *rows + N * d, NULL, what);
			y[N] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
			if (g)
				g[N] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3, &isnull));
			if (lv)
				lv[N] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 4, &isnull));
			N++;
			if ((Pointer) a != DatumGetPointer(v))
				pfree(a);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	dac_unpin_search_path(level);
	if (N < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s has %llu labelled rows; training needs at least 2", source,
						(unsigned long long) N),
				 errhint("Rows whose vector or label is NULL are left out; label at least two.")));
	SPI_finish();
	old = MemoryContextSwitchTo(cxt);
	if (s)
	{
		unsigned char *val = palloc_extended(N, MCXT_ALLOC_HUGE);

		s->rows_total = (int) N;
		/* a table of groups holds groups out whole, as the model will meet them; else labels and rows */
		if (g && dac_holdout_groups(g, lv, (int) N, seed, val, &s->held_rows, &s->held_groups, &s->held_labels,
									&err) != DAC_OK)
			dac_report(&err);
		if (s->held_groups == 0 &&
			dac_holdout_rows(y, (int) N, seed, val, &s->held_rows, &s->held_labels, &err) != DAC_OK)
			dac_report(&err);
		if (dac_holdout_split(*rows, y, g, (int) N, d, val, out, &s->val, &s->known, &err) != DAC_OK)
			dac_report(&err);
		if (s->known && dac_labelled_new(*rows, y, g, (int) N, d, &s->every, &err) != DAC_OK)
			dac_report(&err);
	}
	else if (dac_labelled_new(*rows, y, g, (int) N, d, out, &err) != DAC_OK)
		dac_report(&err);
	MemoryContextSwitchTo(old);
}

/* The option's text; NULL when absent or JSON null, unless required. */
static char *
opt_text(Jsonb *o, const char *key, bool required)
{
	Datum		v;
	FunctionCallInfoBaseData *fc = palloc0(SizeForFunctionCallInfo(2));

	InitFunctionCallInfoData(*fc, NULL, 2, InvalidOid, NULL, NULL);
	fc->args[0].value = JsonbPGetDatum(o);
	fc->args[1].value = CStringGetTextDatum(key);
	v = jsonb_object_field_text(fc);
	if (fc->isnull)
	{
		if (required)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("training option \"%s\" is missing", key),
					 errhint("Complete the options with dac_train_options().")));
		return NULL;
	}
	return TextDatumGetCString(v);
}

static bool
opt_bool(Jsonb *o, const char *key)
{
	return strcmp(opt_text(o, key, true), "true") == 0;
}

/* dac_option_get over the options' JSON: an option's text, NULL when absent. */
static const char *
json_get_option(void *ctx, const char *key)
{
	return opt_text((Jsonb *) ctx, key, false);
}

DAC_SQL_FUNCTION(dac_train_begin);

/*
 * dac_train_begin(weights bytea, state bytea, source text, options jsonb)
 *	  -> jsonb (the model's configuration)
 *
 * options are complete and checked (dac_train_options()).  weights NULL: a
 * new model from the options' architecture, initialised from the seed;
 * state non-NULL: resume the optimiser from a checkpoint.  source is 'mog',
 * 'warped_mog' or a relation name (already resolved and quoted).
 */
Datum
dac_train_begin(PG_FUNCTION_ARGS)
{
	Jsonb	   *o;
	char	   *source;
	session_trainer *s;
	MemoryContext cxt,
				old;
	dac_train_opts to = dac_train_opts_default();
	dac_error	err;
	bool		fresh = PG_ARGISNULL(0);
	bool		generated;
	char	   *init;
	char	   *json;
	int			largest;
	int			width;
	dac_strbuf	meta;

	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the training source and options must not be NULL")));
	o = PG_GETARG_JSONB_P(3);
	source = dac_resolve_source(text_to_cstring(PG_GETARG_TEXT_PP(2)), "training", &generated);
	end_training();
	dac_blas_ready();

	/*
	 * The trainer is built in a context of this call's; only a complete one
	 * moves under TopMemoryContext and becomes the session's, so an error
	 * half-way frees everything and leaves no half-made trainer behind.
	 */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "dac training", ALLOCSET_DEFAULT_SIZES);
	s = MemoryContextAllocZero(cxt, sizeof(session_trainer));
	s->cxt = cxt;

	if (!generated)
	{
		const char *validate = opt_text(o, "validate", false);
		const char *whiten = opt_text(o, "whiten", false);
		bool		split = validate && strcmp(validate, "true") == 0;
		const char *vcol = opt_text(o, "vector_column", true),
				   *lcol = opt_text(o, "label_column", true);

		/* the split's seed is the run's: a resumed run holds out the same rows */
		load_labelled_split(s->cxt, source, vcol, lcol, opt_text(o, "group_column", false), 0,
							split ? s : NULL, split ? (uint64) strtoll(opt_text(o, "seed", true), NULL, 10) : 0,
							&s->data, &s->rows);
		s->whiten = split && whiten && strcmp(whiten, "true") == 0;
	}

	init = opt_text(o, "init", false);
	/* the table default's "init" is for a new model: an existing one keeps its weights */
	if (init && !fresh && opt_text(o, "init_default", false) && opt_bool(o, "init_default"))
		init = NULL;
	if (init && !fresh && PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"init\" applies to a new model"),
				 errhint("Add \"replace\": true to start the model afresh from \"%s\".", init)));
	old = MemoryContextSwitchTo(s->cxt);
	width = s->data ? dac_labelled_width(s->data) : 0;
	if (init && fresh)
	{
		/* the model to start from, as this role may read it (row-level security) */
		const dac_model *from = dac_get_model(init);

		/* its copy, checked before it is made (the optimiser's buffers are checked below) */
		dac_check_memory((double) dac_model_nparams(from) * sizeof(dac_real),
						 psprintf("a copy of model \"%s\"", init));
		if (dac_model_copy(from, &s->model, &err) != DAC_OK)
			dac_report(&err);
		if (s->data && !dac_model_takes_width(s->model, width))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("the training vectors have length %d, but model \"%s\" takes %d",
							width, init, dac_model_dim_input(s->model)),
					 errhint("Start from a model that takes vectors of length %d, or leave \"init\" out.", width)));
	}
	else if (fresh)
	{
		static const char *const arch[] = {"strategy", "density", "dim_hidden", "num_heads", "num_inds",
		"num_blocks", "shared_blocks"};
		double		bytes;
		int			i;

		for (i = 0; i < lengthof(arch); i++)
			opt_text(o, arch[i], true);

		/* the architecture from the options, as the core reads them (a raw model takes the table's width) */
		if (dac_model_new_bytes(json_get_option, o, width, &bytes, &err) != DAC_OK)
			dac_report(&err);
		dac_check_memory(bytes, "a model of this architecture");
		if (dac_model_new(json_get_option, o, width, &s->model, &err) != DAC_OK)
			dac_report(&err);
	}
	else
	{
		bytea	   *w = PG_GETARG_BYTEA_PP(0);

		if (dac_load_weights(&s->model, (const uint8_t *) VARDATA_ANY(w), VARSIZE_ANY_EXHDR(w), &err) != DAC_OK)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the model's weights are corrupt: %s", err.msg)));
		if (s->data && !dac_model_takes_width(s->model, width))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("the training vectors have length %d, but the model takes %d",
							width, dac_model_dim_input(s->model)),
					 errhint("Train this model on vectors of length %d, or train a new model under another name.",
							 dac_model_dim_input(s->model))));
	}
	/* options completed by dac_train_options() name every one of these */
	{
		static const char *const schedule[] = {"steps", "batch", "n_max", "fixed_n", "k_max", "mix_n_max",
		"mix_k_max", "seed", "lr", "clip"};
		int			i;

		for (i = 0; i < lengthof(schedule); i++)
			opt_text(o, schedule[i], true);
	}
	if (generated)
		dac_generator_kind(source, &to.data);
	to.source = s->data;
	/* options completed by an older dac_train_options may lack mix_ratio: alternate (its default) */
	if (dac_train_opts_read(json_get_option, o, &to, &err) != DAC_OK)
		dac_report(&err);
	largest = Max(to.n_max, to.alt_n_max);	/* the mix's sets may be the larger */
	/* a generator of fixed width feeds a normalising model of another */
	to.data_dim = to.data == DAC_GEN_WARPED ? 2 : 0;
	dac_check_memory(dac_trainer_bytes(s->model, &to) + (double) dac_model_nparams(s->model) * sizeof(dac_real),
					 psprintf("training with batch %d and n_max %d", to.batch, largest));
	if (dac_trainer_new(s->model, &to, fresh && init == NULL, &s->trainer, &err) != DAC_OK)
		dac_report(&err);
	if (!PG_ARGISNULL(1))
	{
		bytea	   *st = PG_GETARG_BYTEA_PP(1);

		if (dac_trainer_load_state(s->trainer, (const uint8_t *) VARDATA_ANY(st), VARSIZE_ANY_EXHDR(st), &err) != DAC_OK)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the checkpoint's optimiser state is unusable: %s", err.msg)));
		if (dac_trainer_steps_done(s->trainer) > to.steps)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the checkpoint is at step %ld, beyond steps = %ld",
							dac_trainer_steps_done(s->trainer), to.steps),
					 errhint("Give \"steps\" of at least %ld to go on from the checkpoint.",
							 dac_trainer_steps_done(s->trainer))));
	}
	/* the training record written into the weights: the source, then the schedule as the core writes it */
	dac_strbuf_init(&meta);
	dac_strbuf_printf(&meta, "{\"trainer\": \"dac_train\", \"source\": \"%s\", ", generated ? source : "table");
	dac_train_opts_json(&to, &meta);
	dac_strbuf_append(&meta, "}", 1);
	if (meta.failed || meta.len >= sizeof(s->meta))
		elog(ERROR, "the training record does not fit");
	memcpy(s->meta, meta.data, meta.len + 1);
	dac_strbuf_free(&meta);
	json = dac_model_config_json(s->model);
	MemoryContextSwitchTo(old);
	MemoryContextSetParent(cxt, TopMemoryContext);
	current = s;
	/* called without dac_train_lock (directly): freed with this (sub)transaction's abort */
	if (!lock_held)
		lock_level = GetCurrentTransactionNestLevel();
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

DAC_SQL_FUNCTION(dac_train_steps);

/*
 * dac_train_steps(n int) -> (step bigint, loss float8, seconds float8):
 * runs up to n more steps (not past the total) and returns the step
 * reached, the mean loss of the steps run and their wall time.
 */
Datum
dac_train_steps(PG_FUNCTION_ARGS)
{
	session_trainer *s = need_trainer();
	int32		n = PG_GETARG_INT32(0);
	TupleDesc	desc;
	Datum		v[3];
	bool		nl[3] = {false, false, false};
	struct timespec t0,
				t1;
	double		sum = 0;
	int			done = 0;
	MemoryContext old;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "dac_train_steps must return a record");
	dac_blas_ready();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	old = MemoryContextSwitchTo(s->cxt);
	while (done < n && dac_trainer_steps_done(s->trainer) < dac_trainer_steps_total(s->trainer))
	{
		dac_loss_parts p;
		dac_error	err;

		CHECK_FOR_INTERRUPTS();
		if (dac_trainer_step(s->trainer, &p, &err) != DAC_OK)
		{
			MemoryContextSwitchTo(old);
			dac_report(&err);
		}
		sum += p.loss;
		done++;
	}
	MemoryContextSwitchTo(old);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	v[0] = Int64GetDatum(dac_trainer_steps_done(s->trainer));
	v[1] = Float8GetDatum(done ? sum / done : NAN);
	v[2] = Float8GetDatum((t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
	if (done == 0)
		nl[1] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), v, nl)));
}

static bytea *
to_bytea(uint8_t *buf, size_t len)
{
	bytea	   *out = palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);

	SET_VARSIZE(out, VARHDRSZ + len);
	memcpy(VARDATA(out), buf, len);
	return out;
}

DAC_SQL_FUNCTION(dac_train_weights);

/* dac_train_weights() -> bytea: the model now, with its training record. */
Datum
dac_train_weights(PG_FUNCTION_ARGS)
{
	session_trainer *s = need_trainer();
	const char *meta[5];
	char		step[32];
	uint8_t    *buf;
	size_t		len;
	dac_error	err;

	snprintf(step, sizeof(step), "%ld", dac_trainer_steps_done(s->trainer));
	meta[0] = "dac.training";
	meta[1] = s->meta;
	meta[2] = "dac.step";
	meta[3] = step;
	meta[4] = NULL;
	if (dac_model_save(s->model, meta, &buf, &len, &err) != DAC_OK)
		dac_report(&err);
	PG_RETURN_BYTEA_P(to_bytea(buf, len));
}

DAC_SQL_FUNCTION(dac_train_state);

/* dac_train_state() -> bytea: the optimiser state (Adam moments, step, RNG). */
Datum
dac_train_state(PG_FUNCTION_ARGS)
{
	session_trainer *s = need_trainer();
	uint8_t    *buf;
	size_t		len;
	dac_error	err;

	if (dac_trainer_save_state(s->trainer, &buf, &len, &err) != DAC_OK)
		dac_report(&err);
	PG_RETURN_BYTEA_P(to_bytea(buf, len));
}

/* the held-out sets each model is scored on at the end of a validated run */
#define DAC_VALIDATION_SETS 100

/*
 * "whiten": the whitening map of the training rows at each ridge, chosen
 * on held-out sets by dac_whitening_choose (the new rows of the trained
 * labels, guarded by every held-out row, whose sets the model without a map
 * scored base_ari); a map kept becomes the trainer's model (its weights and
 * checkpoints then hold the map).  Appends
 * "whiten" and, with a map, "config" (the model's new configuration) to sb.
 * Rows wider than DAC_MAX_MAP_DIM, a map that would need more than
 * dac.memory_limit, or rows that do not vary within their labels leave the
 * model as it is, and sb says why.
 */
static void
validate_whitening(session_trainer *s, const dac_train_opts *to, const dac_cluster_opts *co,
				   const double *base_ari, dac_real *X, int *y, dac_strbuf *sb)
{
	dac_whitening_report rep;
	dac_model  *chosen = NULL;
	MemoryContext old;
	dac_error	err;
	dac_status	st;
	int			d = dac_labelled_width(s->data),
				r;
	int			n_large = dac_whitening_large_n(to->n_max);
	double		need;

	need = d > DAC_MAX_MAP_DIM ? 0 :
		dac_whitening_choose_bytes(s->model, d, dac_labelled_labels(s->data), s->held_rows, n_large) +
		(s->known ? dac_cluster_bytes(s->model, n_large, d, co) : 0);

	if (d > DAC_MAX_MAP_DIM)
	{
		dac_strbuf_printf(sb, ", \"whiten\": {\"skipped\": \"the rows are wider than %d\"}", DAC_MAX_MAP_DIM);
		return;
	}
	/* over dac.memory_limit the run still finishes, unwhitened, and says why */
	if (need > (double) dac_memory_limit_kb * 1024)
	{
		dac_strbuf_printf(sb, ", \"whiten\": {\"skipped\": \"whitening rows of %d dimensions needs %.0f kB, "
						  "more than dac.memory_limit (%d kB)\"}", d, ceil(need / 1024), dac_memory_limit_kb);
		return;
	}
	/* the map chosen lives as long as the trainer */
	old = MemoryContextSwitchTo(s->cxt);
	st = dac_whitening_choose(s->model, s->data, s->val, s->known, s->every, DAC_VALIDATION_SETS, to->n_max, to->k_max, to->seed,
							  co, base_ari, X, y, &rep, &chosen, &err);
	MemoryContextSwitchTo(old);
	if (st != DAC_OK)
		dac_report(&err);
	if (rep.skipped)
	{
		dac_strbuf_printf(sb, ", \"whiten\": {\"skipped\": ");
		dac_strbuf_json_string(sb, rep.skipped);
		dac_strbuf_printf(sb, "}");
		return;
	}
	dac_strbuf_printf(sb, ", \"whiten\": {\"ridges\": [");
	for (r = 0; r < DAC_WHITEN_RIDGES; r++)
		dac_strbuf_printf(sb, "%s%g", r ? ", " : "", rep.ridge[r]);
	dac_strbuf_printf(sb, "], \"scores\": [");
	for (r = 0; r < DAC_WHITEN_RIDGES; r++)
	{
		dac_strbuf_printf(sb, "%s", r ? ", " : "");
		dac_eval_sums_json(&rep.eval[r], sb);
	}
	dac_strbuf_printf(sb, "]");
	if (rep.candidates > DAC_WHITEN_RIDGES)
	{
		dac_strbuf_printf(sb, ", \"projection\": {\"labels\": %d, \"gate_threshold\": %.6g, \"score\": ",
						  rep.lda_classes, rep.gate_threshold);
		dac_eval_sums_json(&rep.eval[DAC_WHITEN_RIDGES], sb);
		if (rep.large_n > 0)
		{
			dac_strbuf_printf(sb, ", \"large_sets\": {\"n_max\": %d, \"k_max\": %d, \"without\": ",
							  rep.large_n, rep.large_k);
			dac_eval_sums_json(&rep.large_without, sb);
			dac_strbuf_printf(sb, ", \"projection\": ");
			dac_eval_sums_json(&rep.large, sb);
			dac_strbuf_printf(sb, ", \"projection_minus_without\": {\"ari\": %.4f, \"se\": %.4f}}",
							  rep.large_diff, rep.large_se);
		}
		if (rep.else_best >= 0)
		{
			/* the groups its gate turns away: each whitening map for them, on every held-out row's sets */
			dac_strbuf_printf(sb, ", \"other_groups\": {\"scores\": [");
			for (r = 0; r < DAC_WHITEN_RIDGES; r++)
			{
				dac_strbuf_printf(sb, "%s", r ? ", " : "");
				dac_eval_sums_json(&rep.else_eval[r], sb);
			}
			dac_strbuf_printf(sb, "], \"best_ridge\": %g, \"minus_projection_alone\": {\"ari\": %.4f, "
							  "\"se\": %.4f}, \"kept\": %s}", rep.ridge[rep.else_best], rep.else_diff, rep.else_se,
							  rep.else_kept ? "true" : "false");
		}
		dac_strbuf_printf(sb, "}");
	}
	else if (rep.lda_skipped)
	{
		dac_strbuf_printf(sb, ", \"projection\": {\"skipped\": ");
		dac_strbuf_json_string(sb, rep.lda_skipped);
		dac_strbuf_printf(sb, "}");
	}
	if (rep.known)
	{
		dac_strbuf_printf(sb, ", \"without\": ");
		dac_eval_sums_json(&rep.without, sb);
	}
	dac_strbuf_printf(sb, ", \"scored_on\": \"%s\", \"best\": ",
					  rep.known ? "new rows of the trained labels" : "every held-out row");
	if (rep.best >= DAC_WHITEN_RIDGES)
		dac_strbuf_printf(sb, "\"projection\", \"best_ridge\": null");
	else
		dac_strbuf_printf(sb, "\"ridge %g\", \"best_ridge\": %g", rep.ridge[rep.best], rep.ridge[rep.best]);
	dac_strbuf_printf(sb, ", \"map_minus_without\": {\"ari\": %.4f, \"se\": %.4f}", rep.diff, rep.se);
	if (rep.known)
	{
		dac_strbuf_printf(sb, ", \"every_held_out_row\": {\"map\": ");
		dac_eval_sums_json(&rep.guard, sb);
		dac_strbuf_printf(sb, ", \"map_minus_without\": {\"ari\": %.4f, \"se\": %.4f}}",
						  rep.guard_diff, rep.guard_se);
	}
	if (rep.refit)
		dac_strbuf_printf(sb, ", \"fit_again_on_every_row\": true");
	dac_strbuf_printf(sb, ", \"kept\": %s}", chosen ? "true" : "false");
	if (chosen)
	{
		char	   *cfg = dac_model_config_json(chosen);

		if (cfg == NULL)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		if (rep.chosen < DAC_WHITEN_RIDGES)
			dac_strbuf_printf(sb, ", \"ridge\": %g", rep.ridge[rep.chosen]);
		dac_strbuf_printf(sb, ", \"config\": %s", cfg);
		dac_free(cfg);
		/* the trainer goes on with it (its moments in its own memory): weights and checkpoint carry the map */
		old = MemoryContextSwitchTo(s->cxt);
		st = dac_trainer_adopt(s->trainer, chosen, &err);
		MemoryContextSwitchTo(old);
		if (st != DAC_OK)
			dac_report(&err);
		s->model = chosen;
	}
}

DAC_SQL_FUNCTION(dac_train_validate);

/*
 * The held-out part clustered by m into e and ari: each held-out group whole
 * (a run that held groups out), else DAC_VALIDATION_SETS sets drawn from the
 * held-out rows at the run's n_max and k_max, from its seed.  X and y as
 * validation_buffers made them; the number of scores.
 */
static int
validation_scores(session_trainer *s, const dac_model *m, const dac_train_opts *to, const dac_cluster_opts *co,
				  dac_real *X, int *y, dac_eval_sums *e, double *ari)
{
	dac_error	err;
	dac_status	st;
	int			sets = DAC_VALIDATION_SETS;

	memset(e, 0, sizeof(*e));
	if (s->held_groups > 0)
		st = dac_evaluate_whole_groups(m, s->val, co, X, y, e, ari, &sets, &err);
	else
		st = dac_evaluate_labelled(m, s->val, sets, to->n_max, to->k_max, to->seed, co, X, y, e, ari, &err);
	if (st != DAC_OK)
		dac_report(&err);
	return sets;
}

/*
 * dac_train_validate(start text) -> jsonb: "validate" at the end of a run.
 * The trained model clusters the held-out part (validation_scores) and,
 * when start names the model the run started from, so does that one; the
 * trained weights are kept only when they are ahead of the start's on ARI
 * by more than the paired standard error (dac_validation_prefers), else
 * the start's replace them (dac_train_weights then returns those).
 * Returns what was held out and how it was scored, both scores, their
 * paired difference and which model was kept; without held-out rows (a
 * table too small), only what was held out.  With "whiten", then
 * validate_whitening.
 */
Datum
dac_train_validate(PG_FUNCTION_ARGS)
{
	session_trainer *s = need_trainer();
	const dac_train_opts *to = dac_trainer_opts(s->trainer);
	dac_cluster_opts co,
				co_start;
	dac_eval_sums trained,
				start;
	const dac_model *from = NULL;
	dac_strbuf	sb;
	dac_real   *X;
	int		   *y;
	double	   *ari_trained,
			   *ari_start,
				diff,
				se;
	int			d,
				g,
				size = to->n_max,
				sets,
				kept_start = 0;
	dac_error	err;
	Datum		result;

	if (s->data == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"validate\" applies only to a table source"),
				 errhint("Leave \"validate\" out when training on a generator.")));
	dac_strbuf_init(&sb);
	dac_strbuf_printf(&sb, "{\"rows\": %d, \"held_out_rows\": %d, \"held_out_labels\": %d",
					  s->rows_total, s->held_rows, s->held_labels);
	if (s->held_groups > 0)
		dac_strbuf_printf(&sb, ", \"held_out_groups\": %d", s->held_groups);
	if (s->val)
	{
		d = dac_labelled_width(s->val);
		if (!PG_ARGISNULL(0))
			from = dac_get_model(text_to_cstring(PG_GETARG_TEXT_PP(0)));
		/* each model under its own settings; the metrics score every point: no dac.noise */
		co = dac_settings_opts(s->model);
		co_start = dac_settings_opts(from);
		co.noise = co_start.noise = 0;
		if (s->held_groups > 0)
			for (g = size = 0; g < dac_labelled_groups(s->val); g++)
				size = Max(size, dac_labelled_group_size(s->val, g));
		dac_check_memory((double) size * (d * sizeof(dac_real) + sizeof(int)) +
						 Max(dac_cluster_bytes(s->model, size, d, &co),
							 from ? dac_cluster_bytes(from, size, d, &co_start) : 0),
						 psprintf("validating on sets of up to %d points", size));
		X = palloc_extended(sizeof(dac_real) * (size_t) size * d, MCXT_ALLOC_HUGE);
		y = palloc_extended(sizeof(int) * (size_t) size, MCXT_ALLOC_HUGE);
		ari_trained = palloc(sizeof(double) * Max(DAC_VALIDATION_SETS, dac_labelled_groups(s->val)));
		ari_start = palloc(sizeof(double) * Max(DAC_VALIDATION_SETS, dac_labelled_groups(s->val)));
		dac_blas_ready();
		sets = validation_scores(s, s->model, to, &co, X, y, &trained, ari_trained);
		if (s->held_groups > 0)
			dac_strbuf_printf(&sb, ", \"sets\": %d, \"scored_on\": \"held-out groups, each whole\", \"trained\": ",
							  sets);
		else
			dac_strbuf_printf(&sb, ", \"sets\": %d, \"n_max\": %d, \"k_max\": %d, "
							  "\"scored_on\": \"sets drawn from the held-out rows\", \"trained\": ",
							  sets, to->n_max, to->k_max);
		dac_eval_sums_json(&trained, &sb);
		if (from && dac_model_same_config(s->model, from) == 0)
		{
			/* a model of another architecture since (a user's, replaced): not comparable */
			dac_strbuf_printf(&sb, ", \"start\": null");
			from = NULL;
		}
		if (from)
		{
			validation_scores(s, from, to, &co_start, X, y, &start, ari_start);
			dac_strbuf_printf(&sb, ", \"start\": ");
			dac_eval_sums_json(&start, &sb);
			/* the trained weights must earn their place: within the error, the start stays */
			kept_start = !dac_validation_prefers(ari_start, ari_trained, sets, 1, &diff, &se);
			dac_strbuf_printf(&sb, ", \"trained_minus_start\": {\"ari\": %.4f, \"se\": %.4f}", diff, se);
			if (kept_start && dac_model_assign(s->model, from, &err) != DAC_OK)
				dac_report(&err);
		}
		dac_strbuf_printf(&sb, ", \"kept\": \"%s\"", kept_start ? "start" : "trained");
		if (s->whiten && dac_model_map_dim(s->model) == 0)
		{
			double	   *base = kept_start ? ari_start : ari_trained;

			if (s->held_groups > 0)
			{
				/* the maps are scored on sets drawn from the held-out rows: the kept model's there */
				dac_eval_sums kept;

				if (size < to->n_max)
				{
					dac_check_memory((double) to->n_max * (d * sizeof(dac_real) + sizeof(int)) +
									 dac_cluster_bytes(s->model, to->n_max, d, &co),
									 psprintf("validating on sets of up to %d points", to->n_max));
					X = palloc_extended(sizeof(dac_real) * (size_t) to->n_max * d, MCXT_ALLOC_HUGE);
					y = palloc_extended(sizeof(int) * (size_t) to->n_max, MCXT_ALLOC_HUGE);
				}
				memset(&kept, 0, sizeof(kept));
				base = palloc(sizeof(double) * DAC_VALIDATION_SETS);
				if (dac_evaluate_labelled(s->model, s->val, DAC_VALIDATION_SETS, to->n_max, to->k_max, to->seed,
										  &co, X, y, &kept, base, &err) != DAC_OK)
					dac_report(&err);
			}
			validate_whitening(s, to, &co, base, X, y, &sb);
		}
	}
	dac_strbuf_append(&sb, "}", 1);
	if (sb.failed)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	result = DirectFunctionCall1(jsonb_in, CStringGetDatum(sb.data));
	dac_strbuf_free(&sb);
	PG_RETURN_DATUM(result);
}

DAC_SQL_FUNCTION(dac_train_end);

/* dac_train_end() -> void: frees this session's trainer and releases its training lock. */
Datum
dac_train_end(PG_FUNCTION_ARGS)
{
	release_training();
	PG_RETURN_VOID();
}

/*
 * Cluster one labelled set X [n, d] (labels y) and add its metrics to e:
 * with m, or with zero_shot the model dac_cluster picks for a group of n
 * rows of width d naming none (dac_model_for_group); false when that model
 * does not take the width (nothing added).
 */
static bool
evaluate_one(const dac_model *m, bool zero_shot, const dac_real *X, const int *y, int n, int d,
			 const dac_cluster_opts *co, dac_eval_sums *e)
{
	dac_error	err;
	dac_clustering c;
	dac_cluster_opts zo;
	struct timespec t0,
				t1;

	if (zero_shot)
	{
		m = dac_model_for_group(NULL, d, n);
		if (!dac_model_takes_width(m, d))
			return false;
		/* that model under its own settings, not the evaluated model's; every point labelled */
		zo = dac_settings_opts(m);
		zo.noise = 0;
		zo.want_ll = co->want_ll;
		co = &zo;
		/* the caller counted its own model's needs: this one may need more */
		dac_check_memory((double) n * (d * sizeof(dac_real) + sizeof(int)) + dac_cluster_bytes(m, n, d, co),
						 psprintf("evaluating the default model on a set of %d points", n));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (dac_cluster_set(m, X, n, d, co, &c, &err) != DAC_OK)
		dac_report(&err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dac_eval_add(e, y, &c, (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
	dac_clustering_free(&c);
	CHECK_FOR_INTERRUPTS();
	return true;
}

/* The (sets, ari, nmi, k_mae, ll, seconds_per_set, gflop_per_set, oracle_ll) record. */
static Datum
evaluation_record(FunctionCallInfo fcinfo, const dac_model *m, const dac_eval_sums *e, bool has_oracle)
{
	TupleDesc	desc;
	Datum		v[8];
	bool		nl[8] = {false};
	int			sets = e->sets > 0 ? e->sets : 1,
				i;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "an evaluation must return a record");
	/* zero-shot where no default model takes the width: no scores */
	if (e->sets == 0)
		for (i = 1; i < 8; i++)
			nl[i] = true;
	v[0] = Int32GetDatum(e->sets);
	v[1] = Float8GetDatum(e->ari / sets);
	v[2] = Float8GetDatum(e->nmi / sets);
	v[3] = Float8GetDatum(e->kmae / sets);
	v[4] = Float8GetDatum(e->ll / sets);
	nl[4] |= m == NULL || !dac_model_has_density(m);
	v[5] = Float8GetDatum(e->secs / sets);
	v[6] = Float8GetDatum(e->flops / sets / 1e9);
	v[7] = Float8GetDatum(e->oracle / sets);
	nl[7] |= !has_oracle;
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), v, nl));
}

/*
 * The whole groups of the labelled table dac_evaluate_groups' arguments 0 to
 * 4 name (model, source, vector, label and group columns), loaded for
 * clustering: the model, *co its settings (every point labelled), *data
 * the groups, *X and *y buffers for the largest.
 */
static const dac_model *
whole_groups_input(FunctionCallInfo fcinfo, dac_cluster_opts *co, dac_labelled **data, dac_real **X, int **y)
{
	const dac_model *m;
	char	   *source;
	bool		generated;
	dac_real   *rows = NULL;
	int			g,
				d,
				largest = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("evaluating whole groups needs a table source with vector, label and group columns"),
				 errhint("Name the table and its vector, label and group columns.")));
	m = dac_get_model_text(PG_GETARG_TEXT_PP(0));
	*co = dac_settings_opts(m);
	co->noise = 0;
	source = dac_resolve_source(text_to_cstring(PG_GETARG_TEXT_PP(1)), "evaluation", &generated);
	if (generated)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"whole_groups\" applies only to a table source, not \"%s\"", source),
				 errhint("Give a table or view with a group column.")));
	load_labelled(CurrentMemoryContext, source, text_to_cstring(PG_GETARG_TEXT_PP(2)),
				  text_to_cstring(PG_GETARG_TEXT_PP(3)), text_to_cstring(PG_GETARG_TEXT_PP(4)),
				  dac_model_width(m), data, &rows);
	d = dac_labelled_width(*data);
	for (g = 0; g < dac_labelled_groups(*data); g++)
		largest = Max(largest, dac_labelled_group_size(*data, g));
	dac_check_memory((double) largest * (d * sizeof(dac_real) + sizeof(int)) + sizeof(double) * dac_labelled_groups(*data) +
					 dac_cluster_bytes(m, largest, d, co),
					 psprintf("evaluating on a group of %d rows", largest));
	*X = palloc_extended(sizeof(dac_real) * (size_t) largest * d, MCXT_ALLOC_HUGE);
	*y = palloc_extended(sizeof(int) * (size_t) largest, MCXT_ALLOC_HUGE);
	dac_blas_ready();
	return m;
}

DAC_SQL_FUNCTION(dac_evaluate_groups);

/*
 * dac_evaluate_groups(model, source, vector_column, label_column,
 *                     group_column, zero_shot) -> the record of dac_evaluate_sets
 *
 * Scores the model on the groups of a labelled table as they are: each
 * group (rows with a vector, a label and a group) is one set, clustered
 * whole, its labels read within it; the metrics are means over the groups.
 * dac_evaluate's "whole_groups" option.
 */
Datum
dac_evaluate_groups(PG_FUNCTION_ARGS)
{
	const dac_model *m;
	dac_labelled *data;
	dac_real   *X;
	int		   *y;
	int			g,
				d;
	dac_cluster_opts co;
	dac_eval_sums	e;
	bool		zero_shot = PG_NARGS() > 5 && !PG_ARGISNULL(5) && PG_GETARG_BOOL(5);

	memset(&e, 0, sizeof(e));
	m = whole_groups_input(fcinfo, &co, &data, &X, &y);
	d = dac_labelled_width(data);
	for (g = 0; g < dac_labelled_groups(data); g++)
	{
		int			n;
		dac_error	err;

		if (dac_labelled_group(data, g, X, y, &n, &err) != DAC_OK)
			dac_report(&err);
		if (n > 0)
			evaluate_one(m, zero_shot, X, y, n, d, &co, &e);
	}
	PG_RETURN_DATUM(evaluation_record(fcinfo, m, &e, false));
}

DAC_SQL_FUNCTION(dac_evaluate_group_aris);

/*
 * dac_evaluate_group_aris(model, source, vector_column, label_column,
 *                         group_column) -> (sets, ari, nmi, k_mae, group_ari)
 *
 * As dac_evaluate_groups, with each group's ARI in the groups' order (by
 * the group column's value): what dac_tune's check reads.
 */
Datum
dac_evaluate_group_aris(PG_FUNCTION_ARGS)
{
	const dac_model *m;
	dac_labelled *data;
	dac_real   *X;
	int		   *y;
	int			sets = 0;
	double	   *aris;
	dac_cluster_opts co;
	dac_eval_sums	e;
	dac_error	err;
	TupleDesc	desc;
	Datum		v[5];
	bool		nl[5] = {false, false, false, false, false};

	memset(&e, 0, sizeof(e));
	m = whole_groups_input(fcinfo, &co, &data, &X, &y);
	aris = palloc_extended(sizeof(double) * (size_t) Max(dac_labelled_groups(data), 1), MCXT_ALLOC_HUGE);
	if (dac_evaluate_whole_groups(m, data, &co, X, y, &e, aris, &sets, &err) != DAC_OK)
		dac_report(&err);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "an evaluation must return a record");
	v[0] = Int32GetDatum(sets);
	v[1] = Float8GetDatum(e.ari / Max(sets, 1));
	v[2] = Float8GetDatum(e.nmi / Max(sets, 1));
	v[3] = Float8GetDatum(e.kmae / Max(sets, 1));
	v[4] = PointerGetDatum(dac_float8_array(aris, sets));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), v, nl)));
}

DAC_SQL_FUNCTION(dac_choice_check);

/*
 * dac_choice_check(scores float8[][]) -> (loo_ari, diff, se, holds)
 *
 * dac_tune's own check (dac_choice_validated): scores [candidates][groups]
 * holds each candidate's ARI on each group, the start first.
 */
Datum
dac_choice_check(PG_FUNCTION_ARGS)
{
	ArrayType  *a;
	Datum	   *el;
	bool	   *nul;
	int			cnt,
				P,
				G,
				i,
				holds;
	double	   *scores,
			   *work,
				loo,
				diff,
				se;
	TupleDesc	desc;
	Datum		v[4];
	bool		nl[4] = {false, false, false, false};

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the scores must not be NULL"),
				 errhint("Give one row of per-group ARIs a candidate, the start's first.")));
	a = PG_GETARG_ARRAYTYPE_P(0);
	if (ARR_ELEMTYPE(a) != FLOAT8OID || ARR_NDIM(a) != 2 || ARR_DIMS(a)[0] < 1 || ARR_DIMS(a)[1] < 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("the scores must be a two-dimensional float8 array of candidates by groups"),
				 errhint("Give one row of per-group ARIs a candidate, the start's first.")));
	P = ARR_DIMS(a)[0];
	G = ARR_DIMS(a)[1];
	dac_check_memory(sizeof(double) * ((double) P * G + P + G), psprintf("checking a choice among %d candidates", P));
	deconstruct_array(a, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &el, &nul, &cnt);
	scores = palloc_extended(sizeof(double) * (size_t) cnt, MCXT_ALLOC_HUGE);
	work = palloc_extended(sizeof(double) * ((size_t) P + G), MCXT_ALLOC_HUGE);
	for (i = 0; i < cnt; i++)
	{
		if ((i & 8191) == 0)
			CHECK_FOR_INTERRUPTS();
		if (nul[i] || !isfinite(DatumGetFloat8(el[i])))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the scores must be finite numbers"),
					 errhint("Give every candidate's ARI on every group.")));
		scores[i] = DatumGetFloat8(el[i]);
	}
	/* the core's only failure is an interruption, which the host's hook raises before it returns */
	if (dac_choice_validated(scores, P, G, work, &loo, &diff, &se, &holds) != DAC_OK)
		elog(ERROR, "the check of a choice was interrupted");
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "a check must return a record");
	v[0] = Float8GetDatum(loo);
	v[1] = Float8GetDatum(diff);
	v[2] = Float8GetDatum(se);
	v[3] = BoolGetDatum(holds != 0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), v, nl)));
}

DAC_SQL_FUNCTION(dac_evaluate_sets);

/*
 * dac_evaluate_sets(model, source, sets, n_max, k_max, seed, vector_column,
 *                   label_column, group_column, zero_shot)
 *	  -> (sets, ari, nmi, k_mae, ll, seconds_per_set, gflop_per_set, oracle_ll)
 *
 * zero_shot: each set is clustered by the model dac_cluster picks for it
 * naming none (the width is model's); every metric NULL when that model
 * does not take the width.
 *
 * Clusters `sets` sets drawn from a generator or from a labelled table (as
 * validation draws them: no row twice) and averages the metrics; LL is NULL for a model
 * without a density head, oracle_ll (each set's LL under the mixture that
 * drew it) NULL but for 'mog' sets.  Options are checked by dac_evaluate().
 */
Datum
dac_evaluate_sets(PG_FUNCTION_ARGS)
{
	const dac_model *m;
	char	   *source;
	int32		sets,
				n_max,
				k_max;
	int64		seed;
	bool		generated;
	int			d;
	dac_gen_kind gk = DAC_GEN_MOG;
	dac_labelled *data = NULL;
	dac_real   *rows = NULL,
			   *X;
	int		   *y;
	dac_rng		rng;
	dac_cluster_opts co;
	dac_eval_sums	e;
	int			s;
	bool		zero_shot = PG_NARGS() > 9 && !PG_ARGISNULL(9) && PG_GETARG_BOOL(9);

	for (s = 0; s < 6; s++)
		if (PG_ARGISNULL(s))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("model, source, sets, n_max, k_max and seed must not be NULL")));
	memset(&e, 0, sizeof(e));
	m = dac_get_model_text(PG_GETARG_TEXT_PP(0));
	/* the model's settings; the metrics score a labelling of every point: dac.noise does not apply */
	co = dac_settings_opts(m);
	co.noise = 0;
	source = dac_resolve_source(text_to_cstring(PG_GETARG_TEXT_PP(1)), "evaluation", &generated);
	sets = PG_GETARG_INT32(2);
	n_max = PG_GETARG_INT32(3);
	k_max = PG_GETARG_INT32(4);
	seed = PG_GETARG_INT64(5);
	d = dac_model_dim_input(m);
	/* the ranges of the option table (dac_cluster_options), as dac_evaluate checked them */
	{
		static const char *const names[] = {"sets", "n_max", "k_max", "seed"};
		double		v[4] = {sets, n_max, k_max, (double) seed};
		dac_error	err;

		for (s = 0; s < 4; s++)
			if (dac_option_check(dac_cluster_option(names[s]), v[s], &err) != DAC_OK)
				dac_report(&err);
	}
	if (!generated && (PG_ARGISNULL(6) || PG_ARGISNULL(7)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a table source needs a vector column and a label column"),
				 errhint("Name the vector and label columns of the table.")));
	if (generated)
		dac_generator_kind(source, &gk);
	if (generated && strcmp(source, "warped_mog") == 0 && d != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("warped_mog draws 2-D points, but the model takes vectors of length %d", d),
				 errhint("Evaluate a 2-D model on warped_mog, or this one on its own table.")));
	if (!generated)
	{
		load_labelled(CurrentMemoryContext, source, text_to_cstring(PG_GETARG_TEXT_PP(6)),
					  text_to_cstring(PG_GETARG_TEXT_PP(7)),
					  PG_ARGISNULL(8) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(8)),
					  dac_model_width(m), &data, &rows);
		d = dac_labelled_width(data);
	}
	dac_check_memory((double) n_max * (d * sizeof(dac_real) + sizeof(int)) + dac_cluster_bytes(m, n_max, d, &co) +
					 (generated ? dac_generate_bytes(gk, k_max, d) : 0),
					 psprintf("evaluating on sets of up to %d points", n_max));
	X = palloc_extended(sizeof(dac_real) * (size_t) n_max * d, MCXT_ALLOC_HUGE);
	y = palloc_extended(sizeof(int) * (size_t) n_max, MCXT_ALLOC_HUGE);
	dac_blas_ready();
	dac_rng_seed(&rng, (uint64_t) seed);
	for (s = 0; s < sets; s++)
	{
		int			n = dac_sample_n(&rng, n_max),
					k;
		double		oll = 0;
		dac_error	err;

		if (generated)
		{
			if (dac_generate_oracle(gk, &rng, 1, n,
									k_max, d, X, y, &k, &oll, &err) != DAC_OK)
				dac_report(&err);
		}
		/* no row twice (0.23.0): a short label gives what it has, and the set may be smaller */
		else if (dac_sample_labelled_capped(data, &rng, n, k_max, X, y, &n, &err) != DAC_OK)
			dac_report(&err);
		if (evaluate_one(m, zero_shot, X, y, n, d, &co, &e))
			e.oracle += oll;
	}
	PG_RETURN_DATUM(evaluation_record(fcinfo, m, &e, strcmp(source, "mog") == 0));
}

DAC_SQL_FUNCTION(dac_train_option_table);

/*
 * dac_internal.dac_train_option_table() -> (name, integer, default_value,
 * min, max, min_open, cli_flag): the numeric training options as the core
 * defines them (dac_train_options in dac.h), numbers exact; dac_train_options
 * reads its defaults and ranges here, as the core and dac-cli do.
 * default_value is NULL where the default depends on the source (dim).  The
 * text and boolean options (strategy, density, input, shared_blocks,
 * fixed_n) are checked by name in SQL and again by the core.
 */
Datum
dac_train_option_table(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const dac_option *o;

	InitMaterializedSRF(fcinfo, 0);
	for (o = dac_train_options; o->name; o++)
	{
		Datum		v[7];
		bool		nl[7] = {false, false, false, false, false, false, false};

		if (o->kind != DAC_OPT_INT && o->kind != DAC_OPT_REAL)
			continue;
		v[0] = CStringGetTextDatum(o->name);
		v[1] = BoolGetDatum(o->kind == DAC_OPT_INT);
		if (o->def[0])
			v[2] = DirectFunctionCall3(numeric_in, CStringGetDatum(o->def), ObjectIdGetDatum(InvalidOid),
									   Int32GetDatum(-1));
		else
			nl[2] = true;
		v[3] = DirectFunctionCall3(numeric_in, CStringGetDatum(o->lo), ObjectIdGetDatum(InvalidOid),
								   Int32GetDatum(-1));
		v[4] = DirectFunctionCall3(numeric_in, CStringGetDatum(o->hi), ObjectIdGetDatum(InvalidOid),
								   Int32GetDatum(-1));
		v[5] = BoolGetDatum(o->lo_open != 0);
		if (o->flag)
			v[6] = CStringGetTextDatum(o->flag);
		else
			nl[6] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
	}
	return (Datum) 0;
}
