/*
 * cluster.c
 *	  The clustering loop: run the network on the still-unassigned points
 *	  (rows compacted, which equals the authors' key masks), take logit > 0 as
 *	  the next cluster, repeat; then the stages as the stages' table
 *	  (pipeline.c) says.  Around the loop: the canonical order, a large
 *	  group's sample, the turns of a 2-D group.  The metrics are in labels.c.
 */
#include "cluster.h"
#include "stages.h"
#include "pipeline.h"

#include "linalg.h"
#include "mixture.h"
#include "frame.h"
#include "graph.h"
#include "setnorm.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

dac_cluster_opts
dac_cluster_opts_default(void)
{
	dac_cluster_opts o;

	memset(&o, 0, sizeof(o));
	o.canonical = 1;
	o.want_ll = 1;
	o.graph_start = 1;
	/* every option at its table's bare default (test_front.c checks them in range) */
	(void) dac_cluster_opts_read(NULL, NULL, &o, NULL);
	return o;
}

/*
 * The clustering options' fields, by the names of the options' table
 * (dac.h): what dac_cluster_opts_read fills and dac_cluster_opts_json shows.
 */
typedef struct opt_field
{
	const char *name;
	size_t		off;
	char		type;			/* i: int, b: int 0/1, d: double, e: the leftover policy */
} opt_field;

#define FIELD(name, field, type) {name, offsetof(dac_cluster_opts, field), type}
static const opt_field opt_fields[] = {
	FIELD("max_passes", max_passes, 'i'), FIELD("leftover", leftover, 'e'),
	FIELD("min_cluster_size", min_size, 'i'), FIELD("reassign", reassign, 'b'),
	FIELD("em_steps", em_steps, 'i'), FIELD("kmeans_steps", kmeans_steps, 'i'),
	FIELD("k_search", k_search, 'i'), FIELD("graph_neighbors", graph_neighbors, 'i'),
	FIELD("graph_resolution", graph_resolution, 'd'), FIELD("k", k_exact, 'i'),
	FIELD("max_k", k_max, 'i'), FIELD("sample_size", sample_size, 'i'), FIELD("noise", noise, 'd'),
	FIELD("cluster_width", cluster_width, 'd'),
	FIELD("absorb_size", absorb_size, 'i'), FIELD("graph_merge", graph_merge, 'd'),
	FIELD("pair_merge", pair_merge, 'd'), FIELD("rotations", rotations, 'i'),
	FIELD("mode_merge", mode_merge, 'd'),
	FIELD("pair_split", pair_split, 'b'), FIELD("refine_rounds", refine_rounds, 'i'),
};
#undef FIELD
#define NFIELDS ((int) (sizeof(opt_fields) / sizeof(*opt_fields)))

/* co's fields from the options' values v [NFIELDS] */
static void
opts_set(dac_cluster_opts *co, const double *v)
{
	int			i;

	for (i = 0; i < NFIELDS; i++)
	{
		char	   *f = (char *) co + opt_fields[i].off;

		switch (opt_fields[i].type)
		{
			case 'd':
				*(double *) f = v[i];
				break;
			case 'b':
				*(int *) f = v[i] != 0;
				break;
			case 'e':
				/* best, first, own: the enum's order */
				*(dac_leftover_policy *) f = (dac_leftover_policy) v[i];
				break;
			default:
				*(int *) f = (int) v[i];
		}
	}
}

dac_status
dac_cluster_opts_read(dac_option_get get, void *ctx, dac_cluster_opts *co, dac_error *err)
{
	const char *names[NFIELDS];
	double		v[NFIELDS];
	dac_status	st;
	int			i;

	for (i = 0; i < NFIELDS; i++)
		names[i] = opt_fields[i].name;
	if ((st = dac_options_read(dac_cluster_options, names, NFIELDS, get, ctx, 1, v, err)) != DAC_OK)
		return st;
	opts_set(co, v);
	return DAC_OK;
}

dac_status
dac_cluster_opts_model(const dac_model *m, dac_option_get over, void *ctx, dac_cluster_opts *co,
					   dac_error *err)
{
	double		v[NFIELDS];
	int			i;

	for (i = 0; i < NFIELDS; i++)
	{
		const char *name = opt_fields[i].name;
		const char *text = over ? over(ctx, name) : NULL;
		dac_status	st;

		/* the host's, else the model's, else the table's default (dac_option_value of NULL) */
		if (text != NULL || m == NULL || !dac_model_setting(m, name, &v[i]))
			if ((st = dac_option_value(dac_cluster_option(name), text, &v[i], err)) != DAC_OK)
				return st;
	}
	opts_set(co, v);
	return DAC_OK;
}

int
dac_cluster_opts_json(const dac_cluster_opts *co, const char *name, dac_strbuf *sb)
{
	int			i;

	for (i = 0; i < NFIELDS; i++)
		if (strcmp(name, opt_fields[i].name) == 0)
		{
			const char *f = (const char *) co + opt_fields[i].off;

			switch (opt_fields[i].type)
			{
				case 'd':
					dac_strbuf_printf(sb, "%.15g", *(const double *) f);
					break;
				case 'b':
					dac_strbuf_printf(sb, "%s", *(const int *) f ? "true" : "false");
					break;
				case 'e':
					dac_strbuf_json_string(sb, dac_leftover_name(*(const dac_leftover_policy *) f));
					break;
				default:
					dac_strbuf_printf(sb, "%d", *(const int *) f);
			}
			return 1;
		}
	return 0;
}

static const char *const leftover_names[] = {"best", "first", "own"};

const char *
dac_leftover_name(dac_leftover_policy p)
{
	return (unsigned) p < sizeof(leftover_names) / sizeof(*leftover_names) ? leftover_names[p] : "?";
}

int
dac_leftover_parse(const char *name, dac_leftover_policy *p)
{
	unsigned	i;

	for (i = 0; i < sizeof(leftover_names) / sizeof(*leftover_names); i++)
		if (strcmp(name, leftover_names[i]) == 0)
		{
			*p = (dac_leftover_policy) i;
			return 1;
		}
	return 0;
}


/*
 * Whether a clustering of n rows encodes the image model's images once for
 * all its passes: when their features (and a copy for a pass's rows) take at
 * most 2 x 2^25 values.
 */
static int
cache_features(const dac_net *net, int n)
{
	return net->cfg.density == DAC_DENSITY_NS && (double) n * net->head.ns.feat <= (double) (1 << 25);
}

/* Whether opts sends a set of n points through a sample (cluster_sampled). */
static int
use_sample(const dac_model *m, int n, const dac_cluster_opts *opts)
{
	return dac_stage_applies(DAC_STAGE_SAMPLE, m, n, opts);
}

