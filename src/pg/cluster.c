/*
 * cluster.c
 *	  SQL entry points that cluster: the window function dac_cluster, the
 *	  aggregate dac_cluster_agg, the set functions dac_cluster_set,
 *	  dac_cluster_summary and dac_filter; and dac_generate, dac_ari, dac_nmi.
 *	  Arguments are checked here; the core clusters.
 */
#include "dac_pg.h"

#include <math.h>
#include <float.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "windowapi.h"

/* The settings of dac_cluster_options (dac.h): defaults and ranges are the table's. */
int			dac_max_passes;
int			dac_leftover;
int			dac_min_cluster_size;
int			dac_absorb_size;
double		dac_pair_merge_setting;
double		dac_mode_merge_setting;
int			dac_rotations;
int			dac_refine_rounds;
bool		dac_reassign;
bool		dac_pair_split;
int			dac_em_steps;
int			dac_kmeans_steps;
int			dac_k_search;
int			dac_graph_neighbors;
int			dac_k;
int			dac_max_k;
double		dac_graph_resolution;
double		dac_graph_merge_setting;
double		dac_cluster_width_setting;
int			dac_sample_size;
double		dac_noise;
double		dac_progress_seconds = 0;

/* the clustering under way (0: none) and when progress was last reported */
static TimestampTz progress_start = 0;
static TimestampTz progress_last = 0;
static int	progress_rows = 0;
static int	progress_depth = 0;	/* spans open: dac_clustering's holds its two clusterings */

static const struct config_enum_entry leftover_options[] = {
	{"best", DAC_LEFTOVER_BEST, false},
	{"first", DAC_LEFTOVER_FIRST, false},
	{"own", DAC_LEFTOVER_OWN, false},
	{NULL, 0, false}
};

/*
 * A setting of the clustering options' table (dac_cluster_options in
 * dac.h): its name is "dac." and the option's, its default and range the
 * table's, so that the settings, the core and dac-cli agree.
 */
static const dac_option *
table_option(const char *name)
{
	const dac_option *o = dac_cluster_option(name);

	if (o == NULL)
		elog(ERROR, "no clustering option \"%s\"", name);
	return o;
}

static void
define_int(const char *name, const char *desc, const char *more, int *var)
{
	const dac_option *o = table_option(name);

	DefineCustomIntVariable(psprintf("dac.%s", name), desc, more, var, (int) dac_option_default(o),
							(int) dac_option_lo(o), (int) dac_option_hi(o), PGC_USERSET, 0, NULL, NULL, NULL);
}

static void
define_real(const char *name, const char *desc, const char *more, double *var)
{
	const dac_option *o = table_option(name);

	DefineCustomRealVariable(psprintf("dac.%s", name), desc, more, var, dac_option_default(o),
							 dac_option_lo(o), dac_option_hi(o), PGC_USERSET, 0, NULL, NULL, NULL);
}

