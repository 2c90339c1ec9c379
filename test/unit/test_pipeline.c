/*
 * test_pipeline.c
 *	  The stages' table: its rows are whole (names unique, every setting
 *	  named is an option), a clustering records exactly the stages the table
 *	  says run (but a stage that found nothing to do), a stage that does not
 *	  run needs no memory, and the memory estimate moves by a stage's bytes
 *	  when a setting switches it.
 */
#include "unit.h"
#include "../../src/cli/read_file.h"
#include "cluster.h"
#include "pipeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n rows of width d in 3 blobs, drawn from r */
static void
blobs(dac_rng *r, int n, int d, dac_real *X)
{
	int			i,
				j;

	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++)
			X[(size_t) i * d + j] = (dac_real) ((j == i % 3 ? 4.0 : 0.0) + dac_rng_normal(r));
}

static void
table_whole(void)
{
	int			i,
				j,
				names_unique = 1,
				settings_known = 1,
				described = 1;
	dac_cluster_opts o = dac_cluster_opts_default();

	for (i = 0; dac_stage_describe(i) != NULL; i++)
	{
		const dac_stage_desc *s = dac_stage_describe(i);
		const char *p = s->settings;

		described &= s->name[0] != '\0' && s->models[0] != '\0' && s->does[0] != '\0';
		for (j = 0; j < i; j++)
			names_unique &= strcmp(dac_stage_describe(j)->name, s->name) != 0;
		while (*p)
		{
			char		name[64];
			size_t		len = strcspn(p, ",");
			dac_strbuf	sb;

			snprintf(name, sizeof(name), "%.*s", (int) len, p);
			dac_strbuf_init(&sb);
			if (!dac_cluster_opts_json(&o, name, &sb))
			{
				settings_known = 0;
				printf("# stage %s reads \"%s\", which is no option\n", s->name, name);
			}
			dac_strbuf_free(&sb);
			p += len;
			p += strspn(p, ", ");
		}
	}
	CHECK(i == DAC_NSTAGES && i <= 32, "the table has a row per stage id (%d), within the record's bits", i);
	CHECK(described, "every stage has a name, the models it applies to and what it does");
	CHECK(names_unique, "the stages' names are unique");
	CHECK(settings_known, "every setting a stage names is a clustering option");
	{
		dac_strbuf	sb;

		dac_strbuf_init(&sb);
		dac_stage_settings_json(DAC_STAGE_GRAPH, &o, &sb);
		dac_strbuf_append(&sb, "", 1);
		CHECK(!sb.failed && strcmp(sb.data, "{\"graph_neighbors\": 0, \"graph_resolution\": 0.05, "
								   "\"graph_merge\": 0, \"k\": 0, \"max_k\": 0}") == 0,
			  "the graph stage's settings at the bare defaults: %s", sb.data);
		dac_strbuf_free(&sb);
	}
}

/*
 * The stages a clustering of X by m under o records against the table:
 * recorded implies it runs; it runs implies recorded, but for the leftover
 * (no row left over), the one-cluster test (more than one found) and the
 * log-likelihood (every row noise).
 */
static void
record_case(const dac_model *m, const dac_real *X, int n, int d, const dac_cluster_opts *o, const char *what)
{
	dac_clustering c;
	dac_error	err;
	int			i,
				agree = 1,
				no_bytes_idle = 1;

	if (dac_cluster_set(m, X, n, d, o, &c, &err) != DAC_OK)
	{
		CHECK(0, "%s: clusters (%s)", what, err.msg);
		return;
	}
	for (i = 0; i < DAC_NSTAGES; i++)
	{
		int			runs = dac_stage_runs(m, i, n, d, o),
					ran = (c.stages >> i) & 1;

		if ((ran && !runs) || (runs && !ran && i != DAC_STAGE_LEFTOVER && i != DAC_STAGE_ONE_CLUSTER &&
						 i != DAC_STAGE_LOG_LIKELIHOOD))
		{
			agree = 0;
			printf("# %s: stage %s runs %d, ran %d\n", what, dac_stage_describe(i)->name, runs, ran);
		}
		if (!runs && dac_stage_bytes(m, i, n, d, o) != 0)
			no_bytes_idle = 0;
	}
	CHECK(agree, "%s: the clustering records the stages the table says run (0x%x)", what, c.stages);
	CHECK(no_bytes_idle, "%s: a stage that does not run needs no memory", what);
	CHECK(!(c.leftover > 0) || ((c.stages >> DAC_STAGE_LEFTOVER) & 1),
		  "%s: rows left over (%d) are placed by the leftover stage", what, c.leftover);
	dac_clustering_free(&c);
}

/*
 * Every row of X [n, d] repeated three times, the copies spread through the
 * set: the same labels for each copy as for its row clustered alone, and
 * the duplicates counted.
 */
