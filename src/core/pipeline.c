/*
 * pipeline.c
 *	  The clustering's stages as one table: a row a stage, in the order they
 *	  run, with the models and settings it applies to (one condition), the
 *	  bytes it needs beside the loop's own, and the function that runs it.
 *	  The first four rows (the distinct rows, the sample, the turns, the
 *	  passes) are run by cluster.c around and inside the pass loop; the rest
 *	  by dac_stages_run.
 */
#include "pipeline.h"

#include "labels.h"
#include "pairs.h"
#include "flow.h"
#include "frame.h"
#include "net.h"

#include <math.h>
#include <string.h>

/* A stage: the public description, its condition, its bytes, its run (NULL: cluster.c's). */
typedef struct stage
{
	dac_stage_desc desc;
	int			(*applies) (const dac_net *net, int n, int d, const dac_cluster_opts *o);
	double		(*bytes) (const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o);
	dac_status	(*run) (dac_stage_run *s, int *idle, dac_error *err);
} stage;

static int
has_density(const dac_net *net)
{
	return dac_head_has_density(&net->head);
}

static int
gaussian(const dac_net *net)
{
	return net->cfg.density == DAC_DENSITY_GAUSSIAN;
}

/* ---------------------------------------------------------------- conditions */

static int
always(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) net, (void) n, (void) d, (void) o;
	return 1;
}

/* rows in the canonical order: equal rows are found there */
static int
applies_distinct(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) net, (void) d;
	return o->canonical && n >= 2;
}

/* no density head, no noise test: the rest of a large group joins the sample's clusters */
static int
applies_sample(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) d;
	return o->sample_size >= 2 && n > o->sample_size && o->noise <= 0 && !has_density(net);
}

/* a 2-D group, a density whose LL scores the clusterings (the Gaussian, the flow) */
static int
applies_rotations(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n;
	return o->rotations > 1 && d == 2 &&
		(net->cfg.density == DAC_DENSITY_GAUSSIAN || net->cfg.density == DAC_DENSITY_MAF);
}

static int
applies_reassign(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n, (void) d;
	return (o->reassign || o->em_steps > 0) && has_density(net);
}

static int
applies_kmeans(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n, (void) d;
	return o->kmeans_steps > 0 && !has_density(net);
}

/* not when a count is asked for: the count stage gives it */
static int
applies_k_search(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n, (void) d;
	return o->k_search > 0 && !has_density(net) && o->k_exact == 0;
}

static int
applies_graph(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n, (void) d;
	return o->graph_neighbors > 0 && !has_density(net);
}

/*
 * the count search's k-means, on a group the earlier stages left as one
 * cluster; no count asked for; a Gaussian head's θ is refit to the split,
 * and no width given (the caller's width says what one cluster spans)
 */
static int
applies_one_cluster(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n, (void) d;
	return o->k_search > 0 && o->k_exact == 0 &&
		(!has_density(net) ||
		 (gaussian(net) && !(o->cluster_width > 0 && net->cfg.input == DAC_INPUT_SCALED)));
}

/* a density whose θ gives each point its distance in normal coordinates (the Gaussian, the flow) */
static int
applies_absorb(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n, (void) d;
	return o->absorb_size > 1 &&
		(net->cfg.density == DAC_DENSITY_GAUSSIAN || net->cfg.density == DAC_DENSITY_MAF);
}

/* under the noise test, small clusters become noise instead */
static int
applies_min_size(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) net, (void) n, (void) d;
	return o->min_size > 1 && !(o->noise > 0);
}

/* a 2-D Gaussian head, no count asked for and no width given: its passes cut a band into pieces */
static int
applies_modes(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n;
	return o->mode_merge > 0 && net->cfg.density == DAC_DENSITY_GAUSSIAN && d == 2 && o->k_exact == 0 &&
		!(o->cluster_width > 0 && net->cfg.input == DAC_INPUT_SCALED);
}

/* a flow head (MAF) on the MLF loop: its passes cut a bent cluster into pieces */
static int
applies_pair_merge(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n, (void) d;
	return o->pair_merge > 0 && net->cfg.density == DAC_DENSITY_MAF && net->cfg.strategy == DAC_MLF;
}