/* The settings of the clustering loop and its stages. */
void
dac_cluster_init(void)
{
	define_int("max_passes",
			   "Most network passes (clusters) per clustered set.",
			   NULL, &dac_max_passes);
	DefineCustomEnumVariable("dac.leftover",
							 "Where points that no pass selected go: best (the found cluster that fits best), first (the authors' rule) or own (one more cluster).",
							 NULL, &dac_leftover, (int) dac_option_default(table_option("leftover")), leftover_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	define_int("min_cluster_size",
			   "Clusters with fewer points are dissolved into the others.",
			   "Their points go to the cluster that fits each best; 1 keeps every cluster (the authors' loop).", &dac_min_cluster_size);
	define_int("absorb_size",
			   "Clusters with fewer points join the cluster that fits them best, unless one of their points is an outlier there.",
			   "For models with a Gaussian or flow density head, before dac.min_cluster_size: a point is an outlier of a cluster when the chance that one of the cluster's own points lies as far out (the chi-squared tail of its distance in the cluster's normal coordinates, times the cluster's size) is under 0.0001.  Gathers the points a pass missed in a cluster's fringe; a small cluster far from the rest stays.  1 keeps every cluster (the authors' loop).", &dac_absorb_size);
	define_real("mode_merge",
				"Above 0, a chain of 4 or more clusters of a 2-D Gaussian model, each pair of neighbours in it one mode or nearly (their mixture dips to no less than this ratio of its lower end), becomes one cluster.",
				"After dac.absorb_size and dac.min_cluster_size, for 2-D models with a Gaussian density head when no k is asked for and no dac.cluster_width given: each cluster of 3 points or more is read as a Gaussian of its members' mean and covariance, and the dip of two clusters' mixture is read along its ridgeline.  Joins the pieces of a ring, a band or a bent cluster that the passes cut apart, when they form a path or a ring (not a field of pieces) and a deep dip (to 0.05) parts them from every other cluster; two or three touching Gaussians stay apart.  0: none (the authors' loop).", &dac_mode_merge_setting);
	define_real("pair_merge",
				"Above 0, two clusters that one pass of a flow (maf) model over their points alone sees as one become one: when it selects at least this share of each.",
				"After dac.absorb_size and dac.min_cluster_size, for MLF models with a flow density head; the pairs tried are clusters each among the other's two nearest by mean, nearest first, their points framed in their own units.  Joins the pieces of a bent cluster that the passes cut apart; costs one more pass per pair tried.  0: none (the authors' loop).", &dac_pair_merge_setting);
	DefineCustomBoolVariable("dac.pair_split",
							 "With dac.pair_merge, a pair whose pass keeps its clusters apart is shared out as the pass sees it when the points become likelier.",
							 "For MLF models with a flow density head: the points the pass over the pair selected become one cluster and the rest the other, each with the context of a pass over its points, when that raises the log-likelihood of the group under the clusters' mixture.  Redraws a boundary the passes cut in the wrong place; costs two more passes per pair shared out anew.  Off keeps the pairs as dac.pair_merge leaves them (0.18.0's clusterings).",
							 &dac_pair_split, dac_option_default(table_option("pair_split")) != 0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	define_int("rotations",
			   "Above 1, each group of 2-D points is also clustered turned about its mean in this many orientations, and the likeliest clustering is kept.",
			   "For models with a Gaussian or flow density head: the group turned by 360/rotations degrees at a time, each clustered, the clustering under whose mixture the points are likeliest kept.  Costs one clustering per orientation; the network sees each cluster from several sides.  A kept turn's clusters are summarised by their members.  1: as given only.", &dac_rotations);
	define_int("refine_rounds",
			   "Above 0, rounds that fit each cluster's context to its points and then move each point to its likeliest cluster, for models with a flow (maf) density head.",
			   "After dac.pair_merge: each round moves every cluster's context by 30 Adam steps up the mean log-density of its points (at most 1,000 of them), the network's weights fixed, then moves each point to the cluster under which, weighted by the clusters' shares, it is likeliest.  The network gives a context from one pass over a set; the steps fit it to this group.  Raises the log-likelihood and usually ARI; each round costs about one clustering.  0 (the default): the contexts of the passes.", &dac_refine_rounds);
	DefineCustomBoolVariable("dac.reassign",
							 "After the passes, moves each point to the found cluster likeliest to have drawn it.",
							 "Under the mixture of the clusters' densities weighted by their shares (Gaussian or flow density head); off keeps the authors' loop.",
							 &dac_reassign, dac_option_default(table_option("reassign")) != 0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	define_int("kmeans_steps",
			   "Most k-means steps that refine the clusters of a model without a density head.",
			   "Run in the coordinates the network saw, from the clusters the passes found; 0: none.", &dac_kmeans_steps);
	define_int("k_search",
			   "Counts around the one the network found that k-means tries, for a model without a density head.",
			   "k-means at every count from max(2, K - k_search) to K + k_search around the K clusters found; the count of the best mean silhouette is kept.  A group where one cluster was found keeps it.  0: none.", &dac_k_search);
	define_int("graph_neighbors",
			   "Neighbours per row of the graph whose communities become the clusters, for a model without a density head.",
			   "After the count search, each of up to 1,000 rows of the group is linked to this many nearest; the clusters found start the graph's modularity communities (Leiden), which may split and merge them; other rows go to the nearest community.  0: none.", &dac_graph_neighbors);
	define_real("graph_resolution",
				"Resolution of the graph's modularity (dac.graph_neighbors): lower gives fewer, larger clusters.",
				"The configuration model's resolution, as leidenalg's RBConfigurationVertexPartition; near 0 the clusters approach the graph's connected components.", &dac_graph_resolution);
	define_real("graph_merge",
				"Above 0, the graph stage also counts the communities at 4 times dac.graph_resolution, and where they do not stand as they are, merges them while two share more than this part of the smaller one's links, keeping that partition when it has 4 or more clusters; 0: the communities at dac.graph_resolution alone.",
				"The finer communities stand where their mean silhouette is no more than 0.05 below the coarser ones'.  The links between two communities over the smaller one's links do not depend on what else the group holds, so two classes are kept apart or merged alike in a group of 2 classes and of 20, where the modularity at one resolution merges more the more classes there are.  Groups where it finds fewer than 4 keep the modularity's clusters.  Higher keeps more clusters apart.  dac_tune chooses 0 for a table where one scale clusters its groups best.  Not with dac.k.", &dac_graph_merge_setting);
	define_int("k",
			   "Above 0, every group is cut into exactly this many clusters (fewer only when its points cannot be split further).",
			   "For every clustering form and model.  Models without a density head reach it through the graph stage (its resolution raised to split, its cheapest merges to join); others merge the closest clusters or split the widest, a Gaussian's parameters refit.  No count search.  0 (the default): the count the model finds.", &dac_k);
	define_int("max_k",
			   "Above 0, no group gets more clusters than this.",
			   "Groups with more are merged down to it, as dac.k merges; dac.k, when set, wins.  0 (the default): no bound.", &dac_max_k);
	define_int("sample_size",
			   "Groups of more rows are clustered through a sample of this many, for models without a density head.",
			   "The network clusters every (n/sample)-th row; each other row goes to the nearest found cluster, then k-means steps (dac.kmeans_steps) refine over all rows.  Not under dac.noise; 0: every row through the network.", &dac_sample_size);
	define_int("em_steps",
			   "Most EM steps that refit the found clusters' mixture before each point moves to its likeliest cluster.",
			   "Gaussian head: refit means, deviations and weights; flow (maf) head: the weights only.  Above 0 implies dac.reassign.  The steps stop early once the log-likelihood settles; 0 keeps the authors' loop.", &dac_em_steps);
	define_real("noise",
				"Above 0, points that no cluster claims get NULL (noise) instead of a cluster.",
				"A point is noise when no pass selected it, when its cluster has fewer than max(2, dac.min_cluster_size) points, or when a point of its cluster's Gaussian lies at least as far from the centre with probability under this level (e.g. 0.001).  0 (the default) labels every point.", &dac_noise);
	define_real("cluster_width",
				"Above 0, the width of a cluster in the data's own units, for 2-D models: larger gives fewer, wider clusters.",
				"A cluster's standard deviation along each axis (metres for dac_cluster_lonlat), in place of the width each group's frame reads from its own rows; the network then sees every group at that scale.  For models whose input is \"scaled\" (every shipped 2-D model); others ignore it.  0 (the default): each group's own.", &dac_cluster_width_setting);
	DefineCustomRealVariable("dac.progress",
							 "Above 0, a clustering reports where it is in a NOTICE at most every this many seconds.",
							 "The stage (network passes with the rows placed so far, k-means, the graph stage, rows assigned to a sample's clusters, ...) and the time taken; a last NOTICE when a clustering that took longer ends.  0 (the default): none.",
							 &dac_progress_seconds, 0, 0, 86400,
							 PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);
}

/*
 * The clustering settings by the option table's names, each with its
 * variable; the settings machinery (guc_tables.h) tells which were set.
 */
typedef struct setting_var
{
	const char *name;
	char		type;			/* i: int, d: double, b: bool, e: the leftover policy */
	void	   *var;
} setting_var;

static const setting_var setting_vars[] = {
	{"max_passes", 'i', &dac_max_passes}, {"leftover", 'e', &dac_leftover},
	{"min_cluster_size", 'i', &dac_min_cluster_size}, {"absorb_size", 'i', &dac_absorb_size},
	{"pair_merge", 'd', &dac_pair_merge_setting}, {"pair_split", 'b', &dac_pair_split},
	{"mode_merge", 'd', &dac_mode_merge_setting},
	{"rotations", 'i', &dac_rotations}, {"refine_rounds", 'i', &dac_refine_rounds},
	{"reassign", 'b', &dac_reassign}, {"em_steps", 'i', &dac_em_steps},
	{"kmeans_steps", 'i', &dac_kmeans_steps}, {"k_search", 'i', &dac_k_search},
	{"graph_neighbors", 'i', &dac_graph_neighbors}, {"graph_resolution", 'd', &dac_graph_resolution},
	{"graph_merge", 'd', &dac_graph_merge_setting}, {"k", 'i', &dac_k}, {"max_k", 'i', &dac_max_k},
	{"sample_size", 'i', &dac_sample_size}, {"noise", 'd', &dac_noise},
	{"cluster_width", 'd', &dac_cluster_width_setting},
};
#define NSETTINGS ((int) lengthof(setting_vars))

/* each setting's record in the settings machinery, found once (it never moves) */
static struct config_generic *setting_rec[NSETTINGS];

/*
 * Whether dac.<name> was given a value (SET, ALTER ROLE or DATABASE, the
 * server's files, a function's SET clause), not left at its default: then
 * it overrides the model's own setting.
 */
static bool
setting_given(int i)
{
	if (setting_rec[i] == NULL)
	{
		struct config_generic **vars = get_guc_variables();
		int			n = GetNumConfigOptions(),
					j;
		char	   *full = psprintf("dac.%s", setting_vars[i].name);

		for (j = 0; j < n && setting_rec[i] == NULL; j++)
			if (strcmp(vars[j]->name, full) == 0)
				setting_rec[i] = vars[j];
		pfree(full);
		if (setting_rec[i] == NULL)
			elog(ERROR, "setting \"dac.%s\" is not defined", setting_vars[i].name);
	}
	return setting_rec[i]->source > PGC_S_DYNAMIC_DEFAULT;
}

static int
setting_number(const char *name)
{
	int			i;

	for (i = 0; i < NSETTINGS; i++)
		if (strcmp(setting_vars[i].name, name) == 0)
			return i;
	return -1;
}

typedef struct given_ctx
{
	char		buf[64];
} given_ctx;

/* dac_option_get over the settings given: the text of dac.<name>, or NULL when left at its default */
static const char *
setting_given_text(void *ctx, const char *name)
{
	given_ctx  *g = (given_ctx *) ctx;
	int			i = setting_number(name);
	const setting_var *s;
	double		v;

	if (i < 0 || !setting_given(i))
		return NULL;
	s = &setting_vars[i];
	v = s->type == 'i' ? *(int *) s->var : s->type == 'e' ? *(int *) s->var :
		s->type == 'b' ? (double) *(bool *) s->var : *(double *) s->var;
	dac_option_text(dac_cluster_option(name), v, g->buf, sizeof(g->buf));
	return g->buf;
}

const char *
dac_setting_source(const dac_model *m, const char *name)
{
	int			i = setting_number(name);
	double		v;

	if (i >= 0 && setting_given(i))
		return "setting";
	if (m != NULL && dac_model_setting(m, name, &v))
		return "model";
	return "default";
}

dac_cluster_opts
dac_settings_opts(const dac_model *m)
{
	dac_cluster_opts o = dac_cluster_opts_default();
	given_ctx	g;
	dac_error	err;

	/* each setting: as set, else the model's own, else its default */
	if (dac_cluster_opts_model(m, setting_given_text, &g, &o, &err) != DAC_OK)
		dac_report(&err);
	o.mem_limit = (size_t) dac_memory_limit_kb * 1024;
	return o;
}

static double
seconds_since(TimestampTz t)
{
	return (double) (GetCurrentTimestamp() - t) / USECS_PER_SEC;
}

void
dac_progress_begin(int n)
{
	if (progress_depth++ > 0)
		return;
	progress_start = progress_last = dac_progress_seconds > 0 ? GetCurrentTimestamp() : 0;
	progress_rows = n;
}

void
dac_progress_end(bool done)
{
	if (done && --progress_depth > 0)
		return;
	progress_depth = 0;
	if (done && progress_start != 0 && seconds_since(progress_start) >= dac_progress_seconds)
		ereport(NOTICE,
				(errmsg("dac: clustered %d rows in %.1f s", progress_rows, seconds_since(progress_start))));
	progress_start = 0;
}

/* The core's progress hook: a NOTICE when dac.progress seconds have passed. */
void
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

/*
 * Cluster n points in the current memory context; errors are reported.
 * X64: the same points in double precision (a model whose input is
 * "scaled" measures their units there), or NULL.
 */
/*
 * What a call asks for: the count (k => , max_k =>; 0: not given, the
 * settings dac.k and dac.max_k stand) and a cluster's width (width => ; < 0:
 * not given, dac.cluster_width stands), checked as the settings are.
 */
typedef struct count_req
{
	int			k;
	int			max_k;
	double		width;
} count_req;

static const count_req no_count = {0, 0, -1};

static int
count_value(bool isnull, int32 v, const char *name)
{
	if (isnull)
		return 0;
	/* the settings' greatest value (the option table's); a count given is at least 1 */
	if (v < 1 || v > dac_option_hi(dac_cluster_option(name)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be between 1 and %.0f, not %d", name, dac_option_hi(dac_cluster_option(name)), v),
				 errhint("Leave %s NULL to let the model find the count.", name)));
	return v;
}

/* width => : NULL is not given (< 0); else in dac.cluster_width's range */
static double
width_value(bool isnull, double v)
{
	const dac_option *o = dac_cluster_option("cluster_width");

	if (isnull)
		return -1;
	if (!(v >= dac_option_lo(o) && v <= dac_option_hi(o)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("width must be between %g and %g, not %g", dac_option_lo(o), dac_option_hi(o), v),
				 errhint("Give a cluster's width in the data's own units (metres for dac_cluster_lonlat), or leave it NULL for dac.cluster_width.")));
	return v;
}

static count_req
count_checked(count_req r)
{
	if (r.k > 0 && r.max_k > 0 && r.k > r.max_k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k (%d) is more than max_k (%d)", r.k, r.max_k),
				 errhint("Give one of them, or a k no more than max_k.")));
	return r;
}

/* k, max_k and width at argument positions kno, kno + 1 and kno + 2 (absent: not given) */
static count_req
count_args(FunctionCallInfo fcinfo, int kno)
{
	count_req	r;

	r.k = PG_NARGS() > kno ? count_value(PG_ARGISNULL(kno), PG_ARGISNULL(kno) ? 0 : PG_GETARG_INT32(kno), "k") : 0;
	r.max_k = PG_NARGS() > kno + 1 ?
		count_value(PG_ARGISNULL(kno + 1), PG_ARGISNULL(kno + 1) ? 0 : PG_GETARG_INT32(kno + 1), "max_k") : 0;
	r.width = PG_NARGS() > kno + 2 ?
		width_value(PG_ARGISNULL(kno + 2), PG_ARGISNULL(kno + 2) ? 0 : PG_GETARG_FLOAT8(kno + 2)) : -1;
	return count_checked(r);
}

/*
 * The settings, with the call's count over dac.k and dac.max_k; no LL, which
 * the clustering forms do not show.
 */
static dac_cluster_opts
call_opts(const dac_model *m, const count_req *req)
{
	dac_cluster_opts o = dac_settings_opts(m);

	if (req->k > 0)
		o.k_exact = req->k;
	if (req->max_k > 0)
		o.k_max = req->max_k;
	if (req->width >= 0)
		o.cluster_width = req->width;
	o.want_ll = 0;
	return o;
}

static void
run_clustering(const dac_model *m, const dac_real *X, const double *X64, int n, int d,
			   const count_req *req, dac_clustering *c)
{
	dac_cluster_opts o = call_opts(m, req);
	dac_error	err;
	dac_status	st;

	dac_check_memory(dac_cluster_bytes(m, n, d, &o), psprintf("clustering a set of %d points", n));
	dac_blas_ready();
	dac_progress_begin(n);
	PG_TRY();
	{
		st = X64 ? dac_cluster_set_f64(m, X64, n, d, &o, c, &err) :
			dac_cluster_set(m, X, n, d, &o, c, &err);
	}
	PG_CATCH();
	{
		dac_progress_end(false);
		PG_RE_THROW();
	}
	PG_END_TRY();
	dac_progress_end(st == DAC_OK);
	if (st != DAC_OK)
		dac_report(&err);
}

/*
 * A group's default model, chosen again once its n vectors (X, or X64 when
 * kept) are read: rows that repeat another count once, as the clustering's
 * distinct stage clusters them, so that repeating rows never moves a group
 * to the model of another size (dac.small_group_models).  rows: the count
 * the first choice m was made on.
 */
static const dac_model *
model_for_distinct(const dac_model *m, int d, int64 rows, const dac_real *X, const double *X64, int n)
{
	const dac_model *m1;
	int			nd;

	/* the counts that choose a model are ranges: when the fewest the repeats could leave chooses m, so does any */
	if (n < 2 || dac_model_for_group(NULL, d, rows - n + 1) == m)
		return m;
	nd = dac_distinct_count(X64 ? (const void *) X64 : (const void *) X, n,
							(X64 ? sizeof(double) : sizeof(dac_real)) * (size_t) d);
	if (nd < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory counting the distinct rows of a group of %d", n)));
	if (nd == n)
		return m;
	m1 = dac_model_for_group(NULL, d, rows - (n - nd));
	if (m1 == m || !dac_model_takes_width(m1, d) || (dac_model_keeps_doubles(m1) && X64 == NULL))
		return m;
	return m1;
}

static text *
model_arg(FunctionCallInfo fcinfo, int argno)
{
	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return NULL;
	return PG_GETARG_TEXT_PP(argno);
}

/*
 * New ids named after previous ones (dac_match_ids): labels [n] (0 = noise)
 * become the matched ids; noise stays 0 and is told apart by the caller
 * from the labels it had (a previous id may be 0).
 */
static void
match_previous(int *labels, const int *prev, const unsigned char *has_prev, int n)
{
	int		   *out;
	dac_error	err;

	dac_check_memory((double) n * sizeof(int) + dac_match_ids_bytes(n),
					 psprintf("matching the ids of %d points", n));
	out = palloc_extended(sizeof(int) * (size_t) n, MCXT_ALLOC_HUGE);
	if (dac_match_ids(labels, prev, has_prev, n, out, &err) != DAC_OK)
		dac_report(&err);
	memcpy(labels, out, sizeof(int) * (size_t) n);
	pfree(out);
}

/* ---------------------------------------------------------------- window */

typedef struct partition_state
{
	bool		done;
	int32	   *ids;			/* per row of the partition */
	bool	   *isnull;			/* per row: NULL vector or noise */
} partition_state;

/*
 * Longitude and latitude of the partition's rows (arguments 0 and 1) onto
 * the plane (dac_lonlat_plane), into X [n, 2] and X64 when kept; rowof [n]
 * the rows read (a NULL coordinate: a NULL id).  Returns n.
 */
static int
read_lonlat(WindowObject w, int64 rows, int d, dac_real *X, double *X64, int *rowof)
{
	double	   *lon = palloc_extended(sizeof(double) * (size_t) rows, MCXT_ALLOC_HUGE),
			   *lat = palloc_extended(sizeof(double) * (size_t) rows, MCXT_ALLOC_HUGE),
			   *xy;
	int			n = 0;
	int64		i;
	dac_error	err;

	if (d != 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("longitude and latitude are 2-D points, but the model takes vectors of length %d", d),
				 errhint("Name a model that takes 2-D points, or leave the model to dac.")));
	for (i = 0; i < rows; i++)
	{
		bool		n0,
					n1,
					isout;
		Datum		a = WinGetFuncArgInPartition(w, 0, (int) i, WINDOW_SEEK_HEAD, false, &n0, &isout),
					b = WinGetFuncArgInPartition(w, 1, (int) i, WINDOW_SEEK_HEAD, false, &n1, &isout);

		if (n0 || n1)
			continue;
		lon[n] = DatumGetFloat8(a);
		lat[n] = DatumGetFloat8(b);
		rowof[n++] = (int) i;
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	xy = X64 ? X64 : palloc_extended(sizeof(double) * 2 * (size_t) (n > 0 ? n : 1), MCXT_ALLOC_HUGE);
	if (n > 0 && dac_lonlat_plane(lon, lat, n, xy, &err) != DAC_OK)
		dac_report(&err);
	for (i = 0; i < 2 * (int64) n; i++)
		X[i] = (dac_real) xy[i];
	return n;
}

static void
cluster_partition(WindowObject w, partition_state *ps, int nargs, Oid vtype, bool lonlat)
{
	/* dac_cluster_lonlat(lon, lat, ...): the arguments after the point one further on */
	int			at = lonlat ? 1 : 0;
	int64		rows = WinGetPartitionRowCount(w);
	MemoryContext part = GetMemoryChunkContext(ps);
	MemoryContext work,
				old;
	const dac_model *m;
	text	   *mname = NULL;
	bool		isnull,
				isout;
	int64		i;
	int			n = 0,
				d;
	int		   *rowof,
			   *prev = NULL;
	unsigned char *has_prev = NULL;
	dac_real   *X;
	double	   *X64 = NULL;
	dac_clustering c;
	dac_cluster_opts o;
	bool		any_width;
	int			first = 0;
	count_req	req = no_count;

	if (nargs > 1 + at)
	{
		Datum		md = WinGetFuncArgCurrent(w, 1 + at, &isnull);

		if (!isnull)
			mname = DatumGetTextPP(md);
	}
	/* dac_cluster(x, model, previous, k, max_k, width): the partition's first row's */
	if (nargs > 3 + at)
	{
		Datum		kd = WinGetFuncArgCurrent(w, 3 + at, &isnull);

		req.k = count_value(isnull, isnull ? 0 : DatumGetInt32(kd), "k");
	}
	if (nargs > 4 + at)
	{
		Datum		kd = WinGetFuncArgCurrent(w, 4 + at, &isnull);

		req.max_k = count_value(isnull, isnull ? 0 : DatumGetInt32(kd), "max_k");
	}
	if (nargs > 5 + at)
	{
		Datum		wd = WinGetFuncArgCurrent(w, 5 + at, &isnull);

		req.width = width_value(isnull, isnull ? 0 : DatumGetFloat8(wd));
	}
	req = count_checked(req);
	if (rows > INT_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a partition of %lld rows is too large to cluster", (long long) rows),
				 errhint("Cluster smaller groups: partition by more columns.")));
	ps->ids = MemoryContextAllocZero(part, sizeof(int32) * (rows > 0 ? rows : 1));
	ps->isnull = MemoryContextAlloc(part, sizeof(bool) * (rows > 0 ? rows : 1));
	memset(ps->isnull, true, sizeof(bool) * (rows > 0 ? rows : 1));
	ps->done = true;
	if (rows == 0)
		return;

	work = AllocSetContextCreate(CurrentMemoryContext, "dac partition", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(work);
	/* the first vector's width chooses the default model and sets a width the model leaves open */
	for (i = 0; i < rows && !lonlat; i++)
	{
		Datum		v = WinGetFuncArgInPartition(w, 0, (int) i, WINDOW_SEEK_HEAD, false,
												 &isnull, &isout);

		if (!isnull)
		{
			char		what[64];

			snprintf(what, sizeof(what), "the vector of row %lld", (long long) i + 1);
			first = dac_vector_width_datum(v, vtype, what);
			break;
		}
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (lonlat)
		first = 2;
	/* pinned until work goes: the rows' own functions may replace the model meanwhile */
	m = dac_model_for_group(mname ? text_to_cstring(mname) : NULL, first, rows);
	o = call_opts(m, &req);
	any_width = dac_model_width(m) == 0;
	d = any_width && first > 0 ? first : dac_model_dim_input(m);
	/* (lonlat: each row's longitude and latitude, and the plane's coordinates in double) */
	dac_check_memory((double) rows * (d * (sizeof(dac_real) + (dac_model_keeps_doubles(m) ? sizeof(double) : 0)) +
									  2 * sizeof(int) + 1 + (lonlat ? 4 * sizeof(double) : 0)) +
					 dac_cluster_bytes(m, (int) rows, d, &o),
					 psprintf("clustering a group of %lld rows", (long long) rows));
	X = palloc_extended(sizeof(dac_real) * (size_t) rows * d, MCXT_ALLOC_HUGE);
	if (dac_model_keeps_doubles(m))
		X64 = palloc_extended(sizeof(double) * (size_t) rows * d, MCXT_ALLOC_HUGE);
	rowof = palloc_extended(sizeof(int) * (size_t) rows, MCXT_ALLOC_HUGE);
	if (nargs > 2 + at)
	{
		/* dac_cluster(x, model, previous): each row's previous id, or NULL */
		prev = palloc_extended(sizeof(int) * (size_t) rows, MCXT_ALLOC_HUGE);
		has_prev = palloc_extended((size_t) rows, MCXT_ALLOC_HUGE);
	}
	if (lonlat)
	{
		n = read_lonlat(w, rows, d, X, X64, rowof);
		for (i = 0; prev && i < n; i++)
		{
			Datum		pv = WinGetFuncArgInPartition(w, 2 + at, rowof[i], WINDOW_SEEK_HEAD, false,
													  &isnull, &isout);

			has_prev[i] = !isnull;
			prev[i] = isnull ? 0 : DatumGetInt32(pv);
		}
	}
	else
	{
		MemoryContext rowcxt = AllocSetContextCreate(work, "dac row", ALLOCSET_SMALL_SIZES);

		for (i = 0; i < rows; i++)
		{
			Datum		v = WinGetFuncArgInPartition(w, 0, (int) i, WINDOW_SEEK_HEAD, false,
													 &isnull, &isout);

			if (isnull)
				continue;
			if (prev)
			{
				Datum		pv = WinGetFuncArgInPartition(w, 2, (int) i, WINDOW_SEEK_HEAD, false,
														  &isnull, &isout);

				has_prev[n] = !isnull;
				prev[n] = isnull ? 0 : DatumGetInt32(pv);
			}
			MemoryContextSwitchTo(rowcxt);
			{
				char		what[64];

				snprintf(what, sizeof(what), "the vector of row %lld", (long long) i + 1);
				dac_vector_from_datum(v, vtype, d, !any_width, X + (size_t) n * d,
									  X64 ? X64 + (size_t) n * d : NULL, what);
			}
			MemoryContextSwitchTo(work);
			MemoryContextReset(rowcxt);
			rowof[n++] = (int) i;
			if ((i & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	if (n > 0)
	{
		if (mname == NULL)
			m = model_for_distinct(m, d, rows, X, X64, n);
		run_clustering(m, X, X64, n, d, &req, &c);
		for (i = 0; i < n; i++)
			ps->isnull[rowof[i]] = c.labels[i] == 0;
		if (prev)
			match_previous(c.labels, prev, has_prev, n);
		for (i = 0; i < n; i++)
			ps->ids[rowof[i]] = c.labels[i];
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
}

DAC_SQL_FUNCTION(dac_cluster_misused);

/*
 * dac_cluster(text), dac_cluster(jsonb), dac_cluster(vector, integer): calls
 * PostgreSQL would refuse with "function does not exist", refused here with
 * the call that works.
 */
Datum
dac_cluster_misused(PG_FUNCTION_ARGS)
{
	Oid			t = get_fn_expr_argtype(fcinfo->flinfo, 0);

	if (PG_NARGS() > 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the second argument of dac_cluster is a model's name, not a count"),
				 errhint("Give the count by name: dac_cluster(x, k => 3).")));
	if (t == JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("dac_cluster takes a vector as real[], double precision[] or numeric[], not jsonb"),
				 errhint("Turn a JSON array of numbers into real[]: dac_cluster(translate(v::text, '[]', '{}')::real[]).")));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("dac_cluster takes a vector as real[], double precision[] or numeric[], not %s",
					format_type_be(OidIsValid(t) ? t : TEXTOID)),
			 errhint("Cast it: dac_cluster(v::real[]) reads text such as '{1.5,2,3}'.")));
	PG_RETURN_NULL();
}

DAC_SQL_FUNCTION(dac_cluster_window);

/*
 * dac_cluster(x real[] | double precision[] [, model text [, previous int]])
 * OVER (...) -> int
 *
 * Clusters the whole partition at its first row; each row gets its cluster
 * id (1, 2, ... in order of discovery; with previous, the ids matched to the
 * rows' previous ids).  NULL vectors are left out and get NULL, as do noise
 * points (dac.noise).  The model is read from the partition's first row.
 */
/* The current row's id, the partition clustered at its first row (lonlat: arguments lon, lat). */
static Datum
window_row(FunctionCallInfo fcinfo, Oid vtype, bool lonlat)
{
	WindowObject w = PG_WINDOW_OBJECT();
	partition_state *ps = WinGetPartitionLocalMemory(w, sizeof(partition_state));
	int64		pos;

	if (!ps->done)
		cluster_partition(w, ps, PG_NARGS(), vtype, lonlat);
	pos = WinGetCurrentPosition(w);
	if (ps->isnull[pos])
		PG_RETURN_NULL();
	PG_RETURN_INT32(ps->ids[pos]);
}

Datum
dac_cluster_window(PG_FUNCTION_ARGS)
{
	return window_row(fcinfo, get_fn_expr_argtype(fcinfo->flinfo, 0), false);
}

DAC_SQL_FUNCTION(dac_cluster_lonlat_window);

/*
 * dac_cluster_lonlat(lon, lat, model, previous, k, max_k, width): the window
 * function over longitude and latitude in degrees, each partition projected
 * about its own centre (dac_lonlat_plane) and clustered as 2-D points.
 */
Datum
dac_cluster_lonlat_window(PG_FUNCTION_ARGS)
{
	return window_row(fcinfo, FLOAT8OID, true);
}

/* ---------------------------------------------------------------- aggregate */

typedef struct agg_state
{
	char	   *model;			/* NULL: the default */
	bool		named;			/* the call named the model */
	const dac_model *m;
	int			d;				/* the model's width, or the first vector's */
	bool		any_width;		/* the model takes any width */
	int			rows;			/* input rows, NULL ones included */
	int			n;				/* non-NULL vectors */
	int			cap;
	dac_real   *X;				/* [cap, d] */
	double	   *X64;			/* [cap, d] the same in double (a scaled
								 * model), else NULL */
	int		   *rowof;			/* row of each vector */
	count_req	req;			/* dac_cluster_agg(x, model, k, max_k) */
} agg_state;

DAC_SQL_FUNCTION(dac_cluster_agg_trans);

/*
 * Transition of dac_cluster_agg(x, model, k, max_k): collects the vectors
 * (NULL rows too, to keep the output aligned with the input order).
 */
Datum
dac_cluster_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt,
				old;
	agg_state  *st = PG_ARGISNULL(0) ? NULL : (agg_state *) PG_GETARG_POINTER(0);

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "dac_cluster_agg_trans called in non-aggregate context");
	if (st == NULL)
	{
		text	   *mname = model_arg(fcinfo, 2);

		old = MemoryContextSwitchTo(aggcxt);
		st = palloc0(sizeof(agg_state));
		st->model = mname ? text_to_cstring(mname) : NULL;
		st->named = mname != NULL;
		MemoryContextSwitchTo(old);
		/* the count of the group's first row */
		st->req = count_args(fcinfo, 3);
	}
	if (st->rows == INT_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a group of more than %d rows is too large to cluster", INT_MAX / 2),
				 errhint("Cluster smaller groups: group by more columns.")));
	if (!PG_ARGISNULL(1))
	{
		Datum		a = PG_GETARG_DATUM(1);
		Oid			vtype = get_fn_expr_argtype(fcinfo->flinfo, 1);
		char		what[64];

		snprintf(what, sizeof(what), "the vector of row %d", st->rows + 1);
		if (st->m == NULL)
		{
			/* the first vector's width chooses the default model (and a width it leaves open) */
			int			first = dac_vector_width_datum(a, vtype, what);

			if (st->model == NULL)
				st->model = MemoryContextStrdup(aggcxt, dac_default_model_for(first));
			/* pinned for the group: a row's function that replaces the model cannot free it */
			old = MemoryContextSwitchTo(aggcxt);
			st->m = st->named ? dac_get_model(st->model) : dac_get_default_model(st->model);
			MemoryContextSwitchTo(old);
			st->any_width = dac_model_width(st->m) == 0;
			st->d = st->any_width ? first : dac_model_dim_input(st->m);
			/* a model with an input map (a table's whitening) takes one width only */
			if (st->any_width && !dac_model_takes_width(st->m, st->d))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the points have %d coordinates, but the model takes %d", st->d,
								dac_model_map_dim(st->m)),
						 errhint("Model \"%s\" was whitened on a table of %d-dimensional vectors.", st->model,
								 dac_model_map_dim(st->m))));
		}
		if (st->n == st->cap)
		{
			int			cap = st->cap ? st->cap * 2 : 64;

			bool		x64 = dac_model_keeps_doubles(st->m);

			dac_check_memory((double) cap * (st->d * (sizeof(dac_real) + (x64 ? sizeof(double) : 0)) +
											 sizeof(int)),
							 psprintf("collecting %d vectors", cap));
			st->X = st->X ? repalloc_huge(st->X, sizeof(dac_real) * (size_t) cap * st->d)
				: MemoryContextAllocHuge(aggcxt, sizeof(dac_real) * (size_t) cap * st->d);
			if (x64)
				st->X64 = st->X64 ? repalloc_huge(st->X64, sizeof(double) * (size_t) cap * st->d)
					: MemoryContextAllocHuge(aggcxt, sizeof(double) * (size_t) cap * st->d);
			st->rowof = st->rowof ? repalloc_huge(st->rowof, sizeof(int) * (size_t) cap)
				: MemoryContextAllocHuge(aggcxt, sizeof(int) * (size_t) cap);
			st->cap = cap;
		}
		dac_vector_from_datum(a, vtype, st->d, !st->any_width,
							  st->X + (size_t) st->n * st->d,
							  st->X64 ? st->X64 + (size_t) st->n * st->d : NULL, what);
		st->rowof[st->n++] = st->rows;
	}
	st->rows++;
	PG_RETURN_POINTER(st);
}