static void
repeat_case(const dac_model *m, const dac_real *X, int n, int d, const dac_cluster_opts *o, const char *what)
{
	dac_real   *X3 = malloc(sizeof(dac_real) * (size_t) 3 * n * d);
	dac_clustering a,
				b;
	dac_error	err;
	int			i,
				same = 1;

	for (i = 0; i < 3 * n; i++)
		memcpy(X3 + (size_t) i * d, X + (size_t) ((i * 7) % n) * d, sizeof(dac_real) * d);
	if (dac_cluster_set(m, X, n, d, o, &a, &err) != DAC_OK || dac_cluster_set(m, X3, 3 * n, d, o, &b, &err) != DAC_OK)
	{
		CHECK(0, "%s: clusters the rows and the rows three times (%s)", what, err.msg);
		free(X3);
		return;
	}
	for (i = 0; i < 3 * n; i++)
		same &= b.labels[i] == a.labels[(i * 7) % n] && b.prob[i] == a.prob[(i * 7) % n];
	CHECK(same && a.num_clusters == b.num_clusters, "%s: each row three times gets its row's id (%d clusters)",
		  what, a.num_clusters);
	CHECK(a.duplicates == 0 && b.duplicates == 2 * n && ((b.stages >> DAC_STAGE_DISTINCT) & 1),
		  "%s: the distinct stage counts %d rows repeated (%d)", what, 2 * n, b.duplicates);
	dac_clustering_free(&a);
	dac_clustering_free(&b);
	free(X3);
}

/* The estimate with the stage switched on less that with it off: the stage's bytes. */
static void
bytes_case(const dac_model *m, int n, int d, const dac_cluster_opts *on, const dac_cluster_opts *off, int id,
		   const char *what)
{
	double		with = dac_cluster_bytes(m, n, d, on),
				without = dac_cluster_bytes(m, n, d, off),
				stage = dac_stage_bytes(m, id, n, d, on);

	CHECK(stage > 0 && fabs((with - without) - stage) <= 1e-9 * with,
		  "%s: switching %s on adds its %.0f bytes to the estimate (%.0f)", what, dac_stage_describe(id)->name,
		  stage, with - without);
}

/*
 * The rows' own columns are the core's to set: a caller's (here a buffer
 * of one row, which reading would overrun: AddressSanitizer's run tells)
 * are ignored, on one Gaussian in 40 columns, more than the network's
 * width, where the core sets none
 */
static void
columns_ignored_case(const dac_model *embed, const dac_cluster_opts *o)
{
	int			n = 150,
				w = 40,
				i;
	dac_rng		r;
	dac_real   *W = malloc(sizeof(dac_real) * n * w),
				one_row[40] = {0};
	dac_cluster_opts bad = *o;
	dac_clustering c1,
				c2;

	dac_rng_seed(&r, 17);
	for (i = 0; i < n * w; i++)
		W[i] = (dac_real) dac_rng_normal(&r);	/* one Gaussian: the one-cluster test runs */
	bad.columns = one_row;
	bad.columns_d = w;
	if (dac_cluster_set(embed, W, n, w, o, &c1, NULL) == DAC_OK)
	{
		if (dac_cluster_set(embed, W, n, w, &bad, &c2, NULL) == DAC_OK)
		{
			CHECK(c1.num_clusters == c2.num_clusters && dac_ari(c1.labels, c2.labels, n) == 1.0,
				  "a caller's columns are ignored: %d and %d clusters", c1.num_clusters, c2.num_clusters);
			dac_clustering_free(&c2);
		}
		else
			CHECK(0, "clusters with a caller's columns set");
		dac_clustering_free(&c1);
	}
	else
		CHECK(0, "clusters 40 columns");
	free(W);
}

/* The sample covariance of the m rows of R [m, d] into C [d, d] */
static void
sample_cov(const dac_real *R, int m, int d, double *C)
{
	int			i,
				j,
				k;

	for (j = 0; j < d; j++)
		for (k = 0; k < d; k++)
		{
			double		mj = 0,
						mk = 0,
						t = 0;

			for (i = 0; i < m; i++)
			{
				mj += R[(size_t) i * d + j];
				mk += R[(size_t) i * d + k];
			}
			mj /= m;
			mk /= m;
			for (i = 0; i < m; i++)
				t += (R[(size_t) i * d + j] - mj) * (R[(size_t) i * d + k] - mk);
			C[j * d + k] = t / (m - 1);
		}
}

