/*
 * The ladder of models by group size (ladder.c): which model clusters a set
 * of so many distinct rows, the band where both do and the answer of larger
 * evidence is kept, and the bytes it counts.
 */
#include "dac.h"
#include "pipeline.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the rung (or -1 and the pair) and prior of a ladder's band by hand */
static void
rungs_by_hand(void)
{
	dac_ladder	l;
	int			pair = -1;
	double		prior = -1;

	memset(&l, 0, sizeof(l));
	l.rungs = 3;
	l.lo[0] = 100;
	l.hi[0] = 200;
	l.lo[1] = 500;
	l.hi[1] = 1000;
	CHECK(dac_ladder_rung(&l, 1, &pair, &prior) == 0 && dac_ladder_rung(&l, 100, &pair, &prior) == 0,
		  "up to lo[0] distinct rows: the first model alone");
	CHECK(dac_ladder_rung(&l, 101, &pair, &prior) == -1 && pair == 0 && fabs(prior - 0.99) < 1e-12,
		  "one row past lo[0]: both, a prior of 0.99 on the first");
	CHECK(dac_ladder_rung(&l, 150, &pair, &prior) == -1 && pair == 0 && fabs(prior - 0.5) < 1e-12,
		  "half way through the band: a prior of 0.5");
	CHECK(dac_ladder_rung(&l, 199, &pair, &prior) == -1 && fabs(prior - 0.01) < 1e-12,
		  "one row before hi[0]: a prior of 0.01");
	CHECK(dac_ladder_rung(&l, 200, &pair, &prior) == 1 && dac_ladder_rung(&l, 500, &pair, &prior) == 1,
		  "hi[0] .. lo[1]: the second model alone");
	CHECK(dac_ladder_rung(&l, 750, &pair, &prior) == -1 && pair == 1 && fabs(prior - 0.5) < 1e-12,
		  "the second band: the second and third models");
	CHECK(dac_ladder_rung(&l, 1000, &pair, &prior) == 2 && dac_ladder_rung(&l, 1 << 30, &pair, &prior) == 2,
		  "from hi[1]: the last model alone");
	l.hi[0] = 101;
	CHECK(dac_ladder_rung(&l, 100, &pair, &prior) == 0 && dac_ladder_rung(&l, 101, &pair, &prior) == 1,
		  "hi = lo + 1: a plain switch, no band");
}

/* n rows of two well-apart Gaussian blobs in 2-D */
static void
two_blobs(dac_rng *r, int n, dac_real *X)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		X[2 * i] = (dac_real) (dac_rng_normal(r) + (i % 2 ? 6 : 0));
		X[2 * i + 1] = (dac_real) dac_rng_normal(r);
	}
}

static int
same_labels(const dac_clustering *a, const dac_clustering *b)
{
	return a->n == b->n && a->num_clusters == b->num_clusters &&
		memcmp(a->labels, b->labels, sizeof(int) * (size_t) a->n) == 0;
}

/* m alone on X [n, 2] */
static dac_status
alone(const dac_model *m, const dac_cluster_opts *o, const dac_real *X, int n, dac_clustering *c)
{
	dac_error	err;

	return dac_cluster_set(m, X, n, 2, o, c, &err);
}

