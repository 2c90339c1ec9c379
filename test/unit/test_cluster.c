/*
 * test_cluster.c
 *	  ARI and NMI against values from scikit-learn (adjusted_rand_score,
 *	  normalized_mutual_info_score with the arithmetic mean) and by hand;
 *	  the clustering loop against the authors' cluster() on the MLF fixture.
 */
#include "unit.h"
#include "cluster.h"
#include "pairs.h"
#include "mixture.h"
#include "safetensors.h"
#include "frame.h"
#include "net.h"
#include "gen.h"
#include "linalg.h"
#include "stages.h"
#include "flow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* size[k] of each of c's clusters (at most 64); returns the smallest. */
static int
cluster_sizes(const dac_clustering *c, int *size)
{
	int			i,
				k,
				smallest = c->n;

	memset(size, 0, sizeof(int) * c->num_clusters);
	for (i = 0; i < c->n; i++)
		size[c->labels[i] - 1]++;
	for (k = 0; k < c->num_clusters; k++)
		smallest = size[k] < smallest ? size[k] : smallest;
	return smallest;
}

/*
 * min_size: clusters smaller than it give their points to the others; the
 * kept clusters keep their members and θ and are renumbered densely in
 * discovery order.  With no cluster that large nothing changes.
 */
static void
min_size_case(const dac_model *m, const dac_real *X, int n, const dac_clustering *full)
{
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c;
	int			K = full->num_clusters,
				size[64],
				newid[64],
				i,
				k,
				smallest,
				largest = 0,
				kept = 0,
				moved = 0,
				ok_members = 1,
				ok_theta = 1,
				ok_range = 1;

	CHECK(K <= 64, "min_size case: %d clusters fit its tables", K);
	if (K > 64)
		return;
	smallest = cluster_sizes(full, size);
	for (k = 0; k < K; k++)
		largest = size[k] > largest ? size[k] : largest;
	o.min_size = smallest + 1;
	for (k = 0; k < K; k++)
	{
		newid[k] = size[k] >= o.min_size ? ++kept : 0;
		moved += size[k] < o.min_size ? size[k] : 0;
	}
	if (dac_cluster_set(m, X, n, m->net.cfg.dim_input, &o, &c, NULL) != DAC_OK)
	{
		CHECK(0, "min_size %d clusters", o.min_size);
		return;
	}
	for (i = 0; i < n; i++)
	{
		int			was = full->labels[i] - 1;

		ok_range &= c.labels[i] >= 1 && c.labels[i] <= kept;
		if (newid[was])
			ok_members &= c.labels[i] == newid[was];
	}
	for (k = 0; k < K; k++)
		if (newid[k])
			ok_theta &= memcmp(c.theta + (size_t) (newid[k] - 1) * c.theta_dim,
							   full->theta + (size_t) k * c.theta_dim,
							   sizeof(dac_real) * c.theta_dim) == 0;
	CHECK(c.num_clusters == kept && c.dissolved == moved && ok_range,
		  "min_size %d: %d of %d clusters kept, %d points moved, ids 1..%d", o.min_size, kept, K, moved,
		  kept);
	CHECK(ok_members && ok_theta, "min_size: kept clusters keep their members and θ, renumbered");
	dac_clustering_free(&c);
	o.min_size = largest + 1;
	dac_cluster_set(m, X, n, m->net.cfg.dim_input, &o, &c, NULL);
	CHECK(c.num_clusters == K && c.dissolved == 0 && memcmp(c.labels, full->labels, sizeof(int) * n) == 0,
		  "min_size above every cluster: nothing changes");
	dac_clustering_free(&c);
}

/*
 * reassign: each point goes to the found component (θ_k, π_k = the share of
 * cluster k before) under which it is likeliest, worked out here in double
 * precision from the clustering without it; clusters left empty are dropped
 * and the rest renumbered with their θ.
 */
static void
reassign_case(const dac_model *m, const dac_real *X, int n, const dac_clustering *full)
{
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c;
	int			K = full->num_clusters,
				d = m->net.cfg.dim_input,
				size[64],
				newid[64] = {0},
				*want = malloc(sizeof(int) * n),
				i,
				k,
				kept = 0,
				moved = 0,
				same = 1,
				ok_theta = 1;

	CHECK(K <= 64, "reassign case: %d clusters fit its tables", K);
	if (K > 64)
	{
		free(want);
		return;
	}
	cluster_sizes(full, size);
	for (i = 0; i < n; i++)
	{
		double		best = -INFINITY;

		for (k = 0; k < K; k++)
		{
			const dac_real *th = full->theta + (size_t) k * full->theta_dim;
			double		v = log((double) size[k] / n);
			int			j;

			for (j = 0; j < d; j++)
			{
				double		z = (X[(size_t) i * d + j] - th[j]) / th[d + j];

				v += -0.5 * log(2 * M_PI) - log(th[d + j]) - 0.5 * z * z;
			}
			if (v > best)
			{
				best = v;
				want[i] = k;
			}
		}
		moved += want[i] != full->labels[i] - 1;
		newid[want[i]] = 1;
	}
	for (k = 0; k < K; k++)
		newid[k] = newid[k] ? ++kept : 0;
	o.reassign = 1;
	if (dac_cluster_set(m, X, n, m->net.cfg.dim_input, &o, &c, NULL) != DAC_OK)
	{
		CHECK(0, "reassign: cluster");
		free(want);
		return;
	}
	for (i = 0; i < n; i++)
		same &= c.labels[i] == newid[want[i]];
	for (k = 0; k < K; k++)
		if (newid[k])
			ok_theta &= memcmp(c.theta + (size_t) (newid[k] - 1) * c.theta_dim,
							   full->theta + (size_t) k * c.theta_dim, sizeof(dac_real) * c.theta_dim) == 0;
	CHECK(same && c.num_clusters == kept && c.reassigned == moved && ok_theta,
		  "reassign: each point to its likeliest component (%d of %d points moved, %d of %d clusters kept)",
		  c.reassigned, n, c.num_clusters, K);
	/*
	 * With min_size too: min_size one above the smallest cluster the
	 * reassignment left dissolves exactly that one, and no smaller cluster
	 * survives.
	 */
	o.min_size = cluster_sizes(&c, size) + 1;
	kept = c.num_clusters;
	dac_clustering_free(&c);
	if (dac_cluster_set(m, X, n, m->net.cfg.dim_input, &o, &c, NULL) == DAC_OK)
	{
		CHECK(c.num_clusters <= 64 && cluster_sizes(&c, size) >= o.min_size && c.num_clusters == kept - 1,
			  "reassign and min_size %d: %d of %d clusters kept, none smaller", o.min_size,
			  c.num_clusters, kept);
		dac_clustering_free(&c);
	}
	else
		CHECK(0, "reassign and min_size: cluster");
	free(want);
}

/*
 * Leftover policies, with max_passes 1 so that every point the first pass
 * did not select is left over (full is the unlimited clustering of X).
 */
static void
leftover_case(const dac_model *m, const dac_real *X, int n, const dac_clustering *full)
{
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c[3];
	dac_leftover_policy pol[3] = {DAC_LEFTOVER_BEST, DAC_LEFTOVER_FIRST, DAC_LEFTOVER_OWN};
	int			p,
				i,
				k,
				ok_first = 1,
				ok_own = 1,
				ok_best = 1,
				nl = 0;
	double		mu[2] = {0, 0},
				sd[2] = {0, 0};

	CHECK(dac_cluster_opts_default().leftover == DAC_LEFTOVER_OWN, "the default leftover policy is own");
	o.max_passes = 1;
	for (p = 0; p < 3; p++)
	{
		o.leftover = pol[p];
		if (dac_cluster_set(m, X, n, m->net.cfg.dim_input, &o, &c[p], NULL) != DAC_OK)
		{
			CHECK(0, "max_passes 1, policy %d clusters", p);
			return;
		}
	}
	CHECK(c[0].leftover > 0 && c[0].leftover == c[2].leftover,
		  "max_passes 1 leaves the unselected points over (%d)", c[0].leftover);
	for (i = 0; i < n; i++)
	{
		int			sel = full->labels[i] == 1;

		ok_first &= c[1].labels[i] == 1;
		ok_best &= c[0].labels[i] == 1;
		ok_own &= c[2].labels[i] == (sel ? 1 : 2);
		if (!sel)
		{
			nl++;
			for (k = 0; k < 2; k++)
				mu[k] += X[i * 2 + k];
		}
	}
	CHECK(c[0].num_clusters == 1 && c[1].num_clusters == 1 && ok_first && ok_best,
		  "best and first with one found cluster: everything in it");
	CHECK(c[2].num_clusters == 2 && ok_own && nl == c[2].leftover,
		  "own: the %d leftover points form cluster 2", nl);
	for (k = 0; k < 2; k++)
		mu[k] /= nl;
	for (i = 0; i < n; i++)
		if (full->labels[i] != 1)
			for (k = 0; k < 2; k++)
				sd[k] += (X[i * 2 + k] - mu[k]) * (X[i * 2 + k] - mu[k]);
	for (k = 0; k < 2; k++)
	{
		double		want_sd = fmax(sqrt(sd[k] / nl), (double) c[2].theta[2 + k]);

		CHECK(fabs(c[2].theta[4 + k] - mu[k]) < 1e-4 && fabs(c[2].theta[4 + 2 + k] - want_sd) < 1e-4,
			  "own: cluster 2's θ, coordinate %d: mean %.4f (want %.4f), sd %.4f (want %.4f)",
			  k, (double) c[2].theta[4 + k], mu[k], (double) c[2].theta[6 + k], want_sd);
	}
	CHECK(isfinite(c[2].ll) && c[2].ll > c[0].ll,
		  "own: LL %.4f above best's %.4f (the leftovers are other clusters)", c[2].ll, c[0].ll);
	for (p = 0; p < 3; p++)
		dac_clustering_free(&c[p]);
}

static void
metrics(void)
{
	/* expected values printed by scikit-learn 1.2 */
	static const int a1[] = {0, 0, 1, 1},
				b1[] = {0, 0, 1, 2};
	static const int a2[] = {0, 0, 0, 1, 1, 1, 2, 2},
				b2[] = {1, 1, 0, 0, 2, 2, 2, 2};
	static const int a3[] = {0, 1, 2, 3},
				b3[] = {0, 0, 0, 0};
	static const int a4[] = {5, 5, 7, 7, 9, 1, 1, 1, 1, 2},
				b4[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 2};
	static const int same[] = {3, 3, 1, 1, 2},
				perm[] = {0, 0, 7, 7, 4};
	static const int one[] = {1, 1, 1};

	CHECK(fabs(dac_ari(a1, b1, 4) - 0.5714285714285714) < 1e-12, "ARI = 4/7 (by hand and sklearn)");
	CHECK(fabs(dac_nmi(a1, b1, 4) - 0.8) < 1e-12, "NMI = 0.8 (by hand and sklearn)");
	CHECK(fabs(dac_ari(a2, b2, 8) - 0.18181818181818182) < 1e-12, "ARI case 2 %.15g", dac_ari(a2, b2, 8));
	CHECK(fabs(dac_nmi(a2, b2, 8) - 0.5300257549140327) < 1e-12, "NMI case 2 %.15g", dac_nmi(a2, b2, 8));
	CHECK(fabs(dac_ari(a3, b3, 4)) < 1e-12 && fabs(dac_nmi(a3, b3, 4)) < 1e-12, "singletons vs one cluster: 0, 0");
	CHECK(fabs(dac_ari(a4, b4, 10) - 0.23728813559322035) < 1e-12, "ARI case 4 %.15g", dac_ari(a4, b4, 10));
	CHECK(fabs(dac_nmi(a4, b4, 10) - 0.5667336691514566) < 1e-12, "NMI case 4 %.15g", dac_nmi(a4, b4, 10));
	CHECK(dac_ari(same, perm, 5) == 1.0 && fabs(dac_nmi(same, perm, 5) - 1.0) < 1e-12, "renamed labels: 1, 1");
	CHECK(dac_ari(one, one, 3) == 1.0 && dac_nmi(one, one, 3) == 1.0, "both one cluster: 1, 1");
	CHECK(fabs(dac_ari(a1, b1, 4) - dac_ari(b1, a1, 4)) < 1e-15, "ARI is symmetric");
	CHECK(dac_count_labels(a4, 10) == 5, "5 distinct labels");
	CHECK(dac_kmae(a4, b4, 10) == abs(5 - dac_count_labels(b4, 10)) && dac_kmae(a3, b3, 4) == 3 &&
		  dac_kmae(same, perm, 5) == 0, "k-MAE: |5 - %d|, |4 - 1|, 0", dac_count_labels(b4, 10));
	/* the evaluation's sums (dac-cli and dac_evaluate): noise (0) is no cluster */
	{
		int			truth[6] = {1, 1, 2, 2, 3, 3},
					found[6] = {1, 1, 2, 2, 0, 0};
		dac_clustering c;
		dac_eval_sums e;
		double		ari_hand = dac_ari(truth, found, 6);

		memset(&c, 0, sizeof(c));
		memset(&e, 0, sizeof(e));
		c.n = 6;
		c.labels = found;
		c.num_clusters = 2;
		c.ll = -1.5;
		c.flops = 10;
		dac_eval_add(&e, truth, &c, 0.25);
		found[5] = 3;
		dac_eval_add(&e, truth, &c, 0.25);
		CHECK(e.sets == 2 && e.kmae == 1 + 0 && fabs(e.ari - ari_hand - dac_ari(truth, found, 6)) < 1e-12 &&
			  e.ll == -3 && e.flops == 20 && e.secs == 0.5 && dac_count_clusters(found, 6) == 3,
			  "evaluation sums: k-MAE |3 - 2| with two noise points, |3 - 3| with one; the rest summed (k-MAE %g)",
			  e.kmae);
	}
}