/*
 * The one-cluster test's Gaussian references, both ways of drawing them
 * (300 rows of 5 columns: through the covariance's square root; 40 rows of
 * 60: through m² normals): over 16 draws their covariance is the rows' own
 * (relative error under 0.1 and 0.2, what 4,800 and 640 draws allow), the
 * same draw twice is the same to the bit, two draws differ, and moving every
 * row by 1e-6 of its scale moves a draw by under 1e-3 of it.
 */
static void
gaussian_reference_cases(void)
{
	int			shapes[2][2] = {{300, 5}, {40, 60}};
	dac_rng		r;

	dac_rng_seed(&r, 9);
	for (int s = 0; s < 2; s++)
	{
		int			m = shapes[s][0],
					d = shapes[s][1],
					i,
					j,
					same = 1,
					differ = 0;
		dac_real   *S = malloc(sizeof(dac_real) * m * d),
				   *S2 = malloc(sizeof(dac_real) * m * d),
				   *R = malloc(sizeof(dac_real) * m * d),
				   *R2 = malloc(sizeof(dac_real) * m * d);
		double	   *Cs = calloc((size_t) d * d, sizeof(double)),
				   *Cr = calloc((size_t) d * d, sizeof(double)),
				   *C1 = malloc(sizeof(double) * d * d),
					err = 0,
					nrm = 0,
					move = 0,
					size = 0;
		dac_status	st = DAC_OK;

		/* correlated columns of scales 1 .. 10 */
		for (i = 0; i < m; i++)
		{
			double		z0 = dac_rng_normal(&r);

			for (j = 0; j < d; j++)
				S[(size_t) i * d + j] = (dac_real) ((1 + j % 10) * (0.6 * z0 + 0.8 * dac_rng_normal(&r)) + 3);
		}
		sample_cov(S, m, d, Cs);
		for (int t = 0; t < 16 && st == DAC_OK; t++)
		{
			if ((st = dac_gaussian_reference(S, m, d, t, R)) != DAC_OK)
				break;
			sample_cov(R, m, d, C1);
			for (j = 0; j < d * d; j++)
				Cr[j] += C1[j] / 16;
		}
		for (j = 0; j < d * d; j++)
		{
			err += (Cr[j] - Cs[j]) * (Cr[j] - Cs[j]);
			nrm += Cs[j] * Cs[j];
		}
		CHECK(st == DAC_OK && sqrt(err / nrm) < (s == 0 ? 0.1 : 0.2),
			  "%d rows of %d: 16 references' covariance is the rows' own (relative error %.3f)", m, d,
			  sqrt(err / nrm));
		dac_gaussian_reference(S, m, d, 3, R);
		dac_gaussian_reference(S, m, d, 3, R2);
		for (j = 0; j < m * d; j++)
			same &= R[j] == R2[j];
		dac_gaussian_reference(S, m, d, 4, R2);
		for (j = 0; j < m * d; j++)
			differ |= R[j] != R2[j];
		CHECK(same && differ, "%d rows of %d: a draw is the same twice, and two draws differ", m, d);
		for (i = 0; i < m; i++)
			for (j = 0; j < d; j++)
				S2[(size_t) i * d + j] = S[(size_t) i * d + j] + (dac_real) (1e-6 * (1 + j % 10) * dac_rng_normal(&r));
		dac_gaussian_reference(S2, m, d, 3, R2);
		for (j = 0; j < m * d; j++)
		{
			move += ((double) R[j] - R2[j]) * ((double) R[j] - R2[j]);
			size += (double) R[j] * R[j];
		}
		CHECK(sqrt(move / size) < 1e-3, "%d rows of %d: the rows moved by 1e-6 move a draw by %.2g of it", m, d,
			  sqrt(move / size));
		free(S);
		free(S2);
		free(R);
		free(R2);
		free(Cs);
		free(Cr);
		free(C1);
	}
}

/* c as one cluster of n rows, lab [n] its labels (all 1): the one-cluster test's input alone */
static void
as_one_cluster(dac_clustering *c, int *lab, int n)
{
	int			i;

	memset(c, 0, sizeof(*c));
	c->n = n;
	c->labels = lab;
	c->num_clusters = 1;
	c->theta = dac_alloc(sizeof(dac_real));
	for (i = 0; i < n; i++)
		lab[i] = 1;
}

/*
 * n rows, one class 7 sigma out: found on every row (above
 * DAC_ONE_CHECK_SAMPLE rows the test reads a sample and spreads its split
 * to the rest), and the same partition with the rows reversed and in other
 * units.
 */