DAC_SQL_FUNCTION(dac_cluster_agg_final);

/* Final of dac_cluster_agg: int[] of ids in input order, NULL for NULL rows. */
Datum
dac_cluster_agg_final(PG_FUNCTION_ARGS)
{
	agg_state  *st = PG_ARGISNULL(0) ? NULL : (agg_state *) PG_GETARG_POINTER(0);
	Datum	   *ids;
	bool	   *nulls;
	int			dims[1],
				lbs[1] = {1},
				i;
	dac_clustering c;

	if (st == NULL)
		PG_RETURN_NULL();
	ids = palloc(sizeof(Datum) * (st->rows ? st->rows : 1));
	nulls = palloc(sizeof(bool) * (st->rows ? st->rows : 1));
	for (i = 0; i < st->rows; i++)
		nulls[i] = true;
	if (st->n > 0)
	{
		/*
		 * The model may have changed since the first row only in another
		 * statement.  A default model is chosen again now that the group's
		 * size is known (dac.small_group_models).
		 */
		const dac_model *m = st->named ? dac_get_model(st->model) :
			dac_model_for_group(NULL, st->d, st->rows);

		if (!dac_model_takes_width(m, st->d))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the model changed while the group was collected"),
					 errhint("Run the query again; a function it calls replaced the model meanwhile.")));
		if (!st->named)
			m = model_for_distinct(m, st->d, st->rows, st->X, st->X64, st->n);
		run_clustering(m, st->X, st->X64, st->n, st->d, &st->req, &c);
		for (i = 0; i < st->n; i++)
		{
			ids[st->rowof[i]] = Int32GetDatum(c.labels[i]);
			nulls[st->rowof[i]] = c.labels[i] == 0;
		}
	}
	dims[0] = st->rows;
	PG_RETURN_ARRAYTYPE_P(construct_md_array(ids, nulls, 1, dims, lbs, INT4OID, 4, true, TYPALIGN_INT));
}