/* a flow (maf) head, whose θ the steps can move */
static int
applies_refine(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) n, (void) d;
	return o->refine_rounds > 0 && net->cfg.density == DAC_DENSITY_MAF;
}

static int
applies_count(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) net, (void) n, (void) d;
	return o->k_exact > 0 || o->k_max > 0;
}

static int
applies_noise(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	(void) net, (void) n, (void) d;
	return o->noise > 0;
}

/* asked for, or the turns' clusterings to be compared */
static int
applies_ll(const dac_net *net, int n, int d, const dac_cluster_opts *o)
{
	return has_density(net) && (o->want_ll || applies_rotations(net, n, d, o));
}

/* ---------------------------------------------------------------- bytes */

/* a flow's EM: the densities of all clusters at all points */
/* the order's keys, each row's distinct row, the labels and probabilities spread back (the copy: dac_cluster_bytes) */
static double
bytes_distinct(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	(void) net, (void) d, (void) max_k, (void) o;
	return dac_distinct_rows_bytes(n) + (2.0 * sizeof(int) + sizeof(float)) * n;
}

static double
bytes_reassign(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	(void) d, (void) o;
	return net->cfg.density == DAC_DENSITY_MAF || net->cfg.density == DAC_DENSITY_NS ?
		sizeof(dac_real) * (max_k + 1) * n : 0;
}

/* the sample's distances, labels, centroids */
static double
bytes_k_search(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	(void) net;
	return dac_ksearch_bytes(n, d, o->k_search, (int) max_k);
}

static double
bytes_graph(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	(void) net, (void) max_k;
	return dac_graph_stage_bytes(n, d, o->graph_neighbors) +
		(o->k_exact > 0 && o->graph_neighbors > 0 ? dac_graph_referee_bytes(n, d) : 0);
}

/*
 * the test; with a Gaussian head, each cluster's: the members in cluster
 * order, their offsets, a cluster's rows and labels, the split's θ (up to
 * DAC_ONE_CHECK_KMAX parts a cluster) and its refit's members in cluster
 * order with their offsets (dac_clustering_fit_theta)
 */
static double
bytes_one_cluster(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	double		K = max_k + 1,
				parts = DAC_ONE_CHECK_KMAX * K;

	(void) o;
	return gaussian(net) ? dac_one_check_bytes(n, d, 0, 0) + sizeof(int) * (2.0 * n + 2.0 * K + 2) +
		sizeof(dac_real) * ((double) n * d + parts * 2 * d) + sizeof(int) * ((double) n + parts + 2) :
		dac_one_check_bytes(n, d, 1, 1);
}

/*
 * The clusters' mixture, ids and tail shapes; the rows in cluster order,
 * their tail flags and a flow's |z|²; the members whose correlation is read.
 */
static double
bytes_noise(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	(void) net, (void) o;
	return dac_mixture_bytes(n, d, (int) fmin(max_k, n)) + (4.0 * sizeof(int) + 2.0 * sizeof(double)) * (max_k + 1) +
		(sizeof(int) + 1.0 + sizeof(double)) * n + sizeof(double) * (double) DAC_NOISE_SHAPE_ROWS * d;
}

/* the moved points' homes, rows, densities, squared distances and scores; per-cluster worst scores */
static double
bytes_absorb(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	(void) net, (void) o;
	return (3.0 * sizeof(int) + sizeof(dac_real) * (d + 1) + 2.0 * sizeof(double)) * n +
		sizeof(double) * 2.0 * (max_k + 1);
}

/* per cluster its Gaussian, sums, a ratio and seven ints; the new labels, members twice and θ; the one-cluster test */
static double
bytes_modes(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	double		K = max_k + 1;

	(void) o;
	return (sizeof(double) * (DAC_MODES_G + 7) + sizeof(int) * 7.0 + sizeof(dac_real) * dac_net_theta_dim(net)) * K +
		sizeof(int) * (3.0 * n + 4) + dac_one_check_bytes(n, d, 0, 0);
}