static void
one_check_units_case(int n)
{
	int			i,
				j;
	dac_real   *X = malloc(sizeof(dac_real) * n * 3);
	int		   *truth = malloc(sizeof(int) * n);
	dac_rng		r;
	dac_clustering c;
	int			w = 3,
				v;
	int		   *lab[2];
	dac_real   *Y = malloc(sizeof(dac_real) * n * w);

	dac_rng_seed(&r, 11);
	for (i = 0; i < n; i++)
		for (j = 0; j < w; j++)
			X[(size_t) i * w + j] = (dac_real) (dac_rng_normal(&r) + (j == 0 && i % 3 == 0 ? 7.0 : 0.0));
	for (i = 0; i < n; i++)
		for (j = 0; j < w; j++)
			Y[(size_t) (n - 1 - i) * w + j] = (dac_real) (X[(size_t) i * w + j] * 1000.0 + 7.0);
	for (v = 0; v < 2; v++)
	{
		lab[v] = malloc(sizeof(int) * n);
		as_one_cluster(&c, lab[v], n);
		if (dac_one_check_on(v == 0 ? X : Y, w, &c, 10, DAC_ONE_CHECK_MARGIN, 0, DAC_ONE_CHECK_RANKS, NULL, 0, 0) != DAC_OK)
			lab[v][0] = -1;
		dac_free(c.theta);
	}
	for (i = 0; i < n; i++)
		truth[i] = lab[1][n - 1 - i];
	CHECK(lab[0][0] > 0 && lab[1][0] > 0 && dac_ari(lab[0], truth, n) == 1.0,
		  "the test alone, %d rows: rows reversed, x 1000 + 7: ARI %.4f between the two partitions", n,
		  dac_ari(lab[0], truth, n));
	for (i = 0, v = 1; i < n; i++)
		v &= lab[0][i] == (i % 3 == 0 ? lab[0][0] : lab[0][1]) && lab[0][0] != lab[0][1];
	CHECK(v, "the test alone, %d rows: the class 7 sigma out is found on every row", n);
	free(lab[0]);
	free(lab[1]);
	free(Y);
	free(X);
	free(truth);
}

/*
 * The one-cluster test read in the neighbour graph: ten classes of 19 rows
 * in 64-D, each 5 sigma out on its own axis (a mean silhouette near 0.15,
 * far under the clean split's 0.5), are found by the graph's test, where
 * the clean split alone leaves them one cluster, and through the whole
 * pipeline; one Gaussian and one class of log-normal columns sharing a
 * factor, in 64-D, stay one cluster.
 */
static void
one_check_graph_case(const dac_model *embed, const dac_cluster_opts *o)
{
	int			n = 190,
				w = 64,
				i,
				j,
				t,
				v,
				k[2];
	dac_real   *X = malloc(sizeof(dac_real) * n * w);
	int		   *truth = malloc(sizeof(int) * n),
			   *lab = malloc(sizeof(int) * n);
	double		ari = 0;
	dac_rng		r;
	dac_clustering c;

	for (t = 0; t < 3; t++)
	{
		dac_rng_seed(&r, 21);
		for (i = 0; i < n; i++)
		{
			double		f = dac_rng_normal(&r);

			truth[i] = i % 10 + 1;
			for (j = 0; j < w; j++)
				X[(size_t) i * w + j] = (dac_real) (t == 0 ? dac_rng_normal(&r) + (j == i % 10 ? 5.0 : 0.0) :
													t == 1 ? dac_rng_normal(&r) :
													exp(0.4 * f + 0.4 * dac_rng_normal(&r)));
		}
		/* the test alone: the clean split, then with the graph's test */
		for (v = 0; v < 2; v++)
		{
			as_one_cluster(&c, lab, n);
			k[v] = dac_one_check_on(X, w, &c, 10, DAC_ONE_CHECK_MARGIN, 0, 0, NULL, 0, v ? DAC_ONE_CHECK_GRAPH : 0) ==
				DAC_OK ? c.num_clusters : -1;
			dac_free(c.theta);
		}
		if (t == 0)
		{
			ari = dac_ari(lab, truth, n);
			/* the graph's communities, where k-means' best split by silhouette merges two classes */
			CHECK(k[0] == 1 && k[1] == 10 && ari >= 0.95,
				  "ten classes 5 sigma apart in 64-D: %d cluster(s) by the clean split, %d with the graph's test (ARI %.3f)",
				  k[0], k[1], ari);
		}
		else
			CHECK(k[0] == 1 && k[1] == 1, "%s in 64-D: %d cluster(s) by the clean split, %d with the graph's test",
				  t == 1 ? "one Gaussian" : "one class of log-normal columns", k[0], k[1]);
		if (t == 0 && dac_cluster_set(embed, X, n, w, o, &c, NULL) == DAC_OK)
		{
			ari = dac_ari(c.labels, truth, n);
			CHECK(c.num_clusters == 10 && ari >= 0.95 && ((c.stages >> DAC_STAGE_ONE_CLUSTER) & 1),
				  "and through the pipeline: %d clusters, ARI %.3f", c.num_clusters, ari);
			dac_clustering_free(&c);
		}
	}
	free(X);
	free(truth);
	free(lab);
}

