/*
 * test_parity.c
 *	  Every tensor of test/data/reference, produced by the authors'
 *	  PyTorch code in float64, reproduced by the core: forward outputs (θ, ll,
 *	  logits) of MLF and AF, the masked call as a call on the active rows, the
 *	  losses and their parts, and the gradient of every parameter.
 *
 *	  Bounds are the fixture README's suggestions for float32 (about 10x the
 *	  float32-vs-float64 errors it measured), relative to the largest
 *	  |reference| of each tensor; in the float64 build they are 1e-9.
 *	  Perturbing any parameter tensor that the network can feel must break
 *	  parity: that is tested too.
 */
#include "unit.h"
#include "cluster.h"
#include "loss.h"
#include "model.h"
#include "safetensors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DAC_DOUBLE
#define TOL(f32bound) (1e-9)
#else
#define TOL(f32bound) (f32bound)
#endif

typedef struct
{
	uint8_t    *buf;
	st_file		f;
} fixture;

static int
fixture_open(fixture *fx, const char *name)
{
	size_t		len;
	dac_error	err;

	fx->buf = unit_read_file(unit_fixture(name), &len);
	if (fx->buf == NULL)
	{
		CHECK(0, "read fixture %s (set DAC_FIXTURES)", name);
		return 0;
	}
	if (st_open(fx->buf, len, &fx->f, &err) != DAC_OK)
	{
		CHECK(0, "parse fixture %s: %s", name, err.msg);
		free(fx->buf);
		return 0;
	}
	return 1;
}

static void
fixture_close(fixture *fx)
{
	st_close(&fx->f);
	free(fx->buf);
}

static double *
fx_f64(fixture *fx, const char *name, size_t *count)
{
	const st_tensor *t = st_find(&fx->f, name);
	double	   *out;

	if (t == NULL)
		return NULL;
	out = malloc(sizeof(double) * (t->count ? t->count : 1));
	st_read_f64(&fx->f, t, out, NULL);
	if (count)
		*count = t->count;
	return out;
}

static int *
fx_int(fixture *fx, const char *name)
{
	const st_tensor *t = st_find(&fx->f, name);
	int64_t    *tmp;
	int		   *out;
	size_t		i;

	if (t == NULL)
		return NULL;
	tmp = malloc(sizeof(int64_t) * (t->count ? t->count : 1));
	out = malloc(sizeof(int) * (t->count ? t->count : 1));
	st_read_i64(&fx->f, t, tmp, NULL);
	for (i = 0; i < t->count; i++)
		out[i] = (int) tmp[i];
	free(tmp);
	return out;
}

static dac_real *
fx_reals(fixture *fx, const char *name, size_t *count)
{
	size_t		n,
				i;
	double	   *d = fx_f64(fx, name, &n);
	dac_real   *r;

	if (d == NULL)
		return NULL;
	r = malloc(sizeof(dac_real) * n);
	for (i = 0; i < n; i++)
		r[i] = (dac_real) d[i];
	free(d);
	if (count)
		*count = n;
	return r;
}

/* max |got - ref| / max |ref| over entries (optionally a subset by stride/mask) */
static double
rel_err(const double *ref, const dac_real *got, size_t n, double *abs_out)
{
	double		scale = 0,
				worst = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		double		a = fabs(ref[i]);
		double		e = fabs((double) got[i] - ref[i]);

		if (a > scale)
			scale = a;
		if (e > worst || isnan(e))
			worst = isnan(e) ? INFINITY : e;
	}
	if (abs_out)
		*abs_out = worst;
	return scale > 0 ? worst / scale : worst;
}

static int
load_weights(const char *name, dac_model *m)
{
	size_t		len;
	uint8_t    *buf = unit_read_file(unit_fixture(name), &len);
	dac_error	err;
	dac_status	st;

	if (buf == NULL)
	{
		CHECK(0, "read %s", name);
		return 0;
	}
	st = dac_model_load(m, buf, len, &err);
	free(buf);
	CHECK(st == DAC_OK, "load %s: %s", name, st == DAC_OK ? "ok" : err.msg);
	return st == DAC_OK;
}

/* Worst forward errors (relative to scale) of one unmasked call. */
typedef struct
{
	double		theta,
				ll,
				logits;
} fwd_err;

static int
forward_errors(const dac_model *m, fixture *fx, fwd_err *e)
{
	size_t		nx;
	dac_real   *X = fx_reals(fx, "X", &nx);
	double	   *theta = fx_f64(fx, "theta", NULL);
	double	   *ll = fx_f64(fx, "ll", NULL);
	double	   *logits = fx_f64(fx, "logits", NULL);
	int		   *anc = fx_int(fx, "anc_idx");
	int			B = 3,
				n = 200;
	dac_arena	ar;
	dac_forward fw;
	dac_error	err;
	int			ok;

	dac_arena_init(&ar, 0);
	ok = dac_net_forward(&m->net, m->P, X, B, n, anc, &ar, &fw, &err) == DAC_OK;
	if (ok)
	{
		e->theta = rel_err(theta, fw.theta, (size_t) B * dac_net_theta_dim(&m->net), NULL);
		e->ll = rel_err(ll, fw.ll, (size_t) B * n, NULL);
		e->logits = rel_err(logits, fw.logits, (size_t) B * n, NULL);
	}
	dac_arena_free(&ar);
	free(X);
	free(theta);
	free(ll);
	free(logits);
	free(anc);
	return ok;
}

static void
check_forward(const char *net, const dac_model *m, fixture *fx)
{
	fwd_err		e;

	if (!forward_errors(m, fx, &e))
	{
		CHECK(0, "%s forward ran", net);
		return;
	}
	CHECK(e.theta <= TOL(2e-6), "%s forward theta: max err / scale %.3g", net, e.theta);
	CHECK(e.ll <= TOL(2e-5), "%s forward ll: max err / scale %.3g", net, e.ll);
	CHECK(e.logits <= TOL(5e-6), "%s forward logits: max err / scale %.3g", net, e.logits);
	printf("# parity %s forward: theta %.2e, ll %.2e, logits %.2e (max err / max |ref|)\n",
		   net, e.theta, e.ll, e.logits);
}

