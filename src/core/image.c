/*
 * image.c
 *	  The neural statistician's parts: image encoder, posterior, prior,
 *	  decoder and Bernoulli likelihood (see image.h), forward and backward.
 */
#include "image.h"
#include "linalg.h"
#include "loss.h"

#include <math.h>
#include <string.h>

#ifdef DAC_DOUBLE
#define RLOG log
#define REXP exp
#define RLOG1P log1p
#else
#define RLOG logf
#define REXP expf
#define RLOG1P log1pf
#endif

/* images of a chunk when a pass keeps nothing */
#define NS_CHUNK 64

/* ---------------------------------------------------------------- small pieces */

static void
relu(const dac_real *x, size_t count, dac_real *y)
{
	size_t		i;

	for (i = 0; i < count; i++)
		y[i] = x[i] > 0 ? x[i] : 0;
}

/* y = ReLU(BatchNorm(x)) over rows, with the batch's statistics (train) or the running ones */
static void
bn_relu(const dac_bn *bn, const dac_real *P, const dac_real *x, size_t rows, int train,
		dac_real *y, double *mean, double *var)
{
	if (train)
		dac_bn_forward_batch(bn, P, x, rows, y, mean, var);
	else
		dac_bn_forward_running(bn, P, x, rows, y);
	relu(y, rows * bn->C, y);
}

/* dy where the ReLU's output r was positive, 0 elsewhere, in place */
static void
relu_backward(const dac_real *r, size_t count, dac_real *dy)
{
	size_t		i;

	for (i = 0; i < count; i++)
		if (!(r[i] > 0))
			dy[i] = 0;
}

/* [m, C·S] channel-major <-> [m·S, C] channel-last */
static void
to_channel_last(const dac_real *x, int m, int C, int S, dac_real *y)
{
	int			i,
				c,
				p;

	for (i = 0; i < m; i++)
		for (c = 0; c < C; c++)
			for (p = 0; p < S; p++)
				y[((size_t) i * S + p) * C + c] = x[(size_t) i * C * S + (size_t) c * S + p];
}

static void
to_channel_major(const dac_real *x, int m, int C, int S, dac_real *y)
{
	int			i,
				c,
				p;

	for (i = 0; i < m; i++)
		for (c = 0; c < C; c++)
			for (p = 0; p < S; p++)
				y[(size_t) i * C * S + (size_t) c * S + p] = x[((size_t) i * S + p) * C + c];
}

/*
 * A linear layer on [a, θ]: Y [rows, out] = A W[:, :na]ᵀ + ctx[set], with
 * ctx [B, out] = θ W[:, na:]ᵀ + b computed once per set (cat_context).
 */
static void
cat_context(const dac_linear *l, const dac_real *P, int na, const dac_real *theta, int B,
			dac_real *ctx)
{
	int			b,
				nc = l->in - na;

	for (b = 0; b < B; b++)
		memcpy(ctx + (size_t) b * l->out, P + l->b, sizeof(dac_real) * l->out);
	dac_gemm(0, 1, B, l->out, nc, 1, theta, nc, P + l->w + na, l->in, 1, ctx, l->out);
}

static void
cat_forward(const dac_linear *l, const dac_real *P, int na, const dac_real *A, int lda,
			const dac_real *ctx, int rows, size_t row0, int n, dac_real *Y)
{
	int			r;

	for (r = 0; r < rows; r++)
		memcpy(Y + (size_t) r * l->out, ctx + ((row0 + r) / n) * l->out, sizeof(dac_real) * l->out);
	dac_gemm(0, 1, rows, l->out, na, 1, A, lda, P + l->w, l->in, 1, Y, l->out);
}

