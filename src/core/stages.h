/*
 * stages.h
 *	  The clustering's stages after the network's passes, inside the core:
 *	  where the points no pass selected go, EM (Gaussian and flow), k-means,
 *	  the count search, the graph stage, the count asked for, small clusters
 *	  dissolved, the noise test (dac.noise), and the mixture's
 *	  log-likelihood.  The stages' table (pipeline.c) says which run and in
 *	  what order; each changes a dac_clustering in place.  The first few are
 *	  public (cluster.h includes this header); the rest are the table's.
 */
#ifndef DAC_STAGES_H
#define DAC_STAGES_H

#include "core.h"
#include "density.h"
#include "mixture.h"

/* ---- public: what dac-cli and the tests also call */

/*
 * What opts.reassign and opts.em_steps do after the passes, on a clustering
 * with a Gaussian θ (mean, then σ, per cluster) whose labels all lie in
 * 1 .. num_clusters (as dac_cluster_set leaves them; not checked).  Up to
 * max_steps EM steps refit the mixture of the clusters' θ, weighted by their
 * shares of the points (each σ kept at least the smallest the clusters had
 * in that dimension, and above 0; the steps stop early once the mean
 * log-likelihood rises by less than 1e-7); then every point moves to the
 * component under which, weighted, it is likeliest; clusters left empty are dropped and the rest
 * renumbered in order, θ (refit) with them.  Sets c->reassigned and
 * c->em_steps; leaves ll and prob as they were.  DAC_ERR_NOMEM or
 * DAC_ERR_INTERRUPTED (the host's interrupt check, every 8,192 points of a
 * step) on failure, with c unchanged but for em_steps.
 */
extern dac_status dac_clustering_em(const dac_real *X, int d, dac_clustering *c, int max_steps);
/*
 * What opts.kmeans_steps does: up to max_steps Lloyd steps from the
 * clustering's clusters (labels 1 .. num_clusters; 0, noise, left alone):
 * each cluster's mean, then each point to the nearest mean; they stop when
 * no point moves.  Clusters left empty are dropped and the rest renumbered
 * in order, θ with them.  Adds the points moved to c->reassigned, sets
 * c->kmeans_steps.  DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_clustering_kmeans(const dac_real *X, int d, dac_clustering *c, int max_steps);

/* Rows whose silhouette opts.k_search measures, at most. */
#define DAC_KSEARCH_SAMPLE 1000
/*
 * What opts.k_search does (see there) over X [c->n, d], with up to
 * kmeans_steps Lloyd steps per count; ids renumbered in order of first
 * appearance.  DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_clustering_ksearch(const dac_real *X, int d, dac_clustering *c, int window,
										 int kmeans_steps);
/* Bytes dac_clustering_ksearch needs for n points of width d around K clusters, at most. */
extern double dac_ksearch_bytes(int n, int d, int window, int K);
/*
 * What opts.graph_neighbors does (see there) over X [c->n, d]; ids
 * renumbered in order of first appearance, θ zero when the count changed.
 * k_min > 0: fewer communities than k_min (at most the sample's rows) are
 * split by doubling the resolution from them until there are enough, then
 * merged back to k_min (dac_graph_merge at the resolution); k_max > 0: more
 * than k_max are merged to k_max.  Without k_min and with merge_share > 0
 * (at 0: the resolution's communities alone), two scales: where the
 * resolution finds two communities or more, the communities are those of
 * DAC_GRAPH_FINE times the resolution (a resolution that keeps one class
 * whole merges classes in groups of several) unless their mean silhouette
 * on the sample is more than DAC_GRAPH_FINE_MARGIN below the coarser ones';
 * otherwise (and where it finds one), the finer partition's
 * communities are merged while two share more than merge_share of the
 * smaller one's links (dac_graph_merge_share), and that partition is kept
 * when it has DAC_GRAPH_MANY or more (a group of many classes), setting
 * c->share_merged.
 * DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_clustering_graph(const dac_real *X, int d, dac_clustering *c, int neighbors,
									   double resolution, double merge_share, int from_clusters,
									   int k_min, int k_max);
/* Bytes dac_clustering_graph needs for n points of width d, at most. */
extern double dac_graph_stage_bytes(int n, int d, int neighbors);
/*
 * Given k (k_min, exact), the graph stage keeps its k communities or k-means'
 * k clusters of its sample, whichever is ahead on the sum of their modularity
 * in its graph (resolution 1) and their mean silhouette on the sample
 * (modularity alone kept k-means' halves of a large class beside a small
 * one: below k-means given k on groups of unequal shares); k-means: the
 * least squared error of
 * DAC_REFEREE_STARTS k-means++ starts of DAC_REFEREE_STEPS Lloyd steps
 * (with 4, iris's answer moved under noise of 1e-4 of its spread: another
 * local optimum won).  Its memory, for n rows of width d.
 */
