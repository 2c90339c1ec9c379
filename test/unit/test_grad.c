/*
 * test_grad.c
 *	  Finite-difference checks of every backward pass (as in ggml's
 *	  test-grad0): Linear, MAB (several keys, one key, shared queries), PMA,
 *	  ISAB, stacks with shared and independent blocks, the density heads
 *	  (Gaussian and the MAF flow, at d = 2 and 3, in their parameters and
 *	  H_θ), and the MLF and AF networks with each head, through their losses.
 *
 *	  Central differences in float64 (h = 1e-6) against the analytic
 *	  gradient of a scalar loss: |fd − an| ≤ 1e-7 + 1e-5·max(|fd|, |an|),
 *	  over every parameter entry and every input entry.  Built only into the
 *	  float64 test binary; in float32 rounding would swamp the check.
 */
#include "unit.h"
#include "loss.h"
#include "model.h"
#include "nn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DAC_DOUBLE

typedef double (*loss_fn) (void *ctx);

/*
 * Entries fd_compare leaves out when set (0 there): a flow's masked-out
 * weights, which the pass keeps at zero and whose gradient must be exactly
 * 0 (checked apart).
 */
static const dac_real *fd_free = NULL;

/* Compare an analytic gradient with central differences of f over x[0..n). */
static int
fd_compare(const char *what, loss_fn f, void *ctx, dac_real *x, const dac_real *grad, size_t n,
		   double *worst_out)
{
	const double h = 1e-6;
	size_t		i;
	int			bad = 0;
	double		worst = 0;

	for (i = 0; i < n; i++)
	{
		double		save = x[i],
					fp,
					fm,
					fd,
					err,
					tol;

		if (fd_free && fd_free[i] == 0)
			continue;
		x[i] = save + h;
		fp = f(ctx);
		x[i] = save - h;
		fm = f(ctx);
		x[i] = save;
		fd = (fp - fm) / (2 * h);
		err = fabs(fd - grad[i]);
		tol = 1e-7 + 1e-5 * fmax(fabs(fd), fabs(grad[i]));
		if (err / tol > worst)
			worst = err / tol;
		if (!(err <= tol))
		{
			if (bad < 3)
				printf("#   %s[%zu]: fd %.10g analytic %.10g\n", what, i, fd, (double) grad[i]);
			bad++;
		}
	}
	if (worst_out)
		*worst_out = worst;
	return bad;
}

static void
fill_random(dac_real *x, size_t n, dac_rng *r, double scale)
{
	size_t		i;

	for (i = 0; i < n; i++)
		x[i] = (dac_real) (scale * (2 * dac_rng_uniform(r) - 1));
}

/* ------------------------------------------------------------------ blocks */

typedef enum
{
	BLK_LINEAR, BLK_MAB, BLK_PMA, BLK_ISAB, BLK_STACK
} blk_kind;

typedef struct
{
	blk_kind	kind;
	dac_net		net;			/* only for its parameter layout */
	dac_linear	lin;
	dac_mab		mab;
	dac_pma		pma;
	dac_isab	isab;
	dac_stack	stack;
	dac_real   *P,
			   *G;
	dac_real   *X,
			   *Y,
			   *R;				/* inputs and the random projection of the output */
	dac_real   *dX,
			   *dY;
	int			B,
				nq,
				nk,
				q_shared,
				dx,
				dy,
				D;
	size_t		nX,
				nY,
				nout;
} blk_ctx;