/* G, dA (may be NULL), dtheta [B, in − na] += from dY [B·n, out] */
static dac_status
cat_backward(const dac_linear *l, const dac_real *P, dac_real *G, int na, const dac_real *A,
			 const dac_real *theta, const dac_real *dY, int B, int n, dac_real *dA,
			 dac_real *dtheta, dac_arena *ar)
{
	int			rows = B * n,
				nc = l->in - na,
				b,
				r,
				j;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *ds = dac_arena_reals(ar, (size_t) B * l->out);

	if (ds == NULL)
		return DAC_ERR_NOMEM;
	dac_gemm(1, 0, l->out, na, rows, 1, dY, l->out, A, na, 1, G + l->w, l->in);
	if (dA)
		dac_gemm(0, 0, rows, na, l->out, 1, dY, l->out, P + l->w, l->in, 1, dA, na);
	for (b = 0; b < B; b++)
		for (r = 0; r < n; r++)
			for (j = 0; j < l->out; j++)
				ds[(size_t) b * l->out + j] += dY[((size_t) b * n + r) * l->out + j];
	for (b = 0; b < B; b++)
		for (j = 0; j < l->out; j++)
			G[l->b + j] += ds[(size_t) b * l->out + j];
	dac_gemm(1, 0, l->out, nc, B, 1, ds, l->out, theta, nc, 1, G + l->w + na, l->in);
	dac_gemm(0, 0, B, nc, l->out, 1, ds, l->out, P + l->w + na, l->in, 1, dtheta, nc);
	dac_arena_reset_to(ar, mark);
	return DAC_OK;
}

/* −BCE with logits (loss.h), summed: Σ (x l − softplus(l)) in its stable form */
static double
bernoulli_ll(const dac_real *l, const dac_real *x, int count)
{
	double		s = 0;
	int			i;

	for (i = 0; i < count; i++)
		s -= dac_bce_logits(l[i], x[i]);
	return s;
}

/* ---------------------------------------------------------------- encoder */

/*
 * One encoder pass over m images (pixels at X, rows stride apart) into h
 * [m, feat]; bufs: the cache's buffers (train) or scratch (eval).
 */
static dac_status
encode_rows(const dac_ns *ns, const dac_real *P, const dac_real *X, int stride, int m, int train,
			dac_ns_enc_cache *c, dac_arena *ar, dac_real *h)
{
	const dac_conv *e = ns->enc;
	size_t		s0 = (size_t) m * e[0].hout * e[0].wout,
				s1 = (size_t) m * e[1].hout * e[1].wout;
	int			i;
	dac_status	st;

	for (i = 0; i < m; i++)
		memcpy(c->x0 + (size_t) i * ns->pix, X + (size_t) i * stride, sizeof(dac_real) * ns->pix);
	if ((st = dac_conv_forward(&e[0], P, c->x0, m, c->c0, ar)) != DAC_OK)
		return st;
	bn_relu(&ns->ebn[0], P, c->c0, s0, train, c->r0, c->mean[0], c->var[0]);
	if ((st = dac_conv_forward(&e[1], P, c->r0, m, c->c1, ar)) != DAC_OK)
		return st;
	bn_relu(&ns->ebn[1], P, c->c1, s1, train, c->r1, c->mean[1], c->var[1]);
	if ((st = dac_conv_forward(&e[2], P, c->r1, m, c->c2, ar)) != DAC_OK)
		return st;
	to_channel_major(c->c2, m, e[2].cout, e[2].hout * e[2].wout, h);
	return DAC_OK;
}

/* the encoder's buffers for m images */
static int
encode_buffers(const dac_ns *ns, int m, dac_arena *ar, dac_ns_enc_cache *c)
{
	const dac_conv *e = ns->enc;
	size_t		s0 = (size_t) m * e[0].hout * e[0].wout * e[0].cout,
				s1 = (size_t) m * e[1].hout * e[1].wout * e[1].cout,
				s2 = (size_t) m * e[2].hout * e[2].wout * e[2].cout;

	c->x0 = dac_arena_reals_raw(ar, (size_t) m * ns->pix);
	c->c0 = dac_arena_reals_raw(ar, s0);
	c->r0 = dac_arena_reals_raw(ar, s0);
	c->c1 = dac_arena_reals_raw(ar, s1);
	c->r1 = dac_arena_reals_raw(ar, s1);
	c->c2 = dac_arena_reals_raw(ar, s2);
	return c->x0 && c->c0 && c->r0 && c->c1 && c->r1 && c->c2;
}