#define DAC_REFEREE_STEPS 10
#define DAC_REFEREE_STARTS 16
extern double dac_graph_referee_bytes(int n, int d);
/* The same with no EM step (opts.reassign alone); 0 when out of memory. */
extern int	dac_clustering_reassign(const dac_real *X, int d, dac_clustering *c);

/* ---- the pass loop's own */

/* The density a clustering's θ describes: a head and its parameters (NULL: none). */
typedef struct dac_density_ref
{
	const dac_head *h;
	const dac_real *P;
} dac_density_ref;

/*
 * The sample of a set that the count search and the graph stage both work
 * on (sample_distances), made once, on first use.
 */
typedef struct dac_sample_set
{
	int			m;				/* 0: not made yet */
	int		   *smp;			/* [m] */
	dac_real   *S;				/* [m, d + 1] */
	float	   *D;				/* [m, m] */
} dac_sample_set;

/* A stage's status as the loop reports it (out of memory names the set's size). */
extern dac_status dac_step_failed(dac_status st, int n, dac_error *err);

/* θ of a diagonal Gaussian fitted to rows idx[0..m) of X (σ floored by the found θ). */
extern void dac_fit_theta(const dac_real *X, const int *idx, int m, int d, const dac_real *found,
						  int nfound, dac_real *th);
/*
 * Every cluster's θ (c->theta [num_clusters, 2d], a diagonal Gaussian's)
 * fitted to its members (dac_fit_theta); nothing for other heads' θ.
 * DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_clustering_fit_theta(const dac_real *X, int d, dac_clustering *c);
/* Rows idx[0..m) each to the found cluster that fits it best (allowed, logw: may be NULL). */
extern dac_status dac_place_points(const dac_density_ref *dr, const dac_real *X, int d, dac_clustering *out,
								   const int *idx, int m, const char *allowed, const double *logw);
/*
 * Clusters of fewer than min_size points dissolved into the others; with
 * tail > 0, only those whose points are no outliers of the clusters they join
 * (absorb_size).  *moved: the points that changed cluster.
 */
extern dac_status dac_dissolve_small(const dac_density_ref *dr, const dac_real *X, int n, int d,
									 dac_clustering *out, int min_size, double tail, int *moved);
/* absorb_size's outlier level: the χ² tail times the joined cluster's size */
#define DAC_ABSORB_TAIL 1e-4
/* the finer scale's resolution, times graph_resolution */
#define DAC_GRAPH_FINE 4.0
/*
 * The silhouette by which the finer scale's partition may fall below the
 * coarser one's and still be kept (chosen on development data)
 */
#define DAC_GRAPH_FINE_MARGIN 0.05
/* graph_merge: the fewest communities for which its partition is kept */
#define DAC_GRAPH_MANY 4
/* EM on a flow mixture's weights, then each point to its likeliest component. */
extern dac_status dac_flow_em(const dac_density_ref *dr, const dac_real *X, dac_clustering *out,
							  int max_steps);