/* ---------------------------------------------------------------- set functions */

static const dac_model *
points_arg(FunctionCallInfo fcinfo, dac_points *p)
{
	const dac_model *m;
	ArrayType  *a;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("points must not be NULL")));
	a = PG_GETARG_ARRAYTYPE_P(0);
	if (model_arg(fcinfo, 1))
		m = dac_get_model_text(model_arg(fcinfo, 1));
	else if (ARR_NDIM(a) == 2)
		m = dac_model_for_group(NULL, ARR_DIMS(a)[1], ARR_DIMS(a)[0]);
	else
		m = dac_model_for_group(NULL, 0, 0);

	dac_points_from_matrix(a, ARR_ELEMTYPE(a),
						   dac_model_width(m) == 0 && ARR_NDIM(a) == 2 ?
						   ARR_DIMS(a)[1] : dac_model_dim_input(m), dac_model_keeps_doubles(m), p);
	if (!model_arg(fcinfo, 1))
		m = model_for_distinct(m, p->d, p->n, p->X, p->X64, p->n);
	return m;
}

/* Cluster ids as int[] aligned with the n points (NULL for noise). */
static ArrayType *
ids_array(const dac_clustering *c, int n)
{
	Datum	   *ids = palloc(sizeof(Datum) * (n > 0 ? n : 1));
	bool	   *nulls = palloc(sizeof(bool) * (n > 0 ? n : 1));
	int			dims[1] = {n},
				lbs[1] = {1},
				i;

	for (i = 0; i < n; i++)
	{
		ids[i] = Int32GetDatum(c->labels[i]);
		nulls[i] = c->labels[i] == 0;
	}
	return construct_md_array(ids, nulls, 1, dims, lbs, INT4OID, 4, true, TYPALIGN_INT);
}