dac_status
dac_gate_beyond(const dac_real *X, int n, int d, const dac_real *G, int lower, const dac_real *means, int L,
				double threshold, dac_real *Y, int *beyond, double *dist, dac_error *err)
{
	int			i0,
				i,
				l,
				k;

	*beyond = 0;
	for (i0 = 0; i0 < n; i0 += DAC_GATE_STEP)
	{
		int			b = n - i0 < DAC_GATE_STEP ? n - i0 : DAC_GATE_STEP;

		/* without dist, a gate that can no longer open is closed: the rest is not read */
		if (dist == NULL && !dac_gate_opens(n, *beyond))
			break;
		if (dac_interrupted())
			return dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the gate of %d points", n);
		/* each row x becomes G x: Y = X Gᵀ, a block of rows at a time */
		if (lower)
			dac_rows_times_lower_t(b, d, G, X + (size_t) i0 * d, Y + (size_t) i0 * d);
		else
			dac_gemm(0, 1, b, d, d, 1, X + (size_t) i0 * d, d, G, d, 0, Y + (size_t) i0 * d, d);
		for (i = i0; i < i0 + b; i++)
		{
			const dac_real *y = Y + (size_t) i * d;
			double		best = INFINITY;

			for (l = 0; l < L; l++)
			{
				const dac_real *m = means + (size_t) l * d;
				double		s = 0;

				for (k = 0; k < d; k++)
					s += ((double) y[k] - m[k]) * ((double) y[k] - m[k]);
				if (s < best)
					best = s;
			}
			/* a row the map sends beyond the numbers' range lies outside every class */
			if (!(best <= threshold))
				(*beyond)++;
			if (dist)
				dist[i] = best;
		}
	}
	return DAC_OK;
}

int
dac_gate_opens(int n, int beyond)
{
	return n > 0 && (double) beyond / n <=
		DAC_GATE_SHARE + 2 * sqrt(DAC_GATE_SHARE * (1 - DAC_GATE_SHARE) / n);
}

double
dac_model_normalise_bytes(const dac_model *m, int n, int dx)
{
	int			w = m->net.cfg.dim_input;

	return (m->net.cfg.map_dim > 0 ? sizeof(dac_real) * (double) n * dx : 0) + dac_setnorm_bytes(n, dx, w);
}