/*
 * The one-cluster test: 150 rows in 3-D, one in ten of them 4.5 sigma out
 * along one axis (cleanly apart, but a class the passes leave in the rest),
 * are no one cluster, and it is the test that splits them; 150 rows of one
 * Gaussian stay one.  The test alone: one Gaussian in one dimension (whose
 * halves' silhouette passes 0.5) and one stretched along one axis stay one
 * cluster; two Gaussians 8 sigma apart are split.
 */
static void
one_cluster_case(const dac_model *embed, const dac_cluster_opts *o)
{
	int			n = 150,
				d = 3,
				i,
				j,
				t;
	dac_real   *X = malloc(sizeof(dac_real) * n * 8);
	int		   *truth = malloc(sizeof(int) * n);
	dac_rng		r;
	dac_clustering c;

	for (t = 0; t < 2; t++)
	{
		dac_rng_seed(&r, 5);
		for (i = 0; i < n; i++)
		{
			truth[i] = i % 10 == 0;
			for (j = 0; j < d; j++)
				X[(size_t) i * d + j] = (dac_real) ((t == 0 && j == 0 && truth[i] ? 4.5 : 0.0) +
													dac_rng_normal(&r));
		}
		if (dac_cluster_set(embed, X, n, d, o, &c, NULL) != DAC_OK)
		{
			CHECK(0, "clusters the one-cluster case %d", t);
			continue;
		}
		if (t == 0)
		{
			dac_cluster_opts off = *o;
			dac_clustering c0;

			CHECK(c.num_clusters == 2 && dac_ari(truth, c.labels, n) > 0.8 &&
				  ((c.stages >> DAC_STAGE_ONE_CLUSTER) & 1),
				  "a class of 15 rows 4.5 sigma apart: %d clusters, ARI %.3f", c.num_clusters,
				  dac_ari(truth, c.labels, n));
			/* the stage is what splits it: without the count searches the group is one cluster */
			off.k_search = 0;
			if (dac_cluster_set(embed, X, n, d, &off, &c0, NULL) == DAC_OK)
			{
				CHECK(c0.num_clusters == 1, "and without the one-cluster test, %d cluster(s)", c0.num_clusters);
				dac_clustering_free(&c0);
			}
		}
		else
			CHECK(c.num_clusters == 1, "one Gaussian in 3-D: %d cluster(s)", c.num_clusters);
		dac_clustering_free(&c);
	}
	/* the test alone, on a clustering of one cluster */
	for (t = 0; t < 3; t++)
	{
		int			w = t == 0 ? 1 : 3,
					k;

		as_one_cluster(&c, truth, n);
		dac_rng_seed(&r, 9);
		for (i = 0; i < n; i++)
		{
			for (j = 0; j < w; j++)
				X[(size_t) i * w + j] = (dac_real) ((t == 1 && j == 0 ? 6.0 : 1.0) * dac_rng_normal(&r) +
													(t == 2 && j == 0 && i % 2 ? 8.0 : 0.0));
		}
		k = dac_one_check_on(X, w, &c, 10, DAC_ONE_CHECK_MARGIN, 0, DAC_ONE_CHECK_RANKS, NULL, 0, 0) == DAC_OK ? c.num_clusters : -1;
		CHECK(k == (t == 2 ? 2 : 1), "the test alone: %s: %d cluster(s)",
			  t == 0 ? "one Gaussian in 1-D" : t == 1 ? "one stretched Gaussian in 3-D" : "two Gaussians 8 sigma apart", k);
		dac_free(c.theta);
	}
	/*
	 * The test in normal scores alone (k[1]; k[0]: the clean split alone), 8
	 * columns.  One class of log-normal columns sharing a factor (skewed, as
	 * a table's counts and sizes are; a Gaussian in normal scores) stays one
	 * cluster; two classes 2 sigma apart on every column (a mean silhouette
	 * under the clean split's 0.5) are split.
	 */
	for (t = 0; t < 2; t++)
	{
		int			w = 8,
					k[4],
					q,
					v;
		dac_real   *E = malloc(sizeof(dac_real) * n * 8);
		static dac_real *L = NULL;	/* the log-normal class (t == 0), kept for t == 1 */

		dac_rng_seed(&r, 13);
		for (i = 0; i < n; i++)
		{
			double		f = dac_rng_normal(&r);

			for (j = 0; j < w; j++)
				X[(size_t) i * w + j] = (dac_real) (t == 0 ? exp(0.8 * f + 0.6 * dac_rng_normal(&r))
													: dac_rng_normal(&r) + (i % 2 ? 2.0 : 0.0));
		}
		/* the rows' own columns given apart, each through an increasing map (exp) */
		for (i = 0; i < n * w; i++)
			E[i] = (dac_real) exp(X[i]);
		if (t == 0 && (L = malloc(sizeof(dac_real) * n * w)) != NULL)
			memcpy(L, X, sizeof(dac_real) * n * w);
		/* in the order 0, 1, 3, 2: the partition checked below is that of the exp columns */
		for (q = 0; q < (t == 1 && L ? 4 : 3); q++)
		{
			v = q < 2 ? q : (t == 1 && L ? 5 - q : q);
			as_one_cluster(&c, truth, n);
			k[v] = dac_one_check_on(X, w, &c, 10, v ? INFINITY : DAC_ONE_CHECK_MARGIN, 0, v ? DAC_ONE_CHECK_RANKS : 0,
									v == 2 ? E : v == 3 ? L : NULL, w, 0) == DAC_OK ? c.num_clusters : -1;
			dac_free(c.theta);
		}
		CHECK(k[2] == k[1], "its columns given apart through exp: %d cluster(s), as the rows' own %d", k[2], k[1]);
		if (t == 1 && L)
		{
			/* the columns given, not the rows, are what the normal scores read */
			CHECK(k[3] == 1, "two classes whose given columns are one log-normal class: %d cluster(s)", k[3]);
			free(L);
			L = NULL;
		}
		free(E);
		if (t == 0)
			CHECK(k[1] == 1, "one class of log-normal columns: %d cluster(s) in normal scores (%d by the clean split)",
				  k[1], k[0]);
		else
		{
			for (i = 0, v = 0; i < n; i++)
				v += truth[i] == truth[i % 2];
			CHECK(k[0] == 1 && k[1] == 2 && truth[0] != truth[1] && v > n * 9 / 10,
				  "two classes 2 sigma apart in 8-D: %d cluster(s) by the clean split, %d in normal scores, %d of %d rows with their class",
				  k[0], k[1], v, n);
		}
	}
	free(X);
	free(truth);
	columns_ignored_case(embed, o);
	gaussian_reference_cases();
	one_check_units_case(150);
	one_check_units_case(1000);
	one_check_graph_case(embed, o);
}

