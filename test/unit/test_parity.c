/*
 * test_parity.c
 *	  Every tensor of ../shared/fixtures/reference, produced by the authors'
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
		e->theta = rel_err(theta, fw.theta, (size_t) B * 4, NULL);
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
			memcpy(got_logit, fw.logits, sizeof(dac_real) * na);
			e = rel_err(theta + b * 4, fw.theta, 4, NULL);
			wt = e > wt ? e : wt;
			e = rel_err(ref_logit, got_logit, na, NULL);
			wg = e > wg ? e : wg;
			/* ll of every row, masked ones too, under the masked call's θ */
			dac_gauss_ll(X + (size_t) b * n * d, n, d, fw.theta, ll_all);
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

void
test_parity(void)
{
	run_network("mlf");
	run_network("af");
}