DAC_SQL_FUNCTION(dac_cluster_ids);

/*
 * dac_cluster_ids(points, model DEFAULT NULL) -> int[]: the ids of a 2-D
 * array of points, one per row (NULL for noise).  A plain function, so a
 * query over a table of groups (one row each) runs it in parallel workers.
 */
Datum
dac_cluster_ids(PG_FUNCTION_ARGS)
{
	dac_points	p;
	const dac_model *m;
	dac_clustering c;

	count_req	req = count_args(fcinfo, 2);

	m = points_arg(fcinfo, &p);
	run_clustering(m, p.X, p.X64, p.n, p.d, &req, &c);
	PG_RETURN_ARRAYTYPE_P(ids_array(&c, p.n));
}

DAC_SQL_FUNCTION(dac_cluster_set_srf);

/*
 * dac_cluster_set(points, model) -> (ord, cluster, prob): points is a 2-D
 * array, one row per point; ord counts rows from 1.
 */
Datum
dac_cluster_set_srf(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	dac_points	p;
	const dac_model *m;
	dac_clustering c;
	int			i;
	count_req	req = count_args(fcinfo, 2);

	m = points_arg(fcinfo, &p);
	InitMaterializedSRF(fcinfo, 0);
	run_clustering(m, p.X, p.X64, p.n, p.d, &req, &c);
	for (i = 0; i < p.n; i++)
	{
		Datum		v[3] = {Int32GetDatum(i + 1), Int32GetDatum(c.labels[i]), Float4GetDatum(c.prob[i])};
		bool		nl[3] = {false, c.labels[i] == 0, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
	}
	return (Datum) 0;
}

static ArrayType *
theta_array(const dac_real *theta, int n)
{
	double	   *v = palloc(sizeof(double) * n);
	int			i;

	for (i = 0; i < n; i++)
		v[i] = theta[i];
	return dac_float8_array(v, n);
}

/* The mixture of a clustering of p by m (the core's summary); reported on failure. */
static void
summarize(const dac_model *m, const dac_points *p, const dac_clustering *c, dac_mixture *mix)
{
	dac_error	err;

	dac_check_memory(dac_mixture_bytes(p->n, p->d, c->num_clusters),
					 psprintf("summarising %d clusters", c->num_clusters));
	if (dac_mixture_from_clustering(p->X, p->d, c, dac_model_theta_is_gaussian(m), mix, &err) != DAC_OK)
		dac_report(&err);
}

/* The kept clustering's temperature from clustering four rows in five again (calibrate.h). */
static void
calibrate_kept(const dac_model *m, const dac_points *p, const count_req *req, const dac_clustering *c,
			   dac_mixture *mix)
{
	dac_cluster_opts o = call_opts(m, req);
	dac_error	err;
	dac_status	st;

	dac_check_memory(dac_cluster_bytes(m, p->n, p->d, &o) + dac_calibrate_split_bytes(p->n, p->d, mix->k),
					 psprintf("calibrating a clustering of %d points", p->n));
	dac_progress_begin(p->n);
	PG_TRY();
	{
		st = dac_calibrate_split(m, p->X, p->X64, p->n, p->d, &o, c, dac_model_theta_is_gaussian(m), mix, &err);
	}
	PG_CATCH();
	{
		dac_progress_end(false);
		PG_RE_THROW();
	}
	PG_END_TRY();
	dac_progress_end(st == DAC_OK);
	if (st != DAC_OK)
		dac_report(&err);
}

DAC_SQL_FUNCTION(dac_cluster_summary_srf);

/*
 * dac_cluster_summary(points, model) -> (cluster, size, mean, stddev,
 * representative): for a Gaussian model the θ of each cluster (μ and σ as
 * the network, or EM, gave them), otherwise the centroid and per-coordinate
 * standard deviation of its points; the representative is the ord of the
 * member nearest the mean (dac_mixture_from_clustering), and (from 0.5.0 on,
 * when the SQL declaration has the column) the network's θ of the cluster:
 * μ then σ, a flow's context, NULL without a density head.  Noise is left
 * out.
 */
Datum
dac_cluster_summary_srf(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	dac_points	p;
	const dac_model *m;
	dac_clustering c;
	dac_mixture mix;
	int			k;
	count_req	req = count_args(fcinfo, 2);

	m = points_arg(fcinfo, &p);
	InitMaterializedSRF(fcinfo, 0);
	run_clustering(m, p.X, p.X64, p.n, p.d, &req, &c);
	summarize(m, &p, &c, &mix);
	for (k = 0; k < mix.k; k++)
	{
		Datum		v[6];
		bool		nl[6] = {false, false, false, false, false, false};

		v[0] = Int32GetDatum(mix.id[k]);
		v[1] = Int32GetDatum(mix.size[k]);
		v[2] = PointerGetDatum(dac_float8_array(mix.mean + (size_t) k * p.d, p.d));
		v[3] = PointerGetDatum(dac_float8_array(mix.sd + (size_t) k * p.d, p.d));
		v[4] = Int32GetDatum(mix.rep[k]);
		/* theta (from 0.5.0 on): the network's θ of the cluster, when it has a density head */
		if (dac_model_has_density(m))
			v[5] = PointerGetDatum(theta_array(c.theta + (size_t) (mix.id[k] - 1) * c.theta_dim, c.theta_dim));
		else
			nl[5] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
	}
	dac_mixture_free(&mix);
	return (Datum) 0;
}

DAC_SQL_FUNCTION(dac_pipeline_srf);

/*
 * dac_pipeline(model DEFAULT NULL, rows DEFAULT 300, dim DEFAULT NULL, k,
 * max_k) -> (model, position, stage, runs, settings, memory_kb, applies_to,
 * does): the stages of a clustering of a group of that many rows of that
 * width (NULL: the model's; with no model, 2) as the stages' table declares
 * them, whether each would run under the current settings and the call's
 * count, the settings each reads with their values, and the memory it needs
 * beside the loop's own.  The model is the one a dac_cluster call with no
 * model would use for such a group when none is named.
 */
Datum
dac_pipeline_srf(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	text	   *mname = model_arg(fcinfo, 0);
	int			rows = PG_ARGISNULL(1) ? 300 : PG_GETARG_INT32(1),
				dim = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2),
				i;
	count_req	req = count_args(fcinfo, 3);
	dac_cluster_opts o;
	const dac_model *m;
	const dac_stage_desc *desc;
	const char *name;
	int64		version;

	if (rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rows must be at least 1, not %d", rows),
				 errhint("Give the number of rows of the groups to be clustered.")));
	if (!PG_ARGISNULL(2) && dim < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dim must be at least 1, not %d", dim),
				 errhint("Give the number of coordinates of the points, or leave dim NULL for the model's.")));
	if (mname == NULL && dim == 0)
		dim = 2;
	m = mname ? dac_get_model_text(mname) : dac_model_for_group(NULL, dim, rows);
	o = call_opts(m, &req);
	dac_model_identity(m, &name, &version);
	if (dim == 0)
		dim = dac_model_map_dim(m) > 0 ? dac_model_map_dim(m) : dac_model_dim_input(m);
	if (!dac_model_takes_width(m, dim))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("model \"%s\" does not take points of %d coordinates", name, dim),
				 errhint("Leave dim NULL for the width the model takes.")));
	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; (desc = dac_stage_describe(i)) != NULL; i++)
	{
		Datum		v[8];
		bool		nl[8] = {false, false, false, false, false, false, false, false};
		dac_strbuf	sb;

		dac_strbuf_init(&sb);
		dac_stage_settings_json(i, &o, &sb);
		dac_strbuf_append(&sb, "", 1);
		if (sb.failed)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		v[0] = CStringGetTextDatum(name);
		v[1] = Int32GetDatum(i + 1);
		v[2] = CStringGetTextDatum(desc->name);
		v[3] = BoolGetDatum(dac_stage_runs(m, i, rows, dim, &o));
		v[4] = DirectFunctionCall1(jsonb_in, CStringGetDatum(sb.data));
		v[5] = Int64GetDatum((int64) ceil(dac_stage_bytes(m, i, rows, dim, &o) / 1024));
		v[6] = CStringGetTextDatum(desc->models);
		v[7] = CStringGetTextDatum(desc->does);
		dac_strbuf_free(&sb);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
	}
	return (Datum) 0;
}