/*
 * The pair's rows and their frame, per-cluster tables, a pass; with split,
 * every cluster's densities at every row, two candidates' and the logits,
 * the rows in order and their labels, two θ.
 */
static double
bytes_pair_merge(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	double		K = max_k + 1,
				b = (sizeof(int) + (sizeof(dac_real) + sizeof(double)) * (double) d) * n +
		dac_frame_bytes(n, d) + (sizeof(double) * d + sizeof(int) * (2.0 + DAC_PAIR_NEAR + DAC_PAIR_TRIED)) * K +
		dac_net_infer_bytes(net, 1, n);

	if (o->pair_split)
		b += sizeof(dac_real) * (K + 3) * (double) n + 2.0 * sizeof(int) * n +
			(sizeof(dac_real *) + sizeof(double)) * K + 2.0 * sizeof(dac_real) * dac_net_theta_dim(net);
	return b;
}

/*
 * One cluster's rows, densities and θ with its moments, the flow's pass kept
 * for its backward and that backward's scratch, over at most DAC_REFINE_ROWS
 * rows; then dac_flow_em's table.
 */
static double
bytes_refine(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	double		r = n < DAC_REFINE_ROWS ? n : DAC_REFINE_ROWS;
	const dac_flow *f = &net->head.flow;

	(void) o;
	return sizeof(int) * (double) n + sizeof(dac_real) * (r * (d + 2) + 4.0 * f->C) +
		sizeof(dac_real) * (r * (f->nmade * (2.0 * f->H + 4.0 * d) + 6.0 * d + 2.0 * f->H) +
							f->nmade * (f->H + (double) f->d * f->d) + 6.0 * f->d * f->d + f->H) +
		64.0 * 16 * (f->nmade + 4) + sizeof(dac_real) * (max_k + 1) * n;
}

/* the turned set and a second clustering (labels, probabilities, θ) */
static double
bytes_rotations(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	(void) o;
	return sizeof(dac_real) * n * (double) d + (sizeof(int) + sizeof(float)) * n +
		sizeof(dac_real) * (max_k + 1) * dac_net_theta_dim(net);
}

/*
 * Images: their pixels apart from their noise; labels, members, pairs;
 * means per cluster; the graph's merge table; in 2-D, the
 * ridgeline merge's Gaussians and ratios.
 */
static double
bytes_count(const dac_net *net, int n, int d, double max_k, const dac_cluster_opts *o)
{
	double		top = (o->k_exact > o->k_max ? o->k_exact : o->k_max) + max_k + 2,
				b = 0;

	if (net->cfg.density == DAC_DENSITY_NS)
		b += sizeof(dac_real) * (double) n * net->cfg.dim_input;
	if (d == 2)
	{
		/*
		 * the ridgeline merge: each cluster's Gaussian and mean, the pairs'
		 * ratios (16 bytes a pair); the passes' clusters and a leftover one
		 */
		double		r = fmin(max_k + 1, DAC_RIDGE_MAX);

		b += 8.0 * r * r + sizeof(double) * (DAC_MODES_G + 8.0) * (r + 1) + 2.0 * sizeof(int) * (r + 1) + 16;
	}
	return b + (2.0 * sizeof(int) + sizeof(int64_t)) * n + (sizeof(double) * (d + 2) + 3 * sizeof(int)) * top +
		sizeof(dac_real) * top * (2 * d + 2) + sizeof(double) * 1000.0 * 1000.0;
}

/* ---------------------------------------------------------------- runs */

/*
 * The rows no pass selected.  Where the caller gave the cluster width, each
 * is a cluster of its own: the passes ran until one found nothing, and at
 * that width a row none claimed stands alone (dac.absorb_size then joins
 * it to a cluster it fits).  Else, when nothing was found, the whole set is
 * one cluster; else by the leftover policy: the first cluster, one more
 * cluster, or each the found cluster that fits it best.
 */
