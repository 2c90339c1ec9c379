/*
 * models.c
 *	  The per-backend cache of decoded models from the dac_models table.
 *
 * A lookup reads the model's row through SPI under the statement's snapshot
 * (version, xmin, ctid; the weights stay a TOAST pointer) and decodes the
 * weights only when the row differs from the cached one.  One check per
 * model per snapshot and role (row-level security decides which rows a role
 * reads, and a SECURITY DEFINER function changes the role mid-statement):
 * every partition of a statement uses the same version,
 * and the next statement (or the next snapshot) sees a replaced row.  A
 * decoded model is one row's bytes, so a reader never sees a mix of two
 * versions.
 *
 * Every lookup pins the decoded model it returns for the lifetime of the
 * caller's current memory context (a reset callback unpins it): a caller's
 * volatile function that replaces the row and looks the model up again
 * (a new snapshot) gets the new version, while the caller keeps using the
 * old one, which is freed when its last pin goes.  The decoded models count
 * against dac.memory_limit: a new one first evicts the cached models no
 * running statement pins, and is refused when the pinned ones and it would
 * exceed the limit.
 */
#include "dac_pg.h"

#include <ctype.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_extension.h"
#include "catalog/indexing.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "catalog/pg_class.h"
#include "utils/timestamp.h"

char	   *dac_default_model = NULL;
char	   *dac_default_embedding_model = NULL;
char	   *dac_small_group_models = NULL;
int			dac_small_group_size = 100;
char	   *dac_large_group_models = NULL;
int			dac_large_group_size = 1000;

static void evict_unpinned(void);

/* The settings that choose a model for a call that names none. */
void
dac_models_init(void)
{
	dac_models_evict = evict_unpinned;
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
}

typedef struct stamp
{
	LocalTransactionId lxid;
	TimestampTz stmt;
	TransactionId xmin,
				xmax;
	CommandId	cid;
	Oid			user;			/* row-level security: whose rows were read */
} stamp;

/*
 * One decoded model: owned by the cache entry of its name while it is the
 * cached version (cached), and by each pin of a running statement.  It is
 * freed when neither holds it.
 */
typedef struct loaded_model
{
	struct loaded_model *next;	/* every live one, in "live" */
	MemoryContext cxt;			/* holds this struct and model */
	dac_model  *model;
	char		name[NAMEDATALEN];
	int64		version;
	double		bytes;			/* what cxt holds */
	int			pins;
	bool		cached;
} loaded_model;

typedef struct model_entry
{
	char		name[NAMEDATALEN];	/* hash key */
	bool		missing;		/* no row for this name at the "checked" stamp */
	bool		trusted;		/* shipped, or owned by the role of "checked" */
	char		rowid[64];		/* xmin and ctid of the decoded row */
	stamp		checked;		/* snapshot of the last check */
	loaded_model *lm;			/* the cached version, or NULL */
} model_entry;

static HTAB *models = NULL;
static loaded_model *live = NULL;	/* cached and pinned models */

/* Free lm once neither the cache nor a pin holds it. */
static void
release_if_unused(loaded_model *lm)
{
	loaded_model **p;

	if (lm->pins > 0 || lm->cached)
		return;
	for (p = &live; *p; p = &(*p)->next)
		if (*p == lm)
		{
			*p = lm->next;
			break;
		}
	dac_models_live_bytes -= lm->bytes;
	MemoryContextDelete(lm->cxt);
}

/* The reset callback of a pin: the statement that held it is done. */
static void
unpin_model(void *arg)
{
	loaded_model *lm = arg;

	if (--lm->pins == 0)
		dac_models_pinned_bytes -= lm->bytes;
	release_if_unused(lm);
}

/* Pin lm for the lifetime of the current memory context. */
static const dac_model *
pin_model(loaded_model *lm)
{
	MemoryContextCallback *cb = palloc(sizeof(MemoryContextCallback));

	cb->func = unpin_model;
	cb->arg = lm;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	if (lm->pins++ == 0)
		dac_models_pinned_bytes += lm->bytes;
	return lm->model;
}