/* The masked call equals a call on the active rows alone. */
static void
check_masked(const char *net, const dac_model *m, fixture *fx)
{
	int			B = 3,
				n = 200,
				d = 2,
				b,
				i;
	dac_real   *X = fx_reals(fx, "X", NULL);
	int		   *mask = fx_int(fx, "mask");
	int		   *anc = fx_int(fx, "anc_idx_masked");
	double	   *theta = fx_f64(fx, "theta_masked", NULL);
	double	   *ll = fx_f64(fx, "ll_masked", NULL);
	double	   *logits = fx_f64(fx, "logits_masked", NULL);
	double		wt = 0,
				wl = 0,
				wg = 0;
	int			all_ok = 1;

	for (b = 0; b < B; b++)
	{
		dac_real   *sub = malloc(sizeof(dac_real) * n * d);
		double	   *ref_logit = malloc(sizeof(double) * n);
		dac_real   *got_logit = malloc(sizeof(dac_real) * n);
		dac_real   *ll_all = malloc(sizeof(dac_real) * n);
		int			na = 0,
					anchor = -1;
		dac_arena	ar;
		dac_forward fw;
		dac_error	err;
		double		e;

		for (i = 0; i < n; i++)
			if (!mask[b * n + i])
			{
				if (anc && anc[b] == i)
					anchor = na;
				sub[na * d] = X[(b * n + i) * d];
				sub[na * d + 1] = X[(b * n + i) * d + 1];
				ref_logit[na] = logits[b * n + i];
				na++;
			}
		dac_arena_init(&ar, 0);
		if (dac_net_forward(&m->net, m->P, sub, 1, na, anc ? &anchor : NULL, &ar, &fw, &err) != DAC_OK)
		{
			CHECK(0, "%s masked forward on set %d: %s", net, b, err.msg);
			all_ok = 0;
		}
		else
		{
			int			tdim = dac_net_theta_dim(&m->net);

			memcpy(got_logit, fw.logits, sizeof(dac_real) * na);
			e = rel_err(theta + b * tdim, fw.theta, tdim, NULL);
			wt = e > wt ? e : wt;
			e = rel_err(ref_logit, got_logit, na, NULL);
			wg = e > wg ? e : wg;
			/* ll of every row, masked ones too, under the masked call's θ */
			dac_head_ll(&m->net.head, m->P, fw.theta, X + (size_t) b * n * d, n, ll_all, NULL);
			e = rel_err(ll + b * n, ll_all, n, NULL);
			wl = e > wl ? e : wl;
		}
		dac_arena_free(&ar);
		free(sub);
		free(ref_logit);
		free(got_logit);
		free(ll_all);
	}
	if (all_ok)
	{
		CHECK(wt <= TOL(2e-6), "%s masked theta: %.3g", net, wt);
		CHECK(wl <= TOL(2e-5), "%s masked ll: %.3g", net, wl);
		CHECK(wg <= TOL(5e-6), "%s masked logits (active rows): %.3g", net, wg);
		printf("# parity %s masked = active rows: theta %.2e, ll %.2e, logits %.2e\n",
			   net, wt, wl, wg);
	}
	free(X);
	free(mask);
	free(anc);
	free(theta);
	free(ll);
	free(logits);
}

static double
scalar(fixture *fx, const char *name)
{
	double	   *v = fx_f64(fx, name, NULL);
	double		r = v ? v[0] : NAN;

	free(v);
	return r;
}

static void
check_backward(const char *net, const dac_model *m, fixture *fx)
{
	int			B = 3,
				n = 200,
				t;
	dac_real   *X = fx_reals(fx, "X", NULL);
	int		   *labels = fx_int(fx, "labels");
	int		   *anc = fx_int(fx, "anc_idx");
	int		   *ref_argmin = fx_int(fx, "argmin");
	int			argmin[3];
	dac_real   *dlogits = malloc(sizeof(dac_real) * B * n);
	dac_real   *dll = malloc(sizeof(dac_real) * B * n);
	dac_real   *G = calloc(m->net.nparams, sizeof(dac_real));
	dac_arena	ar;
	dac_forward fw;
	dac_error	err;
	dac_loss_parts parts;
	double		worst = 0,
				worst_kb = 0;
	const char *worst_name = "";
	int			tensors = 0;

	dac_arena_init(&ar, 0);
	if (dac_net_forward(&m->net, m->P, X, B, n, anc, &ar, &fw, &err) != DAC_OK)
	{
		CHECK(0, "%s backward: forward failed: %s", net, err.msg);
		goto done;
	}
	if (m->net.cfg.strategy == DAC_MLF)
		dac_mlf_loss(fw.logits, fw.ll, labels, B, n, &parts, dlogits, dll, argmin, &err);
	else
		dac_af_loss(fw.logits, fw.ll, labels, anc, B, n, &parts, dlogits, dll, &err);
	{
		double		rl = scalar(fx, "loss"),
					rb = scalar(fx, "bce"),
					rll = scalar(fx, "ll");
		double		el = fabs(parts.loss - rl) / fmax(fabs(rl), 1e-300);
		double		eb = fabs(parts.bce - rb) / fmax(fabs(rb), 1e-300);
		double		ell = fabs(parts.ll - rll) / fmax(fabs(rll), 1e-300);

		CHECK(el <= TOL(2e-5), "%s loss %.9g vs %.9g (rel %.2g)", net, parts.loss, rl, el);
		CHECK(eb <= TOL(2e-5), "%s bce %.9g vs %.9g (rel %.2g)", net, parts.bce, rb, eb);
		CHECK(ell <= TOL(2e-5), "%s ll part %.9g vs %.9g (rel %.2g)", net, parts.ll, rll, ell);
		printf("# parity %s loss: loss %.2e, bce %.2e, ll %.2e (relative)\n", net, el, eb, ell);
	}
	if (ref_argmin)
		CHECK(argmin[0] == ref_argmin[0] && argmin[1] == ref_argmin[1] && argmin[2] == ref_argmin[2],
			  "%s argmin clusters match", net);
	if (dac_net_backward(&m->net, m->P, G, &fw, dlogits, dll, &ar, &err) != DAC_OK)
	{
		CHECK(0, "%s backward: %s", net, err.msg);
		goto done;
	}
	for (t = 0; t < m->net.ntensors; t++)
	{
		const dac_param_info *p = &m->net.params[t];
		char		gname[128];
		size_t		cnt;
		double	   *ref,
					e,
					eabs;
		int			is_kbias;

		snprintf(gname, sizeof(gname), "grad.%.100s", p->name);
		ref = fx_f64(fx, gname, &cnt);
		if (ref == NULL || cnt != p->count)
		{
			CHECK(0, "%s reference has %s", net, gname);
			free(ref);
			continue;
		}
		tensors++;
		e = rel_err(ref, G + p->offset, cnt, &eabs);
		is_kbias = strstr(p->name, "fc_k.bias") != NULL;
		if (is_kbias)
		{
			/* mathematically zero: rounding noise only, absolute bound */
			CHECK(eabs <= TOL(5e-8), "%s grad %s abs err %.3g", net, p->name, eabs);
			worst_kb = eabs > worst_kb ? eabs : worst_kb;
		}
		else
		{
			CHECK(e <= TOL(5e-4), "%s grad %s: err / scale %.3g", net, p->name, e);
			if (e > worst)
			{
				worst = e;
				worst_name = p->name;
			}
		}
		free(ref);
	}
	CHECK(tensors == m->net.ntensors, "%s: gradients of all %d tensors compared", net, tensors);
	printf("# parity %s gradients (%d tensors): worst err / scale %.2e (%s); fc_k.bias abs %.2e\n",
		   net, tensors, worst, worst_name, worst_kb);
done:
	dac_arena_free(&ar);
	free(X);
	free(labels);
	free(anc);
	free(ref_argmin);
	free(dlogits);
	free(dll);
	free(G);
}