dac_status
dac_ns_encode(const dac_ns *ns, const dac_real *P, const dac_real *X, int stride, int rows,
			  int train, dac_arena *ar, dac_ns_enc_cache *c)
{
	int			i0;

	memset(c, 0, sizeof(*c));
	c->rows = rows;
	c->train = train;
	if ((c->h = dac_arena_reals_raw(ar, (size_t) rows * ns->feat)) == NULL)
		return DAC_ERR_NOMEM;
	if (train)
	{
		for (i0 = 0; i0 < 2; i0++)
		{
			c->mean[i0] = dac_arena_alloc(ar, sizeof(double) * ns->ebn[i0].C);
			c->var[i0] = dac_arena_alloc(ar, sizeof(double) * ns->ebn[i0].C);
			if (!c->mean[i0] || !c->var[i0])
				return DAC_ERR_NOMEM;
		}
		if (!encode_buffers(ns, rows, ar, c))
			return DAC_ERR_NOMEM;
		return encode_rows(ns, P, X, stride, rows, 1, c, ar, c->h);
	}
	return dac_ns_features(ns, P, X, stride, rows, ar, c->h);
}

dac_status
dac_ns_features(const dac_ns *ns, const dac_real *P, const dac_real *X, int stride, int rows,
				dac_arena *ar, dac_real *h)
{
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_ns_enc_cache s;
	dac_status	st = DAC_OK;
	int			m = rows < NS_CHUNK ? rows : NS_CHUNK,
				i0;

	/* a chunk of images at a time, running statistics, only the features kept */
	memset(&s, 0, sizeof(s));
	if (!encode_buffers(ns, m, ar, &s))
		st = DAC_ERR_NOMEM;
	for (i0 = 0; i0 < rows && st == DAC_OK; i0 += m)
	{
		int			k = rows - i0 < m ? rows - i0 : m;

		if (dac_interrupted())
			st = DAC_ERR_INTERRUPTED;
		else
			st = encode_rows(ns, P, X + (size_t) i0 * stride, stride, k, 0, &s, ar,
							 h + (size_t) i0 * ns->feat);
	}
	dac_arena_reset_to(ar, mark);
	return st;
}

dac_status
dac_ns_encode_backward(const dac_ns *ns, const dac_real *P, dac_real *G, const dac_ns_enc_cache *c,
					   const dac_real *dh, dac_arena *ar)
{
	const dac_conv *e = ns->enc;
	int			m = c->rows;
	size_t		s0 = (size_t) m * e[0].hout * e[0].wout,
				s1 = (size_t) m * e[1].hout * e[1].wout,
				s2 = (size_t) m * e[2].hout * e[2].wout;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *d2 = dac_arena_reals_raw(ar, s2 * e[2].cout),
			   *d1 = dac_arena_reals(ar, s1 * e[1].cout),
			   *t1 = dac_arena_reals_raw(ar, s1 * e[1].cout),
			   *d0 = dac_arena_reals(ar, s0 * e[0].cout),
			   *t0 = dac_arena_reals_raw(ar, s0 * e[0].cout);
	dac_status	st;

	if (!d2 || !d1 || !t1 || !d0 || !t0)
	{
		dac_arena_reset_to(ar, mark);
		return DAC_ERR_NOMEM;
	}
	to_channel_last(dh, m, e[2].cout, e[2].hout * e[2].wout, d2);
	if ((st = dac_conv_backward(&e[2], P, G, c->r1, d2, m, d1, ar)) != DAC_OK)
		goto out;
	relu_backward(c->r1, s1 * e[1].cout, d1);
	dac_bn_backward(&ns->ebn[1], P, G, c->c1, c->mean[1], c->var[1], d1, s1, t1);
	if ((st = dac_conv_backward(&e[1], P, G, c->r0, t1, m, d0, ar)) != DAC_OK)
		goto out;
	relu_backward(c->r0, s0 * e[0].cout, d0);
	dac_bn_backward(&ns->ebn[0], P, G, c->c0, c->mean[0], c->var[0], d0, s0, t0);
	st = dac_conv_backward(&e[0], P, G, c->x0, t0, m, NULL, ar);
out:
	dac_arena_reset_to(ar, mark);
	return st;
}