static dac_status
run_leftover(dac_stage_run *s, int *idle, dac_error *err)
{
	dac_clustering *out = s->out;
	int			i;

	if (s->nleft == 0)
	{
		*idle = 1;
		return DAC_OK;
	}
	if (dac_width_given(s->m, s->opts))
	{
		/*
		 * θ room: the passes' cap is every row (dac_pass_cap).  A Gaussian's
		 * θ: the row, of the width given (the frame's unit_width here).
		 */
		for (i = 0; i < s->nleft; i++)
		{
			dac_real   *th = out->theta + (size_t) out->num_clusters * out->theta_dim;
			int			k;

			out->labels[s->left[i]] = ++out->num_clusters;
			for (k = 0; k < s->d && gaussian(&s->m->net); k++)
			{
				th[k] = s->X[(size_t) s->left[i] * s->d + k];
				th[s->d + k] = (dac_real) s->m->net.cfg.unit_width;
			}
		}
	}
	else if (out->num_clusters == 0)
	{
		for (i = 0; i < s->n; i++)
			out->labels[i] = 1;
		out->num_clusters = 1;
		/* θ = the set's own mean and standard deviation */
		if (gaussian(&s->m->net))
			dac_fit_theta(s->X, s->left, s->nleft, s->d, NULL, 0, out->theta);
	}
	else if (s->opts->leftover == DAC_LEFTOVER_FIRST)
	{
		for (i = 0; i < s->nleft; i++)
			out->labels[s->left[i]] = 1;
	}
	else if (s->opts->leftover == DAC_LEFTOVER_OWN)
	{
		/*
		 * One more cluster.  Its θ: the leftovers' mean and standard
		 * deviation, each σ at least the smallest any found cluster has, so
		 * that a few leftover points cannot claim a needle-thin density.
		 */
		for (i = 0; i < s->nleft; i++)
			out->labels[s->left[i]] = out->num_clusters + 1;
		if (gaussian(&s->m->net))
			dac_fit_theta(s->X, s->left, s->nleft, s->d, out->theta, out->num_clusters,
						  out->theta + (size_t) out->num_clusters * out->theta_dim);
		out->num_clusters++;
	}
	else
		return dac_step_failed(dac_place_points(&s->dr, s->X, s->d, out, s->left, s->nleft, NULL, NULL),
							   s->n, err);
	return DAC_OK;
}

/*
 * EM steps on the found mixture (a Gaussian's θ, a flow's weights), then
 * each point to its likeliest component; before min_size, so that no
 * cluster it leaves smaller than min_size survives.
 */
static dac_status
run_reassign(dac_stage_run *s, int *idle, dac_error *err)
{
	(void) idle;
	return dac_step_failed(gaussian(&s->m->net) ? dac_clustering_em(s->X, s->d, s->out, s->opts->em_steps) :
						   dac_flow_em(&s->dr, s->X, s->out, s->opts->em_steps), s->n, err);
}

static dac_status
run_kmeans(dac_stage_run *s, int *idle, dac_error *err)
{
	(void) idle;
	return dac_step_failed(dac_clustering_kmeans(s->X, s->d, s->out, s->opts->kmeans_steps), s->n, err);
}

static dac_status
run_k_search(dac_stage_run *s, int *idle, dac_error *err)
{
	(void) idle;
	return dac_step_failed(dac_ksearch_on(s->X, s->d, s->out, s->opts->k_search, s->opts->kmeans_steps, &s->ss),
						   s->n, err);
}

/* the graph's communities, on the sample the count search made (or makes it) */
static dac_status
run_graph(dac_stage_run *s, int *idle, dac_error *err)
{
	const dac_cluster_opts *o = s->opts;

	(void) idle;
	return dac_step_failed(dac_graph_on(s->X, s->d, s->out, o->graph_neighbors, o->graph_resolution,
										o->graph_merge, o->graph_start, o->k_exact,
										o->k_exact > 0 ? o->k_exact : o->k_max, &s->ss), s->n, err);
}

/*
 * one cluster: split when k-means separates the group (or its normal scores)
 * better than a Gaussian of its own spread, or its neighbour graph has more
 * community structure than such a Gaussian's
 */