/*
 * The authors' cluster() on 4 sets of 500 points (mlf_mog.cluster): our
 * loop, one set at a time on compacted rows, finds the same clusters in the
 * same order with the same θ.  Their labels are pass indices from 0; ours
 * count from 1.
 */
static void
fixture_clustering(void)
{
	size_t		len;
	uint8_t    *wbuf = unit_read_file(unit_fixture("mlf_mog.weights.safetensors"), &len);
	uint8_t    *cbuf;
	size_t		clen;
	dac_model	m;
	st_file		f;
	double	   *Xd,
			   *theta;
	int64_t    *labels,
			   *truth;
	int			B = 4,
				n = 500,
				T,
				b,
				i;
	dac_cluster_opts opts = dac_cluster_opts_default();

	cbuf = unit_read_file(unit_fixture("mlf_mog.cluster.safetensors"), &clen);
	if (wbuf == NULL || cbuf == NULL || dac_model_load(&m, wbuf, len, NULL) != DAC_OK ||
		st_open(cbuf, clen, &f, NULL) != DAC_OK)
	{
		CHECK(0, "read the MLF clustering fixture");
		return;
	}
	T = (int) st_find(&f, "theta")->shape[1];
	Xd = malloc(sizeof(double) * B * n * 2);
	theta = malloc(sizeof(double) * B * T * 4);
	labels = malloc(sizeof(int64_t) * B * n);
	truth = malloc(sizeof(int64_t) * B * n);
	st_read_f64(&f, st_find(&f, "X"), Xd, NULL);
	st_read_f64(&f, st_find(&f, "theta"), theta, NULL);
	st_read_i64(&f, st_find(&f, "labels"), labels, NULL);
	st_read_i64(&f, st_find(&f, "labels_true"), truth, NULL);
	for (b = 0; b < B; b++)
	{
		dac_real   *X = malloc(sizeof(dac_real) * n * 2);
		int		   *yt = malloc(sizeof(int) * n);
		dac_clustering c;
		dac_error	err;
		int			same = 1,
					k;
		double		tw = 0;

		for (i = 0; i < 2 * n; i++)
			X[i] = (dac_real) Xd[(size_t) b * n * 2 + i];
		for (i = 0; i < n; i++)
			yt[i] = (int) truth[b * n + i];
		if (dac_cluster_set(&m, X, n, m.net.cfg.dim_input, &opts, &c, &err) != DAC_OK)
		{
			CHECK(0, "cluster fixture set %d: %s", b, err.msg);
			continue;
		}
		for (i = 0; i < n; i++)
			same &= c.labels[i] - 1 == labels[b * n + i];
		CHECK(same, "set %d: same labels as the authors' cluster() (%d clusters, %d passes)",
			  b, c.num_clusters, c.num_passes);
		for (k = 0; k < c.num_clusters && k < T; k++)
			for (i = 0; i < 4; i++)
				tw = fmax(tw, fabs((double) c.theta[k * 4 + i] - theta[((size_t) b * T + k) * 4 + i]));
		CHECK(tw < 2e-5, "set %d: θ of every cluster within %.2g of the authors'", b, tw);
		CHECK(c.leftover == 0, "set %d: no leftover points", b);
		{
			int			pok = 1;

			/* every point was selected: its pass gave it a probability > ½ */
			for (i = 0; i < n; i++)
				pok &= c.prob[i] > 0.5f && c.prob[i] <= 1.0f;
			CHECK(pok, "set %d: membership probabilities of selected points in (½, 1]", b);
		}
		if (b == 0)
		{
			/* the leftover and min_size cases need a set with two clusters or more */
			CHECK(c.num_clusters >= 2, "fixture set 0 has %d clusters", c.num_clusters);
			if (c.num_clusters >= 2)
			{
				leftover_case(&m, X, n, &c);
				min_size_case(&m, X, n, &c);
				reassign_case(&m, X, n, &c);
			}
		}
		printf("# cluster fixture set %d: ARI vs truth %.4f\n", b, dac_ari(yt, c.labels, n));
		dac_clustering_free(&c);
		free(X);
		free(yt);
	}
	st_close(&f);
	free(wbuf);
	free(cbuf);
	free(Xd);
	free(theta);
	free(labels);
	free(truth);
	dac_model_free(&m);
}

/* A clustering of n points in K clusters with the given labels and θ [K, tdim]. */
static int
hand_clustering(dac_clustering *c, int n, int K, int tdim, const int *labels, const dac_real *theta)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->num_clusters = K;
	c->theta_dim = tdim;
	c->labels = dac_alloc(sizeof(int) * (size_t) n);
	c->theta = dac_alloc(sizeof(dac_real) * (size_t) K * tdim);
	if (c->labels == NULL || c->theta == NULL)
	{
		CHECK(0, "allocate a hand-built clustering");
		dac_clustering_free(c);
		return 0;
	}
	memcpy(c->labels, labels, sizeof(int) * (size_t) n);
	memcpy(c->theta, theta, sizeof(dac_real) * (size_t) K * tdim);
	return 1;
}

/*
 * EM against scikit-learn's GaussianMixture (diagonal, reg_covar 0) from the
 * same start, θ and the shares of a starting clustering of three overlapping
 * 2-D clusters: θ after 1 and 3 steps to 1e-5 and each point's likeliest
 * component; at convergence θ to 2e-3 (the core stops once the LL rises by
 * under 1e-7, scikit-learn ran to 1e-12) and the same labels.  The values
 * come from test/unit/em_reference.py.
 */
static void
em_against_sklearn(void)
{
	static const dac_real X[120] = {
		-0.802f, -0.795f, -0.248f, 0.252f, 1.136f, 0.066f, -0.553f, -0.471f, 0.749f, 0.981f,
		0.273f, -0.740f, -0.958f, 0.960f, 0.203f, -1.039f, -0.084f, -0.698f, -0.629f, -0.293f,
		-0.713f, 0.332f, -0.063f, -0.354f, 0.410f, 0.498f, -1.643f, -0.154f, -0.981f, -0.104f,
		-1.289f, 0.012f, -0.038f, -0.183f, -1.048f, -0.238f, -1.091f, -0.813f, 0.225f, -0.666f,
		3.319f, 1.360f, 1.102f, 0.827f, 1.729f, 0.540f, 2.531f, -1.886f, 2.337f, 0.193f, 3.173f,
		-0.918f, 3.017f, -0.819f, 2.268f, -0.509f, 3.514f, 1.182f, 4.202f, 1.270f, 3.091f, 1.509f,
		2.075f, 0.416f, 3.445f, 0.024f, 2.632f, 0.475f, 2.926f, 0.062f, 2.393f, 0.791f, 2.572f,
		-0.538f, 3.127f, -1.058f, 1.659f, -1.039f, 3.177f, 0.067f, -0.277f, 2.091f, 0.837f, 2.156f,
		-0.518f, 3.491f, -0.457f, 2.742f, 0.495f, 2.644f, 0.457f, 4.071f, 0.086f, 1.993f, -0.969f,
		2.836f, 0.218f, 3.212f, 0.129f, 2.617f, -0.077f, 2.584f, 0.628f, 2.696f, 0.580f, 4.521f,
		0.883f, 1.739f, 1.887f, 3.278f, -0.253f, 3.726f, 0.514f, 2.508f, -0.007f, 2.205f, 0.538f,
		3.855f, 0.240f, 3.337f
	};
	static const int start[60] = {
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 3, 3, 3, 3, 3, 3
	};
	static const dac_real theta0[12] = {0.2f, -0.3f, 0.8f, 0.4f, 2.0f, 0.2f, 0.5f, 0.9f, 0, 2.5f, 1, 1};
	static const struct
	{
		int			steps;
		double		tol;
		double		theta[12];
		int			labels[60];
	}			ref[3] = {
		{
			1, 1e-5,
			{
				-0.337823393, -0.315797906, 0.790565302, 0.43505788, 2.64896284, 0.0808097658,
				0.717983724, 0.922514166, 0.321311152, 2.6341576, 0.910036821, 0.986763833
			},
			{
				1, 1, 1, 1, 3, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 2, 2, 2, 2, 2, 2,
				2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
				3, 3, 3, 3
			}
		},
		{
			3, 1e-5,
			{
				-0.443887615, -0.30265559, 0.656002133, 0.448211734, 2.73098135, 0.0812230354,
				0.70347474, 0.920925046, 0.256233104, 2.6518757, 0.631257654, 0.982519491
			},
			{
				1, 1, 2, 1, 3, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 2, 2, 2, 2, 2, 2,
				2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
				3, 3, 3, 3
			}
		},
		{
			1000, 2e-3,
			{
				-0.467377343, -0.265768756, 0.63139052, 0.488498269, 2.67131161, 0.0978916921,
				0.758407798, 0.917336902, 0.261213146, 2.75347501, 0.610820966, 0.898053343
			},
			{
				1, 1, 2, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
				2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
				3, 3, 3, 3
			}
		}
	};
	int			r;

	for (r = 0; r < 3; r++)
	{
		dac_clustering c;
		dac_status	st;
		double		err = 0;
		int			i,
					same = 1;

		if (!hand_clustering(&c, 60, 3, 4, start, theta0))
			return;
		st = dac_clustering_em(X, 2, &c, ref[r].steps);
		CHECK(st == DAC_OK && c.num_clusters == 3, "EM, %d steps at most: runs, keeps 3 clusters", ref[r].steps);
		if (st == DAC_OK && c.num_clusters == 3)
		{
			for (i = 0; i < 12; i++)
				err = fmax(err, fabs(c.theta[i] - ref[r].theta[i]));
			for (i = 0; i < 60; i++)
				same &= c.labels[i] == ref[r].labels[i];
			CHECK(err <= ref[r].tol && same,
				  "EM, %d steps at most (%d run): θ within %.0e of scikit-learn's (%.2g), the same labels",
				  ref[r].steps, c.em_steps, ref[r].tol, err);
			CHECK(ref[r].steps < 1000 ? c.em_steps == ref[r].steps : c.em_steps > 3 && c.em_steps < 1000,
				  "EM, %d steps at most: %d run", ref[r].steps, c.em_steps);
		}
		dac_clustering_free(&c);
	}
}

/* An interrupt check that always says stop. */
static int
always_interrupted(void)
{
	return 1;
}

static int	checks_seen;

/* An interrupt check that says stop the second time it is asked. */
static int
second_check_interrupts(void)
{
	return ++checks_seen >= 2;
}

/*
 * Inside a step, too: on 10,000 points the first step asks at its first
 * point and again at point 8,192, and stops there.
 */
static void
em_interrupt_mid_step(void)
{
	dac_hooks	stop = {NULL, NULL, second_check_interrupts, NULL};
	static const dac_real theta[] = {0, 0, 1, 1, 5, 5, 1, 1};
	int			n = 10000,
				i;
	dac_real   *X = malloc(sizeof(dac_real) * 2 * n);
	int		   *lab = malloc(sizeof(int) * n);
	dac_clustering c;
	dac_status	st;

	if (X == NULL || lab == NULL)
	{
		CHECK(0, "EM mid-step interrupt case: allocate");
		free(X);
		free(lab);
		return;
	}
	for (i = 0; i < n; i++)
	{
		lab[i] = 1 + i % 2;
		X[2 * i] = X[2 * i + 1] = (dac_real) (5 * (i % 2) + 0.001 * (i % 7));
	}
	if (hand_clustering(&c, n, 2, 4, lab, theta))
	{
		checks_seen = 0;
		dac_set_hooks(&stop);
		st = dac_clustering_em(X, 2, &c, 5);
		dac_set_hooks(NULL);
		CHECK(st == DAC_ERR_INTERRUPTED && checks_seen == 2 && c.em_steps == 0
			  && memcmp(c.labels, lab, sizeof(int) * n) == 0 && memcmp(c.theta, theta, sizeof(theta)) == 0,
			  "EM stops at an interrupt inside its first step (%d checks), the clustering as it was",
			  checks_seen);
		dac_clustering_free(&c);
	}
	free(X);
	free(lab);
}

/*
 * The σ floor, worked by hand: two far-apart clusters whose points lie
 * closer than any starting σ (the smallest, 0.5, is the floor in both
 * dimensions).  One step puts each μ at its points' mean and each σ at the
 * floor; the next changes nothing, the third sees the LL stand still and
 * stops.  An interrupt leaves the clustering as it was.
 */