/* Run the block; return Σ out ⊙ R, and leave the cache in ar when keep != NULL. */
static double
blk_eval(blk_ctx *c, dac_arena *ar, void *cache)
{
	dac_mab_cache mc;
	dac_isab_cache ic;
	dac_stack_cache sc;
	const dac_real *out = NULL;
	dac_real   *lin_out = NULL;
	double		s = 0;
	size_t		i;

	switch (c->kind)
	{
		case BLK_LINEAR:
			lin_out = dac_arena_reals(ar, c->nout);
			linear_forward(&c->lin, c->P, c->X, c->nq, lin_out);
			out = lin_out;
			break;
		case BLK_MAB:
			mab_forward(&c->mab, c->P, c->X, c->Y, c->B, c->nq, c->nk, c->q_shared, NULL, NULL, ar, &mc);
			out = mc.out;
			if (cache)
				*(dac_mab_cache *) cache = mc;
			break;
		case BLK_PMA:
			pma_forward(&c->pma, c->P, NULL, c->X, c->B, c->nq, NULL, ar, &mc);
			out = mc.out;
			if (cache)
				*(dac_mab_cache *) cache = mc;
			break;
		case BLK_ISAB:
			isab_forward(&c->isab, c->P, NULL, c->X, c->B, c->nq, NULL, ar, &ic);
			out = ic.mab.out;
			if (cache)
				*(dac_isab_cache *) cache = ic;
			break;
		case BLK_STACK:
			stack_forward(&c->stack, c->P, NULL, c->X, c->B, c->nq, NULL, ar, &sc);
			out = sc.out;
			if (cache)
				*(dac_stack_cache *) cache = sc;
			break;
	}
	for (i = 0; i < c->nout; i++)
		s += (double) out[i] * c->R[i];
	return s;
}

static double
blk_loss(void *ctx)
{
	dac_arena	ar;
	double		s;

	dac_arena_init(&ar, 0);
	s = blk_eval(ctx, &ar, NULL);
	dac_arena_free(&ar);
	return s;
}

static void
blk_check(const char *name, blk_ctx *c, dac_rng *r)
{
	dac_arena	ar;
	union
	{
		dac_mab_cache m;
		dac_isab_cache i;
		dac_stack_cache s;
	}			cache;
	double		wp = 0,
				wx = 0,
				wy = 0;
	int			bad;

	c->P = calloc(c->net.nparams, sizeof(dac_real));
	c->G = calloc(c->net.nparams, sizeof(dac_real));
	dac_net_init_params(&c->net, c->P, r);
	/* make biases and inducing points non-trivial too */
	fill_random(c->P, c->net.nparams, r, 0.5);
	c->X = malloc(sizeof(dac_real) * c->nX);
	c->dX = calloc(c->nX, sizeof(dac_real));
	fill_random(c->X, c->nX, r, 1.0);
	if (c->nY)
	{
		c->Y = malloc(sizeof(dac_real) * c->nY);
		c->dY = calloc(c->nY, sizeof(dac_real));
		fill_random(c->Y, c->nY, r, 1.0);
	}
	c->R = malloc(sizeof(dac_real) * c->nout);
	fill_random(c->R, c->nout, r, 1.0);

	dac_arena_init(&ar, 0);
	blk_eval(c, &ar, &cache);
	switch (c->kind)
	{
		case BLK_LINEAR:
			linear_backward(&c->lin, c->P, c->G, c->X, c->R, c->nq, c->dX);
			break;
		case BLK_MAB:
			mab_backward(&c->mab, c->P, c->G, &cache.m, c->R, c->dX, c->dY, &ar);
			break;
		case BLK_PMA:
			pma_backward(&c->pma, c->P, c->G, &cache.m, c->R, c->dX, &ar);
			break;
		case BLK_ISAB:
			isab_backward(&c->isab, c->P, c->G, &cache.i, c->R, c->dX, &ar);
			break;
		case BLK_STACK:
			stack_backward(&c->stack, c->P, c->G, &cache.s, c->R, c->dX, &ar);
			break;
	}
	dac_arena_free(&ar);

	bad = fd_compare("param", blk_loss, c, c->P, c->G, c->net.nparams, &wp);
	bad += fd_compare("dX", blk_loss, c, c->X, c->dX, c->nX, &wx);
	if (c->nY)
		bad += fd_compare("dY", blk_loss, c, c->Y, c->dY, c->nY, &wy);
	CHECK(bad == 0, "fd gradient of %s: %zu params, %zu+%zu inputs, worst err/tol %.2g %.2g %.2g",
		  name, c->net.nparams, c->nX, c->nY, wp, wx, wy);
	free(c->P);
	free(c->G);
	free(c->X);
	free(c->dX);
	free(c->Y);
	free(c->dY);
	free(c->R);
	c->Y = c->dY = NULL;
}

/*
 * Build a parameter layout for one block by borrowing the network layout:
 * a tiny network is created and one of its blocks is exercised alone.
 */