dac_status
dac_model_normalise(const dac_model *m, const dac_real *X, int n, int dx, dac_real *Z, dac_error *err)
{
	const dac_net *net = &m->net;
	const dac_real *map = m->P + net->map;
	int			rows = dac_config_map_rows(&net->cfg),
				lower = (m->lower & DAC_LOWER_MAP) != 0;
	dac_real   *Y;
	dac_status	st;

	if (net->cfg.map_dim == 0)
		return dac_setnorm(X, n, dx, net->cfg.dim_input, Z, err);
	if (dx != net->cfg.map_dim)
		return dac_fail(err, DAC_ERR_INVALID, "the points have %d coordinates, but the model's input map takes %d",
						dx, net->cfg.map_dim);
	if ((Y = dac_alloc(sizeof(dac_real) * (size_t) n * dx)) == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory mapping %d points", n);
	if (net->cfg.gate_classes > 0)
	{
		int			beyond;

		/* a gated map: only a group that looks like the table's classes is mapped */
		if ((st = dac_gate_beyond(X, n, dx, m->P + net->gate, (m->lower & DAC_LOWER_GATE) != 0,
								  m->P + net->gate_means, net->cfg.gate_classes,
								  net->cfg.gate_threshold, Y, &beyond, NULL, err)) != DAC_OK)
		{
			dac_free(Y);
			return st;
		}
		if (!dac_gate_opens(n, beyond))
		{
			if (!net->cfg.map_else)
			{
				dac_free(Y);
				return dac_setnorm(X, n, dx, net->cfg.dim_input, Z, err);
			}
			map = m->P + net->map_else;
			rows = dx;			/* the other groups' map is square */
			lower = (m->lower & DAC_LOWER_ELSE) != 0;
		}
	}
	/* each row x becomes M x: Y = X Mᵀ, rows coordinates; half the work for a whitening */
	if (lower && rows == dx)
		dac_rows_times_lower_t(n, dx, map, X, Y);
	else
		dac_gemm(0, 1, n, rows, dx, 1, X, dx, map, dx, 0, Y, rows);
	{
		size_t		i;
		int			finite = 1;

		for (i = 0; i < (size_t) n * rows; i++)
			finite &= isfinite((double) Y[i]);
		if (!finite)
		{
			dac_free(Y);
			return dac_fail(err, DAC_ERR_INVALID,
							"the model's input map sends these points beyond the range of its numbers");
		}
	}
	st = dac_interrupted() ? dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the mapping of %d points", n) :
		dac_setnorm(Y, n, rows, net->cfg.dim_input, Z, err);
	dac_free(Y);
	return st;
}

double
dac_model_map_flops(const dac_model *m, int n)
{
	double		d = m->net.cfg.map_dim,
				r = dac_config_map_rows(&m->net.cfg),
				map = (m->lower & DAC_LOWER_MAP ? 1.0 : 2.0) * n * d * r;

	/*
	 * the map's product, or the other groups' (square) one when the gate
	 * may send a group there, whichever is larger; and the gate's with its
	 * distances to the classes' means (every row).  An upper bound; a
	 * triangular product is half a general one.
	 */
	if (m->net.cfg.map_else)
		map = fmax(map, (m->lower & DAC_LOWER_ELSE ? 1.0 : 2.0) * n * d * d);
	return (d > 0 ? map : 0) +
		(m->net.cfg.gate_classes > 0 ?
		 (m->lower & DAC_LOWER_GATE ? 1.0 : 2.0) * n * d * d + 3.0 * n * d * m->net.cfg.gate_classes : 0);
}

/*
 * Whether a clustering keeps the rows in their own columns beside the
 * network's coordinates (opts->columns): a set-normalised model, no input
 * map, no more columns than the network's width (a table's).
 */
static int
keeps_columns(const dac_model *m, int dx)
{
	return m->net.cfg.input == DAC_INPUT_SETNORM && m->net.cfg.map_dim == 0 && dx <= m->net.cfg.dim_input;
}

/*
 * Whether the rows a pass leaves are framed again (reframe_left): a scaled
 * 2-D Gaussian MLF model with no width given.
 */
static int
reframes_left(const dac_model *m, const dac_cluster_opts *opts)
{
	const dac_config *cfg = &m->net.cfg;

	return cfg->input == DAC_INPUT_SCALED && dac_config_row_width(cfg) == 2 &&
		cfg->density == DAC_DENSITY_GAUSSIAN && cfg->strategy != DAC_AF && !dac_width_given(m, opts);
}

double
dac_cluster_bytes(const dac_model *m, int n, int dx, const dac_cluster_opts *opts)
{
	const dac_net *net = &m->net;
	double		d = dac_config_row_width(&net->cfg);
	int			setnorm = net->cfg.input == DAC_INPUT_SETNORM;
	double		max_k = dac_pass_cap(m, opts, n);

	/*
	 * (the return) labels, prob, active, tried, and the point indices or
	 * labels that min_size or reassign work on (one at a time); the compacted
	 * rows, θ per cluster (and leftovers'), per-cluster tables (EM's
	 * included); the pass.  Here: the canonical order: a permuted copy of the set, the permutation, the
	 * labels and probabilities put back, the sort keys (16 bytes a row)
	 */
	double		canon = opts->canonical ? (sizeof(dac_real) * n * (double) dx + 7.0 * sizeof(int) * n) : 0;

	/* a normalised model: the normalised rows and the transform's scratch */
	if (setnorm)
		canon += sizeof(dac_real) * n * d + dac_model_normalise_bytes(m, n, dx);
	/*
	 * a scaled model: the rows in double, the framed rows, the order's and
	 * the frame's scratch, the permutation, labels and probabilities
	 */
	if (net->cfg.input == DAC_INPUT_SCALED)
		canon = (sizeof(double) + sizeof(dac_real)) * n * (double) dx + dac_frame_order_bytes(n, dx) +
			dac_frame_bytes(n, dx) + 3.0 * sizeof(int) * n;
	/* a width given: the rows' grid cells and flags (alone_last) */
	if (dac_width_given(m, opts))
		canon += (sizeof(dac_key2) + 1.0) * n;
	/*
	 * the rows left, framed again (reframe_left): their copy in double; the
	 * frame's scratch, counted above, is free again by then
	 */
	if (reframes_left(m, opts))
		canon += sizeof(double) * n * (double) dx;
	/* images: the rows with their noise, and their features kept for the passes */
	if (net->cfg.density == DAC_DENSITY_NS)
		canon += sizeof(dac_real) * n * d;
	if (cache_features(net, n))
		canon += 2.0 * sizeof(dac_real) * n * net->head.ns.feat;
	/*
	 * a flow or images: the rows, densities and accumulators of one cluster's
	 * density over the points (dac_place_points, dac_mixture_ll,
	 * dac_own_sqdist), and dac_head_ll's chunk
	 */
	if (net->cfg.density == DAC_DENSITY_MAF || net->cfg.density == DAC_DENSITY_NS)
	{
		double		scratch,
					kept = dac_head_infer_bytes(&net->head, 1, n < 256 ? n : 256, &scratch);

		double		many_scratch,
					many = dac_head_infer_bytes(&net->head, (int) max_k + 1, 64, &many_scratch);

		canon += sizeof(dac_real) * n * (d + 2) + sizeof(double) * 3.0 * n + sizeof(int) * (double) n
			+ kept + scratch + 64 * 8;
		/* the mixture LL: every cluster over a chunk of 256 rows (dac_head_ll_many) */
		canon += (sizeof(dac_real) * 256 + sizeof(dac_real *) + sizeof(double)) * (max_k + 1) + many + many_scratch;
	}
	/* what the stages that apply need beside the loop's own (the stages' table) */
	/* the distinct rows: a copy of the set, at most (the rest: the stage's own bytes) */
	if (opts->canonical)
		canon += sizeof(double) * n * (double) dx;
	canon += dac_stages_bytes(m, n, dx, opts);
	return canon + 5.0 * sizeof(int) * n + sizeof(dac_real) * (n * d + (max_k + 1) * dac_net_theta_dim(net))
		+ (max_k + 1) * (2 * sizeof(int) + sizeof(double) * (5 + 5 * d) + 1) + sizeof(double) * d
		+ (use_sample(m, n, opts) ?
		   sizeof(dac_real) * (double) opts->sample_size * (d + (keeps_columns(m, dx) ? dx : 0)) +
		   sizeof(double) * ((max_k + 1) * d + DAC_NEAREST_TILE * d) +
		   dac_net_infer_bytes(net, 1, opts->sample_size) : dac_net_infer_bytes(net, 1, n)) + 64 * 8;
}

void
dac_clustering_free(dac_clustering *c)
{
	dac_free(c->labels);
	dac_free(c->prob);
	dac_free(c->theta);
	dac_free(c->frame_center);
	c->labels = NULL;
	c->prob = NULL;
	c->theta = NULL;
	c->frame_center = NULL;
}
/*
 * An anchored-filtering pass's anchor: the first of the nact rows active[]
 * (in the canonical order) not yet tried in vain; -1 when every one was.
 * Random anchors, the authors' choice, cluster no better (docs/quality.md).
 */
static int
pick_anchor(const int *active, int nact, const int *tried)
{
	int			j;

	for (j = 0; j < nact; j++)
		if (!tried[active[j]])
			return j;
	return -1;
}

/*
 * One more pass over the nact rows active[] alone, its θ in the slot after
 * the last cluster (sub [nact, d]: scratch).
 */
static dac_status
rest_pass(const dac_model *m, const dac_real *X, int d, const int *active, int nact, dac_real *sub,
		  dac_arena *ar, dac_clustering *out, dac_error *err)
{
	dac_arena_mark empty = {NULL, 0, 0};
	dac_forward fw;
	int			j,
				anchor = 0;
	dac_status	st;

	for (j = 0; j < nact; j++)
		memcpy(sub + (size_t) j * d, X + (size_t) active[j] * d, sizeof(dac_real) * d);
	dac_arena_reset_to(ar, empty);
	st = dac_net_infer_logits(&m->net, m->P, m->F, sub, NULL, 1, nact,
							  m->net.cfg.strategy == DAC_AF ? &anchor : NULL, ar, &fw, err);
	out->num_passes++;
	if (st == DAC_OK)
		memcpy(out->theta + (size_t) out->num_clusters * out->theta_dim, fw.theta,
			   sizeof(dac_real) * out->theta_dim);
	return st;
}

/*
 * A grid cell's coordinate as a key that sorts as the integer does (cells
 * past ±4·10^18 share the last: their rows are told apart by distance)
 */
static uint64_t
cell_key(double v, double radius)
{
	return (uint64_t) (int64_t) fmin(fmax(floor(v / radius), -4e18), 4e18) ^ UINT64_C(0x8000000000000000);
}

/*
 * Images: each image encoded once for every pass, when the features fit
 * (cache_features): *feat [n, feat] and scratch *subfeat for a pass's rows;
 * both NULL otherwise.
 */
static dac_status
pass_features(const dac_model *m, const dac_real *X, int n, dac_real **feat, dac_real **subfeat, dac_error *err)
{
	const dac_net *net = &m->net;
	size_t		fw = (size_t) net->head.ns.feat;

	if (!cache_features(net, n))
		return DAC_OK;
	*feat = dac_alloc(sizeof(dac_real) * (size_t) n * fw);
	*subfeat = dac_alloc(sizeof(dac_real) * (size_t) n * fw);
	if (!*feat || !*subfeat)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d images", n);
	return dac_net_features(net, m->P, X, n, *feat, err);
}

/*
 * With a cluster width given (2-D, framed X [n, 2]: the width is the
 * model's unit_width here): the rows with no other row within
 * DAC_WIDTH_ALONE widths go last in active [n], the rest first in their
 * order; returns how many are not alone.  At that width such a row shares
 * a cluster with none, and a pass would only group it at random with others
 * alone (the network never saw a set so sparse).  A grid of cells one radius
 * wide finds each row's neighbours in its own and the 8 cells about it.
 * The count of rows not alone goes to *near_rows.
 */
static dac_status
alone_last(const dac_real *X, int n, double radius, int *active, int *near_rows, dac_error *err)
{
	dac_key2   *g = dac_alloc(sizeof(dac_key2) * (size_t) (n ? n : 1));
	char	   *alone = dac_alloc_zero((size_t) (n ? n : 1));
	int			i,
				k = 0,
				a = 0;

	if (g == NULL || alone == NULL)
	{
		dac_free(g);
		dac_free(alone);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
	}
	for (i = 0; i < n; i++)
	{
		g[i].a = cell_key(X[2 * i], radius);
		g[i].b = cell_key(X[2 * i + 1], radius);
		g[i].idx = i;
	}
	qsort(g, n, sizeof(dac_key2), dac_cmp_key2);
	for (i = 0; i < n; i++)
	{
		int			near = 0,
					dx,
					dy;

		if (i % 1024 == 1023 && dac_interrupted())
		{
			dac_free(g);
			dac_free(alone);
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		}
		for (dx = -1; dx <= 1 && !near; dx++)
			for (dy = -1; dy <= 1 && !near; dy++)
			{
				dac_key2	key = {g[i].a + (uint64_t) (int64_t) dx, g[i].b + (uint64_t) (int64_t) dy, -1};
				int			lo = 0,
							hi = n,
							j;

				/* the first row of the cell (rows of a cell sort by row, all > -1) */
				while (lo < hi)
				{
					int			mid = lo + (hi - lo) / 2;

					if (dac_cmp_key2(&g[mid], &key) < 0)
						lo = mid + 1;
					else
						hi = mid;
				}
				for (j = lo; j < n && g[j].a == key.a && g[j].b == key.b && !near; j++)
				{
					double		ux = (double) X[2 * g[j].idx] - X[2 * g[i].idx],
								uy = (double) X[2 * g[j].idx + 1] - X[2 * g[i].idx + 1];

					near = g[j].idx != g[i].idx && ux * ux + uy * uy <= radius * radius;
				}
			}
		alone[g[i].idx] = !near;
	}
	for (i = 0; i < n; i++)
		if (!alone[i])
			active[k++] = i;
	for (i = 0; i < n; i++)
		if (alone[i])
			active[k + a++] = i;
	dac_free(g);
	dac_free(alone);
	*near_rows = k;
	return DAC_OK;
}

/*
 * The rows no pass selected, framed again as a set of their own: a scaled
 * model sees each set at the width its rows give, and the rows a pass
 * leaves are such a set (their widths may differ from the group's).  The
 * frame of X's rows active [nact] (X in the group's frame) goes to c [2]
 * and *s; 0 and 1 where the rows have no spread.
 */
static dac_status
reframe_left(const dac_model *m, const dac_real *X, int d, const int *active, int nact, double *c,
			 double *s, dac_error *err)
{
	double	   *Y = dac_alloc(sizeof(double) * (size_t) nact * d);
	dac_frame	f;
	dac_status	st;
	int			i,
				k;

	if (Y == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", nact);
	for (i = 0; i < nact; i++)
		for (k = 0; k < d; k++)
			Y[(size_t) i * d + k] = X[(size_t) active[i] * d + k];
	memset(&f, 0, sizeof(f));
	st = dac_frame_fit(Y, NULL, nact, d, m->net.cfg.unit_width, 0, &f, err);
	for (k = 0; st == DAC_OK && k < d; k++)
		c[k] = f.center != NULL ? f.center[k] : 0;
	if (st == DAC_OK)
		*s = f.center != NULL && f.scale > 0 && isfinite(f.scale) ? f.scale : 1;
	dac_frame_free(&f);
	dac_free(Y);
	return st;
}

static dac_status
cluster_in_order(const dac_model *m, const dac_real *X, int n, const dac_cluster_opts *opts,
				 dac_clustering *out, dac_error *err)
{
	const dac_net *net = &m->net;
	int			d = dac_config_row_width(&net->cfg);
	int			tdim = dac_net_theta_dim(net);
	int			is_af = net->cfg.strategy == DAC_AF;
	/* a density whose θ only the network gives: the flow, the image model */
	int			flow = net->cfg.density == DAC_DENSITY_MAF || net->cfg.density == DAC_DENSITY_NS;
	dac_density_ref dr = {dac_head_has_density(&net->head) ? &net->head : NULL, m->P};
	int			rest_theta = 0; /* the θ slot after the last cluster holds the
								 * θ of a pass over exactly the points left */
	int		   *active,
			   *tried = NULL;
	dac_real   *sub,
			   *feat = NULL,
			   *subfeat = NULL;
	int			nact = n,
				nalone = 0,
				i,
				k,
				max_k;
	/*
	 * A scaled 2-D Gaussian model with no width given: when a pass selects
	 * nothing, the rows left are framed again (rc, rs: Z' = (Z − rc) · rs)
	 * and passed once more; θ goes back to the group's frame.
	 */
	int			reframe = reframes_left(m, opts),
				reframed = 0,
				moved = 0;
	double		rc[2] = {0, 0},
				rs = 1;
	dac_arena	ar;
	dac_status	st = DAC_OK;
	double		flops0 = dac_gemm_flops;

	/* n, max_passes and the memory limit were checked by dac_cluster_set */
	memset(out, 0, sizeof(*out));
	max_k = dac_pass_cap(m, opts, n);
	/* one arena block sized for the first (largest) pass serves them all */
	dac_arena_init(&ar, (size_t) dac_net_infer_bytes(net, 1, n));
	out->n = n;
	out->theta_dim = tdim;
	out->labels = dac_alloc_zero(sizeof(int) * (size_t) n);
	out->prob = dac_alloc_zero(sizeof(float) * (size_t) n);
	out->theta = dac_alloc_zero(sizeof(dac_real) * ((size_t) max_k + 1) * tdim);
	active = dac_alloc(sizeof(int) * (size_t) n);
	sub = dac_alloc(sizeof(dac_real) * (size_t) n * d);
	if (is_af)
		tried = dac_alloc_zero(sizeof(int) * (size_t) n);
	if (!out->labels || !out->prob || !out->theta || !active || !sub || (is_af && !tried))
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
		goto done;
	}
	if ((st = pass_features(m, X, n, &feat, &subfeat, err)) != DAC_OK)
		goto done;
	for (i = 0; i < n; i++)
		active[i] = i;
	/* a width given: rows alone at it wait at the end for the leftover stage */
	if (dac_width_given(m, opts) && d == 2)
	{
		if ((st = alone_last(X, n, DAC_WIDTH_ALONE * net->cfg.unit_width, active, &nact, err)) != DAC_OK)
			goto done;
		nalone = n - nact;
	}

	while (nact > 0 && (out->num_passes < opts->max_passes || dac_width_given(m, opts)) &&
		   out->num_clusters < max_k)
	{
		dac_arena_mark empty = {NULL, 0, 0};
		dac_forward fw;
		int			anchor = 0,
					sel = 0,
					j;

		if (is_af && (anchor = pick_anchor(active, nact, tried)) < 0)
			break;
		for (j = 0; j < nact; j++)
			memcpy(sub + (size_t) j * d, X + (size_t) active[j] * d, sizeof(dac_real) * d);
		for (j = 0; moved && j < nact * d; j++)
			sub[j] = (dac_real) ((sub[j] - rc[j % 2]) * rs);
		for (j = 0; feat && j < nact; j++)
			memcpy(subfeat + (size_t) j * net->head.ns.feat, feat + (size_t) active[j] * net->head.ns.feat,
				   sizeof(dac_real) * net->head.ns.feat);
		dac_arena_reset_to(&ar, empty);
		st = dac_net_infer_logits(net, m->P, m->F, sub, feat ? subfeat : NULL, 1, nact,
								  is_af ? &anchor : NULL, &ar, &fw, err);
		out->num_passes++;
		if (st != DAC_OK)
			goto done;
		for (j = 0; j < nact; j++)
		{
			/* membership probability: of the selecting pass, else the highest seen */
			double		p = 1 / (1 + exp(-(double) fw.logits[j]));

			if (p > out->prob[active[j]] || fw.logits[j] > 0)
				out->prob[active[j]] = (float) p;
			if (fw.logits[j] > 0)
				sel++;
		}
		memcpy(out->theta + (size_t) out->num_clusters * tdim, fw.theta, sizeof(dac_real) * tdim);
		if (moved)
			for (j = 0; j < d; j++)
			{
				dac_real   *th = out->theta + (size_t) out->num_clusters * tdim;

				th[j] = (dac_real) (th[j] / rs + rc[j]);
				th[d + j] = (dac_real) (th[d + j] / rs);
			}
		if (sel == 0)
		{
			rest_theta = 1;
			if (reframe && !reframed && nact >= 2)
			{
				/* the rows left, as a set of their own: one more pass in their frame */
				if ((st = reframe_left(m, X, d, active, nact, rc, &rs, err)) != DAC_OK)
					goto done;
				reframed = 1;
				moved = 1;
				continue;
			}
			if (!is_af)
				break;			/* deterministic: it would select nothing forever */
			tried[active[anchor]] = 1;
			continue;
		}
		rest_theta = 0;
		reframed = 0;
		out->num_clusters++;
		k = 0;
		for (j = 0; j < nact; j++)
		{
			if (fw.logits[j] > 0)
				out->labels[active[j]] = out->num_clusters;
			else
				active[k++] = active[j];
		}
		nact = k;
		dac_progress("network passes, rows in a cluster", n - nact, n);
	}

	/*
	 * A flow's θ cannot be fitted to points by hand: the points no pass
	 * selected, when they become a cluster, take the θ of one more pass over
	 * them alone (that of a pass that selected nothing from them, if any).
	 */
	if (flow && nact > 0 && !rest_theta &&
		(opts->leftover == DAC_LEFTOVER_OWN || out->num_clusters == 0) &&
		(st = rest_pass(m, X, d, active, nact, sub, &ar, out, err)) != DAC_OK)
		goto done;
	dac_arena_free(&ar);
	/* the rows alone join the rows no pass selected */
	memmove(active + nact, active + n - nalone, sizeof(int) * (size_t) nalone);
	nact += nalone;
	out->leftover = nact;
	out->stages |= 1u << DAC_STAGE_PASSES;

	/* the stages after the passes, as the stages' table says */
	{
		dac_stage_run sr = {.m = m, .X = X, .n = n, .d = d, .opts = opts, .dr = dr,
		.left = active, .nleft = nact, .out = out};

		st = dac_stages_run(&sr, err);
	}
done:
	dac_arena_free(&ar);
	out->flops = dac_gemm_flops - flops0;
	dac_free(active);
	dac_free(sub);
	dac_free(feat);
	dac_free(subfeat);
	dac_free(tried);
	if (st != DAC_OK)
		dac_clustering_free(out);
	return st;
}

/*
 * cluster_in_order, and with opts->rotations R > 1 (rotates): the set also
 * turned about its mean by 360°·j/R, j = 1 .. R − 1, each clustered; the
 * clustering of the highest LL is kept (a turn keeps volumes, so the LL of
 * the set as given under "turn, then the mixture" is the turned set's, and
 * the LLs compare).  Its θ stay those of the turned frame (out->turned = j);
 * dac_mixture_from_clustering then describes its clusters by their members.
 */
static dac_status
cluster_oriented(const dac_model *m, const dac_real *X, int n, const dac_cluster_opts *opts,
				 dac_clustering *out, dac_error *err)
{
	dac_cluster_opts o = *opts;
	dac_real   *R;
	double		cx = 0,
				cy = 0;
	int			i,
				j;
	dac_status	st;

	if (!dac_stage_applies(DAC_STAGE_ROTATIONS, m, n, opts))
		return cluster_in_order(m, X, n, opts, out, err);
	o.want_ll = 1;
	if ((st = cluster_in_order(m, X, n, &o, out, err)) != DAC_OK)
		return st;
	if ((R = dac_alloc(sizeof(dac_real) * (size_t) n * 2)) == NULL)
	{
		dac_clustering_free(out);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
	}
	for (i = 0; i < n; i++)
	{
		cx += X[2 * i];
		cy += X[2 * i + 1];
	}
	cx /= n;
	cy /= n;
	for (j = 1; j < opts->rotations; j++)
	{
		double		a = 2 * M_PI * j / opts->rotations,
					c = cos(a),
					s = sin(a),
					flops;
		int			passes;
		dac_clustering alt;

		for (i = 0; i < n; i++)
		{
			double		dx = X[2 * i] - cx,
						dy = X[2 * i + 1] - cy;

			R[2 * i] = (dac_real) (cx + c * dx - s * dy);
			R[2 * i + 1] = (dac_real) (cy + s * dx + c * dy);
		}
		if ((st = cluster_in_order(m, R, n, &o, &alt, err)) != DAC_OK)
		{
			dac_clustering_free(out);
			dac_free(R);
			return st;
		}
		passes = out->num_passes + alt.num_passes;
		flops = out->flops + alt.flops;
		if (alt.ll > out->ll || (isnan(out->ll) && !isnan(alt.ll)))
		{
			dac_clustering_free(out);
			*out = alt;
			out->turned = j;
		}
		else
			dac_clustering_free(&alt);
		out->num_passes = passes;
		out->flops = flops;
	}
	out->stages |= 1u << DAC_STAGE_ROTATIONS;
	dac_free(R);
	return DAC_OK;
}

/*
 * A large set through a sample (opts->sample_size): the network clusters
 * every (n/S)-th row, each row goes to the nearest centroid of the sample's
 * clusters in the coordinates the network saw (X [n, w]), and k-means steps
 * refine the clusters over all rows.  Rows outside the sample get
 * probability 1 (no pass selected them).  θ are the sample's.
 */
static dac_status
cluster_sampled(const dac_model *m, const dac_real *X, int n, const dac_cluster_opts *opts,
				dac_clustering *out, dac_error *err)
{
	int			w = m->net.cfg.dim_input,
				S = opts->sample_size,
				K,
				i;
	dac_real   *Xs,
			   *Cs = NULL;
	double	   *cen = NULL;
	int		   *cnt = NULL;
	dac_cluster_opts so = *opts;
	dac_clustering cs;
	dac_status	st;

	memset(out, 0, sizeof(*out));
	Xs = dac_alloc(sizeof(dac_real) * (size_t) S * w);
	if (opts->columns)
		Cs = dac_alloc(sizeof(dac_real) * (size_t) S * opts->columns_d);
	if (Xs == NULL || (opts->columns && Cs == NULL))
	{
		dac_free(Xs);
		dac_free(Cs);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory sampling %d of %d points", S, n);
	}
	for (i = 0; i < S; i++)
	{
		int64_t		r = (int64_t) i * n / S;

		memcpy(Xs + (size_t) i * w, X + (size_t) r * w, sizeof(dac_real) * w);
		if (Cs)
			memcpy(Cs + (size_t) i * opts->columns_d, opts->columns + (size_t) r * opts->columns_d,
				   sizeof(dac_real) * opts->columns_d);
	}
	so.sample_size = 0;
	so.columns = Cs;
	dac_progress("a sample clustered first, its rows", S, n);
	st = cluster_in_order(m, Xs, S, &so, &cs, err);
	dac_free(Cs);
	if (st != DAC_OK)
	{
		dac_free(Xs);
		return st;
	}
	K = cs.num_clusters;
	out->n = n;
	out->labels = dac_alloc(sizeof(int) * (size_t) n);
	out->prob = dac_alloc(sizeof(float) * (size_t) n);
	cen = dac_alloc_zero(sizeof(double) * ((size_t) (K > 0 ? K : 1) * w + DAC_NEAREST_TILE * (size_t) w));
	cnt = dac_alloc_zero(sizeof(int) * (size_t) (K > 0 ? K : 1));
	if (out->labels == NULL || out->prob == NULL || cen == NULL || cnt == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory assigning %d points", n);
		goto done;
	}
	dac_centroids(Xs, S, w, cs.labels, K, cen, cnt);
	/* every row to the nearest of the sample's clusters (1 where none has members), 65,536 at a time */
	for (i = 0; i < n; i += 65536)
	{
		int			rows = n - i < 65536 ? n - i : 65536,
					r,
					moved;

		dac_progress("rows assigned to the sample's clusters", i, n);
		for (r = 0; r < rows; r++)
		{
			out->labels[i + r] = 1;
			out->prob[i + r] = 1;
		}
		if (dac_nearest_means(X + (size_t) i * w, rows, w, cen, cnt, K, cen + (size_t) (K > 0 ? K : 1) * w,
							  out->labels + i, &moved) != DAC_OK)
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			goto done;
		}
	}
	for (i = 0; i < S; i++)
		out->prob[(int64_t) i * n / S] = cs.prob[i];
	out->num_clusters = K;
	out->num_passes = cs.num_passes;
	out->leftover = cs.leftover;
	out->dissolved = cs.dissolved;
	out->stages = cs.stages | 1u << DAC_STAGE_SAMPLE;
	out->theta_dim = cs.theta_dim;
	out->theta = cs.theta;
	cs.theta = NULL;
	out->ll = NAN;
	out->flops = cs.flops;
	st = dac_clustering_kmeans(X, w, out, opts->kmeans_steps);
	if (st != DAC_OK)
		st = dac_fail(err, st, st == DAC_ERR_INTERRUPTED ? "interrupted" : "out of memory refining %d points", n);
done:
	dac_clustering_free(&cs);
	dac_free(Xs);
	dac_free(cen);
	dac_free(cnt);
	if (st != DAC_OK)
		dac_clustering_free(out);
	return st;
}