static dac_status
run_one_cluster(dac_stage_run *s, int *idle, dac_error *err)
{
	/*
	 * A Gaussian head's group (a 2-D model's points): each cluster split
	 * only where k-means separates it cleanly, beyond every Gaussian drawn
	 * (strict), the parts' θ their members' mean and deviation.
	 */
	if (gaussian(&s->m->net))
	{
		int			split;
		dac_status	st = dac_split_apart(s->X, s->d, s->out, s->opts->kmeans_steps, &split);

		*idle = st == DAC_OK && split == 0;
		return dac_step_failed(st, s->n, err);
	}
	if (s->out->num_clusters != 1)
	{
		*idle = 1;
		return DAC_OK;
	}
	/*
	 * The clean split beats each of DAC_ONE_CHECK_STRICT_DRAWS Gaussians, not
	 * their mean: a Gaussian of a few dozen rows reaches a clean split by
	 * chance.  The normal scores' test reads a table's own columns only.
	 */
	return dac_step_failed(dac_one_check_on(s->X, s->d, s->out, s->opts->kmeans_steps, DAC_ONE_CHECK_MARGIN,
											DAC_ONE_CHECK_STRICT_DRAWS,
											s->opts->columns ? DAC_ONE_CHECK_RANKS : 0, s->opts->columns,
											s->opts->columns_d, DAC_ONE_CHECK_GRAPH), s->n, err);
}

/* clusters smaller than absorb_size join others where their points are no outliers */
static dac_status
run_absorb(dac_stage_run *s, int *idle, dac_error *err)
{
	(void) idle;
	return dac_step_failed(dac_dissolve_small(&s->dr, s->X, s->n, s->d, s->out, s->opts->absorb_size,
											  DAC_ABSORB_TAIL, &s->out->absorbed), s->n, err);
}

/* clusters smaller than min_size: their points go to the others */
static dac_status
run_min_size(dac_stage_run *s, int *idle, dac_error *err)
{
	(void) idle;
	return dac_step_failed(dac_dissolve_small(&s->dr, s->X, s->n, s->d, s->out, s->opts->min_size, 0,
											  &s->out->dissolved), s->n, err);
}

/* after the small clusters are gone, so that the chains are of pieces */
static dac_status
run_modes(dac_stage_run *s, int *idle, dac_error *err)
{
	int			merged;
	dac_status	st = dac_clustering_modes(s->X, s->d, s->out, s->opts->mode_merge, DAC_MODES_CHAIN,
										  s->opts->kmeans_steps, &merged);

	*idle = st == DAC_OK && merged == 0;
	return dac_step_failed(st, s->n, err);
}

/* after the small clusters are gone, so that the pairs are of pieces */
static dac_status
run_pair_merge(dac_stage_run *s, int *idle, dac_error *err)
{
	(void) idle;
	return dac_pair_merge(s->m, s->X, s->n, s->d, s->out, s->opts->pair_merge, s->opts->pair_split, err);
}

/* θ fitted to the clusters found, then each point to its likeliest cluster, refine_rounds times */
static dac_status
run_refine(dac_stage_run *s, int *idle, dac_error *err)
{
	dac_clustering *out = s->out;
	int			reassigned = out->reassigned,
				i;
	dac_status	st;

	(void) idle;
	for (i = 0; i < s->opts->refine_rounds; i++)
	{
		if ((st = dac_step_failed(dac_flow_refine(&s->dr, s->X, out, DAC_REFINE_STEPS, DAC_REFINE_RATE),
								  s->n, err)) != DAC_OK ||
			(st = dac_step_failed(dac_flow_em(&s->dr, s->X, out, 0), s->n, err)) != DAC_OK)
			return st;
		out->refine_moved += out->reassigned;
	}
	out->reassigned = reassigned;
	return DAC_OK;
}