static dac_model *
shipped(const char *file)
{
	dac_model  *m = NULL;
	dac_error	err;

	if (dac_read_model(file, &m, &err) != DAC_OK)
		m = NULL;
	CHECK(m != NULL, "reads %s", file);
	return m;
}

/*
 * A cluster width given in the data's units (opts.cluster_width): a 10 x 10
 * grid of points 10 apart is 100 clusters at width 1, more than max_passes
 * (each point is more than DAC_WIDTH_ALONE widths from the others, so a
 * cluster of its own), fewer at width 10 and fewer again at 100; the grid in units a
 * thousand times larger, at a width a thousand times larger, gets the same
 * ids; an embedding model ignores the width.
 */
static void
width_case(dac_model *gauss, dac_model *embed, const dac_cluster_opts *o)
{
	enum
	{
		N = 100
	};
	double		X[2 * N],
				Xk[2 * N],
				widths[3] = {1, 10, 100};
	int			i,
				w,
				count[3] = {0, 0, 0},
				same = 1;
	dac_clustering c,
				ck;
	dac_error	err;

	for (i = 0; i < N; i++)
	{
		X[2 * i] = 10.0 * (i % 10) + 0.01 * (i % 7);
		X[2 * i + 1] = 10.0 * (i / 10) + 0.01 * (i % 3);
		Xk[2 * i] = 1000 * X[2 * i];
		Xk[2 * i + 1] = 1000 * X[2 * i + 1];
	}
	for (w = 0; w < 3; w++)
	{
		dac_cluster_opts v = *o,
					vk;

		v.cluster_width = widths[w];
		vk = v;
		vk.cluster_width = 1000 * widths[w];
		if (dac_cluster_set_f64(gauss, X, N, 2, &v, &c, &err) != DAC_OK)
		{
			CHECK(0, "width %g: %s", widths[w], err.msg);
			return;
		}
		count[w] = c.num_clusters;
		if (dac_cluster_set_f64(gauss, Xk, N, 2, &vk, &ck, &err) == DAC_OK)
		{
			same &= memcmp(c.labels, ck.labels, sizeof(int) * N) == 0;
			dac_clustering_free(&ck);
		}
		else
			same = 0;
		dac_clustering_free(&c);
	}
	CHECK(count[0] == N && count[1] < count[0] && count[2] < count[1] && count[2] >= 1,
		  "a grid 10 apart: %d clusters at width 1, %d at 10, %d at 100", count[0], count[1], count[2]);
	CHECK(same, "the grid in units 1000 times larger, at a width 1000 times larger, gets the same ids");
	{
		dac_cluster_opts v = *o;
		dac_clustering a;
		double		X16[16 * 40];
		dac_rng		r;

		dac_rng_seed(&r, 5);
		for (i = 0; i < 16 * 40; i++)
			X16[i] = (i / 16) % 2 * 5 + dac_rng_normal(&r);
		if (dac_cluster_set_f64(embed, X16, 40, 16, &v, &a, &err) == DAC_OK)
		{
			v.cluster_width = 0.001;
			if (dac_cluster_set_f64(embed, X16, 40, 16, &v, &c, &err) == DAC_OK)
			{
				CHECK(memcmp(a.labels, c.labels, sizeof(int) * 40) == 0,
					  "an embedding model (input setnorm) ignores the width");
				dac_clustering_free(&c);
			}
			dac_clustering_free(&a);
		}
	}
}