static void
blocks_tests(dac_rng *r)
{
	dac_config	cfg = dac_config_default(DAC_AF, 3);
	blk_ctx		c;
	int			D = 8;

	cfg.dim_hidden = D;
	cfg.num_heads = 2;
	cfg.num_inds = 3;
	cfg.num_blocks = 3;

	/* Linear: fc2 (D -> 1) on 5 rows; mab1.fc_q (3 -> 8) */
	memset(&c, 0, sizeof(c));
	dac_net_init(&c.net, &cfg, NULL);
	c.kind = BLK_LINEAR;
	c.lin = c.net.mab1.fc_q;
	c.nq = 5;
	c.nX = 5 * 3;
	c.nout = 5 * D;
	blk_check("linear 3->8", &c, r);

	/* MAB with several keys: isab1.blocks.0.mab, X [B*nq, D], Y [B*nk, D] */
	c.kind = BLK_MAB;
	c.mab = c.net.isab1.blocks[0].mab;
	c.B = 2;
	c.nq = 4;
	c.nk = 3;
	c.q_shared = 0;
	c.nX = 2 * 4 * D;
	c.nY = 2 * 3 * D;
	c.nout = 2 * 4 * D;
	blk_check("mab (2 sets, 4 queries, 3 keys)", &c, r);

	/* MAB with one key and a different input width: mab1 (3 -> 8), the AF anchor MAB */
	c.mab = c.net.mab1;
	c.nk = 1;
	c.nX = 2 * 4 * 3;
	c.nY = 2 * 1 * 3;
	blk_check("mab (single key, d=3)", &c, r);

	/* MAB with queries shared by every set (the PMA form) */
	c.mab = c.net.isab1.blocks[0].mab;
	c.q_shared = 1;
	c.nk = 5;
	c.nX = 4 * D;
	c.nY = 2 * 5 * D;
	c.nout = 2 * 4 * D;
	blk_check("mab (shared queries)", &c, r);

	/* more keys than queries, 16 or more queries: scores held keys-major */
	c.q_shared = 0;
	c.nq = 16;
	c.nk = 21;
	c.nX = 2 * 16 * D;
	c.nY = 2 * 21 * D;
	c.nout = 2 * 16 * D;
	blk_check("mab (keys-major: 16 queries, 21 keys)", &c, r);
	c.q_shared = 1;
	c.nX = 16 * D;
	blk_check("mab (keys-major, shared queries)", &c, r);
	/* few keys for many queries: keys-major too */
	c.q_shared = 0;
	c.nq = 13;
	c.nk = 3;
	c.nX = 2 * 13 * D;
	c.nY = 2 * 3 * D;
	c.nout = 2 * 13 * D;
	blk_check("mab (keys-major: 13 queries, 3 keys)", &c, r);
	c.nq = 4;

	/* PMA with 3 inducing points over 6 rows */
	c.kind = BLK_PMA;
	c.pma = c.net.isab1.blocks[0].pma;
	c.q_shared = 0;
	c.B = 2;
	c.nq = 6;
	c.nX = 2 * 6 * D;
	c.nY = 0;
	c.nout = 2 * 3 * D;
	blk_check("pma (m=3)", &c, r);

	/* ISAB */
	c.kind = BLK_ISAB;
	c.isab = c.net.isab1.blocks[0];
	c.nout = 2 * 6 * D;
	blk_check("isab", &c, r);

	/* Stack with shared blocks (blocks 1 and 2 are one module) */
	c.kind = BLK_STACK;
	c.stack = c.net.isab1;
	blk_check("stack of 3, shared blocks", &c, r);
	dac_net_free(&c.net);

	/* Stack with independent blocks, first block 3 -> 8 (an MLF encoder) */
	cfg.strategy = DAC_MLF;
	cfg.shared_blocks = 0;
	memset(&c, 0, sizeof(c));
	dac_net_init(&c.net, &cfg, NULL);
	c.kind = BLK_STACK;
	c.stack = c.net.isab1;
	c.B = 2;
	c.nq = 5;
	c.nX = 2 * 5 * 3;
	c.nout = 2 * 5 * D;
	blk_check("stack of 3, independent blocks, d=3", &c, r);
	dac_net_free(&c.net);
}

/* ---------------------------------------------------------------- networks */

