/*
 * The answers of two models on the same sets at the sizes where the default
 * hands a group from one to the other, with each answer's BIC: the data a
 * rule for the handover is judged on (test/bench/handover.py).
 *
 *   handover MODEL_A MODEL_B SETS SEED N...
 *   handover MODEL_A MODEL_B --groups FILE
 *
 * Each set is one draw of the mog generator (2-D, k <= 4) of max(N) + 1
 * rows; for each N, both models cluster its first N rows and its first
 * N + 1 (each with the options it carries, as the extension's defaults
 * give them).  One line per set and N:
 *
 *   set N k  bicA bicB bicA' bicB'  ariA ariB  aa ab ba bb
 *
 * bicX: -2 n LL + p ln n of model X's answer on the N rows (p: a weight, a
 * mean and a diagonal variance a cluster, less one), bicX' on the N + 1
 * rows; ariX: its ARI against
 * the generator's labels; xy: the ARI between model x's answer on N rows
 * and model y's on N + 1 (compared on the N).
 *
 * With --groups, the groups of FILE instead (lines "group label x y", a
 * group's lines together), each clustered whole by both models:
 *
 *   group n k  bicA bicB  ariA ariB  ab
 *
 * ab: the ARI between the two answers.
 */
#include "dac.h"
#include "labels.h"
#include "read_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
die(const char *what, const dac_error *err)
{
	fprintf(stderr, "handover: %s: %s\n", what, err ? err->msg : "failed");
	exit(1);
}

/* model m's answer on the n rows of X: labels into lab, its BIC returned */
static double
answer(const dac_model *m, const dac_real *X, int n, int *lab)
{
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_clustering c;
	dac_error	err;
	double		bic;
	int			i;

	if (dac_cluster_opts_model(m, NULL, NULL, &o, &err) != DAC_OK)
		die("options", &err);
	o.want_ll = 1;
	if (dac_cluster_set(m, X, n, 2, &o, &c, &err) != DAC_OK)
		die("cluster", &err);
	for (i = 0; i < n; i++)
		lab[i] = c.labels[i];
	bic = -2.0 * n * c.ll + (5.0 * c.num_clusters - 1) * log((double) n);
	dac_clustering_free(&c);
	return bic;
}

/* the --groups form: each group of the file clustered by both models */
static int
groups(dac_model **m, const char *path)
{
	FILE	   *f = fopen(path, "r");
	char		key[256],
				cur[256] = "";
	int			cap = 1 << 16,
				n = 0,
				lab,
				done = 0;
	dac_real   *X = malloc(sizeof(dac_real) * 2 * cap);
	int		   *y = malloc(sizeof(int) * cap),
			   *la = malloc(sizeof(int) * cap),
			   *lb = malloc(sizeof(int) * cap);
	double		x0,
				x1;

	if (f == NULL || X == NULL || y == NULL || la == NULL || lb == NULL)
		die(path, NULL);
	while (!done)
	{
		int			r = fscanf(f, "%255s %d %lf %lf", key, &lab, &x0, &x1),
					got = r == 4;

		if (r != 4 && r != EOF)
			die(path, NULL);	/* a line that is not "group label x y" */
		if (got && n == cap && strcmp(key, cur) == 0)
			die("a group of more than 65,536 rows", NULL);

		if (!got || (n > 0 && strcmp(key, cur) != 0))
		{
			if (n > 0)
			{
				int			k = 0,
							i;
				double		ba = answer(m[0], X, n, la),
							bb = answer(m[1], X, n, lb);

				for (i = 0; i < n; i++)
					k = y[i] + 1 > k ? y[i] + 1 : k;
				printf("%s %d %d  %.4f %.4f  %.4f %.4f  %.4f\n", cur, n, k, ba, bb,
					   dac_ari(la, y, n), dac_ari(lb, y, n), dac_ari(la, lb, n));
				fflush(stdout);
			}
			n = 0;
			done = !got;
		}
		if (got)
		{
			strcpy(cur, key);
			X[2 * n] = (dac_real) x0;
			X[2 * n + 1] = (dac_real) x1;
			y[n++] = lab;
		}
	}
	fclose(f);
	free(X);
	free(y);
	free(la);
	free(lb);
	return 0;
}

int
main(int argc, char **argv)
{
	dac_model  *m[2];
	int			sets,
				s,
				j,
				nmax = 0;
	uint64_t	seed;
	dac_rng		rng;
	dac_error	err;

	if (argc < 5 || (argc == 5 && strcmp(argv[3], "--groups") != 0))
	{
		fprintf(stderr, "usage: handover MODEL_A MODEL_B SETS SEED N... | handover MODEL_A MODEL_B --groups FILE\n");
		return 2;
	}
	for (j = 0; j < 2; j++)
		if (dac_read_model(argv[1 + j], &m[j], &err) != DAC_OK)
			die(argv[1 + j], &err);
	if (argc == 5)
	{
		j = groups(m, argv[4]);
		dac_model_destroy(m[0]);
		dac_model_destroy(m[1]);
		return j;
	}
	sets = atoi(argv[3]);
	seed = strtoull(argv[4], NULL, 10);
	for (j = 5; j < argc; j++)
		if (atoi(argv[j]) > nmax)
			nmax = atoi(argv[j]);
	dac_rng_seed(&rng, seed);
	for (s = 0; s < sets; s++)
	{
		dac_real   *X = malloc(sizeof(dac_real) * 2 * (nmax + 1));
		int		   *y = malloc(sizeof(int) * (nmax + 1));
		int		   *lab[2][2];
		int			k,
					a,
					b;

		for (a = 0; a < 2; a++)
			for (b = 0; b < 2; b++)
				lab[a][b] = malloc(sizeof(int) * (nmax + 1));
		if (dac_generate(DAC_GEN_MOG, &rng, 1, nmax + 1, 4, 2, X, y, &k, &err) != DAC_OK)
			die("generate", &err);
		for (j = 5; j < argc; j++)
		{
			int			n = atoi(argv[j]);
			double		bic[2][2];

			for (a = 0; a < 2; a++)
			{
				bic[a][0] = answer(m[a], X, n, lab[a][0]);
				bic[a][1] = answer(m[a], X, n + 1, lab[a][1]);
			}
			printf("%d %d %d  %.4f %.4f %.4f %.4f  %.4f %.4f  %.4f %.4f %.4f %.4f\n", s, n, k,
				   bic[0][0], bic[1][0], bic[0][1], bic[1][1],
				   dac_ari(lab[0][0], y, n), dac_ari(lab[1][0], y, n),
				   dac_ari(lab[0][0], lab[0][1], n), dac_ari(lab[0][0], lab[1][1], n),
				   dac_ari(lab[1][0], lab[0][1], n), dac_ari(lab[1][0], lab[1][1], n));
			fflush(stdout);
		}
		for (a = 0; a < 2; a++)
			for (b = 0; b < 2; b++)
				free(lab[a][b]);
		free(X);
		free(y);
	}
	dac_model_destroy(m[0]);
	dac_model_destroy(m[1]);
	return 0;
}