/* the count the caller asked for (k, max_k); for images, by their pixels (not their noise) */
static dac_status
run_count(dac_stage_run *s, int *idle, dac_error *err)
{
	const dac_net *net = &s->m->net;
	const dac_cluster_opts *o = s->opts;
	dac_real   *pix = NULL;
	int			w = s->d,
				i;
	dac_status	st;

	(void) idle;
	if (net->cfg.density == DAC_DENSITY_NS)
	{
		w = net->cfg.dim_input;
		if ((pix = dac_alloc(sizeof(dac_real) * (size_t) s->n * w)) == NULL)
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory clustering %d images", s->n);
		for (i = 0; i < s->n; i++)
			memcpy(pix + (size_t) i * w, s->X + (size_t) i * s->d, sizeof(dac_real) * w);
	}
	st = dac_step_failed(dac_force_count(pix ? pix : s->X, w, s->out, o->k_exact,
										 o->k_exact > 0 ? o->k_exact : o->k_max, gaussian(net)), s->n, err);
	dac_free(pix);
	return st;
}

/* points no pass selected and points in their cluster's far tail (a flow's: |z|² under its own flow) */
static dac_status
run_noise(dac_stage_run *s, int *idle, dac_error *err)
{
	const dac_net *net = &s->m->net;
	int			flow = net->cfg.density == DAC_DENSITY_MAF || net->cfg.density == DAC_DENSITY_NS;
	double	   *z2 = NULL;
	dac_status	st = DAC_OK;

	(void) idle;
	if (flow)
	{
		z2 = dac_alloc(sizeof(double) * (size_t) s->n);
		st = z2 == NULL ? DAC_ERR_NOMEM : dac_own_sqdist(&s->dr, s->X, s->d, s->out, NULL, s->n, z2);
	}
	if (st == DAC_OK)
		st = dac_clustering_noise(s->X, s->d, s->out, gaussian(net), s->opts->noise, s->opts->min_size, z2,
								  has_density(net));
	dac_free(z2);
	return dac_step_failed(st, s->n, err);
}

/* LL = mean_i logsumexp_t [ll_{i,t} + log(π_t + 1e-10)], over points not noise */
static dac_status
run_ll(dac_stage_run *s, int *idle, dac_error *err)
{
	if (s->out->noise >= s->n)
	{
		*idle = 1;
		return DAC_OK;
	}
	return dac_step_failed(dac_mixture_ll(&s->dr, s->X, s->out, &s->out->ll), s->n, err);
}

/* ---------------------------------------------------------------- the table */

/* a constant's value as written, in a description */
#define LITERAL_(x) #x
#define LITERAL(x) LITERAL_(x)
#define DENSITY "models with a Gaussian or flow density head"
#define NO_DENSITY "models without a density head"