/* The entry no longer caches lm: it lives on while pinned. */
static void
uncache(model_entry *e)
{
	loaded_model *lm = e->lm;

	e->lm = NULL;
	if (lm)
	{
		lm->cached = false;
		release_if_unused(lm);
	}
}

/*
 * The cached models no statement pins are let go, their rows forgotten so
 * that the next lookup decodes them again (dac_check_memory calls this when
 * a need and the live models would exceed dac.memory_limit).
 */
static void
evict_unpinned(void)
{
	HASH_SEQ_STATUS it;
	model_entry *e;

	if (models == NULL)
		return;
	hash_seq_init(&it, models);
	while ((e = hash_seq_search(&it)) != NULL)
		if (e->lm && e->lm->pins == 0)
		{
			e->rowid[0] = '\0';
			memset(&e->checked, 0, sizeof(e->checked));
			uncache(e);
		}
}

static stamp
current_stamp(void)
{
	stamp		s;

	memset(&s, 0, sizeof(s));
	s.lxid = MyProc->lxid;
	s.stmt = GetCurrentStatementStartTimestamp();
	s.user = GetUserId();
	if (ActiveSnapshotSet())
	{
		Snapshot	snap = GetActiveSnapshot();

		s.xmin = snap->xmin;
		s.xmax = snap->xmax;
		s.cid = snap->curcid;
	}
	return s;
}

static bool
stamp_eq(const stamp *a, const stamp *b)
{
	return a->lxid == b->lxid && a->stmt == b->stmt && a->xmin == b->xmin &&
		a->xmax == b->xmax && a->cid == b->cid && a->user == b->user;
}

/* The schema of an extension (PostgreSQL 15 does not export this). */
static Oid
extension_schema(Oid ext)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			nsp = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nsp;
}

/*
 * "schema".rel of the extension's table rel (has_owner: whether it has the
 * owner column; owner, when not NULL: the table's owner), after checking
 * that the current role may read it.
 */
static char *
extension_table(const char *relname, bool *has_owner, Oid *owner)
{
	Oid			ext = get_extension_oid("dac", true),
				rel;
	char	   *nsp;

	if (!OidIsValid(ext))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"dac\" is not installed in this database"),
				 errhint("Run CREATE EXTENSION dac.")));
	nsp = get_namespace_name(extension_schema(ext));
	rel = get_relname_relid(relname, extension_schema(ext));
	/* a role outside dac_user: say what fixes it, not dac's internal query */
	if (!OidIsValid(rel) || pg_class_aclcheck(rel, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
	{
		const char *role = GetUserNameFromId(GetUserId(), false);

		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("role \"%s\" may not use dac's models", role),
				 errdetail("Clustering and training need membership in the role dac_user."),
				 errhint("A superuser or the database owner can run GRANT dac_user TO %s.", quote_identifier(role))));
	}
	*has_owner = get_attnum(rel, "owner") != InvalidAttrNumber;
	if (owner)
	{
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(rel));

		if (!HeapTupleIsValid(tup))
			elog(ERROR, "cache lookup failed for relation %u", rel);
		*owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
		ReleaseSysCache(tup);
	}
	return psprintf("%s.%s", quote_identifier(nsp), quote_identifier(relname));
}

/*
 * "schema".dac_models, where the extension lives; *has_owner: whether the
 * table has the owner column (from 0.2.0 on: under 0.1.0's script, which a
 * new module may serve until ALTER EXTENSION UPDATE, every model is the
 * database's own).
 */
static char *
models_table(bool *has_owner)
{
	return extension_table("dac_models", has_owner, NULL);
}

/* How a model is looked up: named by the call, or chosen by a setting. */
typedef enum
{
	LOOKUP_NAMED,				/* any model this role may use */
	LOOKUP_DEFAULT,				/* dac.default_model or dac.default_embedding_model:
								 * shipped or the role's own, else an error */
	LOOKUP_PAIR					/* a small- or large-group pair: shipped or the
								 * role's own, else none (NULL) */
} lookup_kind;

static const dac_model *get_model(const char *name, lookup_kind kind, bool pin);

const dac_model *
dac_get_model(const char *name)
{
	return get_model(name, name == NULL ? LOOKUP_DEFAULT : LOOKUP_NAMED, true);
}