/* ---------------------------------------------------------------- density */

/* The decoder's buffers for m images. */
static int
decode_buffers(const dac_ns *ns, int m, dac_arena *ar, dac_ns_cache *c)
{
	const dac_conv *d = ns->dec;
	size_t		s3 = (size_t) m * d[0].hout * d[0].wout * d[0].cout,
				s6 = (size_t) m * d[1].hout * d[1].wout * d[1].cout;

	c->d0 = dac_arena_reals_raw(ar, (size_t) m * ns->feat);
	c->d0r = dac_arena_reals_raw(ar, (size_t) m * ns->feat);
	c->c3 = dac_arena_reals_raw(ar, s3);
	c->r3 = dac_arena_reals_raw(ar, s3);
	c->c6 = dac_arena_reals_raw(ar, s6);
	c->r6 = dac_arena_reals_raw(ar, s6);
	c->logit = dac_arena_reals_raw(ar, (size_t) m * ns->pix);
	return c->d0 && c->d0r && c->c3 && c->r3 && c->c6 && c->r6 && c->logit;
}

/*
 * Rows row0 .. row0 + m − 1 of the pass (m images X [m, pix + L] with
 * features feat [m, feat]): the posterior, z, log q, the prior's log p,
 * the decoder and ll.  bufs holds this chunk's buffers (the cache's own in
 * training, at offset row0); pctx, dctx the per-set context terms.
 */
static dac_status
density_rows(const dac_ns *ns, const dac_real *P, const dac_real *X, const dac_real *feat, int m,
			 size_t row0, int n, int train, const dac_real *pctx, const dac_real *dctx,
			 dac_ns_cache *b, dac_flow_cache *fc, dac_arena *ar, dac_real *ll)
{
	const dac_conv *d = ns->dec;
	int			L = ns->L,
				stride = ns->pix + L,
				i,
				j;
	size_t		s3 = (size_t) m * d[0].hout * d[0].wout,
				s6 = (size_t) m * d[1].hout * d[1].wout;
	dac_real	half_log_2pi = (dac_real) (0.5 * log(2.0 * M_PI));
	dac_status	st;

	cat_forward(&ns->post, P, ns->feat, feat, ns->feat, pctx, m, row0, n, b->raw);
	for (i = 0; i < m; i++)
	{
		const dac_real *raw = b->raw + (size_t) i * 2 * L;
		const dac_real *eps = X + (size_t) i * stride + ns->pix;
		dac_real   *z = b->z + (size_t) i * L;
		dac_real	q = 0;

		for (j = 0; j < L; j++)
		{
			dac_real	sg = dac_softplus(raw[L + j]) + (dac_real) 1e-5;

			z[j] = raw[j] + sg * eps[j];
			q += -(dac_real) 0.5 * eps[j] * eps[j] - half_log_2pi - RLOG(sg);
		}
		b->logq[i] = q;
	}
	if (train)
		st = dac_flow_forward(&ns->prior, P, fc->context, b->z, fc->B, n, 0, ar, fc, b->logp, NULL);
	else
		st = dac_flow_rows(&ns->prior, P, fc, b->z, (size_t) m, row0, ar, b->logp, NULL);
	if (st != DAC_OK)
		return st;

	cat_forward(&ns->dec0, P, L, b->z, L, dctx, m, row0, n, b->d0);
	relu(b->d0, (size_t) m * ns->feat, b->d0r);
	{
		/* d0r holds the ReLU channel-major; lay it out channel-last in c3's place first */
		dac_real   *tmp = b->c3;

		memcpy(tmp, b->d0r, sizeof(dac_real) * m * ns->feat);
		to_channel_last(tmp, m, d[0].cin, d[0].hin * d[0].win, b->d0r);
	}
	if ((st = dac_conv_forward(&d[0], P, b->d0r, m, b->c3, ar)) != DAC_OK)
		return st;
	bn_relu(&ns->dbn[0], P, b->c3, s3, train, b->r3, b->mean[0], b->var[0]);
	if ((st = dac_conv_forward(&d[1], P, b->r3, m, b->c6, ar)) != DAC_OK)
		return st;
	bn_relu(&ns->dbn[1], P, b->c6, s6, train, b->r6, b->mean[1], b->var[1]);
	if ((st = dac_conv_forward(&d[2], P, b->r6, m, b->logit, ar)) != DAC_OK)
		return st;
	for (i = 0; i < m; i++)
	{
		b->log_px[i] = (dac_real) bernoulli_ll(b->logit + (size_t) i * ns->pix, X + (size_t) i * stride,
											   ns->pix);
		ll[i] = (b->log_px[i] - (b->logq[i] - b->logp[i])) / (dac_real) ns->pix;
	}
	return DAC_OK;
}

