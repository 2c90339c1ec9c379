/*
 * dac.h
 *	  The core's front door, as liblwgeom.h is PostGIS's: everything a host
 *	  (the PostgreSQL glue in src/pg, dac-cli in src/cli) may use, declared
 *	  here and nowhere else.  This header includes no other of the core's;
 *	  the core's own headers include it for these types.  A model, a trainer
 *	  and a training table are opaque: a host asks them questions through
 *	  the functions below and never reads their insides.
 *
 *	  Sections: base (numbers, errors, hooks, memory); text; OpenBLAS;
 *	  options (each defined once); models; clustering; metrics; kept
 *	  clusterings; generated sets; training.
 */
#ifndef DAC_H
#define DAC_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- base */

/*
 * The number type of every tensor.  The product builds in float32; the
 * unit tests build the same sources a second time in float64 (-DDAC_DOUBLE)
 * for tight finite-difference checks and float64 parity.
 */
#ifdef DAC_DOUBLE
typedef double dac_real;
#define DAC_REAL_NAME "float64"
#else
typedef float dac_real;
#define DAC_REAL_NAME "float32"
#endif

/* The widest vectors any model takes. */
#define DAC_MAX_DIM_INPUT 16384
/* The widest rows a model's input map (a table's whitening, whiten.h) takes. */
#define DAC_MAX_MAP_DIM 2048
#define DAC_MAX_GATE_CLASSES 512	/* whiten.c's message says 512 */

/* Error codes returned by core functions (0 = success). */
typedef enum
{
	DAC_OK = 0,
	DAC_ERR_NOMEM,				/* allocation failed */
	DAC_ERR_INVALID,			/* bad argument (shape, size, option) */
	DAC_ERR_FORMAT,				/* malformed weights file or JSON */
	DAC_ERR_CONFIG,				/* bad or unsupported model configuration */
	DAC_ERR_TOO_LARGE,			/* a size that overflows or passes a limit */
	DAC_ERR_IO,					/* file input/output (driver only) */
	DAC_ERR_INTERRUPTED			/* the host asked to stop */
} dac_status;

/* An error: a code and a message in PostgreSQL's style (lower case, no period). */
typedef struct dac_error
{
	dac_status	code;
	char		msg[256];
	const char *hint;			/* NULL, or a static sentence naming the fix */
} dac_error;

/*
 * Host hooks, installed once at load time.  Any may be left NULL for the
 * defaults (malloc/free, no interrupts).  The core never includes a
 * PostgreSQL header: under PostgreSQL these map to palloc, pfree and
 * CHECK_FOR_INTERRUPTS.
 */
typedef struct dac_hooks
{
	void	   *(*alloc) (size_t size);	/* may return NULL or not return */
	void		(*free) (void *ptr);
	/* returns nonzero when the current work must stop; may also not return */
	int			(*interrupted) (void);
	/* where a clustering is: a stage, and done of total (0 of 0: no count) */
	void		(*progress) (const char *stage, int64_t done, int64_t total);
} dac_hooks;

extern void dac_set_hooks(const dac_hooks *hooks);
extern void *dac_alloc(size_t size);
extern void *dac_alloc_zero(size_t size);
extern void dac_free(void *ptr);

/* ---------------------------------------------------------------- text */

/* A growing text buffer (allocated through the hooks). */
typedef struct dac_strbuf
{
	char	   *data;
	size_t		len;
	size_t		cap;
	int			failed;			/* an allocation failed */
} dac_strbuf;

extern void dac_strbuf_init(dac_strbuf *sb);
extern void dac_strbuf_append(dac_strbuf *sb, const char *s, size_t n);
extern void dac_strbuf_printf(dac_strbuf *sb, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));
extern void dac_strbuf_json_string(dac_strbuf *sb, const char *s);
extern void dac_strbuf_free(dac_strbuf *sb);

/* ------------------------------------------------------------- OpenBLAS */

/*
 * dac_blas_open loads OpenBLAS where the host does not link it
 * (DAC_BLAS_RUNTIME) and returns 0 with dac_blas_error() on failure; it
 * must succeed before any other core call that multiplies matrices.
 */
extern int	dac_blas_open(void);
extern const char *dac_blas_error(void);
extern void dac_blas_set_threads(int n);
extern const char *dac_blas_corename(void);
/* The OPENBLAS_CORETYPE the core wants on this CPU, or NULL (any). */
extern const char *dac_blas_wanted_coretype(void);

/* -------------------------------------------------------------- options */

/*
 * The options of training and of clustering, each defined once: its name
 * (as CALL dac_train or the dac.* setting spells it), dac-cli's flag, its
 * kind, default and range.  The core's defaults and checks, dac-cli's
 * flags and the SQL layer (dac_internal.dac_train_option_table and
 * dac_cluster_option_table, which dac_train_options and the settings read)
 * all take them from here.  Numbers are kept as text, so that SQL reads
 * them exactly (numeric) and C by strtod.
 */
typedef enum
{
	DAC_OPT_REAL = 0,			/* a number */
	DAC_OPT_INT = 1,			/* a whole number */
	DAC_OPT_BOOL = 2,			/* "true" or "false" (def) */
	DAC_OPT_TEXT = 3			/* one of the names in lo, '|'-separated */
} dac_option_kind;

typedef struct dac_option
{
	const char *name;			/* the option's name */
	const char *flag;			/* dac-cli's flag, or NULL */
	dac_option_kind kind;
	const char *def;			/* default ("" when it depends on the source) */
	const char *lo;				/* least value; a text option's names */
	const char *hi;				/* greatest value */
	int			lo_open;		/* 1: lo itself is not allowed (lr > 0) */
	const char *bare;			/* clustering options: the default of the bare
								 * loop (dac_cluster_opts_default, dac-cli),
								 * where def is the database setting's */
} dac_option;

/* The tables, each ended by an entry whose name is NULL. */
extern const dac_option dac_train_options[];
extern const dac_option dac_cluster_options[];

/* The option of that name, or NULL. */
extern const dac_option *dac_train_option(const char *name);
extern const dac_option *dac_cluster_option(const char *name);
/* Its default, least and greatest values as numbers. */
extern double dac_option_default(const dac_option *o);
extern double dac_option_lo(const dac_option *o);
extern double dac_option_hi(const dac_option *o);
/* DAC_ERR_INVALID (naming the option and its range) unless v is in range (and whole for an integer). */
extern dac_status dac_option_check(const dac_option *o, double v, dac_error *err);
/*
 * The value of option o from its text (NULL or "": the default): a number
 * checked as dac_option_check does, a boolean as 1 or 0, a text option as
 * the index of its name in o->lo.  DAC_ERR_INVALID naming the option.
 */