typedef struct
{
	dac_model	m;
	dac_real   *X;
	int		   *labels;
	int		   *anchors;
	int			B,
				n;
} net_ctx;

static double
net_loss(void *ctx)
{
	net_ctx    *c = ctx;
	dac_arena	ar;
	dac_forward fw;
	dac_loss_parts parts;

	dac_arena_init(&ar, 0);
	dac_net_forward(&c->m.net, c->m.P, c->X, c->B, c->n, c->anchors, &ar, &fw, NULL);
	if (c->m.net.cfg.strategy == DAC_MLF)
		dac_mlf_loss(fw.logits, fw.ll, c->labels, c->B, c->n, &parts, NULL, NULL, NULL, NULL);
	else
		dac_af_loss(fw.logits, fw.ll, c->labels, c->anchors, c->B, c->n, &parts, NULL, NULL, NULL);
	dac_arena_free(&ar);
	return parts.loss;
}

static void
net_check(dac_strategy s, dac_density dens, int shared, dac_rng *r)
{
	dac_config	cfg = dac_config_default(s, 2);
	net_ctx		c;
	dac_arena	ar;
	dac_forward fw;
	dac_loss_parts parts;
	dac_real   *G,
			   *dl,
			   *dll;
	int			i,
				bad,
				anchors[2] = {1, 4};
	double		worst;
	char		name[128];

	cfg.density = dens;
	cfg.dim_hidden = 8;
	cfg.num_heads = 2;
	cfg.num_inds = 3;
	cfg.num_blocks = 3;
	cfg.shared_blocks = shared;
	cfg.maf_blocks = 2;
	cfg.maf_hidden = 6;
	cfg.maf_context = 5;
	memset(&c, 0, sizeof(c));
	dac_model_create(&c.m, &cfg, NULL);
	dac_net_init_params(&c.m.net, c.m.P, r);
	c.B = 2;
	c.n = 7;
	c.X = malloc(sizeof(dac_real) * c.B * c.n * 2);
	c.labels = malloc(sizeof(int) * c.B * c.n);
	c.anchors = s == DAC_AF ? anchors : NULL;
	for (i = 0; i < c.B * c.n; i++)
	{
		c.labels[i] = i % 3;
		c.X[2 * i] = (dac_real) (c.labels[i] * 1.5 + 0.3 * (2 * dac_rng_uniform(r) - 1));
		c.X[2 * i + 1] = (dac_real) (0.3 * (2 * dac_rng_uniform(r) - 1));
	}
	G = calloc(c.m.net.nparams, sizeof(dac_real));
	dl = malloc(sizeof(dac_real) * c.B * c.n);
	dll = malloc(sizeof(dac_real) * c.B * c.n);
	dac_arena_init(&ar, 0);
	dac_net_forward(&c.m.net, c.m.P, c.X, c.B, c.n, c.anchors, &ar, &fw, NULL);
	if (s == DAC_MLF)
		dac_mlf_loss(fw.logits, fw.ll, c.labels, c.B, c.n, &parts, dl, dll, NULL, NULL);
	else
		dac_af_loss(fw.logits, fw.ll, c.labels, c.anchors, c.B, c.n, &parts, dl, dll, NULL);
	dac_net_backward(&c.m.net, c.m.P, G, &fw, dl, fw.ll ? dll : NULL, &ar, NULL);
	dac_arena_free(&ar);

	{
		dac_real   *freev = malloc(sizeof(dac_real) * c.m.net.nparams);
		size_t		j,
					masked = 0,
					nonzero = 0;

		for (j = 0; j < c.m.net.nparams; j++)
			freev[j] = 1;
		dac_head_mask_params(&c.m.net.head, freev);
		for (j = 0; j < c.m.net.nparams; j++)
			if (freev[j] == 0)
			{
				masked++;
				nonzero += G[j] != 0 || c.m.P[j] != 0;
			}
		if (dens == DAC_DENSITY_MAF)
			CHECK(masked > 0 && nonzero == 0, "MAF: %zu masked-out weights, zero with a zero gradient (%zu not)",
				  masked, nonzero);
		fd_free = freev;
		bad = fd_compare("param", net_loss, &c, c.m.P, G, c.m.net.nparams, &worst);
		fd_free = NULL;
		free(freev);
	}
	snprintf(name, sizeof(name), "%s network, density %s, %s blocks, through its loss",
			 s == DAC_MLF ? "MLF" : "AF", dac_density_name(dens),
			 shared ? "shared" : "independent");
	CHECK(bad == 0, "fd gradient of %s: %zu params, worst err/tol %.2g", name,
		  c.m.net.nparams, worst);
	free(G);
	free(dl);
	free(dll);
	free(c.X);
	free(c.labels);
	dac_model_free(&c.m);
}