static int
alloc_rows(dac_ns_cache *c, size_t m, int L, dac_arena *ar)
{
	c->raw = dac_arena_reals_raw(ar, m * 2 * L);
	c->z = dac_arena_reals_raw(ar, m * L);
	c->logq = dac_arena_reals_raw(ar, m);
	c->logp = dac_arena_reals_raw(ar, m);
	c->log_px = dac_arena_reals_raw(ar, m);
	return c->raw && c->z && c->logq && c->logp && c->log_px;
}

dac_status
dac_ns_forward(const dac_ns *ns, const dac_real *P, const dac_real *theta, const dac_real *X,
			   const dac_real *feat, int B, int n, int train, dac_arena *ar, dac_ns_cache *c,
			   dac_real *ll)
{
	size_t		rows = (size_t) B * n;
	dac_real   *pctx,
			   *dctx;
	dac_status	st;
	int			k;

	memset(c, 0, sizeof(*c));
	c->B = B;
	c->n = n;
	c->train = train;
	c->X = X;
	c->feat = feat;
	c->theta = theta;
	pctx = dac_arena_reals_raw(ar, (size_t) B * ns->post.out);
	dctx = dac_arena_reals_raw(ar, (size_t) B * ns->dec0.out);
	if (!pctx || !dctx)
		return DAC_ERR_NOMEM;
	cat_context(&ns->post, P, ns->feat, theta, B, pctx);
	cat_context(&ns->dec0, P, ns->L, theta, B, dctx);
	if (train)
	{
		if (feat == NULL)
			return DAC_ERR_INVALID;
		for (k = 0; k < 2; k++)
		{
			c->mean[k] = dac_arena_alloc(ar, sizeof(double) * ns->dbn[k].C);
			c->var[k] = dac_arena_alloc(ar, sizeof(double) * ns->dbn[k].C);
			if (!c->mean[k] || !c->var[k])
				return DAC_ERR_NOMEM;
		}
		if (!alloc_rows(c, rows, ns->L, ar) || !decode_buffers(ns, (int) rows, ar, c))
			return DAC_ERR_NOMEM;
		c->prior.context = theta;
		c->prior.B = B;
		return density_rows(ns, P, X, feat, (int) rows, 0, n, 1, pctx, dctx, c, &c->prior, ar, ll);
	}
	/* inference: chunks of images, nothing kept but ll */
	if ((st = dac_flow_prepare(&ns->prior, P, theta, B, n, ar, &c->prior)) != DAC_OK)
		return st;
	{
		dac_arena_mark mark = dac_arena_get_mark(ar);
		int			m = rows < NS_CHUNK ? (int) rows : NS_CHUNK;
		dac_ns_cache s = *c;
		dac_ns_enc_cache e;
		size_t		r0;

		memset(&e, 0, sizeof(e));
		if (!alloc_rows(&s, (size_t) m, ns->L, ar) || !decode_buffers(ns, m, ar, &s) ||
			(feat == NULL && (!encode_buffers(ns, m, ar, &e) ||
							  (e.h = dac_arena_reals_raw(ar, (size_t) m * ns->feat)) == NULL)))
			st = DAC_ERR_NOMEM;
		for (r0 = 0; r0 < rows && st == DAC_OK; r0 += m)
		{
			int			k2 = rows - r0 < (size_t) m ? (int) (rows - r0) : m;
			const dac_real *Xc = X + r0 * (ns->pix + ns->L);
			const dac_real *fc = feat ? feat + r0 * ns->feat : e.h;

			if (dac_interrupted())
			{
				st = DAC_ERR_INTERRUPTED;
				break;
			}
			if (feat == NULL &&
				(st = encode_rows(ns, P, Xc, ns->pix + ns->L, k2, 0, &e, ar, e.h)) != DAC_OK)
				break;
			st = density_rows(ns, P, Xc, fc, k2, r0, n, 0, pctx, dctx, &s, &c->prior, ar, ll + r0);
		}
		dac_arena_reset_to(ar, mark);
	}
	return st;
}