void
test_ladder(void)
{
	dac_model  *small = unit_shipped_model("weights/mlf_small2d.safetensors"),
			   *mid = unit_shipped_model("weights/mlf_mog2d.safetensors"),
			   *embed = unit_shipped_model("weights/mlf_embed.safetensors");
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_ladder	l;
	dac_rng		r;
	dac_error	err;
	dac_clustering c,
				a,
				b;
	int			n = 150,
				i;
	dac_real   *X = malloc(sizeof(dac_real) * 2 * 300);

	rungs_by_hand();
	if (!small || !mid || !embed)
		goto done;
	CHECK(dac_ladder_hands_over(small, mid) && !dac_ladder_hands_over(small, embed),
		  "a band between two models with Gaussian θ of one width, never with a model without a density head");
	dac_rng_seed(&r, 5);
	two_blobs(&r, 300, X);
	o.want_ll = 0;
	memset(&l, 0, sizeof(l));
	l.rungs = 2;
	l.model[0] = small;
	l.model[1] = mid;
	l.opts[0] = l.opts[1] = o;

	/* one rung: that model's answer, byte for byte, and its bytes */
	l.rungs = 1;
	CHECK(dac_cluster_ladder(&l, X, NULL, n, 2, &c, &err) == DAC_OK && alone(small, &o, X, n, &a) == DAC_OK &&
		  same_labels(&c, &a) && c.rung == 0 && !c.compared, "a ladder of one model is that model");
	CHECK(dac_ladder_bytes(&l, n, 2) == dac_cluster_bytes(small, n, 2, &o), "and counts that model's bytes");
	dac_clustering_free(&c);
	dac_clustering_free(&a);
	l.rungs = 2;

	/* a plain switch counts the distinct rows: 150 rows of which 100 distinct are the small model's */
	l.lo[0] = 100;
	l.hi[0] = 101;
	{
		dac_real   *R = malloc(sizeof(dac_real) * 2 * n);

		for (i = 0; i < n; i++)
			memcpy(R + 2 * i, X + 2 * (i % 100), sizeof(dac_real) * 2);
		CHECK(dac_cluster_ladder(&l, R, NULL, n, 2, &c, &err) == DAC_OK && alone(small, &o, R, n, &a) == DAC_OK &&
			  same_labels(&c, &a) && c.rung == 0, "150 rows, 100 of them distinct: the small groups' model");
		dac_clustering_free(&c);
		dac_clustering_free(&a);
		free(R);
	}
	CHECK(dac_cluster_ladder(&l, X, NULL, 101, 2, &c, &err) == DAC_OK && alone(mid, &o, X, 101, &a) == DAC_OK &&
		  same_labels(&c, &a) && c.rung == 1 && !c.compared, "101 distinct rows: the next model, alone");
	dac_clustering_free(&c);
	dac_clustering_free(&a);

	/* a band: both answers; the one of lower BIC at a prior of 0.5, the prior's choice near its ends */
	l.hi[0] = 200;
	CHECK(dac_cluster_ladder(&l, X, NULL, n, 2, &c, &err) == DAC_OK && c.compared && fabs(c.prior - 0.5) < 1e-12 &&
		  isfinite(c.bic[0]) && isfinite(c.bic[1]) && (c.rung == 1) == (c.bic[1] < c.bic[0]),
		  "150 rows in a band from 100 to 200: both models, the lower BIC's answer (BIC %.2f and %.2f, model %d)",
		  c.bic[0], c.bic[1], c.rung);
	CHECK(alone(c.rung ? mid : small, &o, X, n, &a) == DAC_OK && same_labels(&c, &a),
		  "the answer kept is that model's own");
	CHECK(isnan(c.ll) && !(c.stages & (1u << DAC_STAGE_LOG_LIKELIHOOD)),
		  "no LL asked for: none reported, though both were computed");
	dac_clustering_free(&a);
	l.opts[0].want_ll = l.opts[1].want_ll = 1;
	CHECK(dac_cluster_ladder(&l, X, NULL, n, 2, &b, &err) == DAC_OK && same_labels(&c, &b) && isfinite(b.ll),
		  "an LL asked for is the kept answer's, the answer the same");
	dac_clustering_free(&b);
	l.opts[0].want_ll = l.opts[1].want_ll = 0;
	{
		/* the prior's log-odds beside the evidence: a band so wide that 150 rows are at a prior of 1 - 1e-9 */
		dac_ladder	w = l;
		int			keep = c.rung;

		w.lo[0] = 149;
		w.hi[0] = 149 + 1000000000;
		CHECK(dac_cluster_ladder(&w, X, NULL, n, 2, &b, &err) == DAC_OK && b.compared && b.rung == 0 &&
			  (keep == 1 || same_labels(&c, &b)),
			  "a prior of 1 - 1e-9 on the first model keeps its answer (log-odds 20.7; BIC %.2f against %.2f)",
			  b.bic[0], b.bic[1]);
		dac_clustering_free(&b);
	}
	dac_clustering_free(&c);

	/* bytes: both models' at once in the band, each alone outside it */
	CHECK(dac_ladder_bytes(&l, n, 2) >= dac_cluster_bytes(small, n - 1, 2, &o) + dac_cluster_bytes(mid, n - 1, 2, &o) &&
		  dac_ladder_bytes(&l, 100, 2) >= dac_cluster_bytes(small, 100, 2, &o) &&
		  dac_ladder_bytes(&l, 100, 2) < dac_cluster_bytes(small, 100, 2, &o) + dac_cluster_bytes(mid, 100, 2, &o),
		  "the bytes count both models in the band, one below it");

	/* the second model fails (its memory limit): nothing of the first's answer is left */
	l.opts[1].mem_limit = 1024;
	CHECK(dac_cluster_ladder(&l, X, NULL, n, 2, &c, &err) == DAC_ERR_TOO_LARGE && c.labels == NULL,
		  "the second model over its memory limit: an error, the first's answer freed");
	l.opts[1].mem_limit = 0;
	l.rungs = 0;
	CHECK(dac_cluster_ladder(&l, X, NULL, n, 2, &c, &err) == DAC_ERR_INVALID, "a ladder of no model is refused");
done:
	dac_model_destroy(small);
	dac_model_destroy(mid);
	dac_model_destroy(embed);
	free(X);
}