/*
 * Labels and probabilities of a set clustered in the order perm back to the
 * caller's order, through the scratch lab [n] and pr [n].
 */
static void
unpermute(dac_clustering *out, const int *perm, int *lab, float *pr)
{
	int			i;

	for (i = 0; i < out->n; i++)
	{
		lab[perm[i]] = out->labels[i];
		pr[perm[i]] = out->prob[i];
	}
	memcpy(out->labels, lab, sizeof(int) * (size_t) out->n);
	memcpy(out->prob, pr, sizeof(float) * (size_t) out->n);
}

/* The checks every clustering entry makes before it allocates. */
static dac_status
check_set(const dac_model *m, int n, int dx, const dac_cluster_opts *opts, dac_error *err)
{
	double		need;

	if (n < 1)
		return dac_fail(err, DAC_ERR_INVALID, "cannot cluster an empty set");
	if (!dac_config_accepts(&m->net.cfg, dx))
		return dac_fail(err, DAC_ERR_INVALID, "the points have %d coordinates, but the model takes %d",
						dx, m->net.cfg.map_dim > 0 ? m->net.cfg.map_dim : m->net.cfg.dim_input);
	if (opts->max_passes < 1)
		return dac_fail(err, DAC_ERR_INVALID, "max_passes must be at least 1");
	need = dac_cluster_bytes(m, n, dx, opts);
	if (opts->mem_limit > 0 && need > (double) opts->mem_limit)
		return dac_fail(err, DAC_ERR_TOO_LARGE,
						"clustering %d points of dimension %d needs %.0f kB, more than the limit of %.0f kB",
						n, dx, ceil(need / 1024), floor((double) opts->mem_limit / 1024));
	return DAC_OK;
}