/*
 * Mutation check: scale each parameter tensor in turn; forward parity must
 * fail for every tensor the forward pass depends on.  fc_k of a single-key
 * MAB has no effect on anything (softmax over one key is 1), so it is skipped.
 */
static void
check_perturbation(const char *net, dac_model *m, fixture *fx)
{
	int			t,
				undetected = 0;
	size_t		i;

	for (t = 0; t < m->net.ntensors; t++)
	{
		const dac_param_info *p = &m->net.params[t];
		dac_real   *save;
		fwd_err		e;
		int			caught;

		if ((strncmp(p->name, "mab.fc_k", 8) == 0 || strncmp(p->name, "mab1.fc_k", 9) == 0 ||
			 strncmp(p->name, "mab2.fc_k", 9) == 0) ||
			strstr(p->name, "fc_k.bias"))
			continue;			/* provably inert */
		save = malloc(sizeof(dac_real) * p->count);
		memcpy(save, m->P + p->offset, sizeof(dac_real) * p->count);
		for (i = 0; i < p->count; i++)
			m->P[p->offset + i] = m->P[p->offset + i] * (dac_real) 1.1 + (dac_real) 1e-2;
		caught = !forward_errors(m, fx, &e) ||
			e.theta > TOL(2e-6) || e.ll > TOL(2e-5) || e.logits > TOL(5e-6);
		memcpy(m->P + p->offset, save, sizeof(dac_real) * p->count);
		free(save);
		if (!caught)
		{
			undetected++;
			CHECK(0, "%s: perturbing %s goes unnoticed by the forward parity check", net, p->name);
		}
	}
	CHECK(undetected == 0, "%s: every perturbed tensor breaks forward parity", net);
}

/*
 * Every MAF intermediate of one call against the fixture's (suffix "" for
 * the unmasked call, "_masked" for the masked one): per block the context
 * W_ctx θ, the input x, raw, shift, scale, u and log-det; then z, base_lp
 * and the summed log-det.  hc is the head's pass over all B·n rows.
 */
static void
check_maf_intermediates(const char *net, const dac_model *m, fixture *fx, const dac_head_cache *hc,
						const char *suffix)
{
	const dac_flow *h = &m->net.head.flow;
	const dac_flow_cache *fc = &hc->flow;
	int			B = hc->B,
				n = hc->n,
				d = h->d,
				k,
				j;
	size_t		rows = (size_t) B * n,
				r;
	dac_real   *shift = malloc(sizeof(dac_real) * rows * d),
			   *scale = malloc(sizeof(dac_real) * rows * d),
			   *u = malloc(sizeof(dac_real) * rows * d),
			   *ld = malloc(sizeof(dac_real) * rows),
			   *ldsum = calloc(rows, sizeof(dac_real)),
			   *base = malloc(sizeof(dac_real) * rows);
	double		worst = 0;
	char		worst_name[64] = "";
	char		name[64];

#define CMP(tname, got, count) \
	do { \
		size_t cnt_; \
		double *ref_ = fx_f64(fx, tname, &cnt_), e_; \
		if (ref_ == NULL || cnt_ != (size_t) (count)) \
			CHECK(0, "%s fixture has %s of %zu values", net, tname, (size_t) (count)); \
		else \
		{ \
			e_ = rel_err(ref_, got, cnt_, NULL); \
			CHECK(e_ <= TOL(2e-5), "%s %s: max err / scale %.3g", net, tname, e_); \
			if (e_ > worst) { worst = e_; snprintf(worst_name, sizeof(worst_name), "%s", tname); } \
		} \
		free(ref_); \
	} while (0)

	for (k = 0; k < h->nmade; k++)
	{
		const dac_real *next = k + 1 < h->nmade ? fc->xin[k + 1] : fc->z;
		char		tn[64];

		for (r = 0; r < rows; r++)
		{
			ld[r] = 0;
			for (j = 0; j < d; j++)
			{
				shift[r * d + j] = fc->mraw[k][r * 2 * d + j];
				scale[r * d + j] = dac_softplus(fc->mraw[k][r * 2 * d + d + j]) + (dac_real) 1e-5;
				u[r * d + j] = next[r * d + d - 1 - j];
				ld[r] -= log(scale[r * d + j]);
			}
			ldsum[r] += ld[r];
		}
		snprintf(tn, sizeof(tn), "maf.ctx.%d%s", k, suffix);
		CMP(tn, fc->ctx[k], (size_t) B * h->H);
		snprintf(tn, sizeof(tn), "maf.x.%d%s", k, suffix);
		CMP(tn, fc->xin[k], rows * d);
		snprintf(tn, sizeof(tn), "maf.raw.%d%s", k, suffix);
		CMP(tn, fc->mraw[k], rows * 2 * d);
		snprintf(tn, sizeof(tn), "maf.shift.%d%s", k, suffix);
		CMP(tn, shift, rows * d);
		snprintf(tn, sizeof(tn), "maf.scale.%d%s", k, suffix);
		CMP(tn, scale, rows * d);
		snprintf(tn, sizeof(tn), "maf.u.%d%s", k, suffix);
		CMP(tn, u, rows * d);
		snprintf(tn, sizeof(tn), "maf.logdet.%d%s", k, suffix);
		CMP(tn, ld, rows);
	}
	for (r = 0; r < rows; r++)
	{
		base[r] = 0;
		for (j = 0; j < d; j++)
			base[r] += (dac_real) (-0.5 * fc->z[r * d + j] * fc->z[r * d + j] - 0.5 * log(2 * M_PI));
	}
	snprintf(name, sizeof(name), "maf.z%s", suffix);
	CMP(name, fc->z, rows * d);
	snprintf(name, sizeof(name), "maf.base_lp%s", suffix);
	CMP(name, base, rows);
	snprintf(name, sizeof(name), "maf.logdet%s", suffix);
	CMP(name, ldsum, rows);
	snprintf(name, sizeof(name), "ll%s", suffix);
	CMP(name, hc->ll, rows);
#undef CMP
	printf("# parity %s MAF intermediates%s (%d blocks): worst err / scale %.2e (%s)\n",
		   net, suffix, h->nmade, worst, worst_name);
	free(shift);
	free(scale);
	free(u);
	free(ld);
	free(ldsum);
	free(base);
}