extern dac_status dac_option_value(const dac_option *o, const char *text, double *v, dac_error *err);
/* The text of value v of option o, as dac_option_value reads it back (a number, true/false, a name). */
extern void dac_option_text(const dac_option *o, double v, char *buf, size_t size);

/*
 * The settings a model carries as its own defaults (its configuration's
 * "settings"): clustering options, each by its place in
 * dac_cluster_options.  dac_model_setting_index: that place, or -1 for a
 * name no model may carry (k, max_k, noise and cluster_width belong to a call);
 * dac_model_setting_option: the option at place i, or NULL.
 */
#define DAC_MAX_MODEL_SETTINGS 32
extern int	dac_model_setting_index(const char *name);
extern const dac_option *dac_model_setting_option(int i);

/*
 * Where a host keeps the options it was given: the text of the option of
 * that name, or NULL when it was not given (then the table's default).
 */
typedef const char *(*dac_option_get) (void *ctx, const char *name);

/* --------------------------------------------------------------- models */

/* A network configuration and its parameters: opaque. */
typedef struct dac_model dac_model;

/*
 * Decode a weights file (safetensors with the reference PyTorch tensor
 * names and the "dac.config" metadata) into a new model.  Every tensor of
 * the network must be present with its exact shape and finite values.
 */
extern dac_status dac_model_read(const uint8_t *buf, size_t len, dac_model **out, dac_error *err);
/* The bytes dac_model_read would allocate, after the checks that come before any allocation. */
extern dac_status dac_model_read_bytes(const uint8_t *buf, size_t len, double *bytes, dac_error *err);
/* A copy of the metadata value of key in a weights file (dac_free it), or NULL. */
extern char *dac_weights_meta(const uint8_t *buf, size_t len, const char *key, dac_error *err);

/*
 * A new model with all-zero parameters, from the training options that
 * describe an architecture (dac_train_options: strategy, density, input,
 * dim, dim_hidden, num_heads, num_inds, num_blocks, shared_blocks,
 * maf_blocks, maf_hidden, maf_context, image_filters, image_latent).
 * data_width > 0: the width of the rows it will train on, which a raw model
 * takes in place of "dim".  dac_model_new_bytes: what it and its optimiser
 * need, allocating nothing.
 */
extern dac_status dac_model_new(dac_option_get get, void *ctx, int data_width, dac_model **out,
								dac_error *err);
extern dac_status dac_model_new_bytes(dac_option_get get, void *ctx, int data_width, double *bytes,
									  dac_error *err);
/* A new model with the architecture and parameters of from. */
extern dac_status dac_model_copy(const dac_model *from, dac_model **out, dac_error *err);
/*
 * m's parameters become the mean of its own and those of the n others (a
 * checkpoint average, weights/README.md), each mean taken in double and
 * rounded once; every model must have m's configuration.
 */
extern dac_status dac_model_average(dac_model *m, const dac_model *const *others, int n,
									dac_error *err);
/*
 * A new model with from's network whose rows first pass through the linear
 * map M [d, d] (row-major: a row x becomes M x; whiten.h), or through none
 * when M is NULL.  Only for a model whose input is normalised per set.
 */
extern dac_status dac_model_with_map(const dac_model *from, const dac_real *M, int d, dac_model **out,
									 dac_error *err);
/*
 * The same, M [rows, d] (rows <= d: a projection to rows coordinates), the
 * map applied only to groups that look like a table's
 * classes (cluster.h, dac_gate_opens): G [d, d] the table's within-label
 * whitening, means [classes, d] the classes' means in its coordinates,
 * threshold the squared distance from the nearest beyond which a row is
 * outside them.  Melse [d, d], unless NULL, the map of the groups the gate
 * turns away (else they pass as they are).  G NULL: an ungated map.
 */
extern dac_status dac_model_with_gated_map(const dac_model *from, const dac_real *M, int rows, int d,
										   const dac_real *G,
										   const dac_real *means, int classes, double threshold,
										   const dac_real *Melse, dac_model **out, dac_error *err);
/* 1 when b has a's network (and so its parameters' shapes; the settings they carry aside), 0 when not, -1 out of memory. */
extern int	dac_model_same_config(const dac_model *a, const dac_model *b);
/* m's parameters become a copy of from's, which must have m's configuration. */
extern dac_status dac_model_assign(dac_model *m, const dac_model *from, dac_error *err);
/*
 * The same network taking its input "scaled" at cluster width unit_width
 * (each set centred and scaled to it before the network), or raw when
 * unit_width is 0.
 */
extern dac_status dac_model_set_units(dac_model *m, double unit_width, dac_error *err);
/*
 * The same network with inds inducing points per ISAB (at most its own),
 * starting from the first inds of each: a cheaper network to fine-tune.
 */
extern dac_status dac_model_shrink_inds(dac_model *m, int inds, dac_error *err);

/* Encode; meta is a NULL-terminated list of key, value, key, value, … (may be NULL). */
extern dac_status dac_model_save(const dac_model *m, const char *const *meta,
								 uint8_t **out, size_t *out_len, dac_error *err);
extern void dac_model_destroy(dac_model *m);

/*
 * What a host asks of a model.  The width: the model's dim_input, or 0 for
 * a model whose input is normalised per set (it takes any width);
 * dac_model_takes_width: whether vectors of width d fit.  A density head
 * (Gaussian, flow or image); an anchored (AF) model; a θ that is a diagonal
 * Gaussian in the rows' own space (mean then σ: a Gaussian head on raw or
 * scaled input); input "scaled" (the host keeps the rows in double
 * precision too, where the units frame is measured); the number of
 * parameters and of tensors; the inducing points per ISAB; the
 * configuration as JSON text (the weights' "dac.config", dac_free it).
 */
extern int	dac_model_width(const dac_model *m);
extern int	dac_model_dim_input(const dac_model *m);	/* the configured width, even when any is taken */
extern int	dac_model_map_dim(const dac_model *m);	/* the width its input map takes, 0 without one */
extern int	dac_model_map_rows(const dac_model *m);	/* the coordinates its input map gives, 0 without one */
extern int	dac_model_takes_width(const dac_model *m, int d);
extern int	dac_model_has_density(const dac_model *m);
extern int	dac_model_is_anchored(const dac_model *m);
extern int	dac_model_theta_is_gaussian(const dac_model *m);
extern int	dac_model_keeps_doubles(const dac_model *m);
extern size_t dac_model_nparams(const dac_model *m);
extern int	dac_model_ntensors(const dac_model *m);
extern int	dac_model_num_inds(const dac_model *m);
extern char *dac_model_config_json(const dac_model *m);
/* Passes compute the inducing points' products themselves (to measure what keeping them saves). */
extern void dac_model_forget_fixed(dac_model *m);

/*
 * The cluster width σ̂ a scaled model measures on X [n, d] (double
 * precision): the unit its frame divides by.
 */
extern dac_status dac_set_width(const double *X, int n, int d, double *width, dac_error *err);