static void
em_floor(void)
{
	static const dac_real X[] = {0, 0, 0.1f, 0, -0.1f, 0, 0, 0.1f, 0, -0.1f, 10, 10, 10.2f, 10, 10, 9.8f};
	static const int labels[] = {1, 1, 1, 1, 1, 2, 2, 2};
	static const dac_real theta[] = {0, 0, 1, 1, 10, 10, 0.5f, 0.5f};
	static const double want[] = {0, 0, 0.5, 0.5, 30.2 / 3, 29.8 / 3, 0.5, 0.5};
	dac_hooks	stop = {NULL, NULL, always_interrupted, NULL};
	dac_clustering c;
	double		err = 0;
	int			i;

	if (!hand_clustering(&c, 8, 2, 4, labels, theta))
		return;
	CHECK(dac_clustering_em(X, 2, &c, 100) == DAC_OK, "EM with the σ floor runs");
	for (i = 0; i < 8; i++)
		err = fmax(err, fabs(c.theta[i] - want[i]) + (c.labels[i] != labels[i]));
	CHECK(err < 1e-6 && c.num_clusters == 2 && c.reassigned == 0 && c.em_steps == 3,
		  "EM: μ to the means, σ held at the floor 0.5, labels kept, 3 steps (%d; off by %.2g)",
		  c.em_steps, err);
	dac_clustering_free(&c);

	/* a σ of 0 (underflow) on a cluster of two equal points: no NaN */
	{
		static const dac_real same_pts[] = {0, 0, 0.1f, 0.1f, 3, 3, 3, 3};
		static const int two[] = {1, 1, 2, 2};
		static const dac_real zero_sd[] = {0.05f, 0.05f, 0.1f, 0.1f, 3, 3, 0, 0};
		int			finite = 1;

		if (!hand_clustering(&c, 4, 2, 4, two, zero_sd))
			return;
		CHECK(dac_clustering_em(same_pts, 2, &c, 10) == DAC_OK, "EM from a σ of 0 runs");
		for (i = 0; i < 8; i++)
			finite &= isfinite(c.theta[i]) && c.theta[i] == c.theta[i];
		CHECK(finite && c.num_clusters == 2 && memcmp(c.labels, two, sizeof(two)) == 0,
			  "EM from a σ of 0: finite θ, the same two clusters");
		dac_clustering_free(&c);
	}

	if (!hand_clustering(&c, 8, 2, 4, labels, theta))
		return;
	dac_set_hooks(&stop);
	CHECK(dac_clustering_em(X, 2, &c, 100) == DAC_ERR_INTERRUPTED, "EM stops at the host's interrupt");
	dac_set_hooks(NULL);
	CHECK(memcmp(c.labels, labels, sizeof(labels)) == 0 && memcmp(c.theta, theta, sizeof(theta)) == 0
		  && c.num_clusters == 2, "an interrupted EM leaves the clustering as it was");
	dac_clustering_free(&c);
}

/*
 * dac_clustering_reassign on a clustering built by hand, the case the
 * fixture set never reaches: a cluster that loses every point is dropped and
 * the later ones move up, θ with them.  Clusters 1 and 2 share θ (mean 0, σ
 * 1), so the weights decide: cluster 2's one point (share 1/8) goes to
 * cluster 1 (share 4/8).  Cluster 3 (σ 0.5 around (10, 10)) keeps its three.
 */
static void
reassign_drops_empty(void)
{
	static const dac_real X[] = {0, 0, 0.1f, 0, -0.1f, 0, 0, 0.1f, 0.05f, 0.05f, 10, 10, 10.2f, 10, 10, 9.8f};
	static const int before[] = {1, 1, 1, 1, 2, 3, 3, 3};
	static const int after[] = {1, 1, 1, 1, 1, 2, 2, 2};
	static const dac_real theta[] = {0, 0, 1, 1, 0, 0, 1, 1, 10, 10, 0.5f, 0.5f};
	dac_clustering c;
	int			i,
				same = 1;

	if (!hand_clustering(&c, 8, 3, 4, before, theta))
		return;
	CHECK(dac_clustering_reassign(X, 2, &c), "reassign a hand-built clustering");
	for (i = 0; i < c.n; i++)
		same &= c.labels[i] == after[i];
	CHECK(same && c.num_clusters == 2 && c.reassigned == 1,
		  "the lone point of cluster 2 joins cluster 1, cluster 2 is dropped (%d clusters, %d moved)",
		  c.num_clusters, c.reassigned);
	CHECK(c.theta[4] == 10 && c.theta[5] == 10 && c.theta[6] == 0.5f && c.theta[7] == 0.5f,
		  "cluster 3's θ moves up to row 2 with it");
	dac_clustering_free(&c);
}

/*
 * k-means steps worked out by hand.  1-D points {0, 1, 9, 10, 6}, labels
 * {1, 1, 2, 2, 1}: means 7/3 and 9.5, so 6 (3.67 from one, 3.5 from the
 * other) moves to cluster 2; then means 0.5 and 25/3 and nothing moves: two
 * steps, one point moved.  Points {0, 2, 0, 2} in clusters {1, 1, 2, 2}
 * share one mean: every point goes to the first, the second is dropped with
 * its θ row, noise (label 0) stays.
 */
static void
kmeans_by_hand(void)
{
	dac_real	X1[5] = {0, 1, 9, 10, 6},
				X2[5] = {0, 2, 0, 2, 50},
				th[6] = {1, 2, 3, 4, 5, 6};
	int			l1[5] = {1, 1, 2, 2, 1},
				l2[5] = {1, 1, 2, 2, 0},
				want1[5] = {1, 1, 2, 2, 2};
	dac_clustering c;

	if (hand_clustering(&c, 5, 2, 3, l1, th))
	{
		CHECK(dac_clustering_kmeans(X1, 1, &c, 10) == DAC_OK &&
			  memcmp(c.labels, want1, sizeof(want1)) == 0 && c.kmeans_steps == 2 && c.reassigned == 1,
			  "k-means: 6 moves to {9, 10}, then nothing moves (steps %d, moved %d)", c.kmeans_steps, c.reassigned);
		dac_clustering_free(&c);
	}
	if (hand_clustering(&c, 5, 2, 3, l2, th))
	{
		CHECK(dac_clustering_kmeans(X2, 1, &c, 1) == DAC_OK && c.num_clusters == 1 &&
			  c.labels[0] == 1 && c.labels[2] == 1 && c.labels[3] == 1 && c.labels[4] == 0 &&
			  c.theta[0] == 1 && c.kmeans_steps == 1,
			  "k-means: a cluster emptied is dropped, θ kept in order, noise left alone");
		dac_clustering_free(&c);
	}
	if (hand_clustering(&c, 5, 2, 3, l1, th))
	{
		CHECK(dac_clustering_kmeans(X1, 1, &c, 0) == DAC_OK && c.kmeans_steps == 0 &&
			  memcmp(c.labels, l1, sizeof(l1)) == 0, "k-means: 0 steps changes nothing");
		dac_clustering_free(&c);
	}
}

/*
 * The noise test's tail shape by hand, on 400 rows of 8 coordinates whose
 * standard scores are known: every coordinate the same variable (a rank-one
 * correlation: q = 8 g², one degree of freedom 8 wide); two blocks of four
 * equal coordinates (two degrees of freedom, 4 wide); 8 independent ones
 * (χ²_8 itself, to sampling error).  g: a deterministic sequence with
 * mean 0 and variance 1 over the 400 rows.
 */
static void
noise_tail_shape_by_hand(void)
{
	enum
	{
		M = 400, D = 8
	};
	dac_real   *X = malloc(sizeof(dac_real) * M * D);
	int			idx[M],
				i,
				j,
				kind;
	double		mu[D] = {0},
				sd[D] = {0};
	dac_rng		r;

	if (X == NULL)
	{
		CHECK(0, "allocate the tail shape's rows");
		return;
	}
	for (i = 0; i < M; i++)
		idx[i] = i;
	for (kind = 0; kind < 3; kind++)
	{
		double		scale,
					dof,
					want_scale = kind == 0 ? D : kind == 1 ? D / 2 : 1,
					want_dof = kind == 0 ? 1 : kind == 1 ? 2 : D;

		dac_rng_seed(&r, 17);
		for (i = 0; i < M; i++)
		{
			double		g1 = dac_rng_normal(&r),
						g2 = dac_rng_normal(&r);

			for (j = 0; j < D; j++)
				X[i * D + j] = (dac_real) (kind == 0 ? g1 : kind == 1 ? (j < D / 2 ? g1 : g2) :
										   dac_rng_normal(&r));
		}
		for (j = 0; j < D; j++)
		{
			double		s1 = 0,
						s2 = 0;

			for (i = 0; i < M; i++)
				s1 += X[i * D + j];
			mu[j] = s1 / M;
			for (i = 0; i < M; i++)
				s2 += (X[i * D + j] - mu[j]) * (X[i * D + j] - mu[j]);
			sd[j] = sqrt(s2 / M);
		}
		CHECK(dac_noise_tail_shape(X, D, mu, sd, idx, M, &scale, &dof) == DAC_OK &&
			  fabs(scale / want_scale - 1) < 0.15 && fabs(dof / want_dof - 1) < 0.15 && dof >= 1 && dof <= D,
			  "noise tail shape, %s: %.3g x chi2 with %.3g degrees of freedom (want %g and %g)",
			  kind == 0 ? "one shared variable" : kind == 1 ? "two blocks" : "independent", scale, dof,
			  want_scale, want_dof);
	}
	{
		double		scale,
					dof;

		CHECK(dac_noise_tail_shape(X, D, mu, sd, idx, 3, &scale, &dof) == DAC_OK && scale == 1 && dof == D,
			  "noise tail shape: under 4 members, plain chi2_d");
	}
	free(X);
}

/*
 * The noise test's isolation, by hand: one cluster of a 20 x 20 grid of
 * spacing 0.2 about the origin, and beyond its Gaussian's 0.1% tail a point
 * alone at (7, 0), a pair 0.1 apart at (0, 7), and a run of points 0.2 apart
 * from (4.6, −4.6) to (5.4, −4.6).  Only the point alone is noise: the pair
 * and the run are as near each other as the grid's points are.
 */
static void
noise_isolation_by_hand(void)
{
	enum
	{
		G = 20, N = G * G + 1 + 2 + 5
	};
	dac_real	X[2 * N],
				th[2] = {0, 0};
	int			lab[N],
				i,
				n = 0,
				others = 0;
	dac_clustering c;

	for (i = 0; i < G * G; i++, n++)
	{
		X[2 * n] = (dac_real) (0.2 * (i % G) - 1.9);
		X[2 * n + 1] = (dac_real) (0.2 * (i / G) - 1.9);
	}
	X[2 * n] = 7, X[2 * n + 1] = 0, n++;
	X[2 * n] = 0, X[2 * n + 1] = 7, n++;
	X[2 * n] = 0, X[2 * n + 1] = 7.1f, n++;
	for (i = 0; i < 5; i++, n++)
	{
		X[2 * n] = (dac_real) (4.6 + 0.2 * i);
		X[2 * n + 1] = -4.6f;
	}
	for (i = 0; i < N; i++)
		lab[i] = 1;
	if (!hand_clustering(&c, N, 1, 2, lab, th))
		return;
	CHECK(dac_clustering_noise(X, 2, &c, 0, 0.001, 1, NULL, 0) == DAC_OK, "noise by hand: runs");
	for (i = 0; i < N; i++)
		others += i != G * G && c.labels[i] == 0;
	CHECK(c.labels[G * G] == 0 && others == 0 && c.noise == 1 && c.num_clusters == 1,
		  "noise by hand: the point alone is noise (%s), the pair, the run and the grid are not (%d noise)",
		  c.labels[G * G] == 0 ? "yes" : "no", others);
	dac_clustering_free(&c);
}

/*
 * The modes stage by hand.  Each piece is the 4 points (c ± 1, ±1), each
 * repeated rep times (16 unless said): mean c, covariance the identity.  Two
 * such pieces 4 apart, at equal weights, have their mixture's lowest point
 * on the ridgeline (here the segment) at the midpoint: the ratio to an end
 * is 2e⁻²/(1 + e⁻⁸) = 0.270625; pieces 8 apart 2e⁻⁸/(1 + e⁻³²), 4√2 apart
 * 2e⁻⁴/(1 + e⁻¹⁶).  A line of 4 pieces 4 apart is one cluster at a ratio of
 * 0.270 (4 rows a piece: at 16 × 4 k-means separates the group, which then
 * keeps its pieces) and stays 4 at 0.271; a line of 3 stays 3 (a chain
 * under DAC_MODES_CHAIN); a 3 × 3 field of pieces, 12 links for 9 pieces,
 * stays 9.  The merged cluster's θ is its members' mean and spread.
 *
 * A pair each the other's likeliest partner: one Gaussian of two pieces 4
 * apart has variances 5 and 1, a log-likelihood of −m (log 2π + ½ log 5 + 1)
 * = −3.6426 m over their m rows; their mixture −3.5219 m (−m (log 2π + 1 +
 * log 2) = −3.5310 m, plus the other piece's share at the inner rows).  At 4
 * rows a piece (m = 8) the mixture gains 0.97 < 6, Akaike's price of its
 * parameters: one cluster; at 64 rows a piece, 15.4: two.
 */
#define MODES_ROWS (4 * 16 * 9)

static int
modes_pieces(const int *cx, const int *cy, int K, const int *rep, double ratio, int *merged, dac_real *theta0,
			 int *ids)
{
	static dac_real X[2 * MODES_ROWS];
	static int	lab[MODES_ROWS];
	dac_real	th[4 * 9];
	int			k,
				j,
				r,
				n = 0,
				got;
	dac_clustering c;

	for (k = 0; k < K; k++)
	{
		for (r = 0; r < (rep ? rep[k] : 16); r++)
			for (j = 0; j < 4; j++, n++)
			{
				X[2 * n] = (dac_real) (cx[k] + (j & 1 ? 1 : -1));
				X[2 * n + 1] = (dac_real) (cy[k] + (j & 2 ? 1 : -1));
				lab[n] = k + 1;
			}
		th[4 * k] = (dac_real) cx[k], th[4 * k + 1] = (dac_real) cy[k], th[4 * k + 2] = 1, th[4 * k + 3] = 1;
	}
	if (!hand_clustering(&c, n, K, 4, lab, th))
		return -1;
	CHECK(dac_clustering_modes(X, 2, &c, ratio, DAC_MODES_CHAIN, 10, merged) == DAC_OK, "modes by hand: runs");
	got = c.num_clusters;
	if (theta0)
		memcpy(theta0, c.theta, sizeof(dac_real) * 4);
	/* each piece's id: its rows must share it */
	for (j = 0; j < n; j++)
	{
		if (c.labels[j] < 1 || c.labels[j] > got || (got == K && c.labels[j] != lab[j]))
			got = -2;
		if (ids)
			ids[lab[j] - 1] = c.labels[j];
	}
	for (j = 1; j < n && got > 0; j++)
		if (lab[j] == lab[j - 1] && c.labels[j] != c.labels[j - 1])
			got = -3;
	dac_clustering_free(&c);
	return got;
}