/*
 * refine_rounds: each cluster's flow context fitted to its members (at most
 * DAC_REFINE_ROWS of them) by `steps` Adam steps of rate `rate`; a round is
 * DAC_REFINE_STEPS steps at DAC_REFINE_RATE (chosen on warped validation
 * draws, docs/warped.md), then dac_flow_em without EM steps.
 */
#define DAC_REFINE_ROWS 1000
#define DAC_REFINE_STEPS 30
#define DAC_REFINE_RATE 0.05
extern dac_status dac_flow_refine(const dac_density_ref *dr, const dac_real *X, dac_clustering *out,
								  int steps, double rate);
/*
 * Clusters that are pieces of one mode (2-D): each cluster with 3 rows or
 * more is read as a Gaussian of its members' mean and full covariance,
 * weighted by its share; two whose mixture dips along its ridgeline to no
 * less than ratio of its lower end are linked.  A chain of chain or more
 * clusters so linked becomes one cluster (θ refit from its members, as
 * dac_fit_theta fits) when it is a path or a ring (no more links than
 * pieces) and its mixture with every cluster outside it dips below
 * DAC_MODES_APART.  The rest stay apart: two or three touching Gaussians are
 * the Gaussian model's own answer, the pieces of a field of rows link to
 * many neighbours, and a chain that runs on into others at a ratio just
 * under ratio would be cut elsewhere by a row more or less.  Then two
 * clusters outside every joined chain, each the other's likeliest partner
 * (the least dip), become one where one Gaussian of their rows is at least
 * as good as their mixture by Akaike's criterion (the mixture's
 * DAC_MODES_PAIR_PARAMS more parameters): the halves of a Gaussian a pass
 * cut in two.  Where the group would end as one cluster, the pieces stand
 * if the one-cluster test (dac_one_check_on, kmeans_steps) separates it.
 * Ids in order of first appearance.  *merged: the clusters joined to
 * another.  DAC_ERR_NOMEM, DAC_ERR_INTERRUPTED.
 */
#define DAC_MODES_PAIR_PARAMS 6
#define DAC_MODES_CHAIN 4
#define DAC_MODES_APART 0.05
#define DAC_MODES_STEPS 40
#define DAC_MODES_G 7
extern dac_status dac_clustering_modes(const dac_real *X, int d, dac_clustering *c, double ratio, int chain,
									   int kmeans_steps, int *merged);
/*
 * The count asked for: merges or splits until there are k_min .. k_max
 * clusters.  In 2-D, up to DAC_RIDGE_MAX clusters merge by their Gaussians'
 * ridgeline (the pair whose mixture dips least first); otherwise, and to
 * split, by means (the closest pair merged, the widest cluster split).
 */
#define DAC_RIDGE_MAX 1000
extern dac_status dac_force_count(const dac_real *X, int d, dac_clustering *c, int k_min, int k_max,
								  int gaussian);
/* The graph stage on the set's sample (ss, made on first use). */
extern dac_status dac_graph_on(const dac_real *X, int d, dac_clustering *c, int neighbors,
							   double resolution, double merge_share, int from_clusters,
							   int k_min, int k_max, dac_sample_set *ss);