/* ----------------------------------------------------------- clustering */

typedef enum
{
	DAC_LEFTOVER_BEST = 0,		/* each to the found cluster that fits it best */
	DAC_LEFTOVER_FIRST = 1,		/* the authors' rule: merge into the first cluster */
	DAC_LEFTOVER_OWN = 2		/* together, one more cluster of their own (default) */
} dac_leftover_policy;

/* "best", "first", "own"; and back (0 for an unknown name). */
extern const char *dac_leftover_name(dac_leftover_policy p);
extern int	dac_leftover_parse(const char *name, dac_leftover_policy *p);

/*
 * How a set is clustered.  The defaults (dac_cluster_opts_default) and
 * ranges of the numbers a host sets are those of dac_cluster_options.
 */
typedef struct dac_cluster_opts
{
	int			max_passes;		/* 50 */
	dac_leftover_policy leftover;
	size_t		mem_limit;		/* bytes; 0 = none.  Checked before allocating */
	int			min_size;		/* clusters of fewer points are dissolved into
								 * the others (1 = none, the authors' loop) */
	int			absorb_size;	/* a Gaussian or flow head: clusters of fewer
								 * points join the cluster that fits their points
								 * best, unless one of them is an outlier there
								 * (DAC_ABSORB_TAIL); before min_size.  1 = none */
	double		mode_merge;		/* > 0, a 2-D Gaussian head, no k and no
								 * cluster_width: after min_size, a chain of
								 * DAC_MODES_CHAIN or more clusters whose
								 * Gaussians' mixture dips to no less than this
								 * ratio between neighbours is one cluster
								 * (dac_clustering_modes); 0 = none */
	double		pair_merge;		/* > 0, a flow head (MAF) on the MLF loop: after
								 * absorb_size and min_size, two clusters each
								 * among the other's two nearest by mean become
								 * one when a pass over their points alone (in
								 * their own units frame) selects at least this
								 * share of each (dac_pair_merge); 0 = none */
	int			pair_split;		/* with pair_merge: a pair the pass keeps apart
								 * becomes the pass's selection and the rest
								 * (each θ a pass's over its rows) when that
								 * raises the set's LL; 0 = kept as it was */
	int			rotations;		/* > 1, a 2-D set and a Gaussian or flow head:
								 * the set is also clustered turned about its
								 * mean by 360°/rotations steps, and the
								 * clustering of the highest LL kept (θ then
								 * from passes over its clusters as given).
								 * 1 = as given only */
	int			refine_rounds;	/* > 0, a flow (maf) head: after pair_merge,
								 * this many rounds of DAC_REFINE_STEPS Adam
								 * steps on each cluster's θ up its members'
								 * mean log-density (dac_flow_refine), each
								 * followed by every point to the cluster
								 * under which, weighted, it is likeliest.
								 * 0 = none */
	int			reassign;		/* Gaussian head: after the passes, each point to
								 * the found component likeliest to have drawn it
								 * (0 = none, the authors' loop) */
	int			em_steps;		/* Gaussian head: most EM steps that refit the
								 * found mixture before that reassignment
								 * (implies reassign; 0 = none) */
	double		noise;			/* > 0: points no pass selected, members of
								 * clusters under max(2, min_size) points, and
								 * points in their cluster's tail beyond this
								 * level are noise (label 0); 0 = none */
	double		cluster_width;	/* > 0, models with "scaled" input: a
								 * cluster's width (σ per axis) in the data's
								 * units, in place of the width each group's
								 * frame reads from its rows; 0 = read it */
	int			kmeans_steps;	/* no density head: most k-means (Lloyd) steps
								 * from the clusters the passes found, in the
								 * coordinates the network saw (0 = none) */
	int			k_search;		/* > 0, no density head: after the k-means
								 * steps, k-means at every count from
								 * max(2, K − k_search) to K + k_search around
								 * the K clusters found, the count of the best
								 * mean silhouette kept (on a sample of rows);
								 * a set where one cluster was found keeps it.
								 * 0 = none */
	int			graph_neighbors;	/* > 0, no density head: after the k
									 * search, the clusters become the
									 * communities of the graph linking each of
									 * a sample of rows to this many nearest, at
									 * graph_resolution; rows outside that
									 * sample go to the nearest community's
									 * mean.  0 = none */
	double		graph_resolution;	/* γ of the graph's modularity (> 0) */
	double		graph_merge;	/* > 0: two scales (dac_clustering_graph),
								 * the finer communities joined by more than
								 * this share of the smaller one's links
								 * merged (dac_graph_merge_share); 0: the
								 * resolution's communities alone */
	int			graph_start;	/* 1: the communities start from the clusters
								 * found; 0: every row alone */
	int			k_exact;		/* > 0: this many clusters (fewer only when
								 * the points cannot be split further); no
								 * count search.  0: as found */
	int			k_max;			/* > 0: at most this many clusters; 0: any */
	int			sample_size;	/* > 0, no density head, no noise: a set of more
								 * points is clustered through a sample of this
								 * many of its rows, the rest assigned to the
								 * nearest found cluster, then k-means steps
								 * over all; 0 = every row through the network */
	int			canonical;		/* 1 (default): cluster the rows in an order
								 * that depends only on the set of rows, so that
								 * any order of the same rows gives the same
								 * clusters and ids; 0: as given (the authors') */
	int			want_ll;		/* 1 (default): the clustering's LL under a
								 * density head; 0: left NaN (a caller that shows
								 * no LL skips its cost) */
	const dac_real *columns;	/* set by the core, never by a caller: the
								 * rows clustered in their own columns, row for
								 * row, where a set-normalised model reads no
								 * more columns than its width (the one-cluster
								 * test's normal scores); NULL otherwise */
	int			columns_d;		/* their number */
} dac_cluster_opts;

/* The bare loop (the authors', and dac-cli's): each option at its table's "bare" default. */
extern dac_cluster_opts dac_cluster_opts_default(void);
/*
 * The clustering options of dac_cluster_options from where the host keeps
 * them (max_passes, leftover, min_cluster_size, reassign, em_steps,
 * kmeans_steps, k_search, graph_neighbors, graph_resolution, k, max_k,
 * sample_size, noise, absorb_size, graph_merge, pair_merge, rotations, pair_split,
 * refine_rounds; absent: the bare default), each checked, over *co's
 * other fields.
 */
extern dac_status dac_cluster_opts_read(dac_option_get get, void *ctx, dac_cluster_opts *co,
										dac_error *err);
/*
 * The clustering options for model m (NULL: none): each option the host
 * gives through over (its text, or NULL when the host leaves it), else the
 * one m carries in its settings, else the table's default (def, the
 * database settings' defaults).  co's other fields are left as they are.
 */
extern dac_status dac_cluster_opts_model(const dac_model *m, dac_option_get over, void *ctx,
										 dac_cluster_opts *co, dac_error *err);