dac_status
dac_ns_ll_thetas(const dac_ns *ns, const dac_real *P, const dac_real *theta, int K,
				 const dac_real *X, int n, dac_arena *ar, dac_real *ll)
{
	dac_arena_mark mark = dac_arena_get_mark(ar);
	int			w = ns->pix + ns->L,
				m = n < NS_CHUNK ? n : NS_CHUNK,
				r0,
				k;
	dac_real   *pctx = dac_arena_reals_raw(ar, (size_t) K * ns->post.out),
			   *dctx = dac_arena_reals_raw(ar, (size_t) K * ns->dec0.out),
			   *llc = dac_arena_reals_raw(ar, (size_t) m);
	dac_flow_cache fc;
	dac_ns_cache s;
	dac_ns_enc_cache e;
	dac_status	st = DAC_OK;

	memset(&s, 0, sizeof(s));
	memset(&e, 0, sizeof(e));
	if (!pctx || !dctx || !llc || !alloc_rows(&s, (size_t) m, ns->L, ar) || !decode_buffers(ns, m, ar, &s) ||
		!encode_buffers(ns, m, ar, &e) || (e.h = dac_arena_reals_raw(ar, (size_t) m * ns->feat)) == NULL)
		st = DAC_ERR_NOMEM;
	/* each cluster's context as a "set" of m rows: row k·m + r takes context k */
	if (st == DAC_OK)
	{
		cat_context(&ns->post, P, ns->feat, theta, K, pctx);
		cat_context(&ns->dec0, P, ns->L, theta, K, dctx);
		st = dac_flow_prepare(&ns->prior, P, theta, K, m, ar, &fc);
	}
	for (r0 = 0; r0 < n && st == DAC_OK; r0 += m)
	{
		int			mc = n - r0 < m ? n - r0 : m,
					i;
		const dac_real *Xc = X + (size_t) r0 * w;

		if ((st = encode_rows(ns, P, Xc, w, mc, 0, &e, ar, e.h)) != DAC_OK)
			break;
		for (k = 0; k < K && st == DAC_OK; k++)
		{
			if (dac_interrupted())
				st = DAC_ERR_INTERRUPTED;
			else
				st = density_rows(ns, P, Xc, e.h, mc, (size_t) k * m, m, 0, pctx, dctx, &s, &fc, ar, llc);
			for (i = 0; i < mc && st == DAC_OK; i++)
				ll[(size_t) k * n + r0 + i] = llc[i];
		}
	}
	dac_arena_reset_to(ar, mark);
	return st;
}