/*
 * A model whose input is "scaled": the set in its units-free canonical
 * order, measured (dac_frame_fit; its width opts->cluster_width where
 * given) and moved into the network's frame in
 * double precision, clustered there; labels and probabilities go back to
 * the caller's order, the frame stays with θ, and the LL is the caller's
 * units' (a density over x is the network's over z times scale^d).
 */
static dac_status
cluster_scaled(const dac_model *m, const double *X, int n, int d, const dac_cluster_opts *opts,
			   dac_clustering *out, dac_error *err)
{
	int		   *perm = NULL,
			   *lab = NULL;
	float	   *pr = NULL;
	dac_real   *Z = NULL;
	dac_frame	f;
	dac_status	st;

	memset(&f, 0, sizeof(f));
	if (opts->canonical && n >= 2)
	{
		perm = dac_alloc(sizeof(int) * (size_t) n);
		lab = dac_alloc(sizeof(int) * (size_t) n);
		pr = dac_alloc(sizeof(float) * (size_t) n);
		if (perm == NULL || lab == NULL || pr == NULL)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
			goto done;
		}
		if ((st = dac_frame_order(X, n, d, perm, err)) != DAC_OK)
			goto done;
	}
	if ((st = dac_frame_fit(X, perm, n, d, m->net.cfg.unit_width, opts->cluster_width, &f, err)) != DAC_OK)
		goto done;
	Z = dac_alloc(sizeof(dac_real) * (size_t) n * d);
	if (Z == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
		goto done;
	}
	dac_frame_apply(&f, X, perm, n, Z);
	st = use_sample(m, n, opts) ? cluster_sampled(m, Z, n, opts, out, err) :
		cluster_oriented(m, Z, n, opts, out, err);
	if (st != DAC_OK)
		goto done;
	if (perm != NULL)
		unpermute(out, perm, lab, pr);
	out->ll += d * log(f.scale);
	out->frame_center = f.center;
	out->frame_scale = f.scale;
	f.center = NULL;