static const stage stages[DAC_NSTAGES] = {
	[DAC_STAGE_DISTINCT] = {{"distinct", "every model", "",
	"equal rows are clustered once, as one row; each copy gets that row's cluster"},
	applies_distinct, bytes_distinct, NULL},
	[DAC_STAGE_SAMPLE] = {{"sample", NO_DENSITY ", groups of more than sample_size rows, no noise test",
			"sample_size, kmeans_steps",
	"the network clusters every (n/sample_size)-th row; the others join the nearest cluster; k-means over all"},
	applies_sample, NULL, NULL},
	[DAC_STAGE_ROTATIONS] = {{"rotations", "2-D models with a Gaussian or flow (maf) density head", "rotations",
	"the group is also clustered turned about its mean; the likeliest clustering is kept"},
	applies_rotations, bytes_rotations, NULL},
	[DAC_STAGE_PASSES] = {{"passes", "every model", "max_passes, cluster_width",
	"one network pass a cluster over the rows not yet in one, until a pass selects nothing (under cluster_width, rows alone at that width skip them)"},
	always, NULL, NULL},
	[DAC_STAGE_LEFTOVER] = {{"leftover", "every model", "leftover",
	"rows no pass selected join the cluster that fits best, the first, or one of their own"},
	always, NULL, run_leftover},
	[DAC_STAGE_REASSIGN] = {{"reassign", "models with a density head", "reassign, em_steps",
	"EM steps refit the clusters' mixture, then each row moves to its likeliest cluster"},
	applies_reassign, bytes_reassign, run_reassign},
	[DAC_STAGE_KMEANS] = {{"kmeans", NO_DENSITY, "kmeans_steps",
	"k-means steps from the clusters found, in the coordinates the network saw"},
	applies_kmeans, NULL, run_kmeans},
	[DAC_STAGE_K_SEARCH] = {{"k_search", NO_DENSITY ", no count asked for", "k_search, kmeans_steps",
	"k-means at the counts around the one found; the count of the best mean silhouette is kept"},
	applies_k_search, bytes_k_search, run_k_search},
	[DAC_STAGE_GRAPH] = {{"graph", NO_DENSITY, "graph_neighbors, graph_resolution, graph_merge, k, max_k",
	"the clusters become the modularity communities of the nearest-neighbour graph, counted at " LITERAL(DAC_GRAPH_FINE) " times the resolution (graph_merge above 0) where it finds more than one and their silhouette is no more than " LITERAL(DAC_GRAPH_FINE_MARGIN) " below its communities'; given k, k-means' k clusters where they are ahead on their modularity in it and mean silhouette summed"},
	applies_graph, bytes_graph, run_graph},
	[DAC_STAGE_ABSORB] = {{"absorb", DENSITY, "absorb_size",
	"small clusters join the cluster that fits them, unless a point is an outlier there"},
	applies_absorb, bytes_absorb, run_absorb},
	[DAC_STAGE_MIN_SIZE] = {{"min_size", "every model, no noise test", "min_cluster_size",
	"clusters of fewer rows are dissolved into the others"},
	applies_min_size, NULL, run_min_size},
	[DAC_STAGE_ONE_CLUSTER] = {{"one_cluster", NO_DENSITY " or with a Gaussian head, no count asked for, no cluster_width", "k_search, kmeans_steps",
	"a group left as one cluster is split where k-means separates it (a sample of at most " LITERAL(DAC_ONE_CHECK_SAMPLE)
	" rows, the split spread to the rest) better than Gaussians of its own spread: cleanly (mean silhouette "
	LITERAL(DAC_ONE_CHECK_CLEAN) " or more, beyond each of " LITERAL(DAC_ONE_CHECK_STRICT_DRAWS) " Gaussians'), or in a table's normal scores; or where its neighbour graph's communities beat a Gaussian's by "
	LITERAL(DAC_ONE_CHECK_GRAPH) " modularity; with a Gaussian head, each cluster is tested, split only beyond each of " LITERAL(DAC_ONE_CHECK_STRICT_DRAWS)
	" Gaussians drawn per cluster, and a cluster a pass found only where its parts are strongly apart (" LITERAL(DAC_SPLIT_STRONG) "), θ refit to the parts"},
	applies_one_cluster, bytes_one_cluster, run_one_cluster},
	[DAC_STAGE_MODES] = {{"modes", "2-D models with a Gaussian density head, no k asked for, no cluster_width", "mode_merge",
	"a path or a ring of 4 or more clusters whose Gaussians' mixture has no dip below mode_merge between neighbours, and a deep one to every other cluster, becomes one cluster; then two others, each the other's likeliest partner, become one where one Gaussian fits their rows as well by Akaike's criterion"},
	applies_modes, bytes_modes, run_modes},
	[DAC_STAGE_PAIR_MERGE] = {{"pair_merge", "MLF models with a flow (maf) density head", "pair_merge, pair_split",
	"two clusters a pass over their rows alone sees as one become one"},
	applies_pair_merge, bytes_pair_merge, run_pair_merge},
	[DAC_STAGE_REFINE] = {{"refine", "models with a flow (maf) density head", "refine_rounds",
	"each cluster's context fitted to its rows, then each row to its likeliest cluster"},
	applies_refine, bytes_refine, run_refine},
	[DAC_STAGE_COUNT] = {{"count", "every model, when k or max_k is given", "k, max_k",
	"clusters merged or split until the count is the one asked for; in 2-D, merged along their Gaussians' ridgelines, the pair whose mixture dips least first"},
	applies_count, bytes_count, run_count},
	[DAC_STAGE_NOISE] = {{"noise", "every model", "noise, min_cluster_size",
	"rows no cluster claims, and rows both far in their cluster's tail and isolated, get NULL"},
	applies_noise, bytes_noise, run_noise},
	[DAC_STAGE_LOG_LIKELIHOOD] = {{"log_likelihood", "models with a density head", "",
	"the mean log-likelihood of the rows under the clusters' mixture"},
	applies_ll, NULL, run_ll},
};