/*
 * A model a setting names (kind LOOKUP_DEFAULT or LOOKUP_PAIR) is used only
 * when it is shipped or the current role owns it: a call that names no
 * model never runs another role's, even one shared with this role (a name
 * configured before its model exists could otherwise be taken by anyone).
 */
static const dac_model *
untrusted_default(const char *name, lookup_kind kind)
{
	if (kind == LOOKUP_PAIR)
		return NULL;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("the default model \"%s\" is neither shipped with dac nor owned by role \"%s\"",
					name, GetUserNameFromId(GetUserId(), false)),
			 errdetail("A call that names no model uses only shipped models and the caller's own."),
			 errhint("Name the model in the call, or set dac.default_model (or dac.default_embedding_model) to a model you own.")));
	return NULL;
}

/*
 * The model name, pinned for the current memory context when pin (a caller
 * that keeps no pointer to it, as a check of its width, passes false).
 */
static const dac_model *
get_model(const char *name, lookup_kind kind, bool pin)
{
	bool		missing_ok = kind == LOOKUP_PAIR;
	model_entry *e;
	bool		found;
	stamp		now = current_stamp();
	char		key[NAMEDATALEN];
	char	   *sql,
			   *table;
	bool		has_owner;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	int			ret,
				level;

	if (name == NULL)
		name = dac_default_model;
	if (name == NULL || name[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no model given and dac.default_model is empty"),
				 errhint("Name a model, or set dac.default_model: SET dac.default_model = 'mlf_mog2d'.")));
	if (strlen(name) >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("model \"%s\" does not exist", name),
				 errhint("The models are the rows of dac_models this role may use; dac_import() adds one.")));
	if (models == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = NAMEDATALEN;
		ctl.entrysize = sizeof(model_entry);
		models = hash_create("dac models", 16, &ctl, HASH_ELEM | HASH_STRINGS);
	}
	memset(key, 0, sizeof(key));
	strlcpy(key, name, sizeof(key));
	e = hash_search(models, key, HASH_ENTER, &found);
	if (!found)
	{
		e->lm = NULL;
		e->missing = false;
		e->rowid[0] = '\0';
		memset(&e->checked, 0, sizeof(e->checked));
	}
	if (e->lm && stamp_eq(&e->checked, &now))
		return kind == LOOKUP_NAMED || e->trusted ? (pin ? pin_model(e->lm) : e->lm->model) :
			untrusted_default(name, kind);
	/* a paired (small- or large-group) model found missing: once per statement, not per group */
	if (missing_ok && e->missing && stamp_eq(&e->checked, &now))
		return NULL;

	/* the row this role may read (row-level security decides) */
	table = models_table(&has_owner);
	sql = psprintf("SELECT version, xmin::text OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) ctid::text, weights, "
				   "%s FROM %s WHERE name OPERATOR(pg_catalog.=) $1",
				   has_owner ? "shipped OR owner OPERATOR(pg_catalog.=) CURRENT_USER" : "true", table);
	args[0] = CStringGetTextDatum(name);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	level = dac_pin_search_path();
	ret = SPI_execute_with_args(sql, 1, argtypes, args, NULL, true, 1);
	dac_unpin_search_path(level);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading dac_models failed: %s", SPI_result_code_string(ret));
	if (SPI_processed == 0)
	{
		SPI_finish();
		uncache(e);
		e->missing = true;
		e->checked = now;
		if (missing_ok)
			return NULL;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("model \"%s\" does not exist", name),
				 errhint("The models are the rows of dac_models this role may use; dac_import() adds one.")));
	}
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		int64		version = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
		char	   *rowid = SPI_getvalue(tup, desc, 2);

		e->trusted = DatumGetBool(SPI_getbinval(tup, desc, 4, &isnull)) && !isnull;

		if (e->lm == NULL || e->lm->version != version || strcmp(e->rowid, rowid) != 0)
		{
			Datum		w = SPI_getbinval(tup, desc, 3, &isnull);
			MemoryContext cxt,
						old;
			bytea	   *raw;
			loaded_model *lm;
			dac_model  *m = NULL;
			dac_error	err;
			dac_status	st;
			double		bytes;

			if (isnull)
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("model \"%s\" has no weights", name),
						 errhint("Import its weights again with dac_import(), or drop it with dac_drop_model().")));
			/* the old version stays while a statement uses it; the cache lets go of it */
			uncache(e);
			e->rowid[0] = '\0';
			raw = DatumGetByteaPP(w);
			st = dac_model_read_bytes((const uint8_t *) VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), &bytes, &err);
			if (st == DAC_OK)
			{
				dac_check_memory(bytes, psprintf("decoding the weights of model \"%s\"", name));
				/* small blocks: what the context holds is close to what the model takes */
				cxt = AllocSetContextCreate(TopMemoryContext, "dac model", ALLOCSET_DEFAULT_MINSIZE,
											ALLOCSET_DEFAULT_INITSIZE, 64 * 1024);
				old = MemoryContextSwitchTo(cxt);
				PG_TRY();
				{
					st = dac_model_read((const uint8_t *) VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), &m, &err);
				}
				PG_CATCH();
				{
					MemoryContextSwitchTo(old);
					MemoryContextDelete(cxt);
					PG_RE_THROW();
				}
				PG_END_TRY();
				MemoryContextSwitchTo(old);
				if (st != DAC_OK)
					MemoryContextDelete(cxt);
			}
			if ((Pointer) raw != DatumGetPointer(w))
				pfree(raw);
			if (st != DAC_OK)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("weights of model \"%s\" are corrupt: %s", name, err.msg),
						 errhint("Replace them with dac_import().")));
			lm = MemoryContextAllocZero(cxt, sizeof(loaded_model));
			lm->cxt = cxt;
			lm->model = m;
			strlcpy(lm->name, name, sizeof(lm->name));
			lm->version = version;
			lm->bytes = (double) MemoryContextMemAllocated(cxt, true);
			dac_models_live_bytes += lm->bytes;
			lm->cached = true;
			lm->next = live;
			live = lm;
			e->lm = lm;
			strlcpy(e->rowid, rowid, sizeof(e->rowid));
		}
	}
	SPI_finish();
	e->checked = now;
	e->missing = false;
	return kind == LOOKUP_NAMED || e->trusted ? (pin ? pin_model(e->lm) : e->lm->model) :
		untrusted_default(name, kind);
}