/*
 * The image model, small (2 filters, 4 latent, a width of 8): the gradient
 * of its training loss (batch statistics, fixed noise) in every trained
 * parameter; the buffers (running statistics, permutations) get none.
 */
static void
ns_check(dac_rng *r)
{
	dac_config	cfg = dac_config_default(DAC_MLF, DAC_IMAGE_PIXELS);
	net_ctx		c;
	dac_arena	ar;
	dac_forward fw;
	dac_loss_parts parts;
	dac_real   *G,
			   *dl,
			   *dll,
			   *freev;
	int			i,
				j,
				w,
				t,
				bad,
				buffers_clean = 1;
	double		worst;

	cfg.density = DAC_DENSITY_NS;
	cfg.dim_hidden = 8;
	cfg.num_heads = 2;
	cfg.num_inds = 3;
	cfg.num_blocks = 2;
	cfg.maf_blocks = 2;
	cfg.maf_hidden = 6;
	cfg.maf_context = 5;
	cfg.image_filters = 2;
	cfg.latent = 4;
	memset(&c, 0, sizeof(c));
	if (dac_model_create(&c.m, &cfg, NULL) != DAC_OK)
	{
		CHECK(0, "a small image model");
		return;
	}
	dac_net_init_params(&c.m.net, c.m.P, r);
	/* invertible maps away from the identity, and non-trivial running statistics */
	for (t = 0; t < c.m.net.ntensors; t++)
	{
		const dac_param_info *p = &c.m.net.params[t];

		if (strstr(p->name, ".lower") || strstr(p->name, ".upper") || strstr(p->name, ".log_s"))
			for (j = 0; j < (int) p->count; j++)
				c.m.P[p->offset + j] = (dac_real) (0.3 * (2 * dac_rng_uniform(r) - 1));
	}
	dac_head_mask_params(&c.m.net.head, c.m.P);
	c.B = 2;
	c.n = 5;
	w = dac_config_row_width(&cfg);
	c.X = malloc(sizeof(dac_real) * c.B * c.n * w);
	c.labels = malloc(sizeof(int) * c.B * c.n);
	for (i = 0; i < c.B * c.n; i++)
	{
		c.labels[i] = i % 2;
		for (j = 0; j < DAC_IMAGE_PIXELS; j++)
			c.X[(size_t) i * w + j] = (dac_real) (dac_rng_uniform(r) < (c.labels[i] ? 0.7 : 0.2));
		for (j = DAC_IMAGE_PIXELS; j < w; j++)
			c.X[(size_t) i * w + j] = (dac_real) dac_rng_normal(r);
	}
	G = calloc(c.m.net.nparams, sizeof(dac_real));
	dl = malloc(sizeof(dac_real) * c.B * c.n);
	dll = malloc(sizeof(dac_real) * c.B * c.n);
	dac_arena_init(&ar, 0);
	dac_net_forward(&c.m.net, c.m.P, c.X, c.B, c.n, NULL, &ar, &fw, NULL);
	dac_mlf_loss(fw.logits, fw.ll, c.labels, c.B, c.n, &parts, dl, dll, NULL, NULL);
	dac_net_backward(&c.m.net, c.m.P, G, &fw, dl, dll, &ar, NULL);
	dac_arena_free(&ar);

	freev = malloc(sizeof(dac_real) * c.m.net.nparams);
	for (j = 0; j < (int) c.m.net.nparams; j++)
		freev[j] = 1;
	dac_head_mask_params(&c.m.net.head, freev);
	for (t = 0; t < c.m.net.ntensors; t++)
	{
		const dac_param_info *p = &c.m.net.params[t];

		if (!p->buffer)
			continue;
		for (j = 0; j < (int) p->count; j++)
		{
			freev[p->offset + j] = 0;
			buffers_clean &= G[p->offset + j] == 0;
		}
	}
	CHECK(buffers_clean, "image model: no gradient reaches a buffer");
	fd_free = freev;
	bad = fd_compare("param", net_loss, &c, c.m.P, G, c.m.net.nparams, &worst);
	fd_free = NULL;
	CHECK(bad == 0, "fd gradient of the image model (ns) through its loss: %zu params, worst err/tol %.2g",
		  c.m.net.nparams, worst);
	free(freev);
	free(G);
	free(dl);
	free(dll);
	free(c.X);
	free(c.labels);
	dac_model_free(&c.m);
}