/*
 * The flow of both calls: the unmasked call's head pass; for the masked
 * call, the head run over all rows of each set from the H_θ of a call on
 * its active rows (the fixture evaluates the flow at masked rows too).
 */
static void
check_maf(const char *net, const dac_model *m, fixture *fx)
{
	int			B = 3,
				n = 200,
				d = 2,
				b,
				i;
	dac_real   *X = fx_reals(fx, "X", NULL);
	int		   *anc = fx_int(fx, "anc_idx");
	int		   *anc_m = fx_int(fx, "anc_idx_masked");
	int		   *mask = fx_int(fx, "mask");
	dac_real   *Ht = malloc(sizeof(dac_real) * B * m->net.cfg.dim_hidden);
	dac_arena	ar;
	dac_forward fw;
	dac_head_cache hc;
	dac_error	err;

	dac_arena_init(&ar, 0);
	if (dac_net_forward(&m->net, m->P, X, B, n, anc, &ar, &fw, &err) != DAC_OK)
		CHECK(0, "%s MAF forward: %s", net, err.msg);
	else
		check_maf_intermediates(net, m, fx, &fw.head, "");
	for (b = 0; b < B; b++)
	{
		dac_real   *sub = malloc(sizeof(dac_real) * n * d);
		int			na = 0,
					anchor = -1;

		dac_arena_reset_to(&ar, (dac_arena_mark) {NULL, 0, 0});
		for (i = 0; i < n; i++)
			if (!mask[b * n + i])
			{
				if (anc_m && anc_m[b] == i)
					anchor = na;
				memcpy(sub + na * d, X + (b * n + i) * d, sizeof(dac_real) * d);
				na++;
			}
		if (dac_net_forward(&m->net, m->P, sub, 1, na, anc_m ? &anchor : NULL, &ar, &fw, &err) != DAC_OK)
			CHECK(0, "%s masked call on set %d: %s", net, b, err.msg);
		else
			memcpy(Ht + (size_t) b * m->net.cfg.dim_hidden, fw.pool.out,
				   sizeof(dac_real) * m->net.cfg.dim_hidden);
		free(sub);
	}
	dac_arena_reset_to(&ar, (dac_arena_mark) {NULL, 0, 0});
	if (dac_head_forward(&m->net.head, m->P, Ht, X, NULL, B, n, 0, &ar, &hc) != DAC_OK)
		CHECK(0, "%s head over all rows of the masked calls", net);
	else
		check_maf_intermediates(net, m, fx, &hc, "_masked");
	dac_arena_free(&ar);
	free(X);
	free(anc);
	free(anc_m);
	free(mask);
	free(Ht);
}

/*
 * A flow's stored masks equal the degree rule's, the masked-out weights the
 * file holds (random, not zero) are not used, and a saved model reads back
 * the same, masks included.
 */
static void
check_maf_file(const char *net, const dac_model *m, const char *wname)
{
	size_t		len,
				olen;
	uint8_t    *buf = unit_read_file(unit_fixture(wname), &len);
	uint8_t    *out = NULL;
	st_file		f;
	dac_model	back;
	dac_error	err;
	int			nz = 0,
				masks = 0;
	size_t		i;

	if (buf == NULL || st_open(buf, len, &f, &err) != DAC_OK)
	{
		CHECK(0, "%s reopen %s", net, wname);
		free(buf);
		return;
	}
	for (i = 0; i < f.ntensors; i++)
	{
		const st_tensor *t = &f.tensors[i];

		if (strstr(t->name, ".mask") != NULL)
		{
			const dac_param_info *p;
			char		wn[128];
			double	   *mv = malloc(sizeof(double) * t->count),
					   *wv = malloc(sizeof(double) * t->count);
			size_t		j;

			masks++;
			snprintf(wn, sizeof(wn), "%.*slinear.weight", (int) (strlen(t->name) - strlen("mask")), t->name);
			p = dac_net_find_param(&m->net, wn);
			st_read_f64(&f, t, mv, NULL);
			if (p != NULL)
			{
				st_read_f64(&f, st_find(&f, wn), wv, NULL);
				for (j = 0; j < t->count; j++)
				{
					nz += mv[j] == 0 && wv[j] != 0;
					if (mv[j] == 0 && m->P[p->offset + j] != 0)
						CHECK(0, "%s %s: a masked-out weight was kept", net, wn);
				}
			}
			else
				CHECK(0, "%s: the weight %s of mask %s", net, wn, t->name);
			free(mv);
			free(wv);
		}
	}
	CHECK(masks == 3 * m->net.head.flow.nmade, "%s: %d mask buffers in the file, equal to the rebuilt ones", net, masks);
	CHECK(nz > 0, "%s: the file holds %d nonzero masked-out weights, and they are not used", net, nz);
	st_close(&f);
	free(buf);
	if (dac_model_save(m, NULL, &out, &olen, &err) != DAC_OK)
	{
		CHECK(0, "%s save: %s", net, err.msg);
		return;
	}
	if (dac_model_load(&back, out, olen, &err) != DAC_OK)
		CHECK(0, "%s reload: %s", net, err.msg);
	else
	{
		CHECK(back.net.nparams == m->net.nparams &&
			  memcmp(back.P, m->P, sizeof(dac_real) * m->net.nparams) == 0 &&
			  back.net.cfg.maf_blocks == 4 && back.net.cfg.maf_context == 128,
			  "%s: saved and read back the same, masks included", net);
		{
			st_file		g;
			int			gm = 0;

			if (st_open(out, olen, &g, NULL) == DAC_OK)
			{
				for (i = 0; i < g.ntensors; i++)
					gm += strstr(g.tensors[i].name, ".mask") != NULL;
				st_close(&g);
			}
			CHECK(gm == 12, "%s: the saved file has the %d mask buffers the reference's state_dict needs", net, gm);
		}
		dac_model_free(&back);
	}
	/* a mask that is not the degree rule's is refused */
	{
		size_t		l2;
		uint8_t    *b2 = unit_read_file(unit_fixture(wname), &l2);
		st_file		h;
		const st_tensor *t;
		dac_model	x;

		if (b2 != NULL && st_open(b2, l2, &h, NULL) == DAC_OK &&
			(t = st_find(&h, "flow.transform.transforms.2.mlp.3.mask")) != NULL)
		{
			float		one = 1.0f;
			size_t		at = (size_t) (h.data - b2) + t->begin;	/* row 0, column 0: a zero */

			st_close(&h);
			memcpy(b2 + at, &one, 4);
			CHECK(dac_model_load(&x, b2, l2, &err) == DAC_ERR_FORMAT && strstr(err.msg, "not the MADE mask"),
				  "%s: a changed mask is refused (%s)", net, err.msg);
		}
		else
			CHECK(0, "%s: find a mask to change", net);
		free(b2);
	}
	free(out);
}