void
dac_model_identity(const dac_model *m, const char **name, int64 *version)
{
	loaded_model *lm;

	/* the live models are few: the one whose decoded model this is */
	*name = NULL;
	*version = 0;
	for (lm = live; lm; lm = lm->next)
		if (lm->model == m)
		{
			*name = lm->name;
			*version = lm->version;
			break;
		}
}

const dac_model *
dac_get_model_text(text *name)
{
	return dac_get_model(name ? text_to_cstring(name) : NULL);
}

const dac_model *
dac_get_default_model(const char *name)
{
	return get_model(name, LOOKUP_DEFAULT, true);
}

const char *
dac_default_model_for(int d)
{
	/* only its width is read: not pinned */
	const dac_model *m = get_model(NULL, LOOKUP_DEFAULT, false);

	if (d > 0 && !dac_model_takes_width(m, d) &&
		dac_default_embedding_model != NULL && dac_default_embedding_model[0] != '\0')
		return dac_default_embedding_model;
	return dac_default_model;
}

/*
 * The next "model=other" entry of a dac.small_group_models or
 * dac.large_group_models setting at *s, its two names without surrounding
 * blanks in a [alen] and b [blen] (not terminated), *s moved past it (NULL
 * after the last): 1 for an entry, 0 at the end (*s NULL), -1 for an entry
 * that is not two non-empty names shorter than NAMEDATALEN around one '='
 * (an empty one after a comma included).  Start with NULL for an empty
 * setting.
 */