/*
 * A density head alone: loss = Σ_i w_i ll_i over B sets of n points of
 * width d, from H_θ [B, D]; its gradient in every parameter (masked-out
 * weights aside) and in H_θ.
 */
typedef struct
{
	dac_head	h;
	dac_real   *P,
			   *Ht,
			   *X,
			   *w;
	int			B,
				n;
} head_ctx;

static double
head_loss(void *p)
{
	head_ctx   *c = p;
	dac_arena	ar;
	dac_head_cache hc;
	double		s = 0;
	int			i;

	dac_arena_init(&ar, 0);
	dac_head_forward(&c->h, c->P, c->Ht, c->X, NULL, c->B, c->n, 0, &ar, &hc);
	for (i = 0; i < c->B * c->n; i++)
		s += c->w[i] * hc.ll[i];
	dac_arena_free(&ar);
	return s;
}

static void
head_check(dac_density kind, int d, dac_rng *r)
{
	dac_config	cfg = dac_config_default(DAC_MLF, d);
	dac_model	m;
	head_ctx	c;
	dac_arena	ar;
	dac_head_cache hc;
	dac_real   *G,
			   *dHt,
			   *freev;
	size_t		j;
	int			D,
				bad,
				bad_h;
	double		worst,
				worst_h;

	cfg.density = kind;
	cfg.dim_hidden = 6;
	cfg.num_heads = 2;
	cfg.num_inds = 2;
	cfg.num_blocks = 1;
	cfg.maf_blocks = 3;
	cfg.maf_hidden = 7;
	cfg.maf_context = 4;
	if (dac_model_create(&m, &cfg, NULL) != DAC_OK)
	{
		CHECK(0, "head model");
		return;
	}
	dac_net_init_params(&m.net, m.P, r);
	D = cfg.dim_hidden;
	c.h = m.net.head;
	c.P = m.P;
	c.B = 2;
	c.n = 5;
	c.Ht = malloc(sizeof(dac_real) * c.B * D);
	c.X = malloc(sizeof(dac_real) * c.B * c.n * d);
	c.w = malloc(sizeof(dac_real) * c.B * c.n);
	fill_random(c.Ht, (size_t) c.B * D, r, 1.0);
	fill_random(c.X, (size_t) c.B * c.n * d, r, 1.5);
	fill_random(c.w, (size_t) c.B * c.n, r, 1.0);
	G = calloc(m.net.nparams, sizeof(dac_real));
	dHt = calloc((size_t) c.B * D, sizeof(dac_real));
	freev = malloc(sizeof(dac_real) * m.net.nparams);
	for (j = 0; j < m.net.nparams; j++)
		freev[j] = 1;
	dac_head_mask_params(&m.net.head, freev);
	dac_arena_init(&ar, 0);
	dac_head_forward(&c.h, c.P, c.Ht, c.X, NULL, c.B, c.n, 0, &ar, &hc);
	dac_head_backward(&c.h, c.P, G, &hc, c.w, dHt, NULL, &ar);
	dac_arena_free(&ar);
	fd_free = freev;
	bad = fd_compare("head param", head_loss, &c, m.P, G, m.net.nparams, &worst);
	fd_free = NULL;
	bad_h = fd_compare("head H_theta", head_loss, &c, c.Ht, dHt, (size_t) c.B * D, &worst_h);
	CHECK(bad == 0 && bad_h == 0, "fd gradient of the %s head at d = %d: worst err/tol %.2g (params), %.2g (H_θ)",
		  dac_density_name(kind), d, worst, worst_h);
	free(c.Ht);
	free(c.X);
	free(c.w);
	free(G);
	free(dHt);
	free(freev);
	dac_model_free(&m);
}