static void
modes_by_hand(void)
{
	static const int lx[4] = {0, 4, 8, 12},
				ly[4] = {0, 0, 0, 0},
				gx[9] = {0, 4, 8, 0, 4, 8, 0, 4, 8},
				gy[9] = {0, 0, 0, 4, 4, 4, 8, 8, 8},
				px[3] = {0, 4, 40},
				py[3] = {0, 0, 0},
				small[3] = {1, 1, 16},
				ones[4] = {1, 1, 1, 1};
	int			merged,
				got,
				ids[3];
	dac_real	th[4];
	double		sd = sqrt((2 * (1.0 + 9 + 25 + 49 + 81 + 121 + 169) + 2 * 1.0) / 16 - 36);

	got = modes_pieces(lx, ly, 4, ones, 0.270, &merged, th, NULL);
	CHECK(got == 1 && merged == 3, "modes by hand: 4 pieces 4 apart (ratio 0.2706) are one cluster at 0.270 (%d clusters)", got);
	CHECK(fabs(th[0] - 6) < 1e-6 && fabs(th[1]) < 1e-6 && fabs(th[2] - sd) < 1e-5 && fabs(th[3] - 1) < 1e-5,
		  "modes by hand: the merged cluster's θ is its members' mean and spread (%g %g %g %g)",
		  th[0], th[1], th[2], th[3]);
	got = modes_pieces(lx, ly, 4, NULL, 0.270, &merged, NULL, NULL);
	CHECK(got == 4 && merged == 0, "modes by hand: at 64 rows a piece k-means separates the chain the stage would leave one cluster: the pieces stand (%d)", got);
	got = modes_pieces(lx, ly, 4, NULL, 0.271, &merged, NULL, NULL);
	CHECK(got == 4 && merged == 0, "modes by hand: the same pieces stay 4 at 0.271 (%d)", got);
	got = modes_pieces(lx, ly, 3, NULL, 0.270, &merged, NULL, NULL);
	CHECK(got == 3 && merged == 0, "modes by hand: a chain of 3 pieces stays 3 (%d)", got);
	got = modes_pieces(gx, gy, 9, NULL, 0.270, &merged, NULL, NULL);
	CHECK(got == 9 && merged == 0, "modes by hand: a 3 x 3 field of pieces (12 links) stays 9 (%d)", got);
	got = modes_pieces(gx, gy, 9, NULL, 0.01, &merged, NULL, NULL);
	CHECK(got == 9 && merged == 0, "modes by hand: the field stays 9 with its diagonals linked too (%d)", got);
	got = modes_pieces(px, py, 3, small, 0.1, &merged, NULL, ids);
	CHECK(got == 2 && merged == 1 && ids[0] == ids[1] && ids[2] != ids[0],
		  "modes by hand: two pieces of 4 rows 4 apart, each the other's partner, are one Gaussian by Akaike's criterion; the far piece stands (%d clusters, ids %d %d %d)",
		  got, ids[0], ids[1], ids[2]);
	got = modes_pieces(px, py, 3, NULL, 0.1, &merged, NULL, NULL);
	CHECK(got == 3 && merged == 0, "modes by hand: at 64 rows a piece the pair stands: its mixture gains more than 6 (%d)", got);
}

/*
 * The count asked for, in 2-D, by the ridgeline.  Two parallel bands, y = 0
 * and y = 3, each cut into 3 pieces at x = 0, 6, 12: a piece is the 4 points
 * (x ± 3, y ± 0.5), σ 3 along its band and 0.5 across.  Along a band two
 * pieces are 2σ apart, where their mixture has no dip (ratio 1); across, 6σ
 * apart, ratio 2e⁻⁴·⁵/(1 + e⁻¹⁸) = 0.022.  Merged to 2 the bands are the
 * clusters, and a piece of 2 points at (18, 0), which has no covariance,
 * joins the band of the nearest mean.  The same rows with a third
 * coordinate 0 merge by their means: the columns, 3 apart, first, so the
 * bands do not come back.  θ: the merged clusters' own mean and spread.
 */
static int
ridge_pieces(int d, int *lab_out, dac_real *theta0)
{
	enum
	{
		N = 6 * 4 + 2
	};
	dac_real	X[3 * N],
				th[6 * 7];
	int			lab[N],
				i,
				k,
				j,
				got;
	dac_clustering c;

	memset(X, 0, sizeof(X));
	for (i = 0; i < 7 * 2 * d; i++)
		th[i] = (dac_real) (i % (2 * d) < d ? 0 : 0.5);
	for (k = 0; k < 6; k++)
		for (j = 0; j < 4; j++)
		{
			i = 4 * k + j;
			X[d * i] = (dac_real) (6 * (k % 3) + (j & 1 ? 3 : -3));
			X[d * i + 1] = (dac_real) (3 * (k / 3) + (j & 2 ? 0.5 : -0.5));
			lab[i] = k + 1;
		}
	X[d * 24] = 18;
	X[d * 25] = 18;
	X[d * 25 + 1] = (dac_real) 0.2;
	lab[24] = lab[25] = 7;
	if (!hand_clustering(&c, N, 7, 2 * d, lab, th))
		return -1;
	CHECK(dac_force_count(X, d, &c, 2, 2, 1) == DAC_OK, "the count by the ridgeline: runs (d %d)", d);
	got = c.num_clusters;
	memcpy(lab_out, c.labels, sizeof(int) * N);
	if (theta0)
		memcpy(theta0, c.theta, sizeof(dac_real) * 2 * d);
	dac_clustering_free(&c);
	return got;
}

static void
count_by_ridgeline(void)
{
	int			lab[26],
				band = 1,
				i,
				got;
	dac_real	th[6];
	/* band y = 0: x in {−3, 3, 3, 9, 9, 15} twice and 18, 18; y ±0.5 and 0, 0.2 */
	double		mx = (2 * (-3 + 3 + 3 + 9 + 9 + 15) + 36) / 14.0,
				sx = sqrt((2 * (9 + 9 + 9 + 81 + 81 + 225) + 2 * 324.0) / 14 - mx * mx);

	got = ridge_pieces(2, lab, th);
	for (i = 0; i < 26; i++)
		if (lab[i] != (i < 24 && i / 12 == 1 ? 2 : 1))
			band = 0;
	CHECK(got == 2 && band, "the count by the ridgeline: 6 pieces of two bands and a stray pair merged to 2 are the bands (%d)",
		  got);
	CHECK(fabs(th[0] - mx) < 1e-4 && fabs(th[2] - sx) < 1e-4,
		  "the count by the ridgeline: the first band's θ is its members' mean and spread (%g %g; by hand %g %g)",
		  th[0], th[2], mx, sx);
	got = ridge_pieces(3, lab, NULL);
	band = 1;
	for (i = 0; i < 24; i++)
		if (lab[i] != lab[i < 12 ? 0 : 12])
			band = 0;
	CHECK(got == 2 && !band,
		  "the count by means (3-D): the same rows merge by columns, not into the bands (%d)", got);
}

/* the cluster index 0..K-1 under whose θ (plus logw, may be NULL) the point is likeliest */
static int
likeliest(const dac_model *m, const dac_clustering *c, const dac_real *x, const double *logw)
{
	int			k,
				best = -1;
	double		sc = -INFINITY;

	for (k = 0; k < c->num_clusters; k++)
	{
		dac_real	l;

		dac_head_ll(&m->net.head, m->P, c->theta + (size_t) k * c->theta_dim, x, 1, &l, NULL);
		if (best < 0 || l + (logw ? logw[k] : 0) > sc)
		{
			sc = l + (logw ? logw[k] : 0);
			best = k;
		}
	}
	return best;
}

/*
 * The post-pass options through a flow's log-density, on a warped set the
 * model splits into K >= 3 clusters: leftovers (own: θ of a pass over them
 * alone; best: the likeliest found cluster), min_size, reassign, em_steps
 * (weights only) and noise (the flow's |z|² as χ²_2).
 */
static void
flow_options_case(const dac_model *m, const dac_real *X, int n, const dac_clustering *full)
{
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c;
	int			i,
				k,
				ok;

	/* own: the leftovers of 2 passes take the θ of a third pass over them alone */
	o.max_passes = 2;
	if (dac_cluster_set(m, X, n, 2, &o, &c, NULL) == DAC_OK)
	{
		dac_real   *sub = malloc(sizeof(dac_real) * n * 2);
		int			na = 0;
		dac_arena	ar;
		dac_forward fw;
		double		tw = 0;

		for (i = 0; i < n; i++)
			if (full->labels[i] > 2)
			{
				memcpy(sub + na * 2, X + i * 2, sizeof(dac_real) * 2);
				na++;
			}
		CHECK(c.num_clusters == 3 && c.leftover == na && c.num_passes == 3,
			  "flow, own: %d leftovers (want %d) in cluster 3 after %d passes", c.leftover, na, c.num_passes);
		dac_arena_init(&ar, 0);
		if (na > 0 && dac_net_infer(&m->net, m->P, m->F, sub, 1, na, NULL, &ar, &fw, NULL) == DAC_OK)
			for (k = 0; k < c.theta_dim; k++)
				tw = fmax(tw, fabs((double) (fw.theta[k] - c.theta[2 * c.theta_dim + k])));
		/* the loop saw the rows in their canonical order: equal to rounding */
		CHECK(na > 0 && tw < 1e-4, "flow, own: cluster 3's θ is the θ of a pass over the leftovers (diff %.2g)", tw);
		CHECK(isfinite(c.ll), "flow, own: LL %.4f", c.ll);
		dac_arena_free(&ar);
		free(sub);
		dac_clustering_free(&c);
	}
	else
		CHECK(0, "flow, own: clusters");
	/* best: each leftover to the likeliest of the clusters found */
	o.leftover = DAC_LEFTOVER_BEST;
	if (dac_cluster_set(m, X, n, 2, &o, &c, NULL) == DAC_OK)
	{
		ok = c.num_clusters == 2 && c.leftover > 0;
		for (i = 0; i < n; i++)
			if (full->labels[i] > 2)
				ok &= c.labels[i] == likeliest(m, &c, X + i * 2, NULL) + 1;
			else
				ok &= c.labels[i] == full->labels[i];
		CHECK(ok, "flow, best: the %d leftovers go to the likeliest found cluster", c.leftover);
		dac_clustering_free(&c);
	}
	/* reassign: every point to argmax log share + ll */
	o = dac_cluster_opts_default();
	o.reassign = 1;
	if (dac_cluster_set(m, X, n, 2, &o, &c, NULL) == DAC_OK)
	{
		double		lw[64];
		int			cnt[64] = {0};

		for (i = 0; i < n; i++)
			cnt[full->labels[i] - 1]++;
		for (k = 0; k < full->num_clusters && k < 64; k++)
			lw[k] = log((double) cnt[k] / n);
		ok = c.num_clusters <= full->num_clusters && c.em_steps == 0;
		for (i = 0; i < n; i++)
			ok &= c.labels[i] == likeliest(m, full, X + i * 2, lw) + 1 || c.num_clusters < full->num_clusters;
		CHECK(ok, "flow, reassign: each point to its likeliest weighted cluster (%d moved)", c.reassigned);
		dac_clustering_free(&c);
	}
	o.em_steps = 20;
	if (dac_cluster_set(m, X, n, 2, &o, &c, NULL) == DAC_OK)
	{
		CHECK(c.em_steps >= 1 && c.em_steps <= 20 && c.num_clusters >= 1 && isfinite(c.ll),
			  "flow, em_steps: %d weight-only EM steps, %d clusters, LL %.4f", c.em_steps, c.num_clusters, c.ll);
		dac_clustering_free(&c);
	}
	/* min_size above the smallest cluster: its points go to the likeliest kept cluster */
	{
		int			cnt[64] = {0},
					smallest = n;

		for (i = 0; i < n; i++)
			cnt[full->labels[i] - 1]++;
		for (k = 0; k < full->num_clusters && k < 64; k++)
			if (cnt[k] < smallest)
				smallest = cnt[k];
		o = dac_cluster_opts_default();
		o.min_size = smallest + 1;
		if (dac_cluster_set(m, X, n, 2, &o, &c, NULL) == DAC_OK)
		{
			CHECK(c.dissolved == smallest && c.num_clusters < full->num_clusters,
				  "flow, min_size %d: %d points dissolved", o.min_size, c.dissolved);
			dac_clustering_free(&c);
		}
	}
	/*
	 * noise: the points marked lie in the far tail of their cluster's flow
	 * (those of the tail that are not isolated stay: noise_isolation_by_hand)
	 */
	o = dac_cluster_opts_default();
	o.noise = 0.01;
	if (dac_cluster_set(m, X, n, 2, &o, &c, NULL) == DAC_OK)
	{
		int			bad = 0,
					flagged = 0,
					tail = 0;

		for (i = 0; i < n; i++)
		{
			dac_real	l;
			double		z2;

			dac_head_ll(&m->net.head, m->P, full->theta + (size_t) (full->labels[i] - 1) * full->theta_dim,
						X + i * 2, 1, &l, &z2);
			tail += dac_chi2_log_sf(z2, 2) < log(0.01);
			if (c.labels[i] == 0)
			{
				flagged++;
				bad += !(dac_chi2_log_sf(z2, 2) < log(0.01) || full->prob[i] <= 0.5f);
			}
		}
		CHECK(bad == 0 && flagged == c.noise && flagged > 0 && flagged < n / 10,
			  "flow, noise 0.01: %d points, of the %d beyond the 1%% tail of their cluster's flow, are noise (%d not in it)",
			  flagged, tail, bad);
		dac_clustering_free(&c);
	}
}

/*
 * The authors' cluster() with the MAF model on 4 warped sets of 500 points
 * (mlf_warped.cluster): the same clusters in the same order, the same θ
 * (128-d context), and the same LL.
 */