static int
next_pair(const char **s, const char **a, size_t *alen, const char **b, size_t *blen)
{
	const char *end,
			   *eq;
	size_t		len;

	if (*s == NULL)
		return 0;
	end = strchr(*s, ',');
	len = end ? (size_t) (end - *s) : strlen(*s);
	eq = memchr(*s, '=', len);
	*a = *s;
	*s = end ? end + 1 : NULL;
	if (eq == NULL)
		return -1;
	*alen = eq - *a;
	*b = eq + 1;
	*blen = *a + len - *b;
	while (*alen > 0 && isspace((unsigned char) **a))
		(*a)++, (*alen)--;
	while (*alen > 0 && isspace((unsigned char) (*a)[*alen - 1]))
		(*alen)--;
	while (*blen > 0 && isspace((unsigned char) **b))
		(*b)++, (*blen)--;
	while (*blen > 0 && isspace((unsigned char) (*b)[*blen - 1]))
		(*blen)--;
	if (*alen == 0 || *blen == 0 || memchr(*b, '=', *blen) != NULL ||
		*alen >= NAMEDATALEN || *blen >= NAMEDATALEN)
		return -1;
	return 1;
}

/*
 * The model a pairs setting maps model to, into out (NAMEDATALEN); false
 * when it maps it to none.  The setting's syntax was checked by its hook.
 */
static bool
paired_model(const char *pairs, const char *model, char *out)
{
	const char *s = pairs && *pairs ? pairs : NULL,
			   *a,
			   *b;
	size_t		alen,
				blen;
	int			r;

	while ((r = next_pair(&s, &a, &alen, &b, &blen)) != 0)
		if (r > 0 && alen == strlen(model) && strncmp(a, model, alen) == 0)
		{
			memcpy(out, b, blen);
			out[blen] = '\0';
			return true;
		}
	return false;
}

/* A pairs setting: empty, or entries next_pair takes; form names their shape. */
static bool
check_pairs(const char *s, const char *form)
{
	const char *a,
			   *b;
	size_t		alen,
				blen;
	int			r;

	if (s != NULL && *s == '\0')
		s = NULL;
	while ((r = next_pair(&s, &a, &alen, &b, &blen)) != 0)
		if (r < 0)
		{
			GUC_check_errdetail("Each entry must be \"%s\", entries separated by commas.", form);
			return false;
		}
	return true;
}

/* GUC check hooks of dac.small_group_models and dac.large_group_models */
bool
dac_check_small_group_models(char **newval, void **extra, GucSource source)
{
	return check_pairs(*newval, "model=small_model");
}

bool
dac_check_large_group_models(char **newval, void **extra, GucSource source)
{
	return check_pairs(*newval, "model=large_model");
}

/*
 * The model pairs maps def to, when it exists for this role and takes width
 * d; NULL otherwise.  Missing and hidden from this role (row-level
 * security) look alike, so that the fallback reveals nothing.
 */
static const dac_model *
pair_for(const char *pairs, const char *def, int d)
{
	char		other[NAMEDATALEN];
	const dac_model *m;

	if (!paired_model(pairs, def, other) || strcmp(other, def) == 0)
		return NULL;
	m = get_model(other, LOOKUP_PAIR, true);
	if (m && dac_model_takes_width(m, d > 0 ? d : dac_model_dim_input(m)))
		return m;
	return NULL;
}

const dac_model *
dac_model_for_group(const char *name, int d, int64 n)
{
	const char *def;
	const dac_model *m = NULL;

	if (name)
		return dac_get_model(name);
	def = dac_default_model_for(d);
	if (n > 0 && n <= dac_small_group_size)
		m = pair_for(dac_small_group_models, def, d);
	else if (dac_large_group_size > 0 && n >= dac_large_group_size)
		m = pair_for(dac_large_group_models, def, d);
	return m ? m : get_model(def, LOOKUP_DEFAULT, true);
}

/* ---------------------------------------------------------------- dropping a model */