dac_status
dac_ns_backward(const dac_ns *ns, const dac_real *P, dac_real *G, const dac_ns_cache *c,
				const dac_real *dll, dac_real *dfeat, dac_real *dtheta, dac_arena *ar)
{
	const dac_conv *d = ns->dec;
	int			B = c->B,
				n = c->n,
				L = ns->L,
				stride = ns->pix + L,
				i,
				j;
	size_t		rows = (size_t) B * n,
				s3 = rows * d[0].hout * d[0].wout,
				s6 = rows * d[1].hout * d[1].wout;
	dac_real	inv_pix = (dac_real) (1.0 / ns->pix);
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *dl = dac_arena_reals_raw(ar, rows * ns->pix),
			   *d6 = dac_arena_reals(ar, s6 * d[1].cout),
			   *t6 = dac_arena_reals_raw(ar, s6 * d[1].cout),
			   *d3 = dac_arena_reals(ar, s3 * d[0].cout),
			   *t3 = dac_arena_reals_raw(ar, s3 * d[0].cout),
			   *dd0 = dac_arena_reals(ar, rows * ns->feat),
			   *dd0m = dac_arena_reals_raw(ar, rows * ns->feat),
			   *dz = dac_arena_reals(ar, rows * L),
			   *dlogp = dac_arena_reals_raw(ar, rows),
			   *draw = dac_arena_reals_raw(ar, rows * 2 * L);
	dac_status	st;

	if (!c->train)
		return DAC_ERR_INVALID;
	if (!dl || !d6 || !t6 || !d3 || !t3 || !dd0 || !dd0m || !dz || !dlogp || !draw)
	{
		dac_arena_reset_to(ar, mark);
		return DAC_ERR_NOMEM;
	}
	/* ll = (log p(x|z) − log q + log p) / pix */
	for (i = 0; i < (int) rows; i++)
	{
		const dac_real *x = c->X + (size_t) i * stride;
		const dac_real *l = c->logit + (size_t) i * ns->pix;
		dac_real	g = dll[i] * inv_pix;

		for (j = 0; j < ns->pix; j++)
			dl[(size_t) i * ns->pix + j] = g * (x[j] - 1 / (1 + REXP(-l[j])));
		dlogp[i] = g;
	}
	if ((st = dac_conv_backward(&d[2], P, G, c->r6, dl, (int) rows, d6, ar)) != DAC_OK)
		goto out;
	relu_backward(c->r6, s6 * d[1].cout, d6);
	dac_bn_backward(&ns->dbn[1], P, G, c->c6, c->mean[1], c->var[1], d6, s6, t6);
	if ((st = dac_conv_backward(&d[1], P, G, c->r3, t6, (int) rows, d3, ar)) != DAC_OK)
		goto out;
	relu_backward(c->r3, s3 * d[0].cout, d3);
	dac_bn_backward(&ns->dbn[0], P, G, c->c3, c->mean[0], c->var[0], d3, s3, t3);
	if ((st = dac_conv_backward(&d[0], P, G, c->d0r, t3, (int) rows, dd0, ar)) != DAC_OK)
		goto out;
	to_channel_major(dd0, (int) rows, d[0].cin, d[0].hin * d[0].win, dd0m);
	relu_backward(c->d0, rows * ns->feat, dd0m);
	if ((st = cat_backward(&ns->dec0, P, G, L, c->z, c->theta, dd0m, B, n, dz, dtheta, ar)) != DAC_OK)
		goto out;
	/* the prior: log p(z | θ) */
	if ((st = dac_flow_backward(&ns->prior, P, G, &c->prior, dlogp, dz, dtheta, ar)) != DAC_OK)
		goto out;
	/* z = μ + σ ε and −log q / pix: dσ gets dz ε and g / σ */
	for (i = 0; i < (int) rows; i++)
	{
		const dac_real *raw = c->raw + (size_t) i * 2 * L;
		const dac_real *eps = c->X + (size_t) i * stride + ns->pix;
		dac_real	g = dll[i] * inv_pix;

		for (j = 0; j < L; j++)
		{
			dac_real	sg = dac_softplus(raw[L + j]) + (dac_real) 1e-5;
			dac_real	gz = dz[(size_t) i * L + j];

			draw[(size_t) i * 2 * L + j] = gz;
			draw[(size_t) i * 2 * L + L + j] = (gz * eps[j] + g / sg) * dac_softplus_grad(raw[L + j]);
		}
	}
	st = cat_backward(&ns->post, P, G, ns->feat, c->feat, c->theta, draw, B, n, dfeat, dtheta, ar);
out:
	dac_arena_reset_to(ar, mark);
	return st;
}