/*
 * A group found as one cluster (c->num_clusters 1), tested: k-means at the
 * counts 2 .. DAC_ONE_CHECK_KMAX (the range k-means + silhouette is usually
 * run over), scored by mean silhouette on the group's sample, against the
 * same on a Gaussian of the sample's own mean and covariance (fixed draws);
 * the best partition is adopted when its silhouette is at least
 * DAC_ONE_CHECK_CLEAN (classes cleanly apart) and exceeds the Gaussian's by
 * margin or more (DAC_ONE_CHECK_MARGIN: in one or two dimensions a single
 * Gaussian's halves reach 0.5); strict: exceeds each of
 * DAC_ONE_CHECK_STRICT_DRAWS Gaussians' by margin (a small group's draws
 * spread widely: a Gaussian of 30 rows reaches a clean split by chance).  With rank_margin > 0 it is also adopted
 * when the same test on the sample's normal scores (each column's ranks
 * mapped to a standard normal's quantiles: a Gaussian copula, which one
 * class of skewed or coarsely measured columns is near) finds structure
 * (mean silhouette DAC_ONE_CHECK_STRUCTURE) and exceeds its Gaussian by
 * rank_margin / sqrt(m) (m: the sample's rows, whose mean silhouette varies
 * with the draw as about 1 / sqrt(m)); the columns are those of cols [n,
 * cd], the rows in their own columns (cd no more than d: the bytes count d),
 * or X's where cols is NULL.  With graph_margin > 0 it is also adopted when
 * the modularity of the Leiden communities of the sample's
 * DAC_ONE_CHECK_NEIGHBORS-nearest-neighbour graph exceeds the same on such
 * Gaussians by graph_margin (classes apart in many dimensions, whose
 * silhouette stays low).  The draws follow the rows nearest the group's mean
 * first, so that the answer does not change with the rows' order or units.
 * Other groups are left as they are. DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_one_check_on(const dac_real *X, int d, dac_clustering *c, int kmeans_steps,
								   double margin, int strict, double rank_margin, const dac_real *cols, int cd,
								   double graph_margin);
/*
 * Each cluster of c tested as dac_one_check_on tests a group of one
 * (strict): split where k-means separates it beyond each Gaussian drawn of
 * its own spread, DAC_ONE_CHECK_STRICT_DRAWS a cluster tested (so that a
 * group of K Gaussians is split by chance as rarely as a group of one), up
 * to DAC_SPLIT_DRAWS_CAP clusters' worth; and cleanly (DAC_ONE_CHECK_CLEAN)
 * when c is one cluster, strongly (DAC_SPLIT_STRONG) when a pass found
 * more.  The first part keeps its cluster's id, the others are numbered
 * after c's last; the split clusters' θ (a Gaussian's) are their members'
 * mean and deviation, the others' stay.  *split: the clusters added.
 * DAC_ERR_NOMEM or DAC_ERR_INTERRUPTED.
 */
extern dac_status dac_split_apart(const dac_real *X, int d, dac_clustering *c, int kmeans_steps, int *split);
/*
 * The mean silhouette at which the parts of a cluster a pass found are
 * strongly apart (Kaufman and Rousseeuw's reading of 0.71 and above: strong
 * structure).  At 0.5 the clumps of a country's cities split in one answer
 * and not in the next under 100 m of jitter (test/bench/geo.sh).
 */
#define DAC_SPLIT_STRONG 0.7
/* The clusters whose draws the strict test adds up, at most (200 Gaussians a cluster) */
#define DAC_SPLIT_DRAWS_CAP 10
/*
 * Bytes dac_one_check_on needs for n rows of width d, at most (ranks: with
 * rank_margin > 0; graph: with graph_margin > 0).
 */
extern double dac_one_check_bytes(int n, int d, int ranks, int graph);
/*
 * The one-cluster test's Gaussian reference number draw for the m rows of S
 * [m, d] (independent rows of N(0, their covariance)), into R [m, d].
 */
extern dac_status dac_gaussian_reference(const dac_real *S, int m, int d, int draw, dac_real *R);
#define DAC_ONE_CHECK_KMAX 10
/*
 * Rows of a group the test reads, at most (every (n/m)-th in the rows-
 * nearest-the-mean order; the split it adopts reaches the other rows by
 * their nearest mean, then Lloyd's steps on every row): the largest groups
 * its margins were chosen on (the kinds benchmark's, 50 to 300 rows).
 */