/* Whether m carries setting name in its settings, with the value in *v. */
extern int	dac_model_setting(const dac_model *m, const char *name, double *v);
/*
 * A copy of a weights file whose configuration carries the settings of
 * json[0..json_len) (a JSON object of setting names and values; {} for
 * none) in place of those it had; every tensor and other metadata as in
 * buf.  *out from dac_alloc.
 */
extern dac_status dac_weights_with_settings(const uint8_t *buf, size_t len, const char *json, size_t json_len,
											uint8_t **out, size_t *out_len, dac_error *err);
/*
 * The value of the clustering option of that name in *co (those above, and
 * "seed": -1 without random anchors) appended to sb as a JSON value; 0 for
 * a name that is none of them.
 */
extern int	dac_cluster_opts_json(const dac_cluster_opts *co, const char *name, dac_strbuf *sb);

/*
 * The clustering's stages (pipeline.c), in the order they run: a stage's
 * name, the models it applies to and what it does in words, and the
 * options it reads (comma-separated).  NULL past the last.
 */
typedef struct dac_stage_desc
{
	const char *name;
	const char *models;
	const char *settings;
	const char *does;
} dac_stage_desc;
extern const dac_stage_desc *dac_stage_describe(int i);
/* Whether stage i runs for a group of n rows of width dx under m and opts. */
extern int	dac_stage_runs(const dac_model *m, int i, int n, int dx, const dac_cluster_opts *opts);
/* The bytes stage i needs for such a group beside the loop's own (0 where it does not run). */
extern double dac_stage_bytes(const dac_model *m, int i, int n, int dx, const dac_cluster_opts *opts);
/* The options stage i reads and their values in opts, as a JSON object (dac_cluster_opts_json). */
extern void dac_stage_settings_json(int i, const dac_cluster_opts *opts, dac_strbuf *sb);

/* What a clustering of a set is: labels, θ, what each stage did. */
typedef struct dac_clustering
{
	int			n;
	int		   *labels;			/* [n], 1 .. num_clusters in order of discovery;
								 * 0 = noise (opts.noise) */
	float	   *prob;			/* [n] membership probability in the pass that
								 * selected the point; for a point no pass
								 * selected, the highest any pass gave it */
	int			num_clusters;
	int			num_passes;		/* network passes run */
	int			leftover;		/* points no pass selected (then placed by policy) */
	int			dissolved;		/* points moved out of clusters under min_size */
	int			absorbed;		/* points moved out of clusters under absorb_size */
	int			pair_merged;	/* clusters joined to another by pair_merge */
	int			pair_split;		/* pairs whose points pair_split shared out anew */
	int			turned;			/* opts.rotations: the turn j whose clustering was
								 * kept (the set turned by 360°·j/rotations);
								 * 0 = as given */
	int			reassigned;		/* points opts.reassign moved to another cluster */
	int			refine_moved;	/* points opts.refine_rounds' reassignments moved */
	int			em_steps;		/* EM steps run (they stop once the LL settles) */
	int			kmeans_steps;	/* k-means steps run (they stop when no point moves) */
	int			noise;			/* points labelled noise (opts.noise) */
	int			duplicates;		/* rows equal to an earlier row, clustered with
								 * it as one row (opts.canonical) */
	int			theta_dim;
	dac_real   *theta;			/* [num_clusters, theta_dim] */
	double		ll;				/* mean LL of the clustering's points (a density
								 * head; in the caller's units), else NaN */
	double		flops;			/* matrix FLOPs spent */
	double	   *frame_center;	/* [d], an input "scaled" model: θ is in the
								 * coordinates (x − frame_center) · frame_scale;
								 * NULL: θ is in the caller's */
	double		frame_scale;
	int			k_searched;		/* opts.k_search ran */
	int			graphed;		/* opts.graph_neighbors ran */
	int			share_merged;	/* and opts.graph_merge's partition was kept */
	unsigned	stages;			/* bit i: stage i (dac_stage_describe) ran */
} dac_clustering;

/* Bytes dac_cluster_set needs for n points of width d, at most. */
extern double dac_cluster_bytes(const dac_model *m, int n, int d, const dac_cluster_opts *opts);

/*
 * Cluster n points X [n, d]: d is the model's dim_input, or any width for a
 * model whose input is normalised per set (then θ and ll are in the
 * normalised coordinates).  DAC_ERR_INVALID for a width the model does not
 * take; DAC_ERR_TOO_LARGE when over opts->mem_limit.
 */
extern dac_status dac_cluster_set(const dac_model *m, const dac_real *X, int n, int d,
								  const dac_cluster_opts *opts, dac_clustering *out,
								  dac_error *err);
/*
 * The same from points in double precision: a model whose input is
 * "scaled" measures its frame on them before they are narrowed to the
 * network's precision, so that points far from the origin keep their
 * detail; for other models they are narrowed first.
 */
extern dac_status dac_cluster_set_f64(const dac_model *m, const double *X, int n, int d,
									  const dac_cluster_opts *opts, dac_clustering *out,
									  dac_error *err);
extern void dac_clustering_free(dac_clustering *c);

/*
 * One filtering pass, the primitive dac_cluster_set repeats: the
 * probability prob [n] that each of the n points X [n, dx] belongs to the
 * cluster the pass finds (selected when above 1/2).  anchor: the anchor row
 * (AF models; ignored otherwise).  DAC_ERR_INVALID for a width the model
 * does not take or an anchor out of range; DAC_ERR_TOO_LARGE when
 * dac_filter_bytes passes mem_limit (0: none); DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_filter_pass(const dac_model *m, const dac_real *X, int n, int dx, int anchor,
								  size_t mem_limit, double *prob, dac_error *err);
/* Bytes dac_filter_pass needs for n points of width dx, at most. */
extern double dac_filter_bytes(const dac_model *m, int n, int dx);

/* -------------------------------------------------------------- metrics */

/*
 * ARI and NMI of two labellings of n points (either may be NULL); O(n) time
 * and memory whatever the labels' values.
 */
extern dac_status dac_compare_labels(const int *a, const int *b, int n, double *ari,
									 double *nmi, dac_error *err);
extern double dac_compare_labels_bytes(int n);
/* The distinct labels of a labelling. */
extern int	dac_count_labels(const int *a, int n);

/*
 * The count of distinct rows of X (n rows of row_bytes bytes, equal when
 * their bytes are), as the clustering's distinct stage counts them; -1 when
 * out of memory (or interrupted).
 */
extern int	dac_distinct_count(const void *X, int n, size_t row_bytes);