static void
warped_fixture_clustering(void)
{
	size_t		len,
				clen;
	uint8_t    *wbuf = unit_read_file(unit_fixture("mlf_warped.weights.safetensors"), &len);
	uint8_t    *cbuf = unit_read_file(unit_fixture("mlf_warped.cluster.safetensors"), &clen);
	dac_model	m;
	st_file		f;
	double	   *Xd,
			   *theta,
				ll_ref,
				ll_sum = 0;
	int64_t    *labels;
	int			B = 4,
				n = 500,
				T,
				b,
				i,
				did_options = 0;
	dac_cluster_opts opts = dac_cluster_opts_default();

	if (wbuf == NULL || cbuf == NULL || dac_model_load(&m, wbuf, len, NULL) != DAC_OK ||
		st_open(cbuf, clen, &f, NULL) != DAC_OK)
	{
		CHECK(0, "read the warped clustering fixture");
		free(wbuf);
		free(cbuf);
		return;
	}
	T = (int) st_find(&f, "theta")->shape[1];
	Xd = malloc(sizeof(double) * B * n * 2);
	theta = malloc(sizeof(double) * B * T * 128);
	labels = malloc(sizeof(int64_t) * B * n);
	st_read_f64(&f, st_find(&f, "X"), Xd, NULL);
	st_read_f64(&f, st_find(&f, "theta"), theta, NULL);
	st_read_i64(&f, st_find(&f, "labels"), labels, NULL);
	st_read_f64(&f, st_find(&f, "ll_f64"), &ll_ref, NULL);
	for (b = 0; b < B; b++)
	{
		dac_real   *X = malloc(sizeof(dac_real) * n * 2);
		dac_clustering c;
		dac_error	err;
		int			same = 1,
					k;
		double		tw = 0,
					ts = 0;

		for (i = 0; i < 2 * n; i++)
			X[i] = (dac_real) Xd[(size_t) b * n * 2 + i];
		/* the authors' loop: rows as given */
		opts.canonical = 0;
		if (dac_cluster_set(&m, X, n, 2, &opts, &c, &err) != DAC_OK)
		{
			CHECK(0, "cluster warped fixture set %d: %s", b, err.msg);
			free(X);
			continue;
		}
		for (i = 0; i < n; i++)
			same &= c.labels[i] - 1 == labels[b * n + i];
		for (k = 0; k < c.num_clusters && k < T; k++)
			for (i = 0; i < 128; i++)
			{
				double		ref = theta[((size_t) b * T + k) * 128 + i];

				tw = fmax(tw, fabs((double) c.theta[k * 128 + i] - ref));
				ts = fmax(ts, fabs(ref));
			}
		CHECK(same, "warped set %d: same labels as the authors' cluster() (%d clusters, %d passes)",
			  b, c.num_clusters, c.num_passes);
		CHECK(tw <= 1e-5 * ts + 1e-12, "warped set %d: θ of every cluster within %.2g of the authors' (scale %.3g)",
			  b, tw, ts);
		ll_sum += c.ll;
		if (!did_options && c.num_clusters >= 3)
		{
			opts.canonical = 1;
			flow_options_case(&m, X, n, &c);
			did_options = 1;
		}
		dac_clustering_free(&c);
		free(X);
	}
	CHECK(did_options, "a warped fixture set with 3 clusters or more for the options");
	CHECK(fabs(ll_sum / B - ll_ref) < 1e-4 * fabs(ll_ref),
		  "warped: LL %.6f, the authors' %.6f", ll_sum / B, ll_ref);
	printf("# warped cluster fixture: LL %.6f against the authors' %.6f\n", ll_sum / B, ll_ref);
	st_close(&f);
	free(wbuf);
	free(cbuf);
	free(Xd);
	free(theta);
	free(labels);
	dac_model_free(&m);
}

/*
 * opts.sample_size: a set larger than the sample is clustered through it;
 * every point gets a cluster of 1..K, the same clusters for the rows in any
 * order (the sample is taken in the canonical order), and a sample at least
 * as large as the set changes nothing, bit for bit.  A density model ignores it.
 */
static void
sampled_large_sets(void)
{
	dac_model	m;
	dac_rng		r;
	dac_error	err;
	dac_cluster_opts o = dac_cluster_opts_default();
	int			n = 900,
				d = 8,
				i,
				ok = 1;
	dac_real   *X = malloc(sizeof(dac_real) * n * d),
			   *Y = malloc(sizeof(dac_real) * n * d);
	dac_clustering a,
				b,
				c;

	if (unit_small_setnorm_model(&m, 16, 21, &r) != DAC_OK)
	{
		CHECK(0, "sampled sets: set-up");
		return;
	}
	for (i = 0; i < n * d; i++)
		X[i] = (dac_real) (dac_rng_normal(&r) + 4 * ((i / d) % 3));
	/* the same rows reversed */
	for (i = 0; i < n; i++)
		memcpy(Y + (size_t) i * d, X + (size_t) (n - 1 - i) * d, sizeof(dac_real) * d);
	o.kmeans_steps = 10;
	o.sample_size = 200;
	if (dac_cluster_set(&m, X, n, d, &o, &a, &err) != DAC_OK || dac_cluster_set(&m, Y, n, d, &o, &b, &err) != DAC_OK)
	{
		CHECK(0, "sampled sets: clustering (%s)", err.msg);
		dac_model_free(&m);
		return;
	}
	for (i = 0; i < n; i++)
	{
		if (a.labels[i] < 1 || a.labels[i] > a.num_clusters || a.labels[i] != b.labels[n - 1 - i])
			ok = 0;
	}
	CHECK(ok, "a set of 900 through a sample of 200: every point in 1..%d, the same for the rows reversed", a.num_clusters);
	CHECK(a.num_passes <= a.num_clusters + 1 && a.leftover <= 200,
		  "... the network ran on the sample only (%d passes, %d leftovers)", a.num_passes, a.leftover);
	o.sample_size = 0;
	dac_cluster_set(&m, X, n, d, &o, &c, &err);
	CHECK(a.flops < 0.5 * c.flops, "... and spent under half the matrix FLOPs of every row through it (%.3g against %.3g)",
		  a.flops, c.flops);
	dac_clustering_free(&a);
	dac_clustering_free(&b);
	dac_clustering_free(&c);
	dac_cluster_set(&m, X, n, d, &o, &a, &err);
	o.sample_size = n;
	dac_cluster_set(&m, X, n, d, &o, &c, &err);
	CHECK(memcmp(a.labels, c.labels, sizeof(int) * n) == 0 && memcmp(a.prob, c.prob, sizeof(float) * n) == 0,
		  "a sample as large as the set changes nothing, bit for bit");
	o.sample_size = 0;
	CHECK(dac_cluster_bytes(&m, 100000, d, &o) > dac_cluster_bytes(&m, 100000, d, &(dac_cluster_opts) {.max_passes = 50, .sample_size = 1000, .kmeans_steps = 10, .canonical = 1}),
		  "the memory a sampled clustering needs is counted for its sample's pass");
	dac_clustering_free(&a);
	dac_clustering_free(&c);
	dac_model_free(&m);
	free(X);
	free(Y);
}

/*
 * opts.k_search by hand: four tight clusters in 8-D, 50 points each.  From
 * a clustering that merged them into two, or cut them into six, the search
 * (window 2) finds the four; from the four it keeps them; from one it keeps
 * one; window 1 from two reaches only three.  Ids follow first appearance.
 */
static void
ksearch_by_hand(void)
{
	int			n = 200,
				d = 8,
				i,
				j,
				ok;
	dac_real   *X = malloc(sizeof(dac_real) * n * d);
	int		   *truth = malloc(sizeof(int) * n);
	dac_rng		r;
	dac_clustering c;
	int			starts[4] = {2, 6, 4, 1},
				wants[4] = {4, 4, 4, 1};

	dac_rng_seed(&r, 77);
	for (i = 0; i < n; i++)
	{
		truth[i] = i % 4;
		for (j = 0; j < d; j++)
			X[(size_t) i * d + j] = (dac_real) ((j == truth[i] ? 10.0 : 0.0) + 0.3 * dac_rng_normal(&r));
	}
	for (int t = 0; t < 4; t++)
	{
		memset(&c, 0, sizeof(c));
		c.n = n;
		c.labels = malloc(sizeof(int) * n);
		c.num_clusters = starts[t];
		c.theta_dim = 1;
		c.theta = calloc((size_t) starts[t], sizeof(dac_real));
		for (i = 0; i < n; i++)
			c.labels[i] = starts[t] == 2 ? 1 + truth[i] / 2 :
				starts[t] == 6 ? 1 + (truth[i] < 2 ? truth[i] * 2 + (i / 4) % 2 : truth[i] + 2) :
				starts[t] == 4 ? 1 + truth[i] : 1;
		CHECK(dac_clustering_ksearch(X, d, &c, 2, 10) == DAC_OK, "k search from %d clusters runs", starts[t]);
		ok = c.num_clusters == wants[t] && c.labels[0] == 1 &&
			(wants[t] == 1 || dac_ari(truth, c.labels, n) > 0.999);
		CHECK(ok, "from %d clusters the search keeps %d (found %d, ARI %.3f), the first row's id 1", starts[t],
			  wants[t], c.num_clusters, dac_ari(truth, c.labels, n));
		dac_clustering_free(&c);
	}
	/* window 1 from two: three at most */
	memset(&c, 0, sizeof(c));
	c.n = n;
	c.labels = malloc(sizeof(int) * n);
	c.num_clusters = 2;
	c.theta = calloc(2, sizeof(dac_real));
	for (i = 0; i < n; i++)
		c.labels[i] = 1 + truth[i] / 2;
	dac_clustering_ksearch(X, d, &c, 1, 10);
	CHECK(c.num_clusters == 3, "window 1 from two clusters reaches three (found %d)", c.num_clusters);
	dac_clustering_free(&c);
	free(X);
	free(truth);
}

/*
 * The nearest mean and the silhouette against plain loops written here:
 * the same index and the same value to the bit, at every count of means
 * (four at a time and the rest), with empty clusters and no counts given,
 * and at sample sizes that leave one to three rows after the blocks of four
 * (and past the blocked path's 64 clusters).
 */
static void
kernels_by_hand(void)
{
	dac_rng		r;
	int			d = 11,
				K,
				i,
				j,
				k,
				bad = 0;
	dac_real	x[11];
	double		cen[13 * 11];
	int			cnt[13];

	dac_rng_seed(&r, 5);
	for (K = 1; K <= 13; K++)
		for (int t = 0; t < 50; t++)
		{
			int			want = 0;
			double		bd = INFINITY;

			for (j = 0; j < d; j++)
				x[j] = (dac_real) dac_rng_normal(&r);
			for (k = 0; k < K; k++)
			{
				cnt[k] = (k + t) % 5 == 0 ? 0 : 1 + k;
				for (j = 0; j < d; j++)
					cen[k * d + j] = dac_rng_normal(&r);
			}
			for (k = 0; k < K; k++)
			{
				double		s = 0;

				for (j = 0; j < d; j++)
					s += (x[j] - cen[k * d + j]) * (x[j] - cen[k * d + j]);
				if (cnt[k] > 0 && s < bd)
				{
					bd = s;
					want = k + 1;
				}
			}
			bad += dac_nearest_mean(x, cen, cnt, K, d) != want;
			for (k = 0; k < K; k++)
				cnt[k] = 1;
			want = 0;
			bd = INFINITY;
			for (k = 0; k < K; k++)
			{
				double		s = 0;

				for (j = 0; j < d; j++)
					s += (x[j] - cen[k * d + j]) * (x[j] - cen[k * d + j]);
				if (s < bd)
				{
					bd = s;
					want = k + 1;
				}
			}
			bad += dac_nearest_mean(x, cen, NULL, K, d) != want;
		}
	CHECK(bad == 0, "the nearest of 1 to 13 means, with and without counts, is a plain loop's (%d differ)", bad);

	/*
	 * Eight rows at a time, on every vector unit this CPU has: every row's
	 * answer is dac_nearest_mean's (row counts not a multiple of 8; means of
	 * no members; a mean repeated, the tie to the first; rows labelled 0
	 * left alone), and the moves counted.
	 */
	bad = 0;
	for (int isa = 0; isa < 3; isa++)
		for (int n = 1; n <= 37; n += 6)
			for (int dd = 1; dd <= 40; dd += 13)
				for (K = 1; K <= 13; K += 3)
				{
					dac_real   *X = malloc(sizeof(dac_real) * n * dd);
					double	   *C = malloc(sizeof(double) * K * dd),
							   *tile = malloc(sizeof(double) * DAC_NEAREST_TILE * dd);
					int		   *lab = malloc(sizeof(int) * n),
							   *want = malloc(sizeof(int) * n),
								moves = 0,
								moved = -1;

					for (k = 0; k < K; k++)
					{
						cnt[k] = (k + n) % 4 == 1 ? 0 : 1;
						for (j = 0; j < dd; j++)
							C[k * dd + j] = k == 2 ? C[j] : dac_rng_normal(&r);
					}
					for (i = 0; i < n; i++)
					{
						int			near;

						for (j = 0; j < dd; j++)
							X[i * dd + j] = (dac_real) (i % 5 == 0 ? C[j] : dac_rng_normal(&r));
						lab[i] = i % 7 == 3 ? 0 : 1 + dac_rng_int(&r, K);
						near = dac_nearest_mean(X + i * dd, C, cnt, K, dd);
						want[i] = lab[i] > 0 && near > 0 ? near : lab[i];
						moves += want[i] != lab[i];
					}
					dac_direct_avx2_only = isa == 1;
					dac_vector_plain = isa == 2;
					bad += dac_nearest_means(X, n, dd, C, cnt, K, tile, lab, &moved) != DAC_OK ||
						memcmp(lab, want, sizeof(int) * n) != 0 || moved != moves;
					dac_direct_avx2_only = dac_vector_plain = 0;
					free(X);
					free(C);
					free(tile);
					free(lab);
					free(want);
				}
	CHECK(bad == 0, "the nearest means of 1 to 37 rows eight at a time are one row's at a time, on each vector unit up to level %d (%d differ)",
		  dac_vector_level(), bad);

	bad = 0;
	for (int m = 1; m <= 100; m += (m < 12 ? 1 : 29))
		for (K = 1; K <= 70; K += (K < 6 ? 1 : 64))
		{
			float	   *D = malloc(sizeof(float) * m * m);
			int		   *lab = malloc(sizeof(int) * (m + 1)),
					   *smp = malloc(sizeof(int) * m),
					   *c = calloc((size_t) K, sizeof(int)),
					   *c2 = calloc((size_t) K, sizeof(int));
			double	   *sum = malloc(sizeof(double) * K),
						tot = 0,
						got;

			for (i = 0; i <= m; i++)
				lab[i] = 1 + dac_rng_int(&r, K);
			for (i = 0; i < m; i++)
			{
				smp[i] = m - i;	/* the sample reads the labels through smp */
				for (j = 0; j <= i; j++)
					D[i * m + j] = D[j * m + i] = i == j ? 0 : (float) (0.1 + dac_rng_uniform(&r));
			}
			for (i = 0; i < m; i++)
				c[lab[smp[i]] - 1]++;
			for (i = 0; i < m; i++)
			{
				int			own = lab[smp[i]] - 1;
				double		a,
							b = INFINITY;

				memset(sum, 0, sizeof(double) * K);
				for (j = 0; j < m; j++)
					sum[lab[smp[j]] - 1] += D[i * m + j];
				if (c[own] < 2)
					continue;
				a = sum[own] / (c[own] - 1);
				for (k = 0; k < K; k++)
					if (k != own && c[k] > 0 && sum[k] / c[k] < b)
						b = sum[k] / c[k];
				if (isfinite(b) && (a > 0 || b > 0))
					tot += (b - a) / (a > b ? a : b);
			}
			got = dac_silhouette(D, smp, m, lab, K, sum, c2);
			bad += got != tot / m || memcmp(c, c2, sizeof(int) * K) != 0;
			free(D);
			free(lab);
			free(smp);
			free(c);
			free(c2);
			free(sum);
		}
	CHECK(bad == 0, "the silhouette of 1 to 100 rows in 1 to 69 clusters is a plain loop's to the bit (%d differ)", bad);
}