/* One row of a query run as the current role with the model's name as $1; false when none. */
static bool
query_row(const char *sql, text *name, bool *v1, bool *v2)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {PointerGetDatum(name)};
	bool		isnull;

	if (SPI_execute_with_args(sql, 1, argtypes, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading dac's tables failed");
	if (SPI_processed == 0)
		return false;
	if (v1)
		*v1 = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (v2)
		*v2 = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	return true;
}

DAC_SQL_FUNCTION(dac_drop_model_sql);

/*
 * dac_drop_model(model text) -> void: deletes a model of the caller's (its
 * checkpoint with it) and the caller's training runs of it (their logs with
 * them).  Members of dac_user hold no DELETE on dac's tables (DELETE would
 * let them lock the tables against every role): the caller's rights are
 * checked here, the model's row and the runs locked as the caller (row-level
 * security decides which), then the rows are deleted as the tables' owner.
 */
Datum
dac_drop_model_sql(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);
	char	   *cname = text_to_cstring(name);
	bool		has_owner,
				visible,
				shipped = false,
				mine = false;
	Oid			owner,
				save_user;
	int			save_sec,
				level;
	char	   *models,
			   *runs;
	Datum		run_ids;
	bool		any_runs,
				training = false;

	models = extension_table("dac_models", &has_owner, &owner);
	runs = extension_table("dac_training_runs", &has_owner, NULL);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	level = dac_pin_search_path();
	/* as the caller: the model, whether it is the caller's, and the caller's runs of it */
	visible = query_row(psprintf("SELECT shipped, NOT shipped AND dac_internal.dac_may_own(owner) "
								 "FROM %s WHERE name OPERATOR(pg_catalog.=) $1", models),
						name, &shipped, &mine);
	if (visible && shipped)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("model \"%s\" is shipped with the extension and cannot be dropped", cname),
				 errhint("Drop models you imported or trained; shipped ones go with DROP EXTENSION.")));
	if (visible && !mine)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("model \"%s\" belongs to another role", cname),
				 errhint("Only its owner (or a member of the owner) can drop it.")));
	if (visible && !query_row(psprintf("SELECT true FROM %s WHERE name OPERATOR(pg_catalog.=) $1 FOR UPDATE",
									   models), name, NULL, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("model \"%s\" changed owner while it was being dropped", cname),
				 errhint("Run the call again.")));
	/* the caller's runs of it (row-level security decides which), locked, by their ids */
	{
		Oid			argtypes[1] = {TEXTOID};
		Datum		args[1] = {PointerGetDatum(name)};
		bool		isnull;

		if (SPI_execute_with_args(psprintf("SELECT coalesce(pg_catalog.array_agg(run_id), '{}'), count(*) > 0 "
										   "FROM (SELECT run_id FROM %s WHERE model OPERATOR(pg_catalog.=) $1 "
										   "FOR UPDATE) r", runs),
								  1, argtypes, args, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "reading dac_training_runs failed");
		run_ids = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		any_runs = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	}
	if (!visible && !any_runs)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("model \"%s\" does not exist", cname),
				 errhint("The models are the rows of dac_models this role may use.")));
	if (query_row("SELECT dac_internal.dac_training_pid($1) IS NOT NULL", name, &training, NULL) && training)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("model \"%s\" is being trained", cname),
				 errhint("Wait for its CALL dac_train to end, or cancel it, then drop the model.")));
	/* as the tables' owner, who alone holds DELETE: exactly the rows checked above */
	GetUserIdAndSecContext(&save_user, &save_sec);
	SetUserIdAndSecContext(owner, save_sec | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	{
		Oid			argtypes[2] = {TEXTOID, INT8ARRAYOID};
		Datum		args[2] = {PointerGetDatum(name), run_ids};

		if (visible &&
			SPI_execute_with_args(psprintf("DELETE FROM %s WHERE name OPERATOR(pg_catalog.=) $1 AND NOT shipped",
										   models), 1, argtypes, args, NULL, false, 0) != SPI_OK_DELETE)
			elog(ERROR, "deleting from dac_models failed");
		if (SPI_execute_with_args(psprintf("DELETE FROM %s WHERE run_id OPERATOR(pg_catalog.=) ANY ($2) "
										   "AND model OPERATOR(pg_catalog.=) $1", runs),
								  2, argtypes, args, NULL, false, 0) != SPI_OK_DELETE)
			elog(ERROR, "deleting from dac_training_runs failed");
	}
	SetUserIdAndSecContext(save_user, save_sec);
	dac_unpin_search_path(level);
	SPI_finish();
	PG_RETURN_VOID();
}