/* A flow's configuration: read back as written, and every bad value refused. */
static void
check_maf_config(void)
{
	static const char *const bad[] = {
		"{\"strategy\": \"mlf\", \"density\": \"maf\", \"dim_input\": 1}",
		"{\"strategy\": \"mlf\", \"density\": \"maf\", \"dim_input\": 2, \"maf\": []}",
		"{\"strategy\": \"mlf\", \"density\": \"maf\", \"dim_input\": 2, \"maf\": {\"num_made\": 0}}",
		"{\"strategy\": \"mlf\", \"density\": \"maf\", \"dim_input\": 2, \"maf\": {\"num_made\": 9}}",
		"{\"strategy\": \"mlf\", \"density\": \"maf\", \"dim_input\": 2, \"maf\": {\"dim_hids\": 0}}",
		"{\"strategy\": \"mlf\", \"density\": \"maf\", \"dim_input\": 2, \"maf\": {\"dim_context\": 5000}}",
		"{\"strategy\": \"mlf\", \"density\": \"maf\", \"dim_input\": 2, \"maf\": {\"dim_hids\": 1.5}}",
		"{\"strategy\": \"mlf\", \"density\": \"maf\", \"dim_input\": 2, \"maf\": {\"permutation\": \"random\"}}",
		"{\"strategy\": \"mlf\", \"density\": \"maf\", \"dim_input\": 2, \"maf\": {\"base\": \"logistic\"}}",
		"{\"strategy\": \"mlf\", \"density\": \"flow\", \"dim_input\": 2}",
	};
	dac_config	c = dac_config_default(DAC_AF, 5),
				back;
	char	   *js;
	dac_error	err;
	size_t		i;

	c.density = DAC_DENSITY_MAF;
	c.maf_blocks = 3;
	c.maf_hidden = 17;
	c.maf_context = 9;
	js = dac_config_to_json(&c);
	CHECK(js && dac_config_from_json(js, strlen(js), &back, &err) == DAC_OK &&
		  back.density == DAC_DENSITY_MAF && back.maf_blocks == 3 && back.maf_hidden == 17 &&
		  back.maf_context == 9 && back.dim_input == 5 && back.strategy == DAC_AF,
		  "a flow's configuration reads back as written: %s", js ? js : "(null)");
	dac_free(js);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		dac_status	st = dac_config_from_json(bad[i], strlen(bad[i]), &back, &err);

		CHECK(st == DAC_ERR_CONFIG, "refused: %s (%s)", bad[i], st == DAC_OK ? "accepted" : err.msg);
	}
}

static void
run_warped(const char *net)
{
	char		name[64];
	dac_model	m;
	fixture		fwd,
				bwd;

	snprintf(name, sizeof(name), "%s_warped.weights.safetensors", net);
	if (!load_weights(name, &m))
		return;
	CHECK(m.net.cfg.density == DAC_DENSITY_MAF && dac_net_theta_dim(&m.net) == 128,
		  "%s warped: a MAF head with a 128-d context", net);
	check_maf_file(net, &m, name);
	snprintf(name, sizeof(name), "%s_warped.forward.safetensors", net);
	if (fixture_open(&fwd, name))
	{
		check_forward(net, &m, &fwd);
		check_masked(net, &m, &fwd);
		check_maf(net, &m, &fwd);
		check_perturbation(net, &m, &fwd);
		fixture_close(&fwd);
	}
	snprintf(name, sizeof(name), "%s_warped.backward.safetensors", net);
	if (fixture_open(&bwd, name))
	{
		check_backward(net, &m, &bwd);
		fixture_close(&bwd);
	}
	dac_model_free(&m);
}

static void
run_network(const char *net)
{
	char		name[64];
	dac_model	m;
	fixture		fwd,
				bwd;

	snprintf(name, sizeof(name), "%s_mog.weights.safetensors", net);
	if (!load_weights(name, &m))
		return;
	snprintf(name, sizeof(name), "%s_mog.forward.safetensors", net);
	if (fixture_open(&fwd, name))
	{
		check_forward(net, &m, &fwd);
		check_masked(net, &m, &fwd);
		check_perturbation(net, &m, &fwd);
		fixture_close(&fwd);
	}
	snprintf(name, sizeof(name), "%s_mog.backward.safetensors", net);
	if (fixture_open(&bwd, name))
	{
		check_backward(net, &m, &bwd);
		fixture_close(&bwd);
	}
	dac_model_free(&m);
}

/* ---------------------------------------------------------------- image model */

/*
 * The image model's rows from a fixture: each image's 784 pixels followed by
 * its 128 noise values (image.h).  [B·N, 912]
 */
static dac_real *
ns_rows(fixture *fx, int B, int N, int L)
{
	double	   *x = fx_f64(fx, "X", NULL);
	double	   *eps = fx_f64(fx, "eps", NULL);
	int			w = DAC_IMAGE_PIXELS + L,
				r,
				j;
	dac_real   *rows = malloc(sizeof(dac_real) * (size_t) B * N * w);

	for (r = 0; x && eps && r < B * N; r++)
	{
		for (j = 0; j < DAC_IMAGE_PIXELS; j++)
			rows[(size_t) r * w + j] = (dac_real) x[(size_t) r * DAC_IMAGE_PIXELS + j];
		for (j = 0; j < L; j++)
			rows[(size_t) r * w + DAC_IMAGE_PIXELS + j] = (dac_real) eps[(size_t) r * L + j];
	}
	free(x);
	free(eps);
	return rows;
}