/*
 * dac_clustering_fit_theta, by hand: each cluster's θ its members' mean and
 * standard deviation (population), a zero spread floored at 1e-6; a θ of
 * another width (not a diagonal Gaussian's) left as it is.
 */
static void
fit_theta_case(void)
{
	dac_real	X[] = {0, 0, 2, 0, 10, 10, 10, 14, 10, 12};
	int			lab[] = {1, 1, 2, 2, 2};
	dac_real	theta[8] = {0},
				other[3] = {7, 7, 7};
	dac_clustering c;

	memset(&c, 0, sizeof(c));
	c.n = 5;
	c.num_clusters = 2;
	c.labels = lab;
	c.theta = theta;
	c.theta_dim = 4;
	CHECK(dac_clustering_fit_theta(X, 2, &c) == DAC_OK &&
		  fabs(theta[0] - 1) < 1e-6 && fabs(theta[1]) < 1e-6 && fabs(theta[2] - 1) < 1e-6 &&
		  fabs(theta[3] - 1e-6) < 1e-9 && fabs(theta[4] - 10) < 1e-6 && fabs(theta[5] - 12) < 1e-6 &&
		  fabs(theta[6] - 1e-6) < 1e-9 && fabs(theta[7] - sqrt(8.0 / 3)) < 1e-5,
		  "fit_theta: means (1, 0) and (10, 12), deviations (1, 1e-6) and (1e-6, 1.633)");
	c.theta = other;
	c.theta_dim = 3;
	CHECK(dac_clustering_fit_theta(X, 2, &c) == DAC_OK && other[0] == 7 && other[2] == 7,
		  "fit_theta: a θ that is not a diagonal Gaussian's is left as it is");
}

/*
 * dac_split_apart on a clustering of 60 + 120 rows: cluster 1 one Gaussian
 * far off, cluster 2 two unit Gaussians `sep` apart, their k-means split's
 * mean silhouette about 0.64 at sep 5 (moderately apart) and 0.85 at 12.
 */
static int
split_apart_run(double sep, int whole, int *lab, dac_real *theta_out)
{
	dac_real	X[180 * 2];
	dac_rng		r;
	dac_clustering c;
	int			split = -1,
				i;

	dac_rng_seed(&r, 5);
	for (i = 0; i < 180; i++)
	{
		X[2 * i] = (dac_real) ((i < 60 ? -40 : i < 120 ? 0 : sep) + dac_rng_normal(&r));
		X[2 * i + 1] = (dac_real) dac_rng_normal(&r);
	}
	memset(&c, 0, sizeof(c));
	c.n = whole ? 120 : 180;
	c.num_clusters = whole ? 1 : 2;
	c.labels = lab;
	c.theta_dim = 4;
	c.theta = dac_alloc(sizeof(dac_real) * 4 * c.num_clusters);
	for (i = 0; i < c.n; i++)
		lab[i] = whole || i >= 60 ? c.num_clusters : 1;
	for (i = 0; c.theta && i < 4 * c.num_clusters; i++)
		c.theta[i] = 7;
	if (c.theta == NULL || dac_split_apart(whole ? X + 120 : X, 2, &c, 10, &split) != DAC_OK ||
		split != c.num_clusters - (whole ? 1 : 2))
		split = -1;
	for (i = 0; split >= 0 && i < 4 * c.num_clusters; i++)
		theta_out[i] = c.theta[i];
	dac_free(c.theta);
	return split;
}