/*
 * Longitude and latitude to a plane in metres, for clustering (geo.h): lon
 * [n], lat [n] in degrees (any finite longitude; latitude in [-90, 90]) to
 * xy [n, 2], the azimuthal equidistant projection about the group's centre
 * (its points' mean as unit vectors, back on the sphere; the North Pole
 * when they sum to nothing), x east and y north there.  Each point keeps
 * its great-circle distance and bearing from the centre; the centre's
 * antipode goes to (0, -pi R).  DAC_ERR_INVALID names the first bad row;
 * DAC_ERR_INTERRUPTED from the host's check (every 4,096 rows).
 */
extern dac_status dac_lonlat_plane(const double *lon, const double *lat, int n, double *xy, dac_error *err);

/*
 * New ids taking their names from previous ones: ids [n] (≥ 1, 0 = none),
 * prev [n] with has_prev[i] (0: the point had no previous id).  Pairs of a
 * new cluster and a previous id are matched greedily by the number of points
 * they share (largest first; ties to the smaller previous id, then the
 * smaller new id), each on at most one side; a new cluster matched keeps that
 * previous id, the others get fresh ids after the largest previous id, in the
 * order of their new ids.  out [n] (where ids[i] is 0, out[i] is 0 too).
 * DAC_ERR_NOMEM, DAC_ERR_TOO_LARGE (fresh ids past INT_MAX),
 * DAC_ERR_INTERRUPTED.  O(n) time and memory whatever the ids' values.
 */
extern dac_status dac_match_ids(const int *ids, const int *prev, const unsigned char *has_prev,
								int n, int *out, dac_error *err);
/* Bytes dac_match_ids allocates for n points, at most. */
extern double dac_match_ids_bytes(int n);

/*
 * An evaluation's metrics summed over its sets, the one definition dac-cli
 * and dac_evaluate share.  dac_eval_add adds one set: ARI and NMI of truth
 * [c->n] against c's labels, k-MAE as |the distinct true labels − the
 * clusters found| (noise, label 0, is no cluster), c's log-likelihood and
 * matrix FLOPs, and the seconds it took.  Divide by sets for the means.
 */
typedef struct dac_eval_sums
{
	int			sets;
	double		ari,
				nmi,
				kmae,
				ll,
				secs,
				flops,
				oracle;
} dac_eval_sums;

extern void dac_eval_add(dac_eval_sums *e, const int *truth, const dac_clustering *c, double seconds);
/* Appends {"sets": n, "ari": mean, "nmi": mean, "k_mae": mean} to sb. */
extern void dac_eval_sums_json(const dac_eval_sums *e, dac_strbuf *sb);

/* ---------------------------------------------------- kept clusterings */

/* The version of the JSON form ("dac_clustering": 1). */
#define DAC_MIXTURE_FORMAT 1
/* The most values a JSON text the core reads may hold (a kept clustering's bound). */
#define DAC_JSON_MAX_VALUES 262144

/*
 * What is kept of a clustering: its clusters as a diagonal Gaussian
 * mixture (size, mean, standard deviation, a representative member per
 * cluster), written to and read from JSON, and used to assign new points
 * without clustering again.
 */
typedef struct dac_mixture
{
	int			k;				/* clusters */
	int			d;				/* dimension */
	int			n;				/* points clustered (noise included) */
	int			noise;			/* of them, noise */
	int			gaussian;		/* mean, sd: the network's θ (1), else the members' */
	char	   *model;			/* the model's name, or NULL */
	int64_t		model_version;	/* 0 when unknown */
	int		   *id;				/* [k] cluster ids */
	int		   *size;			/* [k] members */
	int		   *rep;			/* [k] 1-based ord of the representative, 0 = unknown */
	double	   *mean;			/* [k, d] */
	double	   *sd;				/* [k, d] as reported (0 for a one-point cluster) */
	double	   *sd_eff;			/* [k, d] σ used to assign: see dac_mixture_assign */
	double	   *logw;			/* [k] log(size / Σ size) */
	double	   *lognorm;		/* [k] −Σ_j log sd_eff − (d/2) log 2π */
	double	   *stability;		/* [k] in (0, 1]: the share of rows given the cluster
								 * that would be in it had they been clustered with
								 * the set (1 when not measured) */
	double		temperature;	/* ≥ 1: the posterior's log-odds are divided by it */
	unsigned	stages;			/* the clustering's stages that ran (dac_clustering) */
} dac_mixture;

/*
 * The clusters of c (labels 1 .. num_clusters; 0 = noise, left out) over
 * X [n, d]: ids 1 .. k, sizes, and as mean and sd the network's θ when
 * gaussian (taken back to the caller's units through c's frame when it has
 * one), else the members' mean and standard deviation; the representative
 * of a cluster is its member nearest its mean; the temperature that
 * calibrates dac_mixture_assign's probability (mixture.h has the whole
 * rule).  Empty clusters are left out.
 */
extern dac_status dac_mixture_from_clustering(const dac_real *X, int d, const dac_clustering *c,
											  int gaussian, dac_mixture *mix, dac_error *err);
/* Bytes dac_mixture_from_clustering needs for k clusters of n points of width d, at most. */
extern double dac_mixture_bytes(int n, int d, int k);
extern void dac_mixture_free(dac_mixture *mix);
/* Give the clusters new ids: map[j] for the cluster with id j (1 .. max id). */
extern void dac_mixture_relabel(dac_mixture *mix, const int *map, int max_id);
/* Append the JSON form ({"dac_clustering": 1, ...}; numbers read back the same). */
extern void dac_mixture_to_json(const dac_mixture *mix, dac_strbuf *sb);
/* Read the JSON form back, checking it: DAC_ERR_FORMAT naming what is wrong; DAC_ERR_TOO_LARGE. */
extern dac_status dac_mixture_from_json(const char *text, size_t len, dac_mixture *mix,
										dac_error *err);
/*
 * Assign x [d] to a cluster: the one under whose Gaussian, weighted by its
 * share of the points, x is likeliest.  *prob is that cluster's posterior
 * probability at the mixture's temperature times its stability.  With
 * noise_level > 0, *id = 0 (noise) when a point drawn from that cluster's
 * Gaussian lies at least as far from its mean with probability under
 * noise_level.
 */
extern void dac_mixture_assign(const dac_mixture *mix, const dac_real *x, double noise_level,
							   int *id, double *prob);

/*
 * The stability of each cluster of mix (the mixture of the clustering full
 * of X [n, d], X64 the same rows in double precision or NULL, as the caller
 * clustered them with m and opts): four rows in five clustered again, the
 * fifth assigned, and per cluster the share of rows given it that land
 * where clustering the whole set put them (calibrate.h).
 */
extern dac_status dac_calibrate_split(const dac_model *m, const dac_real *X, const double *X64, int n,
									  int d, const dac_cluster_opts *opts, const dac_clustering *full,
									  int gaussian, dac_mixture *mix, dac_error *err);
/* Bytes dac_calibrate_split needs beyond the clustering of the other rows, at most. */
extern double dac_calibrate_split_bytes(int n, int d, int k);

