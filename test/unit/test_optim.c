/*
 * test_optim.c
 *	  Adam, cosine decay and clipping against values worked out by hand
 *	  (PyTorch's formulas).
 */
#include "unit.h"
#include "optim.h"

#include <math.h>

void
test_optim(void)
{
	dac_adam_config c = dac_adam_default(100);
	dac_real	P[2] = {1.0, -2.0},
				G[2] = {0.5, -0.25},
				M[2] = {0, 0},
				V[2] = {0, 0};
	dac_real	Gc[3] = {3, 4, 0};
	double		norm;

	/* cosine: lr at step 0, half at the middle, 0 at the end */
	CHECK(fabs(dac_cosine_lr(5e-4, 0, 100) - 5e-4) < 1e-15, "cosine lr at step 0");
	CHECK(fabs(dac_cosine_lr(5e-4, 50, 100) - 2.5e-4) < 1e-15, "cosine lr at the middle");
	CHECK(fabs(dac_cosine_lr(5e-4, 25, 100) - 5e-4 * 0.5 * (1 + cos(M_PI / 4))) < 1e-15, "cosine lr at a quarter");
	CHECK(fabs(dac_cosine_lr(5e-4, 100, 100)) < 1e-15, "cosine lr at the end");

	/*
	 * Adam's first step moves every weight by lr·sign(g) (up to eps):
	 * m = 0.1g, v = 0.001g², m̂ = g, v̂ = g², step = lr·g/(|g| + eps).
	 */
	dac_adam_update(P, G, M, V, 2, 1, 0.1, &c);
	CHECK(fabs(P[0] - (1.0 - 0.1 * 0.5 / (0.5 + 1e-8))) < 1e-6, "adam step 1, weight 0: %.9g", (double) P[0]);
	CHECK(fabs(P[1] - (-2.0 + 0.1 * 0.25 / (0.25 + 1e-8))) < 1e-6, "adam step 1, weight 1: %.9g", (double) P[1]);
	CHECK(fabs(M[0] - 0.05) < 1e-7 && fabs(V[0] - 0.00025) < 1e-9, "adam moments after step 1");
	/* step 2 with the same gradient: m = 0.19g, v = 0.001999g²; m̂ = g, v̂ = g² */
	dac_adam_update(P, G, M, V, 2, 2, 0.1, &c);
	CHECK(fabs(P[0] - (1.0 - 0.2 * 0.5 / (0.5 + 1e-8))) < 1e-6, "adam step 2, weight 0: %.9g", (double) P[0]);

	/* clipping: |(3,4)| = 5 */
	norm = dac_clip_grad_norm(Gc, 3, 10);
	CHECK(fabs(norm - 5) < 1e-12 && Gc[0] == 3 && Gc[1] == 4, "no clipping under the bound");
	norm = dac_clip_grad_norm(Gc, 3, 1);
	CHECK(fabs(norm - 5) < 1e-12, "norm before clipping");
	CHECK(fabs(Gc[0] - 3 / (5 + 1e-6)) < 1e-6 && fabs(Gc[1] - 4 / (5 + 1e-6)) < 1e-6,
		  "clipped to norm 1 as max_norm/(norm + 1e-6)");
}