#define DAC_ONE_CHECK_SAMPLE 300
/* k-means++ starts a count (the least squared error kept), as scikit-learn's n_init */
#define DAC_ONE_CHECK_STARTS 4
/* k-means++ starts per count on a Gaussian reference (the mean of several draws is what is read) */
#define DAC_ONE_CHECK_REF_STARTS 1
/* Gaussians the clean split's test averages (as the graph's test does: one alone moved splits across its margin) */
#define DAC_ONE_CHECK_CLEAN_DRAWS 4
/*
 * Gaussians the strict test's split must beat every one of (one in 20: a
 * Gaussian's own best split beats them all with chance 1/21)
 */
#define DAC_ONE_CHECK_STRICT_DRAWS 20
/* The silhouette by which one cluster's best split must beat a Gaussian's (chosen on development sources) */
#define DAC_ONE_CHECK_MARGIN 0.05
/* The silhouette at which a split's classes are cleanly apart (the usual reading of 0.5) */
#define DAC_ONE_CHECK_CLEAN 0.5
/*
 * The normal scores' best split must beat a Gaussian's silhouette by this
 * over the square root of the sample's rows: midway between the largest
 * excess of a development group of one class and the least of a group of
 * 2+ classes above it (0.212 and 0.281; test/bench/rank_record.sh)
 */
#define DAC_ONE_CHECK_RANKS 0.25
/*
 * The mean silhouette the normal scores' split must reach: midway between
 * the highest of a development embedding group the margin alone would split
 * (0.193; no embedding's normal scores show more structure) and the lowest
 * of a development table group of 2+ classes (0.240).  Kaufman and
 * Rousseeuw read 0.25 and below as no substantial structure.
 */
#define DAC_ONE_CHECK_STRUCTURE 0.22
/* Gaussians the normal scores' test averages (one draw's silhouette moves with a row more or less) */
#define DAC_ONE_CHECK_DRAWS 8
/*
 * The modularity by which the neighbour graph's communities must beat a
 * Gaussian's: above the most any group of one class shows, midway between
 * development groups' 0.108 and the least development group of 2+ classes
 * it splits (0.233).  One-class groups reach 0.136 (development digits of
 * unequal shares) and 0.151 (test/cli.sh's Fashion-MNIST pixel sets):
 * 0.14, the best on the development kinds, split two of those
 * (test/bench/graph_excess.sh scans margins).  With Leiden's runs until Q
 * stops rising: 0.099, 0.227 and 0.155, the margin still between them.
 */
#define DAC_ONE_CHECK_GRAPH 0.17
/* The graph's neighbours a row (the graph stage's default) */
#define DAC_ONE_CHECK_NEIGHBORS 5
/* Gaussians the graph's test averages */
#define DAC_ONE_CHECK_GRAPH_DRAWS 4
/* The count search on the set's sample (ss, made on first use). */
extern dac_status dac_ksearch_on(const dac_real *X, int d, dac_clustering *c, int window,
								 int kmeans_steps, dac_sample_set *ss);
extern void dac_sample_set_free(dac_sample_set *ss);
/* The mixture's mean log-likelihood over points not noise. */
extern dac_status dac_mixture_ll(const dac_density_ref *dr, const dac_real *X, const dac_clustering *out,
								 double *ll_out);
/*
 * The same from the clusters' log densities already computed: rows[k] [n],
 * every point's under cluster k's θ; labels [n] give the shares (0: noise,
 * left out), into *ll_out (NaN when every point is noise).  lw [K] is
 * scratch.  DAC_ERR_INTERRUPTED (the host's check, every 8,192 rows) or
 * DAC_OK.
 */
extern dac_status dac_mixture_ll_rows(const dac_real *const *rows, const int *labels, int n, int K, double *lw,
									  double *ll_out);
/*
 * z2 [m]: each point idx[0..m)'s squared distance in its own cluster's normal
 * coordinates (the flow's base space, the Gaussian's standardised ones);
 * idx NULL: every point, m = n.
 */
extern dac_status dac_own_sqdist(const dac_density_ref *dr, const dac_real *X, int d,
								 const dac_clustering *out, const int *idx, int m, double *z2);