/* -------------------------------------------------------- generated sets */

/* A random stream (xoshiro256**), seeded. */
typedef struct dac_rng
{
	uint64_t	s[4];
} dac_rng;

extern void dac_rng_seed(dac_rng *r, uint64_t seed);

/* The paper's synthetic data. */
typedef enum
{
	DAC_GEN_MOG = 0, DAC_GEN_WARPED = 1, DAC_GEN_EMBED = 2
} dac_gen_kind;

/* n uniform on {⌊0.3·n_max⌋ … n_max−1} (n_max itself when that range is empty). */
extern int	dac_sample_n(dac_rng *r, int n_max);

/*
 * Fill B sets of n points: X [B*n, dim], labels [B*n] in 0..k−1, k_true [B]
 * (may be NULL): mixtures of Gaussians (MoG), warped mixtures (dim 2) or
 * clusters shaped like those of embeddings (gen.h has the priors).
 * DAC_ERR_NOMEM, or DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_generate(dac_gen_kind kind, dac_rng *r, int B, int n, int k_max,
							   int dim, dac_real *X, int *labels, int *k_true, dac_error *err);
/* Bytes of scratch dac_generate allocates for these sizes, at most (besides X and labels). */
extern double dac_generate_bytes(dac_gen_kind kind, int k_max, int dim);
/*
 * The same, and ll_true [B] (may be NULL): each set's mean log density under
 * the mixture that drew it, the paper's oracle LL; NaN for warped sets.
 */
extern dac_status dac_generate_oracle(dac_gen_kind kind, dac_rng *r, int B, int n, int k_max,
									  int dim, dac_real *X, int *labels, int *k_true,
									  double *ll_true, dac_error *err);

/* ------------------------------------------------------------- training */

/*
 * Labelled vectors to draw training sets from, the way the paper draws sets
 * from embedded ImageNet: pick k <= k_max labels (within one group, when
 * there are groups), then n rows among them.  Opaque.  y[i] in 0..L-1;
 * group[i] in 0..G-1 or group NULL.  Every label must live in one group.
 * X is referenced, not copied.
 */
typedef struct dac_labelled dac_labelled;

extern dac_status dac_labelled_new(const dac_real *X, const int *y, const int *group, int N, int d,
								   dac_labelled **out, dac_error *err);
extern int	dac_labelled_width(const dac_labelled *ds);
extern int	dac_labelled_labels(const dac_labelled *ds);	/* labels (numbered; some may have no rows) */
/*
 * Its groups (1 without groups), the rows of group g, and group g itself:
 * its *n rows into X [size, d] and their labels, numbered 0 .. k−1 within
 * the group, into y [size] (the rows ordered by label).  DAC_ERR_INVALID
 * for a group out of range, DAC_ERR_INTERRUPTED.
 */
extern int	dac_labelled_groups(const dac_labelled *ds);
extern int	dac_labelled_group_size(const dac_labelled *ds, int g);
extern dac_status dac_labelled_group(const dac_labelled *ds, int g, dac_real *X, int *y, int *n,
									 dac_error *err);
extern void dac_labelled_destroy(dac_labelled *ds);
/*
 * Rows a training run holds out to validate on (dac_train's "validate"):
 * when the rows hold DAC_HOLDOUT_MIN_LABELS labels or more, a fifth of them
 * (rounded, at least one) with all their rows, classes the model will not
 * see; when there are DAC_HOLDOUT_MIN_ROWS rows or more, each row of the
 * other labels with probability DAC_HOLDOUT_ROW_SHARE, new rows of classes
 * it sees.  val[i] marks a held-out row: DAC_HELD_LABEL for a row of a
 * label held out whole, DAC_HELD_ROW for a new row of a label the run
 * trains on, 0 for a training row.  *held counts the held-out rows (0: the
 * table is too small to hold anything out, or everything would be held)
 * and *held_labels the labels held out whole.  The choice depends only on
 * y and seed.  y as dac_labelled_new's.
 */
#define DAC_HELD_ROW 1
#define DAC_HELD_LABEL 2
#define DAC_HELD_ASIDE 3		/* kept from training, not scored */
#define DAC_HOLDOUT_MIN_LABELS 5
#define DAC_HOLDOUT_LABEL_SHARE 0.2
#define DAC_HOLDOUT_MIN_ROWS 200
#define DAC_HOLDOUT_ROW_SHARE 0.15
extern dac_status dac_holdout_rows(const int *y, int N, uint64_t seed, unsigned char *val, int *held,
								   int *held_labels, dac_error *err);
/*
 * Rows a run with a group column holds out instead ("validate"): when the
 * rows hold DAC_HOLDOUT_MIN_GROUPS groups or more, a fifth of the groups
 * (rounded) with all their rows, groups the model will cluster without
 * having seen (val DAC_HELD_LABEL), and, when they hold
 * DAC_HOLDOUT_MIN_LABELS label values or more, a fifth of the values (at
 * least one): their rows are held out of every group, so that the held
 * groups hold classes the model has not seen where the values name
 * classes across groups (DAC_HELD_ASIDE outside the held groups: neither
 * trained on nor scored), from the stream dac_holdout_rows draws from.  label [N]: the rows' label values, dense
 * over the table (not within groups).  *held counts the rows,
 * *held_groups and *held_labels what was held; all 0 (every val 0) with
 * fewer groups, or when every row would be held.
 */
#define DAC_HOLDOUT_MIN_GROUPS 10
extern dac_status dac_holdout_groups(const int *group, const int *label, int N, uint64_t seed, unsigned char *val,
									 int *held, int *held_groups, int *held_labels, dac_error *err);
/* dac_labelled_new over the rows i with mask[i] == keep; X is referenced. */
/*
 * The labelled sets of a run that holds rows out (val from
 * dac_holdout_rows or dac_holdout_groups): *train the rows with val 0,
 * *held every held-out row to score (DAC_HELD_ROW or DAC_HELD_LABEL; NULL
 * when none), and *known the new rows of the trained labels (DAC_HELD_ROW)
 * when the held-out rows hold both kinds, else NULL.
 */
extern dac_status dac_holdout_split(const dac_real *X, const int *y, const int *group, int N, int d,
									const unsigned char *val, dac_labelled **train, dac_labelled **held,
									dac_labelled **known, dac_error *err);
extern dac_status dac_labelled_new_subset(const dac_real *X, const int *y, const int *group, int N, int d,
										  const unsigned char *mask, unsigned char keep,
										  dac_labelled **out, dac_error *err);
/*
 * Clusters `sets` sets drawn from ds (dac_sample_labelled_capped, n as
 * dac_sample_n, from seed: the same sets for every model) with co and adds
 * each to e; ari [sets], unless NULL, gets each set's ARI.  X [n_max,
 * width] and y [n_max] are the caller's buffers.
 */