/* one tensor of the fixture against ours; bound relative to the tensor's scale */
static double
ns_cmp(fixture *fx, const char *name, const dac_real *got, size_t count, double bound)
{
	size_t		cnt;
	double	   *ref = fx_f64(fx, name, &cnt);
	double		e = INFINITY;

	(void) bound;				/* unused in the float64 build */
	if (ref == NULL || cnt != count)
		CHECK(0, "ns fixture has %s of %zu values", name, count);
	else
	{
		e = rel_err(ref, got, cnt, NULL);
		CHECK(e <= TOL(bound), "ns %s: max err / scale %.3g", name, e);
	}
	free(ref);
	return e;
}

static void
ns_cmp_stats(fixture *fx, const char *name, const double *got, int C)
{
	size_t		cnt;
	double	   *ref = fx_f64(fx, name, &cnt);
	double		scale = 0,
				worst = 0;
	int			c;

	if (ref == NULL || cnt != (size_t) C)
	{
		CHECK(0, "ns fixture has %s of %d values", name, C);
		free(ref);
		return;
	}
	for (c = 0; c < C; c++)
	{
		scale = fmax(scale, fabs(ref[c]));
		worst = fmax(worst, fabs(got[c] - ref[c]));
	}
	CHECK(worst / fmax(scale, 1e-300) <= TOL(5e-6), "ns %s: max err / scale %.3g", name,
		  worst / fmax(scale, 1e-300));
	free(ref);
}

/* Every recorded tensor of the training-mode (batch statistics) pass. */
static void
check_ns_train(dac_model *m, fixture *fx)
{
	int			B = 2,
				N = 50,
				L = m->net.cfg.latent,
				rows = B * N,
				i;
	dac_real   *X = ns_rows(fx, B, N, L);
	dac_real   *tmp = calloc((size_t) rows * L * 2, sizeof(dac_real));
	dac_real   *P2 = malloc(sizeof(dac_real) * m->net.nparams);
	dac_arena	ar;
	dac_forward fw;
	dac_error	err;
	const dac_ns_cache *c;
	static const char *const bn[4] = {"enc.1", "enc.4", "dec.4", "dec.7"};

	dac_arena_init(&ar, 0);
	if (dac_net_forward(&m->net, m->P, X, B, N, NULL, &ar, &fw, &err) != DAC_OK)
	{
		CHECK(0, "ns training pass: %s", err.msg);
		goto done;
	}
	c = &fw.head.ns;
	ns_cmp(fx, "train.h_enc", fw.image.h, (size_t) rows * 2048, 5e-6);
	ns_cmp(fx, "train.H_theta", fw.pool.out, (size_t) B * 128, 5e-6);
	ns_cmp(fx, "train.theta", fw.theta, (size_t) B * 128, 5e-6);
	for (i = 0; i < rows * L; i++)
		tmp[i] = c->raw[(i / L) * 2 * L + i % L];
	ns_cmp(fx, "train.post.mu", tmp, (size_t) rows * L, 5e-6);
	for (i = 0; i < rows * L; i++)
		tmp[i] = dac_softplus(c->raw[(i / L) * 2 * L + L + i % L]) + (dac_real) 1e-5;
	ns_cmp(fx, "train.post.sigma", tmp, (size_t) rows * L, 5e-6);
	ns_cmp(fx, "train.z", c->z, (size_t) rows * L, 5e-6);
	ns_cmp(fx, "train.logq", c->logq, rows, 2e-5);
	ns_cmp(fx, "train.logp", c->logp, rows, 2e-5);
	for (i = 0; i < rows; i++)
		tmp[i] = c->logq[i] - c->logp[i];
	ns_cmp(fx, "train.kld", tmp, rows, 2e-5);
	ns_cmp(fx, "train.dec_logits", c->logit, (size_t) rows * DAC_IMAGE_PIXELS, 5e-6);
	ns_cmp(fx, "train.log_px", c->log_px, rows, 5e-6);
	ns_cmp(fx, "train.ll", fw.ll, rows, 5e-6);
	ns_cmp(fx, "train.logits", fw.logits, rows, 5e-6);
	for (i = 0; i < 4; i++)
	{
		char		name[64];
		const double *mean = i < 2 ? fw.image.mean[i] : c->mean[i - 2];
		const double *var = i < 2 ? fw.image.var[i] : c->var[i - 2];
		int			C = i < 2 ? m->net.head.ns.ebn[i].C : m->net.head.ns.dbn[i - 2].C;

		snprintf(name, sizeof(name), "train.bn.%s.batch_mean", bn[i]);
		ns_cmp_stats(fx, name, mean, C);
		snprintf(name, sizeof(name), "train.bn.%s.batch_var", bn[i]);
		ns_cmp_stats(fx, name, var, C);
	}
	/* the running estimates after the step */
	memcpy(P2, m->P, sizeof(dac_real) * m->net.nparams);
	dac_net_update_running(&m->net, P2, &fw);
	for (i = 0; i < 4; i++)
	{
		const dac_bn *b = i < 2 ? &m->net.head.ns.ebn[i] : &m->net.head.ns.dbn[i - 2];
		char		name[64];

		snprintf(name, sizeof(name), "train.bn.%s.running_mean_after", bn[i]);
		ns_cmp(fx, name, P2 + b->mean, b->C, 5e-6);
		snprintf(name, sizeof(name), "train.bn.%s.running_var_after", bn[i]);
		ns_cmp(fx, name, P2 + b->var, b->C, 5e-6);
	}
done:
	dac_arena_free(&ar);
	free(X);
	free(tmp);
	free(P2);
}