DAC_SQL_FUNCTION(dac_model_settings_srf);

/*
 * dac_model_settings(model) -> (setting, value, source): each setting a
 * model can carry, the value a clustering with that model uses now, and
 * where it comes from: "setting" (a dac.* setting given a value), "model"
 * (the model's own) or "default".
 */
Datum
dac_model_settings_srf(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const dac_model *m = dac_get_model_text(PG_GETARG_TEXT_PP(0));
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < DAC_MAX_MODEL_SETTINGS; i++)
	{
		const dac_option *o = dac_model_setting_option(i);
		const char *source;
		Datum		v[3];
		bool		nl[3] = {false, false, false};
		given_ctx	g;
		const char *text;
		double		x;
		char		buf[64];
		dac_error	err;

		if (o == NULL)
			continue;
		source = dac_setting_source(m, o->name);
		if ((text = setting_given_text(&g, o->name)) == NULL)
		{
			if (!dac_model_setting(m, o->name, &x) && dac_option_value(o, NULL, &x, &err) != DAC_OK)
				dac_report(&err);
			dac_option_text(o, x, buf, sizeof(buf));
			text = buf;
		}
		v[0] = CStringGetTextDatum(o->name);
		v[1] = CStringGetTextDatum(text);
		v[2] = CStringGetTextDatum(source);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
	}
	return (Datum) 0;
}

DAC_SQL_FUNCTION(dac_clustering_sql);

/*
 * dac_clustering(points, model DEFAULT NULL, previous int[] DEFAULT NULL)
 * -> jsonb: the clustering kept (dac_mixture_to_json), to assign new points
 * to with dac_assign.  previous: each point's previous id (NULL: none), to
 * name the clusters as dac_cluster(x, model, previous) does.
 */