/*
 * absorb_size worked out by hand, under a 2-D Gaussian head, where the χ²₂
 * tail beyond z² is exp(−z²/2).  Cluster 1: 40 points within the unit square
 * around the origin, θ = (0, 0, 1, 1).  Cluster 2: one point at (5.2, 0);
 * cluster 3: one point at (5, 0); cluster 4: two points at (0.5, 0.5) and
 * (−0.5, 0.3).  Every small point's likeliest cluster is 1 (then 42 to 44
 * points).  (5, 0): exp(−12.5) · 44 = 1.6e−4, no outlier at 1e−4: absorbed.
 * (5.2, 0): exp(−13.52) · 44 = 5.9e−5 (42 points: 5.6e−5), an outlier: its
 * cluster stays, renumbered 2 with its θ.  Cluster 4's points lie well
 * inside: absorbed at absorb_size 3, kept at 2 (not small).  With no test
 * (tail 0, min_size) every small cluster goes.
 */
static void
absorb_by_hand(void)
{
	dac_real	X[88];
	int			lab[44],
				i,
				ok,
				moved;
	dac_real	theta[16] = {0, 0, 1, 1, 5.2f, 0, 1, 1, 5, 0, 1, 1, 0, 0.4f, 1, 1};
	dac_head	gh;
	dac_density_ref dr;
	dac_clustering c;

	memset(&gh, 0, sizeof(gh));
	gh.kind = DAC_DENSITY_GAUSSIAN;
	gh.d = 2;
	dr.h = &gh;
	dr.P = NULL;
	for (i = 0; i < 40; i++)
	{
		X[2 * i] = (dac_real) ((i % 8) / 7.0 - 0.5);
		X[2 * i + 1] = (dac_real) ((i / 8) / 4.0 - 0.5);
		lab[i] = 1;
	}
	X[80] = 5.2f, X[81] = 0, lab[40] = 2;
	X[82] = 5, X[83] = 0, lab[41] = 3;
	X[84] = 0.5f, X[85] = 0.5f, lab[42] = 4;
	X[86] = -0.5f, X[87] = 0.3f, lab[43] = 4;

	if (!hand_clustering(&c, 44, 4, 4, lab, theta))
		return;
	CHECK(dac_dissolve_small(&dr, X, 44, 2, &c, 3, DAC_ABSORB_TAIL, &moved) == DAC_OK, "absorb at 3");
	for (i = 0, ok = 1; i < 40; i++)
		ok &= c.labels[i] == 1;
	CHECK(ok && c.labels[40] == 2 && c.labels[41] == 1 && c.labels[42] == 1 && c.labels[43] == 1 &&
		  c.num_clusters == 2 && moved == 3,
		  "absorb_size 3: (5, 0) and cluster 4 join cluster 1, (5.2, 0) stays as cluster 2 (%d clusters, %d moved)",
		  c.num_clusters, moved);
	CHECK(c.theta[4] == 5.2f && c.theta[5] == 0 && c.theta[6] == 1 && c.theta[7] == 1,
		  "the cluster that stays keeps its θ, in row 2");
	dac_clustering_free(&c);

	if (!hand_clustering(&c, 44, 4, 4, lab, theta))
		return;
	CHECK(dac_dissolve_small(&dr, X, 44, 2, &c, 2, DAC_ABSORB_TAIL, &moved) == DAC_OK, "absorb at 2");
	CHECK(c.num_clusters == 3 && moved == 1 && c.labels[40] == 2 && c.labels[41] == 1 && c.labels[42] == 3 &&
		  c.labels[43] == 3,
		  "absorb_size 2: only (5, 0) moves; clusters 2 and 4 stay, renumbered 2 and 3 (%d clusters)",
		  c.num_clusters);
	dac_clustering_free(&c);

	if (!hand_clustering(&c, 44, 4, 4, lab, theta))
		return;
	CHECK(dac_dissolve_small(&dr, X, 44, 2, &c, 3, 0, &moved) == DAC_OK, "dissolve at 3");
	for (i = 0, ok = 1; i < 44; i++)
		ok &= c.labels[i] == 1;
	CHECK(ok && c.num_clusters == 1 && moved == 4, "with no test (min_size 3) every small cluster joins cluster 1");
	dac_clustering_free(&c);

	/* the tail test asks the host's interrupt check, and stops */
	if (!hand_clustering(&c, 44, 4, 4, lab, theta))
		return;
	{
		dac_hooks	stop = {NULL, NULL, always_interrupted, NULL};
		dac_status	st;

		dac_set_hooks(&stop);
		st = dac_dissolve_small(&dr, X, 44, 2, &c, 3, DAC_ABSORB_TAIL, &moved);
		dac_set_hooks(NULL);
		CHECK(st == DAC_ERR_INTERRUPTED && moved == 0, "absorbing stops at an interrupt (status %d)", (int) st);
	}
	dac_clustering_free(&c);
}


/*
 * opts.pair_merge (dac_pair_merge) with the shipped warped model
 * (weights/mlf_warped2d.safetensors, a flow head, input scaled) on a warped
 * set of two clusters of 150 points or more, in the network's frame:
 *  - one true cluster cut in two at its median x by hand: one pass over the
 *    two halves alone selects 0.9 of each, so they become one again; the
 *    labels are the truth's, one merge, the merged θ that of a pass over
 *    its rows in the set's frame, the other cluster's θ moved with it;
 *  - the same with the set scaled by 0.001 and shifted: the pair is framed in
 *    its own units, so the same merge, and the true clusters stay apart;
 *  - the true clusters as they are: the pass over both does not select 0.9
 *    of each, nothing changes (one pair tried);
 *  - share 0 does nothing; an interrupt stops it before any pass.
 * With split (opts.pair_split), each cluster's θ a pass's over its rows:
 *  - the two true clusters with a quarter of the first given to the second:
 *    the pass over both selects one true cluster, and the pair shared out
 *    as it sees it is the truth (one split, each θ a pass's over its rows,
 *    the LL higher);
 *  - the truth as it is: the LL does not fall, whatever is kept.
 */
static int
pair_case(const dac_model *m, const dac_real *Z, int n, const int *lab, int K, double share,
		  dac_clustering *c, dac_status *st)
{
	dac_real	theta[3 * 128];
	dac_error	err;
	int			i;

	for (i = 0; i < K * 128; i++)
		theta[i] = (dac_real) (1 + i / 128);	/* θ_k = k + 1 throughout */
	if (!hand_clustering(c, n, K, 128, lab, theta))
		return 0;
	*st = dac_pair_merge(m, Z, n, 2, c, share, 0, &err);
	return 1;
}

/* θ [tdim] of a pass over the rows of Z [n, 2] labelled k, in the set's frame */
static int
pass_theta(const dac_model *m, const dac_real *Z, int n, const int *lab, int k, dac_real *theta)
{
	dac_real   *sub = malloc(sizeof(dac_real) * n * 2);
	dac_arena	ar;
	dac_forward fw;
	dac_error	err;
	int			i,
				cnt = 0,
				ok;

	for (i = 0; i < n; i++)
		if (lab[i] == k)
		{
			memcpy(sub + 2 * cnt, Z + 2 * i, sizeof(dac_real) * 2);
			cnt++;
		}
	dac_arena_init(&ar, (size_t) dac_net_infer_bytes(&m->net, 1, cnt));
	ok = cnt > 0 && dac_net_infer_logits(&m->net, m->P, m->F, sub, NULL, 1, cnt, NULL, &ar, &fw, &err) == DAC_OK;
	if (ok)
		memcpy(theta, fw.theta, sizeof(dac_real) * dac_net_theta_dim(&m->net));
	dac_arena_free(&ar);
	free(sub);
	return ok;
}

/* pair_case with split, each cluster's θ a pass's over its rows; *ll0 the LL before, *ll1 after */
static int
split_case(const dac_model *m, const dac_real *Z, int n, const int *lab, int K, dac_clustering *c,
		   dac_status *st, double *ll0, double *ll1)
{
	dac_density_ref dr = {&m->net.head, m->P};
	dac_real	theta[3 * 128];
	dac_error	err;
	int			k;

	for (k = 0; k < K; k++)
		if (!pass_theta(m, Z, n, lab, k + 1, theta + k * 128))
		{
			CHECK(0, "pair_split: a pass over cluster %d's rows", k + 1);
			return 0;
		}
	if (!hand_clustering(c, n, K, 128, lab, theta))
		return 0;
	*ll0 = *ll1 = NAN;
	if (dac_mixture_ll(&dr, Z, c, ll0) != DAC_OK)
		return 0;
	*st = dac_pair_merge(m, Z, n, 2, c, 0.9, 1, &err);
	if (*st == DAC_OK && dac_mixture_ll(&dr, Z, c, ll1) != DAC_OK)
		*ll1 = NAN;
	return 1;
}

/* The last of xs [cnt] with exactly rank values below it (xs[0] when none has): a quantile by selection. */
static double
by_selection(const double *xs, int cnt, int rank)
{
	double		v = xs[0];
	int			i,
				j;

	for (i = 0; i < cnt; i++)
	{
		int			below = 0;

		for (j = 0; j < cnt; j++)
			below += xs[j] < xs[i];
		if (below == rank)
			v = xs[i];
	}
	return v;
}

/*
 * pair_merge on a warped set of two clusters (y: its labels, X [n, 2] its
 * points; Z, Zs, Xd, xs, split, truth: scratch of n rows)
 */