void
dac_ns_update_running(const dac_ns *ns, dac_real *P, const dac_ns_enc_cache *e,
					  const dac_ns_cache *c)
{
	int			k;

	for (k = 0; k < 2; k++)
	{
		const dac_conv *ec = &ns->enc[k];
		const dac_conv *dc = &ns->dec[k];

		if (e && e->train)
			dac_bn_update_running(&ns->ebn[k], P, e->mean[k], e->var[k],
								  (size_t) e->rows * ec->hout * ec->wout);
		if (c && c->train)
			dac_bn_update_running(&ns->dbn[k], P, c->mean[k], c->var[k],
								  (size_t) c->B * c->n * dc->hout * dc->wout);
	}
}

dac_status
dac_ns_check_pixels(const dac_real *X, size_t count, dac_error *err)
{
	size_t		i;

	for (i = 0; i < count; i++)
	{
		if ((i & 0xFFFFF) == 0xFFFFF && dac_interrupted())
			return dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the check of the pixels");
		if (!(X[i] >= 0 && X[i] <= 1))
			return dac_fail_hint(err, DAC_ERR_INVALID,
								 "Divide 8-bit grey levels by 255: the image model reads each pixel as the probability of ink.",
								 "pixel values must lie between 0 and 1, not %g", (double) X[i]);
	}
	return DAC_OK;
}

dac_status
dac_ns_rows(const dac_ns *ns, const dac_real *X, int n, uint64_t seed, dac_real *Z)
{
	int			w = ns->pix + ns->L,
				i,
				j;
	dac_rng		rng;
	dac_rng    *r = &rng;

	/* the clustering's seed salted ("noise"), so the draws differ from its other uses */
	dac_rng_seed(r, seed ^ UINT64_C(0x6e6f697365));
	for (i = 0; i < n; i++)
	{
		if ((i & 4095) == 4095 && dac_interrupted())
			return DAC_ERR_INTERRUPTED;
		memcpy(Z + (size_t) i * w, X + (size_t) i * ns->pix, sizeof(dac_real) * ns->pix);
		for (j = 0; j < ns->L; j++)
			Z[(size_t) i * w + ns->pix + j] = (dac_real) dac_rng_normal(r);
	}
	return DAC_OK;
}

double
dac_ns_encode_flops(const dac_ns *ns, int m)
{
	return dac_conv_flops(&ns->enc[0], m) + dac_conv_flops(&ns->enc[1], m) +
		dac_conv_flops(&ns->enc[2], m);
}

double
dac_ns_flops(const dac_ns *ns, int B, int n)
{
	double		rows = (double) B * n;

	return 2.0 * rows * ns->feat * ns->post.out + 2.0 * rows * ns->L * ns->dec0.out +
		dac_flow_flops(&ns->prior, B, n) + dac_conv_flops(&ns->dec[0], (int) rows) +
		dac_conv_flops(&ns->dec[1], (int) rows) + dac_conv_flops(&ns->dec[2], (int) rows);
}

double
dac_ns_infer_bytes(const dac_ns *ns, int B, int n, double *scratch)
{
	double		m = fmin((double) B * n, NS_CHUNK),
				flow_scratch,
				kept = dac_flow_infer_bytes(&ns->prior, B, n, &flow_scratch),
				e0 = ns->enc[0].hout * ns->enc[0].wout * ns->enc[0].cout,
				e1 = ns->enc[1].hout * ns->enc[1].wout * ns->enc[1].cout,
				e2 = ns->enc[2].hout * ns->enc[2].wout * ns->enc[2].cout,
				d3 = ns->dec[0].hout * ns->dec[0].wout * ns->dec[0].cout,
				d6 = ns->dec[1].hout * ns->dec[1].wout * ns->dec[1].cout,
				per_image = 3.0 * ns->L + 3 + 2.0 * ns->feat + 2 * d3 + 2 * d6 + ns->pix +
		ns->pix + 2 * e0 + 2 * e1 + e2 + ns->feat,
				cols = 2.0 * (double) ((size_t) 1 << 22);

	kept += (double) B * (ns->post.out + ns->dec0.out) * sizeof(dac_real) + 2 * 64;
	*scratch = m * per_image * sizeof(dac_real) + fmax(cols * sizeof(dac_real), flow_scratch) + 24 * 64;
	return kept;
}