Datum
dac_clustering_sql(PG_FUNCTION_ARGS)
{
	dac_points	p;
	const dac_model *m;
	dac_clustering c;
	dac_mixture mix;
	dac_strbuf	sb;
	const char *name;
	int64		version;
	Datum		j;
	count_req	req = count_args(fcinfo, 3);

	m = points_arg(fcinfo, &p);
	/* one progress span over both clusterings; an error closes it */
	dac_progress_begin(p.n);
	PG_TRY();
	{
		run_clustering(m, p.X, p.X64, p.n, p.d, &req, &c);
		summarize(m, &p, &c, &mix);
		calibrate_kept(m, &p, &req, &c, &mix);
	}
	PG_CATCH();
	{
		dac_progress_end(false);
		PG_RE_THROW();
	}
	PG_END_TRY();
	dac_progress_end(true);
	/* what dac_assign could not read back is refused here */
	if ((double) mix.k * (2.0 * p.d + 10) + 20 > DAC_JSON_MAX_VALUES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a clustering of %d clusters of dimension %d has more than %d JSON values",
						mix.k, p.d, DAC_JSON_MAX_VALUES),
				 errhint("Lower dac.max_passes.")));
	if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
	{
		ArrayType  *a = PG_GETARG_ARRAYTYPE_P(2);
		int		   *prev = palloc(sizeof(int) * (size_t) p.n),
				   *map = palloc0(sizeof(int) * ((size_t) c.num_clusters + 1));
		unsigned char *has = palloc((size_t) p.n);
		int			i;
		Datum	   *el;
		bool	   *nul;
		int			cnt;

		if (ARR_NDIM(a) > 1 || ARR_ELEMTYPE(a) != INT4OID)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("previous must be a one-dimensional integer array"),
				 errhint("Pass the earlier ids as integer[], one per point in the points' order.")));
		deconstruct_array(a, INT4OID, 4, true, TYPALIGN_INT, &el, &nul, &cnt);
		if (cnt != p.n)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("previous has %d ids, but there are %d points", cnt, p.n),
				 errhint("Pass one earlier id per point, in the points' order; NULL for a point that had none.")));
		for (i = 0; i < p.n; i++)
		{
			has[i] = !nul[i];
			prev[i] = nul[i] ? 0 : DatumGetInt32(el[i]);
		}
		{
			int		   *lab = palloc(sizeof(int) * (size_t) p.n);

			memcpy(lab, c.labels, sizeof(int) * (size_t) p.n);
			match_previous(lab, prev, has, p.n);
			for (i = 0; i < p.n; i++)
				if (c.labels[i] > 0)
					map[c.labels[i]] = lab[i];
		}
		dac_mixture_relabel(&mix, map, c.num_clusters);
	}
	dac_model_identity(m, &name, &version);
	mix.model = dac_alloc(strlen(name) + 1);
	strcpy(mix.model, name);
	mix.model_version = version;
	dac_strbuf_init(&sb);
	dac_mixture_to_json(&mix, &sb);
	dac_strbuf_append(&sb, "", 1);
	if (sb.failed)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	j = DirectFunctionCall1(jsonb_in, CStringGetDatum(sb.data));
	dac_strbuf_free(&sb);
	dac_mixture_free(&mix);
	PG_RETURN_DATUM(j);
}

/*
 * A clustering read from its jsonb, cached in fn_extra while the same value
 * comes back (rows of one group in a join): the bytes are compared.
 */
typedef struct assign_cache
{
	Size		len;
	char	   *bytes;
	dac_mixture mix;
	bool		valid;
	dac_real   *x;				/* [mix.d]: the row being assigned */
} assign_cache;

static const dac_mixture *
clustering_arg(FunctionCallInfo fcinfo, int argno)
{
	MemoryContext fcxt = fcinfo->flinfo->fn_mcxt,
				old;
	assign_cache *ac = fcinfo->flinfo->fn_extra;
	Jsonb	   *jb = PG_GETARG_JSONB_P(argno);
	Size		len = VARSIZE(jb);
	char	   *text;
	dac_error	err;
	dac_status	st;

	if (ac == NULL)
		ac = fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcxt, sizeof(assign_cache));
	if (ac->valid && ac->len == len && memcmp(ac->bytes, jb, len) == 0)
		return &ac->mix;
	if (ac->valid)
	{
		old = MemoryContextSwitchTo(fcxt);
		dac_mixture_free(&ac->mix);
		MemoryContextSwitchTo(old);
		pfree(ac->bytes);
		ac->valid = false;
	}
	text = JsonbToCString(NULL, &jb->root, len);
	old = MemoryContextSwitchTo(fcxt);
	st = dac_mixture_from_json(text, strlen(text), &ac->mix, &err);
	MemoryContextSwitchTo(old);
	if (st == DAC_ERR_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid clustering: %s", err.msg),
				 errhint("Make a clustering with dac_clustering().")));
	if (st != DAC_OK)
		dac_report(&err);
	ac->bytes = MemoryContextAlloc(fcxt, len);
	memcpy(ac->bytes, jb, len);
	if (ac->x)
		pfree(ac->x);
	ac->x = MemoryContextAlloc(fcxt, sizeof(dac_real) * (size_t) ac->mix.d);
	ac->len = len;
	ac->valid = true;
	return &ac->mix;
}

/* dac_assign and dac_assign_prob: the point's cluster and its probability. */
static bool
assign_point(FunctionCallInfo fcinfo, int *id, double *prob)
{
	const dac_mixture *mix;
	ArrayType  *a;
	dac_real   *x;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return false;
	mix = clustering_arg(fcinfo, 1);
	x = ((assign_cache *) fcinfo->flinfo->fn_extra)->x;
	a = PG_GETARG_ARRAYTYPE_P(0);
	if (ARR_NDIM(a) == 1 && ARR_DIMS(a)[0] != mix->d)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the vector has length %d, but the clustering is of vectors of length %d",
						ARR_DIMS(a)[0], mix->d),
				 errhint("Assign vectors of the width the clustering was made from.")));
	dac_vector_from_array(a, ARR_ELEMTYPE(a), mix->d, true, x, NULL, "the vector");
	dac_mixture_assign(mix, x, dac_noise, id, prob);
	return *id != 0 || !(dac_noise > 0);
}

DAC_SQL_FUNCTION(dac_assign_sql);

/*
 * dac_assign(x, clustering jsonb) -> int: the cluster of a kept clustering
 * that x most likely belongs to; NULL for a NULL x, or for noise under
 * dac.noise.
 */
Datum
dac_assign_sql(PG_FUNCTION_ARGS)
{
	int			id;
	double		prob;

	if (!assign_point(fcinfo, &id, &prob))
		PG_RETURN_NULL();
	PG_RETURN_INT32(id);
}

DAC_SQL_FUNCTION(dac_assign_prob_sql);

/* dac_assign_prob(x, clustering jsonb) -> double precision: its posterior. */
Datum
dac_assign_prob_sql(PG_FUNCTION_ARGS)
{
	int			id;
	double		prob;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	assign_point(fcinfo, &id, &prob);
	PG_RETURN_FLOAT8(prob);
}

DAC_SQL_FUNCTION(dac_match_ids_sql);

/*
 * dac_match_ids(ids int[], previous int[]) -> int[]: ids renamed after the
 * previous ids of the same rows (dac_match_ids in the core); NULL ids stay
 * NULL, NULL previous ids are rows that had none.
 */
Datum
dac_match_ids_sql(PG_FUNCTION_ARGS)
{
	ArrayType  *a,
			   *b,
			   *result;
	int			n,
				nb_count,
				i;
	int		   *ids,
			   *prev,
			   *out;
	const int32 *va,
			   *vb;
	bits8	   *nulls_a,
			   *nulls_b;
	unsigned char *has;
	dac_error	err;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	a = PG_GETARG_ARRAYTYPE_P(0);
	b = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_NDIM(a) > 1 || ARR_NDIM(b) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("ids and previous must be one-dimensional arrays"),
				 errhint("Pass each labeling as integer[], one id per row.")));
	n = ARR_NDIM(a) == 0 ? 0 : ARR_DIMS(a)[0];
	nb_count = ARR_NDIM(b) == 0 ? 0 : ARR_DIMS(b)[0];
	if (n != nb_count)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("ids has %d elements but previous has %d", n, nb_count),
				 errhint("Pass one previous id per row, in the same order; NULL for a row that had none.")));
	/* the three copies, the flags and the result, then the matching's own */
	dac_check_memory((double) n * (3 * sizeof(int) + 1) + ARR_SIZE(a) + dac_match_ids_bytes(n),
					 psprintf("matching the ids of %d points", n));
	ids = palloc_extended(sizeof(int) * (n ? n : 1), MCXT_ALLOC_HUGE);
	prev = palloc_extended(sizeof(int) * (n ? n : 1), MCXT_ALLOC_HUGE);
	out = palloc_extended(sizeof(int) * (n ? n : 1), MCXT_ALLOC_HUGE);
	has = palloc_extended(n ? n : 1, MCXT_ALLOC_HUGE);
	/* the elements in place: NULLs take no room in the data (int4: no padding) */
	va = (const int32 *) ARR_DATA_PTR(a);
	vb = (const int32 *) ARR_DATA_PTR(b);
	nulls_a = ARR_NULLBITMAP(a);
	nulls_b = ARR_NULLBITMAP(b);
	for (i = 0; i < n; i++)
	{
		bool		null_a = nulls_a && !(nulls_a[i / 8] & (1 << (i % 8))),
					null_b = nulls_b && !(nulls_b[i / 8] & (1 << (i % 8)));

		if ((i & 65535) == 65535)
			CHECK_FOR_INTERRUPTS();
		ids[i] = null_a ? 0 : *va++;
		if (!null_a && ids[i] < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cluster ids must be positive (or NULL), not %d", ids[i]),
					 errhint("Number clusters from 1; NULL marks a row in none.")));
		has[i] = !null_b;
		prev[i] = null_b ? 0 : *vb++;
	}
	if (n > 0 && dac_match_ids(ids, prev, has, n, out, &err) != DAC_OK)
		dac_report(&err);
	/* the result has a's shape and NULLs: its elements renamed in place */
	result = (ArrayType *) palloc_extended(ARR_SIZE(a), MCXT_ALLOC_HUGE);
	memcpy(result, a, ARR_SIZE(a));
	if (n > 0)
		ARR_LBOUND(result)[0] = 1;
	{
		int32	   *vr = (int32 *) ARR_DATA_PTR(result);

		for (i = 0; i < n; i++)
			if (ids[i] != 0)
				*vr++ = out[i];
	}
	PG_RETURN_ARRAYTYPE_P(result);
}