static void
split_apart_case(void)
{
	int			lab[180],
				ok = 1,
				i;
	dac_real	th[12];

	CHECK(split_apart_run(12, 0, lab, th) == 1,
		  "split_apart: a found cluster holding two Gaussians 12 apart is split in two");
	for (i = 0; i < 180; i++)
		ok &= lab[i] == (i < 60 ? 1 : i < 120 ? 2 : 3);
	CHECK(ok, "split_apart: the first part keeps the cluster's id, the second is numbered after the last");
	CHECK(th[0] == 7 && th[3] == 7 && fabs(th[4]) < 0.4 && fabs(th[8] - 12) < 0.4 && fabs(th[9]) < 0.4 &&
		  fabs(th[10] - 1) < 0.3 && fabs(th[11] - 1) < 0.3,
		  "split_apart: the parts' θ are their members' means and deviations, the other cluster's stays");
	CHECK(split_apart_run(5, 0, lab, th) == 0,
		  "split_apart: two Gaussians 5 apart in a found cluster (moderately apart) stay one cluster");
	CHECK(split_apart_run(5, 1, lab, th) == 1,
		  "split_apart: the same two Gaussians as a group of one cluster are split (cleanly apart)");
	CHECK(split_apart_run(0, 1, lab, th) == 0, "split_apart: one Gaussian of 120 rows stays one cluster");
}

void
test_pipeline(void)
{
	dac_rng		r;
	int			n = 240;
	dac_real   *X2 = malloc(sizeof(dac_real) * n * 2),
			   *X16 = malloc(sizeof(dac_real) * n * 16);
	dac_model  *gauss = shipped("weights/mlf_mog2d.safetensors"),
			   *flow = shipped("weights/mlf_warped2d.safetensors"),
			   *af = shipped("weights/af_mog2d.safetensors"),
			   *embed = shipped("weights/mlf_embed.safetensors");
	dac_cluster_opts o = dac_cluster_opts_default(),
				off;

	table_whole();
	fit_theta_case();
	split_apart_case();
	dac_rng_seed(&r, 77);
	blobs(&r, n, 2, X2);
	blobs(&r, n, 16, X16);
	if (!gauss || !flow || !af || !embed)
		goto done;
	/* the database's defaults: the options' table's, not the bare loop's */
	o.absorb_size = 4;
	o.pair_merge = 0.9;
	o.pair_split = 1;
	o.kmeans_steps = 10;
	o.k_search = 2;
	o.graph_neighbors = 5;
	o.graph_merge = 0.04;
	o.sample_size = 1000;
	record_case(gauss, X2, n, 2, &o, "Gaussian, defaults");
	record_case(flow, X2, n, 2, &o, "flow, defaults");
	record_case(af, X2, n, 2, &o, "anchored, defaults");
	record_case(embed, X16, n, 16, &o, "no density head, defaults");
	{
		dac_cluster_opts v = o;

		v.noise = 0.01;
		v.min_size = 5;
		record_case(gauss, X2, n, 2, &v, "Gaussian, noise");
		v = o;
		v.rotations = 3;
		v.em_steps = 5;
		record_case(gauss, X2, n, 2, &v, "Gaussian, rotations and EM");
		v = o;
		v.refine_rounds = 1;
		v.reassign = 1;
		v.min_size = 5;
		record_case(flow, X2, n, 2, &v, "flow, refine and reassign");
		v = o;
		v.k_exact = 4;
		record_case(embed, X16, n, 16, &v, "no density head, k");
		record_case(gauss, X2, n, 2, &v, "Gaussian, k");
		v = o;
		v.sample_size = 100;
		v.k_max = 2;
		record_case(embed, X16, n, 16, &v, "no density head, a sample and max_k");
		v = o;
		v.want_ll = 0;
		record_case(gauss, X2, n, 2, &v, "Gaussian, no LL asked for");
	}
	repeat_case(gauss, X2, 80, 2, &o, "Gaussian");
	repeat_case(embed, X16, 80, 16, &o, "no density head");
	one_cluster_case(embed, &o);
	width_case(gauss, embed, &o);
	off = o;
	off.pair_merge = 0;
	bytes_case(flow, 1000, 2, &o, &off, DAC_STAGE_PAIR_MERGE, "flow");
	off = o;
	off.graph_neighbors = 0;
	bytes_case(embed, 1000, 16, &o, &off, DAC_STAGE_GRAPH, "no density head");
	off = o;
	o.rotations = 4;
	bytes_case(gauss, 1000, 2, &o, &off, DAC_STAGE_ROTATIONS, "Gaussian");
	o.rotations = 1;
	{
		dac_cluster_opts k = o;

		k.k_exact = 3;
		CHECK(dac_stage_bytes(embed, DAC_STAGE_K_SEARCH, 1000, 16, &k) == 0 &&
			  dac_stage_bytes(embed, DAC_STAGE_K_SEARCH, 1000, 16, &o) > 0,
			  "the count search, which a count asked for replaces, is counted only when it runs");
	}
done:
	dac_model_destroy(gauss);
	dac_model_destroy(flow);
	dac_model_destroy(af);
	dac_model_destroy(embed);
	free(X2);
	free(X16);
}