done:
	dac_frame_free(&f);
	dac_free(perm);
	dac_free(lab);
	dac_free(pr);
	dac_free(Z);
	return st;
}

static dac_status cluster_rows(const dac_model *m, const dac_real *X, int n, int dx,
							   const dac_cluster_opts *opts, dac_clustering *out, dac_error *err);

/* The rows in double precision: a "scaled" model frames them so, the others take them in dac_real. */
static dac_status
cluster_rows_f64(const dac_model *m, const double *X, int n, int dx, const dac_cluster_opts *opts,
				 dac_clustering *out, dac_error *err)
{
	dac_real   *Xf;
	dac_status	st;
	int			i;

	memset(out, 0, sizeof(*out));
	if ((st = check_set(m, n, dx, opts, err)) != DAC_OK)
		return st;
	if (m->net.cfg.input == DAC_INPUT_SCALED)
		return cluster_scaled(m, X, n, dx, opts, out, err);
	Xf = dac_alloc(sizeof(dac_real) * (size_t) n * dx);
	if (Xf == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
	for (i = 0; i < n * dx; i++)
		Xf[i] = (dac_real) X[i];
	st = cluster_rows(m, Xf, n, dx, opts, out, err);
	dac_free(Xf);
	return st;
}

/*
 * The loop above, after the checks, on the rows in their canonical order
 * (opts->canonical), so that the same rows in any order give the same
 * clusters, ids and θ; the labels and probabilities then go back to the
 * caller's order.
 */
static dac_status
cluster_rows(const dac_model *m, const dac_real *X, int n, int dx, const dac_cluster_opts *opts,
			 dac_clustering *out, dac_error *err)
{
	int			w = m->net.cfg.dim_input,
				setnorm = m->net.cfg.input == DAC_INPUT_SETNORM,
				image = m->net.cfg.density == DAC_DENSITY_NS && dx == m->net.cfg.dim_input,
				i;
	int		   *perm = NULL,
			   *lab = NULL;
	float	   *pr = NULL;
	dac_real   *Xc = NULL,
			   *Z = NULL;
	const dac_real *in = X;
	dac_status	st;
	double		norm_flops = 0;
	dac_cluster_opts o = *opts;

	memset(out, 0, sizeof(*out));
	opts = &o;					/* o.columns: set below for a table's few columns */
	if ((st = check_set(m, n, dx, opts, err)) != DAC_OK)
		return st;
	if (image && (st = dac_ns_check_pixels(X, (size_t) n * dx, err)) != DAC_OK)
		return st;
	if (m->net.cfg.input == DAC_INPUT_SCALED)
	{
		double	   *Xd = dac_alloc(sizeof(double) * (size_t) n * dx);

		if (Xd == NULL)
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
		for (i = 0; i < n * dx; i++)
			Xd[i] = X[i];
		st = cluster_scaled(m, Xd, n, dx, opts, out, err);
		dac_free(Xd);
		return st;
	}
	if (!setnorm && !image && (!opts->canonical || n < 2))
		return use_sample(m, n, opts) ? cluster_sampled(m, X, n, opts, out, err) :
			cluster_oriented(m, X, n, opts, out, err);

	if (opts->canonical && n >= 2)
	{
		perm = dac_alloc(sizeof(int) * (size_t) n);
		lab = dac_alloc(sizeof(int) * (size_t) n);
		pr = dac_alloc(sizeof(float) * (size_t) n);
		Xc = dac_alloc(sizeof(dac_real) * (size_t) n * dx);
		if (perm == NULL || lab == NULL || pr == NULL || Xc == NULL ||
			dac_canonical_order(X, n, dx, perm) != DAC_OK)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
			goto done;
		}
		for (i = 0; i < n; i++)
			memcpy(Xc + (size_t) i * dx, X + (size_t) perm[i] * dx, sizeof(dac_real) * dx);
		in = Xc;
	}
	if (setnorm)
	{
		Z = dac_alloc(sizeof(dac_real) * (size_t) n * w);
		if (Z == NULL)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
			goto done;
		}
		if ((st = dac_model_normalise(m, in, n, dx, Z, err)) != DAC_OK)
			goto done;
		norm_flops = dac_setnorm_flops(n, dx, w) + dac_model_map_flops(m, n);
		if (keeps_columns(m, dx))
		{
			/* a table's few columns: the one-cluster test reads their ranks */
			o.columns = in;
			o.columns_d = dx;
		}
		else
		{
			dac_free(Xc);		/* the normalised rows replace the copy */
			Xc = NULL;
		}
		in = Z;
	}
	if (image)
	{
		/*
		 * Each image's noise, drawn in the canonical order from the seed: the
		 * same images in any order are clustered with the same draws.
		 */
		Z = dac_alloc(sizeof(dac_real) * (size_t) n * dac_config_row_width(&m->net.cfg));
		if (Z == NULL)
		{
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d images", n);
			goto done;
		}
		if (dac_ns_rows(&m->net.head.ns, in, n, DAC_NS_CLUSTER_SEED, Z) != DAC_OK)
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the clustering of %d images", n);
			goto done;
		}
		dac_free(Xc);
		Xc = NULL;
		in = Z;
	}
	/* cluster_in_order counts its own products; the normalisation's come on top */
	st = use_sample(m, n, opts) ? cluster_sampled(m, in, n, opts, out, err) :
		cluster_oriented(m, in, n, opts, out, err);
	out->flops += norm_flops;
	if (st == DAC_OK && perm != NULL)
		unpermute(out, perm, lab, pr);