DAC_SQL_FUNCTION(dac_filter_srf);

/*
 * dac_filter(points, model, anchor) -> (ord, member, prob): one network
 * pass, the primitive the clustering loop repeats.  anchor (AF models only)
 * is the ord of the anchor point, 1 by default.
 */
Datum
dac_filter_srf(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	dac_points	p;
	const dac_model *m;
	dac_error	err;
	double	   *prob;
	int			anchor = 0,
				i;

	m = points_arg(fcinfo, &p);
	if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
	{
		int32		a = PG_GETARG_INT32(2);

		if (!dac_model_is_anchored(m))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("an anchor applies only to anchored-filtering (af) models"),
				 errhint("Leave the anchor out, or name an af model such as af_mog2d.")));
		/* its range is the core's to check (dac_filter_pass) */
		anchor = a < 1 ? -1 : a - 1;
	}
	dac_check_memory(dac_filter_bytes(m, p.n, p.d) + sizeof(double) * (double) p.n,
					 psprintf("a pass over %d points", p.n));
	prob = palloc_extended(sizeof(double) * (size_t) p.n, MCXT_ALLOC_HUGE);
	InitMaterializedSRF(fcinfo, 0);
	dac_blas_ready();
	if (dac_filter_pass(m, p.X, p.n, p.d, anchor, 0, prob, &err) != DAC_OK)
		dac_report(&err);
	for (i = 0; i < p.n; i++)
	{
		Datum		v[3] = {Int32GetDatum(i + 1), BoolGetDatum(prob[i] > 0.5), Float4GetDatum((float4) prob[i])};
		bool		nl[3] = {false, false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return (Datum) 0;
}

DAC_SQL_FUNCTION(dac_generate_srf);

/*
 * dac_generate(kind, n_sets, n_max, k_max, seed, dim) -> (set_id, ord,
 * label, x): the paper's generators, the same draws as dac-cli eval with the
 * same seed.  Labels count from 1.
 */
Datum
dac_generate_srf(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *kind = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		n_sets = PG_GETARG_INT32(1),
				n_max = PG_GETARG_INT32(2),
				k_max = PG_GETARG_INT32(3);
	int64		seed = PG_GETARG_INT64(4);
	int32		dim = PG_GETARG_INT32(5);
	dac_gen_kind gk;
	dac_rng		rng;
	dac_real   *X;
	int		   *y;
	int			s,
				i;

	if (!dac_generator_kind(kind, &gk))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown generator \"%s\"", kind),
				 errhint("The generators are \"mog\", \"warped_mog\" and \"embed\".")));
#define RANGE(v, lo, hi, name) \
	if ((v) < (lo) || (v) > (hi)) \
		ereport(ERROR, \
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE), \
				 errmsg("%s must be between %lld and %lld, not %lld", name, (long long) (lo), \
						(long long) (hi), (long long) (v))))
	RANGE(n_sets, 1, 1000000, "n_sets");
	RANGE(n_max, 4, 10000000, "n_max");
	RANGE(k_max, 1, 10000, "k_max");
	RANGE(seed, 0, PG_INT64_MAX, "seed");
	RANGE(dim, 1, DAC_MAX_DIM_INPUT, "dim");
	if (gk == DAC_GEN_WARPED && dim != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("warped_mog draws 2-D points, not dim %d", dim),
				 errhint("Leave dim out for warped_mog, or draw from \"mog\" or \"embed\".")));
	dac_check_memory((double) n_max * (dim * sizeof(dac_real) + sizeof(int)) +
					 dac_generate_bytes(gk, k_max, dim),
					 psprintf("generating sets of up to %d points of dimension %d from up to %d clusters",
							  n_max, dim, k_max));
	InitMaterializedSRF(fcinfo, 0);
	X = palloc_extended(sizeof(dac_real) * (size_t) n_max * dim, MCXT_ALLOC_HUGE);
	y = palloc_extended(sizeof(int) * (size_t) n_max, MCXT_ALLOC_HUGE);
	dac_rng_seed(&rng, (uint64_t) seed);
	for (s = 0; s < n_sets; s++)
	{
		int			n = dac_sample_n(&rng, n_max),
					k;
		dac_error	err;

		if (dac_generate(gk, &rng, 1, n, k_max, dim, X, y, &k, &err) != DAC_OK)
			dac_report(&err);
		for (i = 0; i < n; i++)
		{
			Datum	   *xs = palloc(sizeof(Datum) * dim);
			Datum		v[4];
			bool		nl[4] = {false, false, false, false};
			int			j;

			for (j = 0; j < dim; j++)
				xs[j] = Float4GetDatum((float4) X[(size_t) i * dim + j]);
			v[0] = Int32GetDatum(s + 1);
			v[1] = Int32GetDatum(i + 1);
			v[2] = Int32GetDatum(y[i] + 1);
			v[3] = PointerGetDatum(construct_array(xs, dim, FLOAT4OID, 4, true, TYPALIGN_INT));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
			pfree(DatumGetPointer(v[3]));
			pfree(xs);
			if ((i & 1023) == 1023)
				CHECK_FOR_INTERRUPTS();
		}
		CHECK_FOR_INTERRUPTS();
	}
	return (Datum) 0;
}

/* ---------------------------------------------------------------- metrics */

static int *
labels_arg(ArrayType *a, const char *name, int *n)
{
	int		   *v;
	int			i;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s must be a one-dimensional array", name),
				 errhint("Pass the labels as integer[], one per row.")));
	if (ARR_HASNULL(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s contains a NULL label", name),
				 errhint("Leave the rows without a label out of both labelings.")));
	*n = ARR_NDIM(a) == 0 ? 0 : ARR_DIMS(a)[0];
	v = palloc_extended(sizeof(int) * (*n ? *n : 1), MCXT_ALLOC_HUGE);
	for (i = 0; i < *n; i++)
	{
		v[i] = ((int32 *) ARR_DATA_PTR(a))[i];
		if ((i & 0xFFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return v;
}

static void
metric_args(FunctionCallInfo fcinfo, int **a, int **b, int *n)
{
	int			na,
				nb;

	*a = labels_arg(PG_GETARG_ARRAYTYPE_P(0), "the first labeling", &na);
	*b = labels_arg(PG_GETARG_ARRAYTYPE_P(1), "the second labeling", &nb);
	if (na != nb)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("labelings of different lengths: %d and %d", na, nb),
				 errhint("Pass two labelings of the same rows, in the same order.")));
	if (na == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot compare empty labelings"),
				 errhint("Pass labelings of at least one row.")));
	*n = na;
}

DAC_SQL_FUNCTION(dac_ari_sql);

/* ARI and NMI of the two labelings, within dac.memory_limit. */
static void
compare_labelings(FunctionCallInfo fcinfo, double *ari, double *nmi)
{
	int		   *a,
			   *b,
				n;
	dac_error	err;

	metric_args(fcinfo, &a, &b, &n);
	dac_check_memory(dac_compare_labels_bytes(n), psprintf("comparing labelings of %d points", n));
	if (dac_compare_labels(a, b, n, ari, nmi, &err) != DAC_OK)
		dac_report(&err);
}

/* dac_ari(int[], int[]) -> float8: adjusted Rand index. */
Datum
dac_ari_sql(PG_FUNCTION_ARGS)
{
	double		ari,
				nmi;

	compare_labelings(fcinfo, &ari, &nmi);
	PG_RETURN_FLOAT8(ari);
}

DAC_SQL_FUNCTION(dac_nmi_sql);

/* dac_nmi(int[], int[]) -> float8: normalized mutual information. */
Datum
dac_nmi_sql(PG_FUNCTION_ARGS)
{
	double		ari,
				nmi;

	compare_labelings(fcinfo, &ari, &nmi);
	PG_RETURN_FLOAT8(nmi);
}