extern dac_status dac_evaluate_labelled(const dac_model *m, dac_labelled *ds, int sets, int n_max, int k_max,
										uint64_t seed, const dac_cluster_opts *co, dac_real *X, int *y,
										dac_eval_sums *e, double *ari, dac_error *err);
/*
 * Clusters each group of ds with rows whole (dac_labelled_group), as
 * dac_cluster clusters a partition, with co, adds each to e and its ARI to
 * ari [groups] (unless NULL), in the groups' order; *sets counts them.  X
 * [largest group, width] and y [largest group] are the caller's buffers.
 */
extern dac_status dac_evaluate_whole_groups(const dac_model *m, const dac_labelled *ds, const dac_cluster_opts *co,
											dac_real *X, int *y, dac_eval_sums *e, double *ari, int *sets,
											dac_error *err);
/*
 * The choices of "validate" and "whiten": 1 when a candidate is ahead of
 * the model it would replace on the same sets (per-set ARIs) by more than
 * ses paired standard errors of the mean difference ("validate": the start
 * against the trained model, 1; "whiten": the best map against none,
 * DAC_WHITEN_SE); within that, or with fewer than 2 sets, 0 (the model
 * stays).  *diff: candidate − model, mean ARI; *se: its standard error.
 */
extern int	dac_validation_prefers(const double *model, const double *candidate, int sets, double ses,
								   double *diff, double *se);
/*
 * dac_tune's own check, as "validate" checks a trained model: among P
 * candidates scored on G groups (scores [P, G], each group's ARI), the
 * choice is the best mean (ties: the earlier candidate).  Each group is
 * scored by the candidate that choice makes on the other G - 1 groups
 * (with one group, candidate 0), against candidate 0, the start, on the
 * same group: *holds 1 when those lead it by more than one paired standard
 * error (dac_validation_prefers), else 0.  *loo_mean: the left-out scores'
 * mean; *diff, *se: their lead and its standard error.  work [P + G]
 * scratch.  DAC_ERR_INTERRUPTED (the host's check, every 1,024 groups).
 */
extern dac_status dac_choice_validated(const double *scores, int P, int G, double *work, double *loo_mean,
									   double *diff, double *se, int *holds);
/*
 * "whiten" (whiten.h): the within-label scatter of train's rows, its
 * whitening map at each ridge of DAC_WHITEN_RIDGES (0.1, 1 and 10 times the
 * mean variance), and m with each map clustering sets dac_evaluate_labelled
 * draws (seed, n_max, k_max, co as for m's own scores).
 *
 * With known (the new rows of the trained labels, when val also holds
 * labels held out whole): a fourth candidate, the projection onto the
 * directions that separate train's labels (dac_lda_map), applied only to
 * groups that look like those labels (its gate's threshold from known's
 * rows); the candidates and m without one cluster sets of known, and the
 * best is kept when it is ahead of m there by more than DAC_WHITEN_SE
 * paired standard errors (the best of four on the same sets is favoured by
 * the choice itself) and, on the sets of every held-out row (val; m's
 * scores base_ari [sets]), is not behind m by more than DAC_WHITEN_GUARD_SE:
 * a map fit on the labels a user labelled serves their new rows, but must
 * not cost the labels the model has not seen.  The projection must also not
 * be behind m by more than DAC_WHITEN_GUARD_SE on large sets of known (3
 * times n_max and k_max, at most DAC_LARGE_N_MAX and DAC_LARGE_K_MAX): it
 * keeps as many directions as the labels less one.  Kept, the groups its
 * gate turns away get the best whitening map for them when that is ahead
 * of the projection alone on val's sets by more than DAC_WHITEN_SE (else
 * they pass as they are), and both are fit again on every row (every,
 * unless NULL), the threshold kept.  Without known (a
 * table holding out only whole labels, or only rows), the three maps are
 * scored on val's sets alone and the best kept by the first test.
 *
 * *chosen is then a new model (dac_model_with_map or
 * dac_model_with_gated_map), else NULL.  rep says each candidate's scores
 * and m's on the choosing sets, the best, its difference from m (map −
 * without, mean ARI) and that difference's standard error, and the guards'.
 * X, y as dac_evaluate_labelled's.  Rows that do not vary within their
 * labels have no map: rep->skipped says so (DAC_OK, *chosen NULL).
 * DAC_ERR_TOO_LARGE when train's rows are wider than DAC_MAX_MAP_DIM;
 * dac_whitening_choose_bytes: what it allocates at most, for a table of
 * that many labels and held-out rows and large sets of n_large points (the
 * caller adds the clustering's memory at n_large).
 */
#define DAC_WHITEN_RIDGES 3
#define DAC_WHITEN_CANDIDATES (DAC_WHITEN_RIDGES + 1)
#define DAC_WHITEN_SE 2.0
#define DAC_WHITEN_GUARD_SE 1.0
#define DAC_LARGE_N_MAX 1000
#define DAC_LARGE_K_MAX 12
#define DAC_GATE_BLOCK 1024
typedef struct dac_whitening_report
{
	double		ridge[DAC_WHITEN_RIDGES];
	dac_eval_sums eval[DAC_WHITEN_CANDIDATES];	/* each candidate on the choosing sets */
	int			candidates;		/* scored: the ridges, and the projection */
	int			known;			/* 1: chosen on the new rows of trained labels */
	dac_eval_sums without;		/* known: m on those sets (else the caller's scores) */
	int			best;			/* the candidate of the best mean ARI (DAC_WHITEN_RIDGES: the projection) */
	int			chosen;			/* the candidate kept, or -1: no map */
	double		diff;			/* best − without, mean ARI */
	double		se;
	dac_eval_sums guard;		/* known: the best on every held-out row */
	double		guard_diff;		/* its ARI − m's there */
	double		guard_se;
	int			lda_classes;	/* the projection: labels it separates */
	double		gate_threshold; /* its gate */
	const char *lda_skipped;	/* why there was no projection to try */
	int			large_n;		/* the projection best: its large sets' n_max, k_max */
	int			large_k;
	dac_eval_sums large;		/* the projection on them, and m */
	dac_eval_sums large_without;
	double		large_diff;		/* projection − m, mean ARI */
	double		large_se;
	dac_eval_sums else_eval[DAC_WHITEN_RIDGES];	/* the projection kept: with each
												 * whitening map for the groups its
												 * gate turns away, on val's sets */
	int			else_best;		/* the best of them, or -1: not tried */
	int			else_kept;
	double		else_diff;		/* its ARI − the projection alone's there */
	double		else_se;
	int			refit;			/* kept and fit again on every row */
	const char *skipped;		/* non-NULL: why no map was tried (rows that do not vary within their labels) */
} dac_whitening_report;