/* Inference (running statistics): θ, ll and logits; the masked call as a call on the active rows. */
static void
check_ns_eval(dac_model *m, fixture *fx)
{
	int			B = 2,
				N = 50,
				L = m->net.cfg.latent,
				w = DAC_IMAGE_PIXELS + L,
				b,
				i;
	dac_real   *X = ns_rows(fx, B, N, L);
	int		   *mask = fx_int(fx, "mask");
	double	   *mlogits = fx_f64(fx, "eval_masked.logits", NULL);
	double	   *mll = fx_f64(fx, "eval_masked.ll", NULL);
	double	   *mtheta = fx_f64(fx, "eval_masked.theta", NULL);
	double		wt = 0,
				wg = 0,
				wl = 0;
	dac_arena	ar;
	dac_forward fw;
	dac_error	err;

	dac_arena_init(&ar, 0);
	if (dac_net_infer(&m->net, m->P, m->F, X, B, N, NULL, &ar, &fw, &err) != DAC_OK)
		CHECK(0, "ns inference pass: %s", err.msg);
	else
	{
		ns_cmp(fx, "eval.theta", fw.theta, (size_t) B * 128, 5e-6);
		ns_cmp(fx, "eval.ll", fw.ll, (size_t) B * N, 5e-6);
		ns_cmp(fx, "eval.logits", fw.logits, (size_t) B * N, 5e-6);
	}
	dac_arena_free(&ar);
	for (b = 0; b < B && mask && mlogits && mll && mtheta; b++)
	{
		dac_real   *sub = malloc(sizeof(dac_real) * N * w);
		double	   *ref = malloc(sizeof(double) * N);
		dac_real   *ll_all = malloc(sizeof(dac_real) * N);
		int			na = 0;

		for (i = 0; i < N; i++)
			if (!mask[b * N + i])
			{
				memcpy(sub + (size_t) na * w, X + ((size_t) b * N + i) * w, sizeof(dac_real) * w);
				ref[na++] = mlogits[b * N + i];
			}
		dac_arena_init(&ar, 0);
		if (dac_net_infer(&m->net, m->P, m->F, sub, 1, na, NULL, &ar, &fw, &err) != DAC_OK)
			CHECK(0, "ns masked call on set %d: %s", b, err.msg);
		else
		{
			wt = fmax(wt, rel_err(mtheta + b * 128, fw.theta, 128, NULL));
			wg = fmax(wg, rel_err(ref, fw.logits, na, NULL));
			if (dac_head_ll(&m->net.head, m->P, fw.theta, X + (size_t) b * N * w, N, ll_all, NULL) != DAC_OK)
				CHECK(0, "ns ll of every row under a set's θ");
			wl = fmax(wl, rel_err(mll + b * N, ll_all, N, NULL));
		}
		dac_arena_free(&ar);
		free(sub);
		free(ref);
		free(ll_all);
	}
	/* every set's θ over every row at once: the same ll as one θ at a time */
	if (mtheta && B * N > 0)
	{
		dac_real   *th = malloc(sizeof(dac_real) * 2 * 128),
				   *many = malloc(sizeof(dac_real) * 2 * B * N),
				   *one = malloc(sizeof(dac_real) * B * N);
		double		worst = 0;
		int			k;

		for (i = 0; i < 2 * 128; i++)
			th[i] = (dac_real) mtheta[i];
		CHECK(dac_head_ll_many(&m->net.head, m->P, th, 2, X, B * N, many) == DAC_OK, "ns ll under two θ at once");
		for (k = 0; k < 2; k++)
		{
			dac_head_ll(&m->net.head, m->P, th + k * 128, X, B * N, one, NULL);
			for (i = 0; i < B * N; i++)
				worst = fmax(worst, fabs((double) many[k * B * N + i] - one[i]));
		}
		CHECK(worst <= TOL(1e-6), "ns: the images encoded once give the ll of one θ at a time (%.3g)", worst);
		free(th);
		free(many);
		free(one);
	}
	CHECK(wt <= TOL(5e-6), "ns masked theta: %.3g", wt);
	CHECK(wg <= TOL(5e-6), "ns masked logits (active rows): %.3g", wg);
	CHECK(wl <= TOL(5e-6), "ns masked ll (every row): %.3g", wl);
	printf("# parity ns masked = active rows: theta %.2e, logits %.2e, ll %.2e\n", wt, wg, wl);
	free(X);
	free(mask);
	free(mlogits);
	free(mll);
	free(mtheta);
}

/* The training loss of a batch and the gradient of every parameter. */
static void
check_ns_backward(dac_model *m, fixture *fx)
{
	int			B = 2,
				N = 50,
				L = m->net.cfg.latent,
				t;
	dac_real   *X = ns_rows(fx, B, N, L);
	int		   *labels = fx_int(fx, "labels");
	int		   *ref_argmin = fx_int(fx, "argmin");
	int			argmin[2];
	dac_real   *dlogits = malloc(sizeof(dac_real) * B * N);
	dac_real   *dll = malloc(sizeof(dac_real) * B * N);
	dac_real   *G = calloc(m->net.nparams, sizeof(dac_real));
	dac_arena	ar;
	dac_forward fw;
	dac_error	err;
	dac_loss_parts parts;
	double		worst = 0,
				worst_zero = 0;
	const char *worst_name = "";
	int			tensors = 0,
				buffers = 0;

	dac_arena_init(&ar, 0);
	if (dac_net_forward(&m->net, m->P, X, B, N, NULL, &ar, &fw, &err) != DAC_OK)
	{
		CHECK(0, "ns backward: forward failed: %s", err.msg);
		goto done;
	}
	dac_mlf_loss(fw.logits, fw.ll, labels, B, N, &parts, dlogits, dll, argmin, &err);
	{
		double		rl = scalar(fx, "loss"),
					rb = scalar(fx, "bce"),
					rll = scalar(fx, "ll");

		CHECK(fabs(parts.loss - rl) / fabs(rl) <= TOL(2e-6), "ns loss %.9g vs %.9g", parts.loss, rl);
		CHECK(fabs(parts.bce - rb) / fabs(rb) <= TOL(2e-6), "ns bce %.9g vs %.9g", parts.bce, rb);
		CHECK(fabs(parts.ll - rll) / fabs(rll) <= TOL(2e-6), "ns ll part %.9g vs %.9g", parts.ll, rll);
	}
	CHECK(ref_argmin && argmin[0] == ref_argmin[0] && argmin[1] == ref_argmin[1], "ns argmin clusters match");
	if (dac_net_backward(&m->net, m->P, G, &fw, dlogits, dll, &ar, &err) != DAC_OK)
	{
		CHECK(0, "ns backward: %s", err.msg);
		goto done;
	}
	for (t = 0; t < m->net.ntensors; t++)
	{
		const dac_param_info *p = &m->net.params[t];
		char		gname[128];
		size_t		cnt,
					i;
		double	   *ref,
					e,
					eabs,
					scale = 0;

		if (p->buffer)
		{
			/* running statistics and permutations: no gradient at all */
			for (i = 0; i < p->count; i++)
				if (G[p->offset + i] != 0)
					break;
			CHECK(i == p->count, "ns buffer %s has no gradient", p->name);
			buffers++;
			continue;
		}
		snprintf(gname, sizeof(gname), "grad.%.100s", p->name);
		ref = fx_f64(fx, gname, &cnt);
		if (ref == NULL || cnt != p->count)
		{
			CHECK(0, "ns reference has %s", gname);
			free(ref);
			continue;
		}
		tensors++;
		for (i = 0; i < cnt; i++)
			scale = fmax(scale, fabs(ref[i]));
		e = rel_err(ref, G + p->offset, cnt, &eabs);
		if (scale < 1e-12)
		{
			/* mathematically zero (a key bias, a bias before a BatchNorm): absolute bound */
			CHECK(eabs <= TOL(5e-6), "ns grad %s abs err %.3g", p->name, eabs);
			worst_zero = fmax(worst_zero, eabs);
		}
		else
		{
			CHECK(e <= TOL(2e-3) || eabs <= TOL(5e-6), "ns grad %s: err / scale %.3g (abs %.3g)", p->name, e, eabs);
			if (e > worst)
			{
				worst = e;
				worst_name = p->name;
			}
		}
		free(ref);
	}
	CHECK(tensors + buffers == m->net.ntensors && tensors == 173,
		  "ns: gradients of all %d parameter tensors compared (%d buffers)", tensors, buffers);
	printf("# parity ns gradients (%d tensors): worst err / scale %.2e (%s); zero ones abs %.2e\n",
		   tensors, worst, worst_name, worst_zero);
done:
	dac_arena_free(&ar);
	free(X);
	free(labels);
	free(ref_argmin);
	free(dlogits);
	free(dll);
	free(G);
}