/* The K clusters' centroids and sizes from labels 1 .. K; the nearest centroid of x (1-based; 0: none). */
extern void dac_centroids(const dac_real *X, int n, int d, const int *lab, int K, double *cen, int *cnt);
extern int	dac_nearest_mean(const dac_real *x, const double *cen, const int *cnt, int K, int d);
/*
 * Every row i of X [n, d] with lab [i] > 0 to its nearest mean, by
 * dac_nearest_mean (the same answers, to the bit; a row stays where no mean
 * has members): the rows eight at a time through tile [DAC_NEAREST_TILE·d]
 * scratch.  *moved: the rows whose label changed.  DAC_ERR_INTERRUPTED.
 */
#define DAC_NEAREST_TILE 8
extern dac_status dac_nearest_means(const dac_real *X, int n, int d, const double *cen, const int *cnt, int K,
									double *tile, int *lab, int *moved);
/*
 * The mean silhouette of labels lab [·] (1 .. K) over the sample rows smp
 * [m] with distances D [m, m]; sum [K] scratch, the sizes to cnt [K].
 */
extern double dac_silhouette(const float *D, const int *smp, int m, const int *lab, int K, double *sum, int *cnt);
/* The squared distance between centroids a and b of cen [K, d]. */
extern double dac_centroid_sqdist(const double *cen, int a, int b, int d);

/*
 * Noise (opts.noise > 0, after the passes, EM and reassignment): label 0,
 * when unselected, for the points no pass selected (prob ≤ ½; unless no
 * pass selected any: models with a density head, whose leftovers are the
 * points no cluster's density claimed), for
 * the members of clusters of fewer than max(2, min_size) points (in place of
 * dissolving them), and for the points that are both in their cluster's
 * tail and isolated.  In the tail: beyond noise_level under the cluster's
 * Gaussian (θ, or the members' mean and σ without a density head, floored
 * as in dac_mixture_assign), its squared standardised distance read as a
 * scaled χ² whose two moments are those the members' correlation gives
 * (dac_noise_tail_shape); z2 (may be NULL) gives instead each point's
 * squared length in its own cluster's standard-normal space (a flow's |z|²,
 * dac_head_ll), read as χ²_d.  Isolated: its nearest row (in the cluster's
 * σ) is at least DAC_NOISE_ISOLATION times as far as that row's own nearest
 * row; a point in a sparse part of its cluster, with neighbours as far from
 * each other as from it, is not.  Clusters left empty are dropped and the
 * rest renumbered in order, θ with them.  Sets c->noise.
 */
/*
 * The isolation ratio of the noise test: 2, the smallest of 1.5, 2 and 2.5
 * at which under 2% of the clean rows of the development sources (the
 * embed generator's 384-d sets, the Fashion-MNIST embeddings, the z-scored
 * wine, breast cancer and penguins tables) are noise at dac.noise = 0.001
 * (test/bench/noise.sh; docs/production.md has the figures).
 */
#define DAC_NOISE_ISOLATION 2.0
/* The members (a stride through them) whose correlation shapes a cluster's tail. */
#define DAC_NOISE_SHAPE_ROWS 256
/*
 * The tail of a cluster's squared standardised distance q = Σ_j ((x_j −
 * μ_j) / σ_j)² as *scale · χ²_*dof: the two moments q has under a Gaussian
 * with the correlation of the members idx [m] of X [·, d] (Satterthwaite's
 * approximation, the squared correlations' sum taken without its
 * small-sample bias); *dof in [1, d].  Independent coordinates: 1 and d;
 * coordinates that move together: fewer degrees of freedom, each wider.
 * Fewer than 4 members: 1 and d.
 */
extern dac_status dac_noise_tail_shape(const dac_real *X, int d, const double *mu, const double *sd,
									   const int *idx, int m, double *scale, double *dof);
extern dac_status dac_clustering_noise(const dac_real *X, int d, dac_clustering *c, int gaussian,
									   double noise_level, int min_size, const double *z2, int unselected);

#endif