done:
	dac_free(perm);
	dac_free(lab);
	dac_free(pr);
	dac_free(Xc);
	dac_free(Z);
	return st;
}

/*
 * The set's distinct rows (opts->canonical): rows whose bytes are equal are
 * clustered once, as one row, and each copy gets that row's label and
 * probability, so that repeating rows never changes the partition of the
 * distinct ones.  X or X64 (double precision) holds the set.
 */
static dac_status
cluster_distinct(const dac_model *m, const dac_real *X, const double *X64, int n, int dx,
				 const dac_cluster_opts *opts, dac_clustering *out, dac_error *err)
{
	size_t		rb = (X64 ? sizeof(double) : sizeof(dac_real)) * (size_t) dx;
	const unsigned char *in = X64 ? (const unsigned char *) X64 : (const unsigned char *) X;
	unsigned char *Xd = NULL;
	int		   *map = NULL,
			   *lab = NULL,
				nd = n,
				next = 0,
				i;
	float	   *pr = NULL;
	dac_status	st;

	dac_cluster_opts o = *opts;

	/* the rows' own columns are the core's to set (cluster_rows), never a caller's */
	o.columns = NULL;
	o.columns_d = 0;
	opts = &o;
	memset(out, 0, sizeof(*out));
	if ((st = check_set(m, n, dx, opts, err)) != DAC_OK)
		return st;
	if (opts->canonical && n >= 2)
	{
		map = dac_alloc(sizeof(int) * (size_t) n);
		if (map == NULL)
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
		if ((st = dac_distinct_rows(in, n, rb, map, &nd)) != DAC_OK)
		{
			dac_free(map);
			return st == DAC_ERR_INTERRUPTED ?
				dac_fail(err, st, "canceling the clustering of %d points", n) :
				dac_fail(err, st, "out of memory clustering %d points", n);
		}
	}
	if (nd == n)
	{
		/* none repeats: the stage ran (when it applies) and changed nothing */
		st = X64 ? cluster_rows_f64(m, X64, n, dx, opts, out, err) : cluster_rows(m, X, n, dx, opts, out, err);
		if (st == DAC_OK && map != NULL)
			out->stages |= 1u << DAC_STAGE_DISTINCT;
		dac_free(map);
		return st;
	}
	Xd = dac_alloc(rb * (size_t) nd);
	lab = dac_alloc(sizeof(int) * (size_t) n);
	pr = dac_alloc(sizeof(float) * (size_t) n);
	if (Xd == NULL || lab == NULL || pr == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d points", n);
		goto done;
	}
	/* each distinct row where it first occurs, in that order */
	for (i = 0; i < n; i++)
		if (map[i] == next)
			memcpy(Xd + rb * (size_t) next++, in + rb * (size_t) i, rb);
	st = X64 ? cluster_rows_f64(m, (const double *) Xd, nd, dx, opts, out, err) :
		cluster_rows(m, (const dac_real *) Xd, nd, dx, opts, out, err);
	if (st != DAC_OK)
		goto done;
	for (i = 0; i < n; i++)
	{
		lab[i] = out->labels[map[i]];
		pr[i] = out->prob[map[i]];
	}
	dac_free(out->labels);
	dac_free(out->prob);
	out->labels = lab;
	out->prob = pr;
	lab = NULL;
	pr = NULL;
	out->n = n;
	out->duplicates = n - nd;
	out->stages |= 1u << DAC_STAGE_DISTINCT;
done:
	dac_free(Xd);
	dac_free(map);
	dac_free(lab);
	dac_free(pr);
	return st;
}