static void
pair_merge_set_case(const dac_model *m, int n, const int *y, const dac_real *X, dac_real *Z, dac_real *Zs,
					double *Xd, double *xs, int *split, int *truth)
{
	dac_frame	f;
	dac_clustering c;
	dac_status	st;
	double		med;
	int			i,
				cnt = 0,
				same,
				passes;
	dac_error	err;

	for (i = 0; i < 2 * n; i++)
		Xd[i] = X[i];
	memset(&f, 0, sizeof(f));
	dac_frame_fit(Xd, NULL, n, 2, m->net.cfg.unit_width, 0, &f, &err);
	dac_frame_apply(&f, Xd, NULL, n, Z);
	dac_frame_free(&f);
	for (i = 0; i < 2 * n; i++)
		Zs[i] = (dac_real) (0.001 * Z[i] + 50);
	/* the median x of cluster 0 (by selection: count the points below) */
	for (i = 0; i < n; i++)
		if (y[i] == 0)
			xs[cnt++] = Z[2 * i];
	med = by_selection(xs, cnt, cnt / 2);
	for (i = 0; i < n; i++)
	{
		truth[i] = y[i] + 1;
		split[i] = y[i] == 0 ? (Z[2 * i] < med ? 1 : 2) : 3;
	}

	/* the halves join: the truth's labels, one merge, θ of a pass over them */
	if (pair_case(m, Z, n, split, 3, 0.9, &c, &st))
	{
		dac_arena	ar;
		dac_forward fw;
		dac_real   *sub = malloc(sizeof(dac_real) * n * 2);
		double		dt = 0;

		same = st == DAC_OK && c.num_clusters == 2 && c.pair_merged == 1;
		for (i = 0; i < n; i++)
			same &= c.labels[i] == truth[i];
		CHECK(same, "pair_merge: a cluster cut in two at its median joins again (status %d, %d clusters, %d merged, ARI %.3f)",
			  (int) st, c.num_clusters, c.pair_merged, dac_ari(c.labels, truth, n));
		for (i = 0, cnt = 0; i < n; i++)
			if (y[i] == 0)
			{
				memcpy(sub + 2 * cnt, Z + 2 * i, sizeof(dac_real) * 2);
				cnt++;
			}
		dac_arena_init(&ar, (size_t) dac_net_infer_bytes(&m->net, 1, cnt));
		if (dac_net_infer_logits(&m->net, m->P, m->F, sub, NULL, 1, cnt, NULL, &ar, &fw, &err) == DAC_OK)
			for (i = 0; i < 128; i++)
				dt = fmax(dt, fabs((double) c.theta[i] - fw.theta[i]));
		else
			dt = INFINITY;
		CHECK(dt == 0 && c.theta[128] == 3 && c.theta[255] == 3,
			  "pair_merge: the merged θ is a pass's over its rows in the set's frame (off by %g); the other cluster's θ moves with it",
			  dt);
		CHECK(c.num_passes >= 2, "pair_merge: the pair's pass and the merged θ's pass are counted (%d)", c.num_passes);
		dac_arena_free(&ar);
		free(sub);
		dac_clustering_free(&c);
	}
	/* the same in other units and origin */
	if (pair_case(m, Zs, n, split, 3, 0.9, &c, &st))
	{
		same = st == DAC_OK && c.num_clusters == 2;
		for (i = 0; i < n; i++)
			same &= c.labels[i] == truth[i];
		CHECK(same, "pair_merge: the same merge with the set times 0.001, shifted (the pair framed in its own units)");
		dac_clustering_free(&c);
	}
	if (pair_case(m, Zs, n, truth, 2, 0.9, &c, &st))
	{
		CHECK(st == DAC_OK && c.num_clusters == 2 && c.pair_merged == 0,
			  "pair_merge: and the true clusters stay apart there too (%d clusters)", c.num_clusters);
		dac_clustering_free(&c);
	}
	/* two true clusters stay apart */
	if (pair_case(m, Z, n, truth, 2, 0.9, &c, &st))
	{
		same = st == DAC_OK && c.num_clusters == 2 && c.pair_merged == 0 && c.num_passes == 1;
		for (i = 0; i < n; i++)
			same &= c.labels[i] == truth[i];
		CHECK(same && c.theta[0] == 1 && c.theta[128] == 2,
			  "pair_merge: two true clusters stay apart, θ untouched, one pair tried (%d clusters, %d passes)",
			  c.num_clusters, c.num_passes);
		dac_clustering_free(&c);
	}
	/* share 0: nothing */
	if (pair_case(m, Z, n, split, 3, 0, &c, &st))
	{
		CHECK(st == DAC_OK && c.num_clusters == 3 && c.num_passes == 0, "pair_merge: share 0 does nothing");
		dac_clustering_free(&c);
	}
	/* split: a quarter of the first true cluster given to the second is given back */
	{
		double		ll0,
					ll1,
					q = by_selection(xs, cnt, cnt / 4);	/* the first cluster's lowest quarter in x */
		int		   *wrong = malloc(sizeof(int) * n);

		for (i = 0; i < n; i++)
			wrong[i] = y[i] == 0 && Z[2 * i] >= q ? 1 : 2;
		if (split_case(m, Z, n, wrong, 2, &c, &st, &ll0, &ll1))
		{
			dac_real	th[128];
			double		ari = dac_ari(c.labels, truth, n),
						dt = 0;
			int			k;

			CHECK(st == DAC_OK && c.num_clusters == 2 && c.pair_split == 1 && c.pair_merged == 0 && ari == 1,
				  "pair_split: a pair whose boundary was moved by a quarter is shared out as the truth (status %d, %d clusters, %d splits, ARI %.4f)",
				  (int) st, c.num_clusters, c.pair_split, ari);
			for (k = 0; k < 2; k++)
				if (pass_theta(m, Z, n, c.labels, k + 1, th))
					for (i = 0; i < 128; i++)
						dt = fmax(dt, fabs((double) c.theta[k * 128 + i] - th[i]));
				else
					dt = INFINITY;
			CHECK(dt == 0, "pair_split: each θ is a pass's over its rows in the set's frame (off by %g)", dt);
			CHECK(ll1 > ll0, "pair_split: the LL rises (%.4f -> %.4f)", ll0, ll1);
			CHECK(c.num_passes >= 3, "pair_split: the pair's pass and the two θ passes are counted (%d)",
				  c.num_passes);
			dac_clustering_free(&c);
		}
		if (split_case(m, Z, n, truth, 2, &c, &st, &ll0, &ll1))
		{
			CHECK(st == DAC_OK && ll1 >= ll0 && dac_ari(c.labels, truth, n) > 0.99,
				  "pair_split: the truth keeps its LL or gains (%.4f -> %.4f, %d splits, ARI %.4f)", ll0, ll1,
				  c.pair_split, dac_ari(c.labels, truth, n));
			dac_clustering_free(&c);
		}
		/* without split, the moved boundary stays where it was */
		if (pair_case(m, Z, n, wrong, 2, 0.9, &c, &st))
		{
			same = st == DAC_OK && c.num_clusters == 2 && c.pair_split == 0;
			for (i = 0; i < n; i++)
				same &= c.labels[i] == wrong[i];
			CHECK(same, "pair_split off: the moved boundary stays (%d clusters)", c.num_clusters);
			dac_clustering_free(&c);
		}
		free(wrong);
	}
	/* an interrupt stops it before any pass, the clustering as it was */
	{
		dac_hooks	stop = {NULL, NULL, always_interrupted, NULL};

		dac_set_hooks(&stop);
		passes = pair_case(m, Z, n, split, 3, 0.9, &c, &st);
		dac_set_hooks(NULL);
		if (passes)
		{
			same = st == DAC_ERR_INTERRUPTED && c.num_clusters == 3 && c.num_passes == 0;
			for (i = 0; i < n; i++)
				same &= c.labels[i] == split[i];
			CHECK(same, "pair_merge: an interrupt stops it before any pass (status %d)", (int) st);
			dac_clustering_free(&c);
		}
	}
}

static void
pair_merge_cases(void)
{
	size_t		len;
	uint8_t    *wbuf = unit_read_file("weights/mlf_warped2d.safetensors", &len);
	dac_model	m;
	dac_rng		r;
	dac_error	err;
	int			n = 600,
				found = -1,
				s;
	dac_real   *X = malloc(sizeof(dac_real) * n * 2),
			   *Z = malloc(sizeof(dac_real) * n * 2),
			   *Zs = malloc(sizeof(dac_real) * n * 2);
	double	   *Xd = malloc(sizeof(double) * n * 2),
			   *xs = malloc(sizeof(double) * n);
	int		   *y = malloc(sizeof(int) * n),
			   *split = malloc(sizeof(int) * n),
			   *truth = malloc(sizeof(int) * n);

	if (wbuf == NULL || dac_model_load(&m, wbuf, len, NULL) != DAC_OK)
	{
		CHECK(0, "read weights/mlf_warped2d.safetensors");
		free(wbuf);
		return;
	}
	CHECK(m.net.cfg.density == DAC_DENSITY_MAF && m.net.cfg.input == DAC_INPUT_SCALED,
		  "the shipped warped model has a flow head and scaled input");
	/* the first of 40 warped sets with two clusters of 150 points or more */
	dac_rng_seed(&r, 2811);
	for (s = 0; s < 40 && found < 0; s++)
	{
		int			k,
					c0 = 0,
					i;

		if (dac_generate(DAC_GEN_WARPED, &r, 1, n, 4, 2, X, y, &k, &err) != DAC_OK)
			break;
		for (i = 0; i < n; i++)
			c0 += y[i] == 0;
		if (k == 2 && c0 >= 150 && n - c0 >= 150)
			found = s;
	}
	CHECK(found >= 0, "a warped set of two clusters of 150 points or more among 40 (set %d)", found);
	if (found >= 0)
		pair_merge_set_case(&m, n, y, X, Z, Zs, Xd, xs, split, truth);
	dac_model_free(&m);
	free(wbuf);
	free(X);
	free(Z);
	free(Zs);
	free(Xd);
	free(xs);
	free(y);
	free(split);
	free(truth);
}


/*
 * opts.rotations with the authors' warped model (raw input, a flow head) on
 * warped sets clustered as given (canonical off, so the loop sees the rows
 * as they are): the kept clustering is exactly the loop's on the set turned
 * by 360°·turned/R about its mean (labels and LL), its LL at least that of
 * the set as given, and some set keeps a turn; rotations 1 changes nothing;
 * the memory estimate counts the turned copy for a 2-D density model only;
 * a turned clustering's summary describes its clusters by their members; an
 * interrupt stops it.
 */
static void
rotations_cases(void)
{
	size_t		len;
	uint8_t    *wbuf = unit_read_file(unit_fixture("mlf_warped.weights.safetensors"), &len);
	dac_model	m;
	dac_rng		r;
	dac_error	err;
	int			n = 400,
				R = 4,
				s,
				exact = 1,
				higher = 1,
				kept_turn = 0;
	dac_real   *X = malloc(sizeof(dac_real) * n * 2),
			   *T = malloc(sizeof(dac_real) * n * 2);
	int		   *y = malloc(sizeof(int) * n);
	dac_cluster_opts one = dac_cluster_opts_default(),
				turn;

	if (wbuf == NULL || dac_model_load(&m, wbuf, len, NULL) != DAC_OK)
	{
		CHECK(0, "read the warped fixture model");
		free(wbuf);
		return;
	}
	one.canonical = 0;
	turn = one;
	turn.rotations = R;
	dac_rng_seed(&r, 4242);
	for (s = 0; s < 6; s++)
	{
		dac_clustering a,
					b,
					c;
		int			k,
					i;
		double		cx = 0,
					cy = 0;

		if (dac_generate(DAC_GEN_WARPED, &r, 1, n, 4, 2, X, y, &k, &err) != DAC_OK ||
			dac_cluster_set(&m, X, n, 2, &one, &a, &err) != DAC_OK)
		{
			CHECK(0, "cluster warped set %d", s);
			continue;
		}
		if (dac_cluster_set(&m, X, n, 2, &turn, &b, &err) != DAC_OK)
		{
			CHECK(0, "cluster warped set %d with rotations %d: %s", s, R, err.msg);
			dac_clustering_free(&a);
			continue;
		}
		higher &= b.ll >= a.ll && b.turned >= 0 && b.turned < R && a.turned == 0;
		kept_turn += b.turned > 0;
		/* the loop on the set turned by hand, as cluster_oriented turns it */
		for (i = 0; i < n; i++)
		{
			cx += X[2 * i];
			cy += X[2 * i + 1];
		}
		cx /= n;
		cy /= n;
		for (i = 0; i < n; i++)
		{
			double		ang = 2 * M_PI * b.turned / R,
						dx = X[2 * i] - cx,
						dy = X[2 * i + 1] - cy;

			T[2 * i] = b.turned ? (dac_real) (cx + cos(ang) * dx - sin(ang) * dy) : X[2 * i];
			T[2 * i + 1] = b.turned ? (dac_real) (cy + sin(ang) * dx + cos(ang) * dy) : X[2 * i + 1];
		}
		if (dac_cluster_set(&m, T, n, 2, &one, &c, &err) == DAC_OK)
		{
			exact &= c.num_clusters == b.num_clusters && c.ll == b.ll;
			for (i = 0; i < n; i++)
				exact &= c.labels[i] == b.labels[i];
			dac_clustering_free(&c);
		}
		else
			exact = 0;
		if (s == 0)
		{
			turn.rotations = 1;
			if (dac_cluster_set(&m, X, n, 2, &turn, &c, &err) == DAC_OK)
			{
				int			same = c.ll == a.ll && c.num_passes == a.num_passes;

				for (i = 0; i < n; i++)
					same &= c.labels[i] == a.labels[i];
				CHECK(same, "rotations 1: the clustering as given, bit for bit");
				dac_clustering_free(&c);
			}
			turn.rotations = R;
			CHECK(b.num_passes > a.num_passes, "rotations %d: the passes of every orientation are counted (%d against %d)",
				  R, b.num_passes, a.num_passes);
		}
		dac_clustering_free(&a);
		dac_clustering_free(&b);
	}
	CHECK(exact, "rotations %d: the kept clustering is the loop's on the set turned by that step, labels and LL exactly", R);
	CHECK(higher, "rotations %d: its LL is at least the set's as given", R);
	CHECK(kept_turn > 0, "rotations %d: some of 6 warped sets keep a turned clustering (%d)", R, kept_turn);
	CHECK(dac_cluster_bytes(&m, n, 2, &turn) > dac_cluster_bytes(&m, n, 2, &one),
		  "rotations: the memory estimate counts the turned copy");

	/* a turned clustering's summary: its members, not its θ */
	{
		static const int lab[4] = {1, 1, 2, 2};
		static const dac_real P[8] = {0, 0, 2, 0, 10, 10, 10, 12};
		dac_real	theta[8] = {50, 50, 1, 1, 60, 60, 1, 1};
		dac_clustering h;
		dac_mixture mix;

		if (hand_clustering(&h, 4, 2, 4, lab, theta))
		{
			h.turned = 1;
			if (dac_mixture_from_clustering(P, 2, &h, 1, &mix, &err) == DAC_OK)
			{
				CHECK(mix.k == 2 && mix.mean[0] == 1 && mix.mean[1] == 0 && mix.mean[2] == 10 && mix.mean[3] == 11,
					  "a turned clustering's summary: its members' means (%g %g, %g %g), not θ",
					  mix.mean[0], mix.mean[1], mix.mean[2], mix.mean[3]);
				dac_mixture_free(&mix);
			}
			else
				CHECK(0, "summarise a turned clustering");
			dac_clustering_free(&h);
		}
	}
	/* an interrupt stops it */
	{
		dac_hooks	stop = {NULL, NULL, always_interrupted, NULL};
		dac_clustering c;
		dac_status	st;

		dac_set_hooks(&stop);
		st = dac_cluster_set(&m, X, n, 2, &turn, &c, &err);
		dac_set_hooks(NULL);
		CHECK(st == DAC_ERR_INTERRUPTED, "rotations: an interrupt stops the clustering (status %d)", (int) st);
		if (st == DAC_OK)
			dac_clustering_free(&c);
	}
	dac_model_free(&m);
	free(wbuf);
	free(X);
	free(T);
	free(y);
}