/* The loss gradients themselves, against differences of the loss in the logits and ll. */
static void
loss_checks(dac_rng *r)
{
	int			B = 3,
				n = 9,
				i,
				strat;
	dac_real	logits[27],
				ll[27],
				dl[27],
				dll[27];
	int			labels[27],
				anchors[3] = {0, 4, 8};

	for (i = 0; i < B * n; i++)
	{
		logits[i] = (dac_real) (4 * (2 * dac_rng_uniform(r) - 1));
		ll[i] = (dac_real) (-3 * dac_rng_uniform(r));
		labels[i] = (i * 7) % 4;
	}
	for (strat = 0; strat < 2; strat++)
	{
		dac_loss_parts p0,
					p1,
					p2;
		int			bad = 0;
		double		h = 1e-6;

		if (strat == 0)
			dac_mlf_loss(logits, ll, labels, B, n, &p0, dl, dll, NULL, NULL);
		else
			dac_af_loss(logits, ll, labels, anchors, B, n, &p0, dl, dll, NULL);
		CHECK(fabs(p0.loss - (p0.bce - p0.ll)) < 1e-12, "%s loss = bce - ll", strat ? "AF" : "MLF");
		for (i = 0; i < B * n; i++)
		{
			int			which;

			for (which = 0; which < 2; which++)
			{
				dac_real   *v = which ? &ll[i] : &logits[i];
				dac_real	save = *v;
				double		fd,
							an = which ? dll[i] : dl[i];

				*v = save + h;
				if (strat == 0)
					dac_mlf_loss(logits, ll, labels, B, n, &p1, NULL, NULL, NULL, NULL);
				else
					dac_af_loss(logits, ll, labels, anchors, B, n, &p1, NULL, NULL, NULL);
				*v = save - h;
				if (strat == 0)
					dac_mlf_loss(logits, ll, labels, B, n, &p2, NULL, NULL, NULL, NULL);
				else
					dac_af_loss(logits, ll, labels, anchors, B, n, &p2, NULL, NULL, NULL);
				*v = save;
				fd = (p1.loss - p2.loss) / (2 * h);
				if (fabs(fd - an) > 1e-8 + 1e-6 * fabs(fd))
					bad++;
			}
		}
		CHECK(bad == 0, "fd gradient of the %s loss in logits and ll (%d entries off)",
			  strat ? "AF" : "MLF", bad);
	}
	/* a diverged network: NaN logits are refused by name, not as a set without points */
	{
		dac_loss_parts p;
		dac_error	err;

		for (i = n; i < 2 * n; i++)
			logits[i] = (dac_real) NAN;
		CHECK(dac_mlf_loss(logits, ll, labels, B, n, &p, NULL, NULL, NULL, &err) == DAC_ERR_INVALID &&
			  strstr(err.msg, "the loss of set 1 is not finite: training diverged") != NULL,
			  "NaN logits: the loss is not finite (%s)", err.msg);
	}
}

void
test_grad(void)
{
	dac_rng		r;

	dac_rng_seed(&r, 12345);
	blocks_tests(&r);
	net_check(DAC_MLF, DAC_DENSITY_GAUSSIAN, 1, &r);
	net_check(DAC_MLF, DAC_DENSITY_GAUSSIAN, 0, &r);
	net_check(DAC_MLF, DAC_DENSITY_NONE, 1, &r);
	net_check(DAC_AF, DAC_DENSITY_GAUSSIAN, 1, &r);
	net_check(DAC_AF, DAC_DENSITY_NONE, 0, &r);
	net_check(DAC_MLF, DAC_DENSITY_MAF, 1, &r);
	net_check(DAC_AF, DAC_DENSITY_MAF, 0, &r);
	ns_check(&r);
	head_check(DAC_DENSITY_GAUSSIAN, 3, &r);
	head_check(DAC_DENSITY_MAF, 2, &r);
	head_check(DAC_DENSITY_MAF, 3, &r);
	head_check(DAC_DENSITY_MAF, 5, &r);
	loss_checks(&r);
}

#else							/* float32 build */

void
test_grad(void)
{
	printf("# grad: finite-difference checks run in the float64 test binary (test_core64)\n");
}

#endif