/* The authors' cluster() on two sets of 100 images, replayed by the clustering loop. */
static void
check_ns_cluster(dac_model *m)
{
	fixture		fx;
	int			B = 2,
				N = 100,
				L = m->net.cfg.latent,
				T,
				b,
				i,
				k;
	dac_real   *X;
	int		   *labels;
	double	   *theta;
	dac_cluster_opts opts = dac_cluster_opts_default();

	if (!fixture_open(&fx, "mlf_ns.cluster.safetensors"))
		return;
	T = (int) st_find(&fx.f, "theta")->shape[1];
	X = ns_rows(&fx, B, N, L);
	labels = fx_int(&fx, "labels");
	theta = fx_f64(&fx, "theta", NULL);
	opts.canonical = 0;			/* the rows as the fixture has them, noise included */
	for (b = 0; b < B && X && labels && theta; b++)
	{
		dac_clustering c;
		dac_error	err;
		int			same = 1,
					found = 0;
		double		tw = 0,
					scale = 0;

		for (i = 0; i < N; i++)
			found = labels[b * N + i] + 1 > found ? labels[b * N + i] + 1 : found;
		if (dac_cluster_set(m, X + (size_t) b * N * (DAC_IMAGE_PIXELS + L), N, DAC_IMAGE_PIXELS + L,
							&opts, &c, &err) != DAC_OK)
		{
			CHECK(0, "ns cluster fixture set %d: %s", b, err.msg);
			continue;
		}
		for (i = 0; i < N; i++)
			same &= c.labels[i] - 1 == labels[b * N + i];
		CHECK(same && c.num_clusters == found && c.leftover == 0,
			  "ns set %d: the authors' labels, %d clusters (%d passes)", b, c.num_clusters, c.num_passes);
		for (k = 0; k < c.num_clusters && k < T; k++)
			for (i = 0; i < 128; i++)
			{
				double		ref = theta[((size_t) b * T + k) * 128 + i];

				scale = fmax(scale, fabs(ref));
				tw = fmax(tw, fabs((double) c.theta[(size_t) k * 128 + i] - ref));
			}
		CHECK(tw / scale <= TOL(5e-6), "ns set %d: θ of every cluster within %.2g of scale", b, tw / scale);
		dac_clustering_free(&c);
	}
	free(X);
	free(labels);
	free(theta);
	fixture_close(&fx);
}

/*
 * A weights file of the image model whose fixed buffers are wrong is
 * refused, naming the buffer: one F32 value of a tensor changed in place.
 */
static void
check_ns_buffers_refused(void)
{
	static const struct
	{
		const char *tensor;
		size_t		index;
		float		value;
		const char *says;
	}			cases[] = {
		{"prior.transform.transforms.1.p", 0, 0.5f, "not a permutation matrix"},
		{"prior.transform.transforms.3.sign_s", 7, 0.0f, "must hold 1 or -1"},
		{"prior.transform.transforms.5.l_mask", 1, 1.0f, "not the strictly lower mask"},
		{"prior.transform.transforms.7.eye", 0, 0.0f, "not the identity"},
		{"prior.transform.transforms.2.linear.mask", 1, 1.0f, "not the MADE mask"},
	};
	size_t		len,
				c;
	uint8_t    *buf = unit_read_file(unit_fixture("mlf_ns.weights.safetensors"), &len);

	if (buf == NULL)
	{
		CHECK(0, "read mlf_ns.weights.safetensors");
		return;
	}
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		st_file		f;
		const st_tensor *t;
		uint8_t    *copy = malloc(len);
		dac_model	m;
		dac_error	err;
		dac_status	st;

		memcpy(copy, buf, len);
		if (st_open(copy, len, &f, NULL) != DAC_OK || (t = st_find(&f, cases[c].tensor)) == NULL ||
			t->dtype != ST_F32)
		{
			CHECK(0, "ns fixture has an F32 %s", cases[c].tensor);
			free(copy);
			continue;
		}
		memcpy(copy + (f.data - copy) + t->begin + 4 * cases[c].index, &cases[c].value, 4);
		st_close(&f);
		st = dac_model_load(&m, copy, len, &err);
		CHECK(st == DAC_ERR_FORMAT && strstr(err.msg, cases[c].says) != NULL,
			  "ns: a wrong %s is refused (%s)", cases[c].tensor, st == DAC_OK ? "loaded" : err.msg);
		if (st == DAC_OK)
			dac_model_free(&m);
		free(copy);
	}
	free(buf);
}

static void
run_ns(void)
{
	dac_model	m;
	fixture		fx;

	if (!load_weights("mlf_ns.weights.safetensors", &m))
		return;
	CHECK(m.net.cfg.density == DAC_DENSITY_NS && m.net.cfg.latent == 128 &&
		  m.net.cfg.image_filters == 32 && m.net.head.ns.feat == 2048 && m.net.cfg.maf_blocks == 6,
		  "ns: the authors' image network, 32 filters, 128 latent, 2048 features, 6 MADE blocks");
	if (fixture_open(&fx, "mlf_ns.forward.safetensors"))
	{
		check_ns_train(&m, &fx);
		check_ns_eval(&m, &fx);
		fixture_close(&fx);
	}
	if (fixture_open(&fx, "mlf_ns.backward.safetensors"))
	{
		check_ns_backward(&m, &fx);
		fixture_close(&fx);
	}
	check_ns_cluster(&m);
	dac_model_free(&m);
	check_ns_buffers_refused();
}

void
test_parity(void)
{
	run_network("mlf");
	run_network("af");
	run_warped("mlf");
	run_warped("af");
	check_maf_config();
	run_ns();
}