#undef DENSITY
#undef NO_DENSITY
#undef LITERAL
#undef LITERAL_

int
dac_stage_applies(dac_stage_id id, const dac_model *m, int n, const dac_cluster_opts *opts)
{
	const dac_net *net = &m->net;

	return stages[id].applies(net, n, dac_config_row_width(&net->cfg), opts);
}

dac_status
dac_stages_run(dac_stage_run *s, dac_error *err)
{
	int			i;
	dac_status	st = DAC_OK;

	s->out->ll = NAN;
	for (i = DAC_STAGE_PASSES + 1; i < DAC_NSTAGES && st == DAC_OK; i++)
	{
		int			idle = 0;

		if (!dac_stage_applies((dac_stage_id) i, s->m, s->n, s->opts))
			continue;
		dac_progress(stages[i].desc.name, 0, 0);
		st = stages[i].run(s, &idle, err);
		if (st == DAC_OK && !idle)
			s->out->stages |= 1u << i;
	}
	dac_sample_set_free(&s->ss);
	return st;
}

int
dac_width_given(const dac_model *m, const dac_cluster_opts *opts)
{
	return opts->cluster_width > 0 && m->net.cfg.input == DAC_INPUT_SCALED;
}

int
dac_pass_cap(const dac_model *m, const dac_cluster_opts *opts, int n)
{
	return dac_width_given(m, opts) || opts->max_passes > n ? n : opts->max_passes;
}

/* The largest count of clusters a group of n rows can get. */
static double
max_clusters(const dac_model *m, int n, const dac_cluster_opts *opts)
{
	return dac_pass_cap(m, opts, n);
}

double
dac_stages_bytes(const dac_model *m, int n, int dx, const dac_cluster_opts *opts)
{
	double		b = 0;
	int			i;

	for (i = 0; i < DAC_NSTAGES; i++)
		b += dac_stage_bytes(m, i, n, dx, opts);
	return b;
}

const dac_stage_desc *
dac_stage_describe(int i)
{
	return i >= 0 && i < DAC_NSTAGES ? &stages[i].desc : NULL;
}

int
dac_stage_runs(const dac_model *m, int i, int n, int dx, const dac_cluster_opts *opts)
{
	(void) dx;
	return i >= 0 && i < DAC_NSTAGES && dac_stage_applies((dac_stage_id) i, m, n, opts);
}

double
dac_stage_bytes(const dac_model *m, int i, int n, int dx, const dac_cluster_opts *opts)
{
	const dac_net *net = &m->net;

	if (!dac_stage_runs(m, i, n, dx, opts) || stages[i].bytes == NULL)
		return 0;
	return stages[i].bytes(net, n, dac_config_row_width(&net->cfg), max_clusters(m, n, opts), opts);
}

void
dac_stage_settings_json(int i, const dac_cluster_opts *opts, dac_strbuf *sb)
{
	const char *p = i >= 0 && i < DAC_NSTAGES ? stages[i].desc.settings : "";
	char		name[64];
	int			first = 1;

	dac_strbuf_append(sb, "{", 1);
	while (*p)
	{
		size_t		len = strcspn(p, ",");

		if (len < sizeof(name))
		{
			memcpy(name, p, len);
			name[len] = '\0';
			dac_strbuf_append(sb, first ? "" : ", ", first ? 0 : 2);
			dac_strbuf_json_string(sb, name);
			dac_strbuf_append(sb, ": ", 2);
			if (!dac_cluster_opts_json(opts, name, sb))
				dac_strbuf_append(sb, "null", 4);
			first = 0;
		}
		p += len;
		p += strspn(p, ", ");
	}
	dac_strbuf_append(sb, "}", 1);
}