dac_status
dac_cluster_set(const dac_model *m, const dac_real *X, int n, int dx, const dac_cluster_opts *opts,
				dac_clustering *out, dac_error *err)
{
	return cluster_distinct(m, X, NULL, n, dx, opts, out, err);
}

dac_status
dac_cluster_set_f64(const dac_model *m, const double *X, int n, int dx, const dac_cluster_opts *opts,
					dac_clustering *out, dac_error *err)
{
	return cluster_distinct(m, NULL, X, n, dx, opts, out, err);
}

/* ---------------------------------------------------------------- one pass */

double
dac_filter_bytes(const dac_model *m, int n, int dx)
{
	double		w = m->net.cfg.dim_input,
				need = dac_net_infer_bytes(&m->net, 1, n) + 64 * 8;

	if (m->net.cfg.input == DAC_INPUT_SETNORM)
		need += sizeof(dac_real) * (double) n * w + dac_model_normalise_bytes(m, n, dx);
	if (m->net.cfg.input == DAC_INPUT_SCALED)
		need += (sizeof(double) + sizeof(dac_real)) * (double) n * dx + dac_frame_bytes(n, dx);
	if (m->net.cfg.density == DAC_DENSITY_NS)
		need += sizeof(dac_real) * (double) n * dac_config_row_width(&m->net.cfg);
	return need;
}

dac_status
dac_filter_pass(const dac_model *m, const dac_real *X, int n, int dx, int anchor, size_t mem_limit,
				double *prob, dac_error *err)
{
	const dac_net *net = &m->net;
	int			w = net->cfg.dim_input,
				is_af = net->cfg.strategy == DAC_AF,
				i;
	double		need;
	dac_real   *Z = NULL;
	const dac_real *in = X;
	dac_arena	ar;
	dac_forward fw;
	dac_status	st;

	/* the width the caller gives is checked here, never trusted */
	if (n < 1)
		return dac_fail(err, DAC_ERR_INVALID, "cannot run a pass over an empty set");
	if (!dac_config_accepts(&net->cfg, dx))
		return dac_fail(err, DAC_ERR_INVALID, "the points have %d coordinates, but the model takes %d", dx,
						net->cfg.map_dim > 0 ? net->cfg.map_dim : w);
	if (is_af && anchor < 0)
		return dac_fail(err, DAC_ERR_INVALID, "the anchor is not a point: the points are numbered 1 to %d", n);
	if (is_af && anchor >= n)
		return dac_fail(err, DAC_ERR_INVALID, "anchor %d is not a point: the points are numbered 1 to %d",
						anchor + 1, n);
	need = dac_filter_bytes(m, n, dx);
	if (mem_limit > 0 && need > (double) mem_limit)
		return dac_fail(err, DAC_ERR_TOO_LARGE,
						"a pass over %d points of dimension %d needs %.0f kB, more than the limit of %.0f kB",
						n, dx, ceil(need / 1024), floor((double) mem_limit / 1024));
	if (net->cfg.input == DAC_INPUT_SETNORM)
	{
		if ((Z = dac_alloc(sizeof(dac_real) * (size_t) n * w)) == NULL)
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory normalising %d points", n);
		if ((st = dac_model_normalise(m, X, n, dx, Z, err)) != DAC_OK)
		{
			dac_free(Z);
			return st;
		}
		in = Z;
	}
	else if (net->cfg.density == DAC_DENSITY_NS && dx == net->cfg.dim_input)
	{
		/* images: their noise from the default clustering seed, in the order given */
		if ((st = dac_ns_check_pixels(X, (size_t) n * dx, err)) != DAC_OK)
			return st;
		if ((Z = dac_alloc(sizeof(dac_real) * (size_t) n * dac_config_row_width(&net->cfg))) == NULL)
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory for %d images", n);
		if (dac_ns_rows(&net->head.ns, X, n, DAC_NS_CLUSTER_SEED, Z) != DAC_OK)
		{
			dac_free(Z);
			return dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the pass over %d images", n);
		}
		in = Z;
	}
	else if (net->cfg.input == DAC_INPUT_SCALED)
	{
		/* the frame of the set as given (the pass keeps the caller's order) */
		double	   *Xd = dac_alloc(sizeof(double) * (size_t) n * dx);
		dac_frame	f;

		Z = dac_alloc(sizeof(dac_real) * (size_t) n * dx);
		if (Xd == NULL || Z == NULL)
		{
			dac_free(Xd);
			dac_free(Z);
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory scaling %d points", n);
		}
		for (i = 0; i < n * dx; i++)
			Xd[i] = X[i];
		st = dac_frame_fit(Xd, NULL, n, dx, net->cfg.unit_width, 0, &f, err);
		if (st == DAC_OK)
			dac_frame_apply(&f, Xd, NULL, n, Z);
		dac_frame_free(&f);
		dac_free(Xd);
		if (st != DAC_OK)
		{
			dac_free(Z);
			return st;
		}
		in = Z;
	}
	dac_arena_init(&ar, (size_t) dac_net_infer_bytes(net, 1, n));
	st = dac_net_infer(net, m->P, m->F, in, 1, n, is_af ? &anchor : NULL, &ar, &fw, err);
	if (st == DAC_OK)
		for (i = 0; i < n; i++)
			prob[i] = 1 / (1 + exp(-(double) fw.logits[i]));
	dac_arena_free(&ar);
	dac_free(Z);
	return st;
}