/* Mean log-density of cluster k's members (1-based) under θ th, in X's units. */
static double
members_ll(const dac_model *m, const dac_real *X, const dac_clustering *c, int k, const dac_real *th)
{
	int			i,
				cnt = 0;
	double		sum = 0;
	dac_real   *R = malloc(sizeof(dac_real) * 2 * c->n),
			   *ll = malloc(sizeof(dac_real) * c->n);

	for (i = 0; i < c->n; i++)
		if (c->labels[i] == k)
		{
			R[2 * cnt] = X[2 * i];
			R[2 * cnt + 1] = X[2 * i + 1];
			cnt++;
		}
	if (cnt == 0 || dac_head_ll(&m->net.head, m->P, th, R, cnt, ll, NULL) != DAC_OK)
		sum = NAN;
	else
		for (i = 0; i < cnt; i++)
			sum += ll[i] / cnt;
	free(R);
	free(ll);
	return sum;
}

/*
 * refine_rounds' gradient: the flow's backward with and without the
 * parameters' gradients, and against central differences (m: a flow
 * model; X [.., 2], y: scratch; r: the case's generator)
 */
static void
refine_gradient_case(const dac_model *m, dac_rng *r, dac_real *X, int *y)
{
	const dac_flow *f = &m->net.head.flow;
	dac_density_ref dr = {&m->net.head, m->P};
	int			C = f->C,
				cnt = 120,
				i,
				j,
				k;
	dac_real   *th = malloc(sizeof(dac_real) * C),
			   *g1 = calloc(C, sizeof(dac_real)),
			   *g2 = calloc(C, sizeof(dac_real)),
			   *G = calloc(m->net.nparams, sizeof(dac_real)),
			   *ll = malloc(sizeof(dac_real) * cnt),
			   *dll = malloc(sizeof(dac_real) * cnt);
	double		worst = 0,
				scale = 0;
	int			same = 1;
	dac_error	err;

	(void) dr;
	dac_generate(DAC_GEN_WARPED, r, 1, cnt, 1, 2, X, y, &k, &err);
	for (j = 0; j < C; j++)
		th[j] = (dac_real) (0.5 * sin(1.7 * j));
	for (i = 0; i < cnt; i++)
		dll[i] = (dac_real) (1.0 / cnt);
	for (k = 0; k < 2; k++)
	{
		dac_arena	ar;
		dac_flow_cache fc;

		dac_arena_init(&ar, 0);
		if (dac_flow_forward(f, m->P, th, X, 1, cnt, 0, &ar, &fc, ll, NULL) != DAC_OK ||
			dac_flow_backward(f, m->P, k ? G : NULL, &fc, dll, NULL, k ? g2 : g1, &ar) != DAC_OK)
			same = 0;
		dac_arena_free(&ar);
	}
	for (j = 0; j < C; j++)
		same &= g1[j] == g2[j];
	CHECK(same, "refine: the flow's backward without the parameters' gradients gives the same d/dθ, bit for bit");
	for (j = 0; j < C; j += 13)
	{
#ifdef DAC_DOUBLE
		double		h = 1e-5;
#else
		double		h = 1e-2;
#endif
		double		fp = 0,
					fm = 0,
					fd;
		dac_real	keep = th[j];

		for (k = 0; k < 2; k++)
		{
			dac_arena	ar;
			dac_flow_cache fc;
			double		sum = 0;

			th[j] = (dac_real) (keep + (k ? -h : h));
			dac_arena_init(&ar, 0);
			dac_flow_forward(f, m->P, th, X, 1, cnt, 1, &ar, &fc, ll, NULL);
			dac_arena_free(&ar);
			for (i = 0; i < cnt; i++)
				sum += ll[i] / cnt;
			if (k)
				fm = sum;
			else
				fp = sum;
		}
		th[j] = keep;
		fd = (fp - fm) / (2 * h);
		worst = fmax(worst, fabs(fd - g1[j]));
		scale = fmax(scale, fabs(fd));
	}
#ifdef DAC_DOUBLE
	CHECK(worst <= 1e-7 * (1 + scale), "refine: d/dθ against central differences (worst %.3g, scale %.3g)", worst, scale);
#else
	CHECK(worst <= 1e-3 * (1 + scale), "refine: d/dθ against central differences (worst %.3g, scale %.3g)", worst, scale);
#endif
	free(th);
	free(g1);
	free(g2);
	free(G);
	free(ll);
	free(dll);
}

/*
 * opts.refine_rounds (dac_flow_refine, then dac_flow_em) with the authors'
 * warped model (raw input, a flow head) on warped sets: the gradient the
 * steps follow, the flow's backward without the parameters' gradients,
 * equals that with them and central differences of the members' mean
 * log-density in θ; the steps never lower a cluster's fit and raise most;
 * whole rounds raise the set's LL; a Gaussian model's clusterings do not
 * change and its memory estimate neither; an interrupt stops the steps with
 * θ as they were.
 */
static void
refine_cases(void)
{
	size_t		len,
				glen;
	uint8_t    *wbuf = unit_read_file(unit_fixture("mlf_warped.weights.safetensors"), &len),
			   *gbuf = unit_read_file("weights/mlf_small2d.safetensors", &glen);
	dac_model	m,
				g;
	dac_rng		r;
	dac_error	err;
	int			n = 400,
				s,
				fits_no_lower = 1,
				fits_higher = 0,
				clusters = 0,
				ll_higher = 0,
				gauss_same = 1;
	double		ll0 = 0,
				ll1 = 0,
				held_before = 0,
				held_after = 0;
	int			held = 0;
	dac_real   *X = malloc(sizeof(dac_real) * n * 2);
	int		   *y = malloc(sizeof(int) * n);
	dac_cluster_opts one = dac_cluster_opts_default(),
				ref;

	if (wbuf == NULL || gbuf == NULL || dac_model_load(&m, wbuf, len, NULL) != DAC_OK)
	{
		CHECK(0, "read the warped fixture model and weights/mlf_small2d.safetensors");
		free(wbuf);
		free(gbuf);
		free(X);
		free(y);
		return;
	}
	if (dac_model_load(&g, gbuf, glen, NULL) != DAC_OK)
	{
		CHECK(0, "load weights/mlf_small2d.safetensors");
		dac_model_free(&m);
		free(wbuf);
		free(gbuf);
		free(X);
		free(y);
		return;
	}
	ref = one;
	ref.refine_rounds = 2;
	dac_rng_seed(&r, 5151);

	refine_gradient_case(&m, &r, X, y);

	for (s = 0; s < 6; s++)
	{
		dac_clustering a,
					b,
					c;
		int			k,
					i;

		if (dac_generate(DAC_GEN_WARPED, &r, 1, n, 4, 2, X, y, &k, &err) != DAC_OK ||
			dac_cluster_set(&m, X, n, 2, &one, &a, &err) != DAC_OK)
		{
			CHECK(0, "cluster warped set %d", s);
			continue;
		}
		/* the steps alone, on a copy of a's θ: no cluster's fit falls */
		{
			dac_density_ref dr = {&m.net.head, m.P};
			size_t		tb = sizeof(dac_real) * a.num_clusters * a.theta_dim;
			dac_real   *keep = malloc(tb);

			memcpy(keep, a.theta, tb);
			if (dac_flow_refine(&dr, X, &a, DAC_REFINE_STEPS, DAC_REFINE_RATE) == DAC_OK)
				for (k = 1; k <= a.num_clusters; k++)
				{
					double		before = members_ll(&m, X, &a, k, keep + (size_t) (k - 1) * a.theta_dim),
								after = members_ll(&m, X, &a, k, a.theta + (size_t) (k - 1) * a.theta_dim);

					fits_no_lower &= after >= before;
					fits_higher += after > before + 1e-3;
					clusters++;
				}
			else
				fits_no_lower = 0;
			/*
			 * held out: θ fitted to the even members alone (the odd ones
			 * labelled noise) fits the odd ones better too
			 */
			{
				dac_clustering h = a;
				int		   *lab = malloc(sizeof(int) * n),
							par[64] = {0};

				memcpy(a.theta, keep, tb);
				for (i = 0; i < n; i++)
				{
					int			l = a.labels[i];

					lab[i] = l > 0 && l <= 64 && par[l - 1]++ % 2 == 0 ? l : 0;
				}
				h.labels = lab;
				if (dac_flow_refine(&dr, X, &h, DAC_REFINE_STEPS, DAC_REFINE_RATE) == DAC_OK)
					for (k = 1; k <= a.num_clusters; k++)
					{
						dac_clustering odd = a;
						int		   *ol = malloc(sizeof(int) * n);
						double		before,
									after;

						for (i = 0; i < n; i++)
							ol[i] = a.labels[i] == k && lab[i] == 0 ? k : 0;
						odd.labels = ol;
						before = members_ll(&m, X, &odd, k, keep + (size_t) (k - 1) * a.theta_dim);
						after = members_ll(&m, X, &odd, k, a.theta + (size_t) (k - 1) * a.theta_dim);
						if (!isnan(before) && !isnan(after))
						{
							held_before += before;
							held_after += after;
							held++;
						}
						free(ol);
					}
				free(lab);
			}
			/* an interrupt stops the steps, θ as they were */
			if (s == 0)
			{
				dac_hooks	stop = {NULL, NULL, always_interrupted, NULL};
				dac_status	st;

				memcpy(keep, a.theta, tb);
				dac_set_hooks(&stop);
				st = dac_flow_refine(&dr, X, &a, DAC_REFINE_STEPS, DAC_REFINE_RATE);
				dac_set_hooks(NULL);
				CHECK(st == DAC_ERR_INTERRUPTED && memcmp(keep, a.theta, tb) == 0,
					  "refine: an interrupt stops the steps with θ as they were (status %d)", (int) st);
			}
			free(keep);
		}
		dac_clustering_free(&a);
		if (dac_cluster_set(&m, X, n, 2, &one, &a, &err) != DAC_OK ||
			dac_cluster_set(&m, X, n, 2, &ref, &b, &err) != DAC_OK)
		{
			CHECK(0, "cluster warped set %d with refine_rounds %d: %s", s, ref.refine_rounds, err.msg);
			continue;
		}
		ll0 += a.ll / 6;
		ll1 += b.ll / 6;
		ll_higher += b.ll > a.ll;
		if (s == 0)
			CHECK(b.refine_moved > 0 && a.refine_moved == 0 && b.reassigned == 0,
				  "refine: its moves are counted apart from reassign's (%d, %d)", b.refine_moved, b.reassigned);
		dac_clustering_free(&a);
		dac_clustering_free(&b);
		/* a Gaussian model: the rounds change nothing */
		if (s < 2)
		{
			if (dac_cluster_set(&g, X, n, 2, &one, &a, &err) == DAC_OK &&
				dac_cluster_set(&g, X, n, 2, &ref, &c, &err) == DAC_OK)
			{
				gauss_same &= a.num_clusters == c.num_clusters && a.ll == c.ll;
				for (i = 0; i < n; i++)
					gauss_same &= a.labels[i] == c.labels[i];
				dac_clustering_free(&a);
				dac_clustering_free(&c);
			}
			else
				gauss_same = 0;
		}
	}
	CHECK(fits_no_lower && clusters > 6, "refine: no cluster's members fit worse under its refined θ (%d clusters)", clusters);
	CHECK(fits_higher * 2 > clusters, "refine: most clusters' members fit better (%d of %d by 0.001 or more)",
		  fits_higher, clusters);
	CHECK(held > 6 && held_after > held_before + 0.02 * held,
		  "refine: θ fitted to half of each cluster fits the other half better (%d clusters, mean %.4f -> %.4f)",
		  held, held_before / (held ? held : 1), held_after / (held ? held : 1));
	printf("# refine held out: %d clusters, the other half's mean log-density %.4f -> %.4f\n", held,
		   held_before / (held ? held : 1), held_after / (held ? held : 1));
	CHECK(ll_higher >= 5 && ll1 > ll0 + 0.02, "refine_rounds 2: the set's LL rises (%d of 6 sets; mean %.4f -> %.4f)",
		  ll_higher, ll0, ll1);
	CHECK(gauss_same, "refine_rounds: a Gaussian model's clusterings do not change");
	CHECK(dac_cluster_bytes(&m, n, 2, &ref) > dac_cluster_bytes(&m, n, 2, &one) &&
		  dac_cluster_bytes(&g, n, 2, &ref) == dac_cluster_bytes(&g, n, 2, &one),
		  "refine_rounds: the memory estimate counts the steps for a flow model only");
	dac_model_free(&m);
	dac_model_free(&g);
	free(wbuf);
	free(gbuf);
	free(X);
	free(y);
}

void
test_cluster(void)
{
	metrics();
	fixture_clustering();
	warped_fixture_clustering();
	reassign_drops_empty();
	absorb_by_hand();
	pair_merge_cases();
	rotations_cases();
	refine_cases();
	em_against_sklearn();
	em_floor();
	em_interrupt_mid_step();
	kmeans_by_hand();
	noise_tail_shape_by_hand();
	noise_isolation_by_hand();
	modes_by_hand();
	count_by_ridgeline();
	ksearch_by_hand();
	kernels_by_hand();
	sampled_large_sets();
}