extern dac_status dac_whitening_choose(const dac_model *m, const dac_labelled *train, dac_labelled *val,
									   dac_labelled *known, const dac_labelled *every, int sets, int n_max,
									   int k_max, uint64_t seed, const dac_cluster_opts *co,
									   const double *base_ari, dac_real *X, int *y,
									   dac_whitening_report *rep, dac_model **chosen, dac_error *err);
extern double dac_whitening_choose_bytes(const dac_model *m, int d, int labels, int rows, int n_large);
/* The large sets' n_max for a run's n_max (3 times it, at most DAC_LARGE_N_MAX, at least n_max). */
extern int	dac_whitening_large_n(int n_max);
/*
 * m with the projection onto fit's labels' directions, for groups of its
 * classes only, the gate's threshold from calib's rows (new rows of the
 * same labels; dac-cli project); else_ridge > 0: the groups the gate turns
 * away pass through the whitening map of fit's rows at that ridge (as
 * dac_train's "other groups" map), else as they are.
 */
extern dac_status dac_projection_model(const dac_model *m, const dac_labelled *fit, const dac_labelled *calib,
									   double else_ridge, dac_model **out, dac_error *err);
/* m with the whitening map of ds's rows at one ridge (dac-cli whiten). */
extern dac_status dac_whitening_model(const dac_model *m, const dac_labelled *ds, double ridge, dac_model **out,
									  dac_error *err);
/*
 * One set as dac_sample_labelled draws it, but no row twice: a label's share
 * of the n points is capped at its rows, so the set may be smaller; *got is
 * its size (X [*got, d], labels [*got]).
 */
extern dac_status dac_sample_labelled_capped(dac_labelled *ds, dac_rng *r, int n, int k_max, dac_real *X,
											 int *labels, int *got, dac_error *err);
/* B sets of n points: X [B*n, d], labels [B*n] in 0..k-1 per set. */
extern dac_status dac_sample_labelled(dac_labelled *ds, dac_rng *r, int B, int n, int k_max,
									  dac_real *X, int *labels, dac_error *err);

/* Adam with cosine decay and global-norm clipping. */
typedef struct dac_adam_config
{
	double		lr;				/* peak learning rate (5e-4) */
	double		beta1;			/* 0.9 */
	double		beta2;			/* 0.999 */
	double		eps;			/* 1e-8 */
	double		clip;			/* global norm bound (10); <= 0 disables */
	long		total_steps;	/* cosine decay to 0 over this many steps */
} dac_adam_config;

extern dac_adam_config dac_adam_default(long total_steps);

typedef struct dac_train_opts
{
	dac_gen_kind data;			/* generator of the training sets */
	int			batch;			/* sets per step (B) */
	int			n_max;			/* points per set: n ~ U{0.3·n_max … n_max−1} */
	int			fixed_n;		/* nonzero: every set has exactly n_max points */
	int			k_max;			/* clusters per set at most */
	int			alt_n_max;		/* nonzero: mix steps draw sets with these */
	int			alt_k_max;		/* n_max and k_max instead (a curriculum mix) */
	int			alt_ratio;		/* mix steps per plain step: step s draws the
								 * mix unless s % (alt_ratio + 1) == 0, so 1
								 * (the default) alternates, odd steps mixed */
	long		steps;			/* total steps (the cosine schedule's length) */
	dac_adam_config adam;
	uint64_t	seed;
	dac_labelled *source;		/* draw sets from these rows instead of data */
	double		distort;		/* > 0 (setnorm models): each normalised set
								 * is multiplied by I + distort·G/√w and
								 * normalised again */
	int			data_dim;		/* width of generated sets (0: the model's
								 * dim_input; other widths only for a model
								 * that normalises its input) */
	double		synthetic_share;	/* with a source, 0..1: the chance that a
									 * step's sets are generated (data, at the
									 * source's width) instead of drawn from it;
									 * 0 and 1 draw no number for it */
} dac_train_opts;

extern dac_train_opts dac_train_opts_default(void);
/*
 * The schedule's options from where the host keeps them (steps, batch,
 * n_max, fixed_n, k_max, mix_n_max, mix_k_max, mix_ratio, seed, lr, clip:
 * each checked against dac_train_options), over *to's other fields.
 */
extern dac_status dac_train_opts_read(dac_option_get get, void *ctx, dac_train_opts *to, dac_error *err);
/*
 * The schedule as JSON members for a weights file's training record:
 * "batch": …, "n_max", "k_max", "mix_n_max", "mix_k_max", "mix_ratio",
 * "lr", "clip", "seed", "total_steps" (no braces; the host adds its own).
 */
extern void dac_train_opts_json(const dac_train_opts *to, dac_strbuf *sb);

/* The loss of a step and its two parts (loss = bce − ll). */
typedef struct dac_loss_parts
{
	double		loss;
	double		bce;			/* BCE part (mean of the chosen entries) */
	double		ll;				/* ll part */
} dac_loss_parts;

/* A training run of a model: its optimiser state, batches and RNG.  Opaque. */
typedef struct dac_trainer dac_trainer;

/*
 * Bytes training model with opts needs, at most: the optimiser state, the
 * batch, a step's activations, the set normalisation's scratch and the
 * generator's.
 */
extern double dac_trainer_bytes(const dac_model *model, const dac_train_opts *opts);
/*
 * Set up training of model (which the trainer updates in place).  With
 * init_params, the parameters are drawn from the seed (PyTorch's
 * initialisation) before any data.
 */
extern dac_status dac_trainer_new(dac_model *model, const dac_train_opts *opts, int init_params,
								  dac_trainer **out, dac_error *err);
/* One step on a generated (or labelled) batch. */
extern dac_status dac_trainer_step(dac_trainer *t, dac_loss_parts *out, dac_error *err);
/* Steps done, and the schedule's total. */
extern long dac_trainer_steps_done(const dac_trainer *t);
/* The options the trainer runs with. */
extern const dac_train_opts *dac_trainer_opts(const dac_trainer *t);
/*
 * The trainer goes on with model: its own model's network with an input
 * map added (dac_model_with_map), the optimiser's moments carried over and
 * the map's at 0.  The caller keeps both models; the old one is no longer
 * the trainer's.
 */
extern dac_status dac_trainer_adopt(dac_trainer *t, dac_model *model, dac_error *err);
extern long dac_trainer_steps_total(const dac_trainer *t);
extern void dac_trainer_destroy(dac_trainer *t);
/*
 * The optimiser state (Adam moments, step, RNG) as a safetensors file, and
 * back: a trainer restored from it and the model's weights continues exactly
 * as the saved one would have.
 */
extern dac_status dac_trainer_save_state(const dac_trainer *t, uint8_t **out, size_t *out_len,
										 dac_error *err);
extern dac_status dac_trainer_load_state(dac_trainer *t, const uint8_t *buf, size_t len,
										 dac_error *err);

#endif							/* DAC_H */
