/*
 * test_train.c
 *	  Resumable training: a trainer restored from the saved weights and
 *	  optimiser state continues bit for bit as the original; the sampler of
 *	  labelled sets (k labels within one group, n rows without replacement
 *	  when there are enough); a short training run on labelled rows of
 *	  another dimension lowers the loss; a run on labelled rows with a
 *	  synthetic share; a step that runs its sets one at a time gives the
 *	  batch's loss and gradients.
 */
#include "unit.h"
#include "net.h"
#include "loss.h"
#include "train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static dac_config
small_config(dac_strategy s, int d)
{
	dac_config	c = dac_config_default(s, d);

	c.dim_hidden = 16;
	c.num_inds = 4;
	c.num_blocks = 2;
	return c;
}

static void
resume_case(dac_strategy s)
{
	dac_config	cfg = small_config(s, 2);
	dac_model	a,
				b,
				r;
	dac_train_opts o = dac_train_opts_default();
	dac_trainer ta,
				tb;
	dac_loss_parts p;
	uint8_t    *wbuf,
			   *sbuf;
	size_t		wlen,
				slen;
	dac_error	err;
	int			i,
				ok = 1;
	double		la = 0,
				lb = 0;

	o.steps = 20;
	o.batch = 3;
	o.n_max = 40;
	o.seed = 77;
	dac_model_create(&a, &cfg, NULL);
	dac_trainer_init(&ta, &a, &o, 1, NULL);
	for (i = 0; i < 7; i++)
		ok &= dac_trainer_step(&ta, &p, NULL) == DAC_OK;
	ok &= dac_model_save(&a, NULL, &wbuf, &wlen, NULL) == DAC_OK;
	ok &= dac_trainer_save_state(&ta, &sbuf, &slen, NULL) == DAC_OK;
	for (i = 0; i < 6; i++)
	{
		ok &= dac_trainer_step(&ta, &p, NULL) == DAC_OK;
		la = p.loss;
	}

	/* resume: weights and state from the checkpoint, a fresh trainer */
	ok &= dac_model_load(&b, wbuf, wlen, NULL) == DAC_OK;
	ok &= dac_trainer_init(&tb, &b, &o, 0, NULL) == DAC_OK;
	ok &= dac_trainer_load_state(&tb, sbuf, slen, &err) == DAC_OK;
	CHECK(ok && tb.step == 7, "%s: checkpoint at step 7 saved and restored", s == DAC_AF ? "AF" : "MLF");
	for (i = 0; i < 6; i++)
	{
		dac_trainer_step(&tb, &p, NULL);
		lb = p.loss;
	}
#ifndef DAC_DOUBLE
	CHECK(memcmp(a.P, b.P, sizeof(dac_real) * a.net.nparams) == 0 && la == lb &&
		  memcmp(ta.M, tb.M, sizeof(dac_real) * a.net.nparams) == 0,
		  "%s: resumed run equals the uninterrupted one bit for bit (loss %.6g / %.6g)",
		  s == DAC_AF ? "AF" : "MLF", la, lb);
#else
	/* weights files hold float32: the float64 build resumes from rounded values */
	CHECK(fabs(la - lb) <= 1e-4 * fabs(la), "%s: resumed run close to the uninterrupted one "
		  "(weights rounded to float32; loss %.8g / %.8g)", s == DAC_AF ? "AF" : "MLF", la, lb);
#endif

	/* a state for another architecture, and a corrupt one, are refused */
	{
		dac_config	c2 = small_config(s, 3);
		dac_trainer t2;

		dac_model_create(&r, &c2, NULL);
		dac_trainer_init(&t2, &r, &o, 1, NULL);
		CHECK(dac_trainer_load_state(&t2, sbuf, slen, &err) == DAC_ERR_FORMAT,
			  "state of another architecture refused: %s", err.msg);
		CHECK(dac_trainer_load_state(&tb, sbuf, slen / 2, &err) != DAC_OK,
			  "truncated state refused: %s", err.msg);
		dac_trainer_free(&t2);
		dac_model_free(&r);
	}
	dac_free(wbuf);
	dac_free(sbuf);
	dac_trainer_free(&ta);
	dac_trainer_free(&tb);
	dac_model_free(&a);
	dac_model_free(&b);
}

static void
sampler_case(void)
{
	/* 3 groups; group g has labels 4g .. 4g+3; label l has 5 + l rows */
	int			N = 0,
				l,
				i,
				b;
	int		   *y = malloc(sizeof(int) * 1000),
			   *grp = malloc(sizeof(int) * 1000);
	dac_real   *X = malloc(sizeof(dac_real) * 1000 * 3);
	dac_labelled ds;
	dac_rng		r;
	int			B = 50,
				n = 12,
				ok_group = 1,
				ok_k = 1,
				ok_consistent = 1,
				ok_unique = 1;
	dac_real   *SX = malloc(sizeof(dac_real) * B * n * 3);
	int		   *SY = malloc(sizeof(int) * B * n);

	for (l = 0; l < 12; l++)
		for (i = 0; i < 5 + l; i++, N++)
		{
			y[N] = l;
			grp[N] = l / 4;
			X[N * 3] = (dac_real) N;	/* the row id, to trace rows back */
			X[N * 3 + 1] = (dac_real) l;
			X[N * 3 + 2] = (dac_real) (l / 4);
		}
	CHECK(dac_labelled_init(&ds, X, y, grp, N, 3, NULL) == DAC_OK && ds.L == 12 && ds.G == 3,
		  "labelled index: 12 labels in 3 groups over %d rows", N);
	dac_rng_seed(&r, 9);
	CHECK(dac_sample_labelled(&ds, &r, B, n, 2, SX, SY, NULL) == DAC_OK, "sampled %d sets", B);
	for (b = 0; b < B; b++)
	{
		int			map[12],
					drawn[12] = {0},
					k = 0,
					j;

		for (l = 0; l < 12; l++)
			map[l] = -1;
		for (i = 0; i < n; i++)
		{
			const dac_real *x = SX + ((size_t) b * n + i) * 3;

			ok_group &= x[2] == SX[(size_t) b * n * 3 + 2];
			if (map[(int) x[1]] < 0)
			{
				map[(int) x[1]] = SY[b * n + i];
				k++;
			}
			drawn[(int) x[1]]++;
			ok_consistent &= map[(int) x[1]] == SY[b * n + i];
		}
		/* a label asked for no more rows than it has gives each row once */
		for (i = 0; i < n; i++)
			for (j = 0; j < i; j++)
			{
				const dac_real *xi = SX + ((size_t) b * n + i) * 3,
						   *xj = SX + ((size_t) b * n + j) * 3;

				if (xi[0] == xj[0] && drawn[(int) xi[1]] <= 5 + (int) xi[1])
					ok_unique = 0;
			}
		/* labels numbered 0 .. k-1 */
		for (i = 0; i < n; i++)
			ok_consistent &= SY[b * n + i] >= 0 && SY[b * n + i] < k;
		ok_k &= k >= 1 && k <= 2;
	}
	{
		/* shares drawn from Dir(1): for two labels, uniform, so |share − ½| averages ¼ */
		dac_labelled d3;
		int			y3[400],
					cnt2 = 0;
		double		dev = 0;
		dac_real	X3[400],
				   *S3 = malloc(sizeof(dac_real) * 400 * 40);
		int		   *L3 = malloc(sizeof(int) * 400 * 40);

		for (i = 0; i < 400; i++)
		{
			y3[i] = i % 2;
			X3[i] = (dac_real) (i % 2);
		}
		dac_labelled_init(&d3, X3, y3, NULL, 400, 1, NULL);
		dac_sample_labelled(&d3, &r, 400, 40, 2, S3, L3, NULL);
		for (b = 0; b < 400; b++)
		{
			int			ones = 0;

			for (i = 0; i < 40; i++)
				ones += L3[b * 40 + i];
			if (ones > 0)
			{
				dev += fabs(ones / 40.0 - 0.5);
				cnt2++;
			}
		}
		CHECK(cnt2 > 50 && fabs(dev / cnt2 - 0.25) < 0.05,
			  "two labels' shares are uniform (Dir(1)): mean |share − ½| %.3f over %d sets", dev / cnt2, cnt2);
		dac_labelled_free(&d3);
		free(S3);
		free(L3);
	}
	CHECK(ok_group, "every set's rows come from one group");
	CHECK(ok_k, "every set has 1 or 2 labels (k_max 2)");
	CHECK(ok_consistent, "one label per original label within a set");
	CHECK(ok_unique, "a label's rows drawn without replacement when it has enough");
	{
		int			bad[3] = {0, 1, 0},
					bg[3] = {0, 1, 1};
		dac_labelled d2;
		dac_error	err;

		CHECK(dac_labelled_init(&d2, X, bad, bg, 3, 3, &err) == DAC_ERR_INVALID,
			  "a label in two groups is refused: %s", err.msg);
	}

	/* training an MLF network without density on these 3-D rows lowers the loss */
	{
		dac_config	cfg = small_config(DAC_MLF, 3);
		dac_model	m;
		dac_train_opts o = dac_train_opts_default();
		dac_trainer t;
		dac_loss_parts p;
		double		first = 0,
					last = 0;

		/* well-separated labels: feature = label centre + noise */
		for (i = 0; i < N; i++)
		{
			X[i * 3] = (dac_real) (3 * (y[i] % 4) + 0.3 * dac_rng_normal(&r));
			X[i * 3 + 1] = (dac_real) (3 * (y[i] / 4) + 0.3 * dac_rng_normal(&r));
			X[i * 3 + 2] = (dac_real) (0.3 * dac_rng_normal(&r));
		}
		cfg.density = DAC_DENSITY_NONE;
		dac_model_create(&m, &cfg, NULL);
		o.source = &ds;
		o.steps = 150;
		o.batch = 4;
		o.n_max = 30;
		o.k_max = 3;
		o.adam.lr = 2e-3;
		dac_trainer_init(&t, &m, &o, 1, NULL);
		for (i = 0; i < o.steps; i++)
		{
			dac_trainer_step(&t, &p, NULL);
			if (i < 20)
				first += p.loss / 20;
			if (i >= o.steps - 20)
				last += p.loss / 20;
		}
		CHECK(last < 0.7 * first, "training on labelled 3-D rows: loss %.3f -> %.3f", first, last);
		dac_trainer_free(&t);
		dac_model_free(&m);
	}
	dac_labelled_free(&ds);
	free(y);
	free(grp);
	free(X);
	free(SX);
	free(SY);
}

/*
 * A small setnorm model trained `steps` steps on ds (NULL: on the embed
 * generator at width d) with a synthetic share; each step's loss into loss
 * (NaN after a failed step).  The trainer's status.
 */
static dac_status
share_run(dac_labelled *ds, int d, double share, int steps, double *loss, dac_error *err)
{
	dac_config	cfg = small_config(DAC_MLF, 4);
	dac_model	m;
	dac_train_opts o = dac_train_opts_default();
	dac_trainer t;
	dac_loss_parts p;
	dac_status	st;
	int			i;

	cfg.density = DAC_DENSITY_NONE;
	cfg.input = DAC_INPUT_SETNORM;
	dac_model_create(&m, &cfg, NULL);
	o.data = DAC_GEN_EMBED;
	o.data_dim = ds ? 0 : d;
	o.source = ds;
	o.synthetic_share = share;
	o.steps = steps;
	o.batch = 2;
	o.n_max = 30;
	o.k_max = 3;
	o.seed = 9;
	if ((st = dac_trainer_init(&t, &m, &o, 1, err)) == DAC_OK)
	{
		for (i = 0; i < steps; i++)
			loss[i] = dac_trainer_step(&t, &p, NULL) == DAC_OK ? p.loss : NAN;
		dac_trainer_free(&t);
	}
	dac_model_free(&m);
	return st;
}

/*
 * A run on labelled rows with a synthetic share: share 1 trains as a run on
 * the generator at the rows' width (the same losses, bit for bit), share 0 as
 * a run on the rows alone, a share between trains; a share outside 0..1, or
 * one without rows, is refused.
 */
static void
synthetic_share_case(void)
{
	const int	N = 120,
				d = 6,
				steps = 4;
	dac_real   *X = malloc(sizeof(dac_real) * N * d);
	int		   *y = malloc(sizeof(int) * N);
	dac_labelled ds;
	dac_rng		r;
	double		gen[4],
				one[4],
				rows[4],
				zero[4],
				half[20];
	int			i,
				same1 = 1,
				same0 = 1,
				differs = 0,
				finite = 1;
	dac_error	err;

	dac_rng_seed(&r, 11);
	for (i = 0; i < N * d; i++)
		X[i] = (dac_real) (4.0 * (i % d == (i / d) % 3) + dac_rng_normal(&r));
	for (i = 0; i < N; i++)
		y[i] = i % 3;
	dac_labelled_init(&ds, X, y, NULL, N, d, NULL);
	share_run(NULL, d, 0, steps, gen, NULL);
	CHECK(share_run(&ds, d, 1, steps, one, &err) == DAC_OK, "a trainer with synthetic share 1: %s", err.msg);
	share_run(&ds, d, 0, steps, rows, NULL);
	share_run(&ds, d, 0, steps, zero, NULL);
	for (i = 0; i < steps; i++)
	{
		same1 &= gen[i] == one[i];
		same0 &= rows[i] == zero[i];
		differs |= gen[i] != rows[i];
	}
	CHECK(same1 && same0 && differs,
		  "synthetic share 1 trains as the generator at the rows' width, 0 as the rows alone (first losses %.5f / %.5f, %.5f / %.5f)",
		  gen[0], one[0], rows[0], zero[0]);
	CHECK(share_run(&ds, d, 0.5, 20, half, NULL) == DAC_OK, "a run with synthetic share 0.5 starts");
	for (i = 0; i < 20; i++)
		finite &= isfinite(half[i]);
	CHECK(finite, "a run with synthetic share 0.5 trains 20 steps");
	CHECK(share_run(&ds, d, 1.5, 1, half, &err) == DAC_ERR_INVALID, "a synthetic share of 1.5 is refused: %s", err.msg);
	CHECK(share_run(NULL, d, 0.5, 1, half, &err) == DAC_ERR_INVALID,
		  "a synthetic share without labelled rows is refused: %s", err.msg);
	dac_labelled_free(&ds);
	free(y);
	free(X);
}

/* --mix: odd steps draw sets of the alternate size and cluster count */
static void
mix_case(void)
{
	dac_config	cfg = small_config(DAC_MLF, 2);
	dac_model	m;
	dac_train_opts o = dac_train_opts_default();
	dac_trainer t;
	dac_loss_parts p;
	dac_error	err;
	int			nm,
				km,
				i,
				s,
				ok_shape = 1,
				ok_primary = 1,
				max_label = 0;

	dac_model_create(&m, &cfg, NULL);
	o.steps = 6;
	o.batch = 3;
	o.n_max = 12;
	o.k_max = 1;
	o.fixed_n = 1;
	o.alt_n_max = 40;
	o.alt_k_max = 0;
	CHECK(dac_trainer_init(&t, &m, &o, 1, &err) == DAC_ERR_INVALID,
		  "an alternate n_max without k_max is refused: %s", err.msg);
	o.alt_k_max = 3;
	CHECK(dac_trainer_init(&t, &m, &o, 1, &err) == DAC_OK, "mixed trainer starts");
	for (s = 0; s < 6; s++)
	{
		dac_trainer_next_shape(&t, &nm, &km);
		ok_shape &= s % 2 == 0 ? (nm == 12 && km == 1) : (nm == 40 && km == 3);
		dac_trainer_step(&t, &p, NULL);
		for (i = 0; i < o.batch * nm; i++)
		{
			if (s % 2 == 0)
				ok_primary &= t.labels[i] == 0;
			else if (t.labels[i] > max_label)
				max_label = t.labels[i];
		}
		ok_shape &= isfinite(p.loss);
	}
	CHECK(ok_shape, "even steps draw (12, 1), odd steps (40, 3), finite losses");
	CHECK(ok_primary, "k_max 1 steps have one label");
	CHECK(max_label >= 1 && max_label <= 2, "the alternate steps draw up to 3 clusters (max label %d)",
		  max_label);
	dac_trainer_free(&t);

	/* two mix steps per plain step: steps 0, 3, 6 plain, the rest mixed */
	o.alt_ratio = 0;
	CHECK(dac_trainer_init(&t, &m, &o, 1, &err) == DAC_ERR_INVALID, "mix ratio 0 is refused: %s", err.msg);
	o.alt_ratio = 2;
	o.steps = 7;
	CHECK(dac_trainer_init(&t, &m, &o, 1, &err) == DAC_OK, "trainer with mix ratio 2 starts");
	ok_shape = 1;
	for (s = 0; s < 7; s++)
	{
		dac_trainer_next_shape(&t, &nm, &km);
		ok_shape &= s % 3 == 0 ? (nm == 12 && km == 1) : (nm == 40 && km == 3);
		CHECK(dac_trainer_step(&t, &p, NULL) == DAC_OK && isfinite(p.loss), "ratio-2 step %d", s);
	}
	CHECK(ok_shape, "mix ratio 2: steps 0, 3 and 6 draw (12, 1), the others (40, 3)");
	dac_trainer_free(&t);
	dac_model_free(&m);
}

/*
 * A step runs its sets one at a time: the loss and the gradients are those
 * of the whole batch through the network and the loss at once (to
 * rounding); MLF labels numbered across the batch (so above n in a set)
 * give the same step bit for bit.
 */
static void
batch_case(dac_strategy s)
{
	enum
	{
		B = 3, N = 20
	};
	dac_config	cfg = small_config(s, 2);
	dac_model	m,
				m2;
	dac_train_opts o = dac_train_opts_default();
	dac_trainer t,
				t2;
	dac_loss_parts p,
				p2,
				ref;
	dac_forward fw;
	dac_arena	ar;
	dac_rng		r;
	dac_real	X[B * N * 2],
				dl[B * N],
				dll[B * N];
	dac_real   *Gref;
	int			labels[B * N],
				spread[B * N],
				anchors[B] = {1, 4, 7};
	double		worst = 0,
				scale = 0;
	size_t		i;
	int			same = 1;

	o.batch = B;
	o.n_max = N;
	o.adam.clip = 0;			/* the step's gradients unclipped */
	dac_rng_seed(&r, 5);
	for (i = 0; i < B * N; i++)
	{
		labels[i] = (int) (i % 3);
		spread[i] = labels[i] + 3 * (int) (i / N);	/* set b: 3b .. 3b+2 */
		X[2 * i] = (dac_real) (labels[i] * 2 + 0.4 * (2 * dac_rng_uniform(&r) - 1));
		X[2 * i + 1] = (dac_real) (0.4 * (2 * dac_rng_uniform(&r) - 1));
	}
	for (i = 0; i < B * N; i++)
		spread[i] += (i / N == 2) ? 3 * N - 9 : 0;	/* the last set's labels above n */
	dac_model_create(&m, &cfg, NULL);
	dac_trainer_init(&t, &m, &o, 1, NULL);
	dac_model_create(&m2, &cfg, NULL);
	memcpy(m2.P, m.P, sizeof(dac_real) * m.net.nparams);
	dac_trainer_init(&t2, &m2, &o, 0, NULL);

	/* the reference: the batch at once, on the weights before the step */
	Gref = calloc(m.net.nparams, sizeof(dac_real));
	dac_arena_init(&ar, 0);
	dac_net_forward(&m.net, m.P, X, B, N, s == DAC_AF ? anchors : NULL, &ar, &fw, NULL);
	if (s == DAC_MLF)
		dac_mlf_loss(fw.logits, fw.ll, labels, B, N, &ref, dl, dll, NULL, NULL);
	else
		dac_af_loss(fw.logits, fw.ll, labels, anchors, B, N, &ref, dl, dll, NULL);
	dac_net_backward(&m.net, m.P, Gref, &fw, dl, fw.ll ? dll : NULL, &ar, NULL);
	dac_arena_free(&ar);

	CHECK(dac_trainer_step_batch(&t, X, labels, anchors, B, N, &p, NULL) == DAC_OK,
		  "%s: a step on a given batch", s == DAC_MLF ? "MLF" : "AF");
	for (i = 0; i < m.net.nparams; i++)
	{
		worst = fmax(worst, fabs((double) t.G[i] - Gref[i]));
		scale = fmax(scale, fabs((double) Gref[i]));
	}
#ifdef DAC_DOUBLE
#define BATCH_TOL 1e-10
#else
#define BATCH_TOL 1e-5
#endif
	CHECK(worst <= BATCH_TOL * scale && fabs(p.loss - ref.loss) <= BATCH_TOL * (1 + fabs(ref.loss)) &&
		  fabs(p.bce - ref.bce) <= BATCH_TOL * (1 + fabs(ref.bce)) &&
		  fabs(p.ll - ref.ll) <= BATCH_TOL * (1 + fabs(ref.ll)),
		  "%s: sets one at a time give the batch's gradients (worst %.3g of %.3g) and loss (%.6f, %.6f)",
		  s == DAC_MLF ? "MLF" : "AF", worst, scale, p.loss, ref.loss);
	if (s == DAC_MLF)
	{
		CHECK(dac_trainer_step_batch(&t2, X, spread, anchors, B, N, &p2, NULL) == DAC_OK,
			  "MLF: labels numbered across the batch are taken");
		for (i = 0; i < m.net.nparams; i++)
			same &= t2.G[i] == t.G[i] && m2.P[i] == m.P[i];
		CHECK(same && p2.loss == p.loss, "MLF: labels above n in a set give the same step bit for bit");
	}
	free(Gref);
	dac_trainer_free(&t);
	dac_trainer_free(&t2);
	dac_model_free(&m);
	dac_model_free(&m2);
}

/*
 * A scaled model trains on each set in its frame: the same labelled rows in
 * other units and origin (x · 1000 + 5000) give the same first steps' losses
 * and the same weights, the same seed drawing the same sets.
 */
static void
scaled_training_case(void)
{
	int			N = 240,
				i,
				u;
	int		   *y = malloc(sizeof(int) * N);
	dac_real   *X = malloc(sizeof(dac_real) * N * 2 * 2);
	double		loss[2][3];
	dac_model	m[2];
	dac_rng		r;
	double		wdiff = 0;

	dac_rng_seed(&r, 41);
	for (i = 0; i < N; i++)
	{
		y[i] = i % 4;
		X[i * 2] = (dac_real) (2.0 * (y[i] % 2) + 0.25 * dac_rng_normal(&r));
		X[i * 2 + 1] = (dac_real) (2.0 * (y[i] / 2) + 0.25 * dac_rng_normal(&r));
		X[N * 2 + i * 2] = (dac_real) (X[i * 2] * 1000.0 + 5000.0);
		X[N * 2 + i * 2 + 1] = (dac_real) (X[i * 2 + 1] * 1000.0 + 5000.0);
	}
	for (u = 0; u < 2; u++)
	{
		dac_config	cfg = small_config(DAC_MLF, 2);
		dac_train_opts o = dac_train_opts_default();
		dac_labelled ds;
		dac_trainer t;
		dac_loss_parts p;

		cfg.input = DAC_INPUT_SCALED;
		cfg.unit_width = 0.25;
		dac_model_create(&m[u], &cfg, NULL);
		dac_labelled_init(&ds, X + (size_t) u * N * 2, y, NULL, N, 2, NULL);
		o.source = &ds;
		o.steps = 3;
		o.batch = 3;
		o.n_max = 40;
		o.k_max = 3;
		o.seed = 5;
		dac_trainer_init(&t, &m[u], &o, 1, NULL);
		for (i = 0; i < 3; i++)
		{
			dac_trainer_step(&t, &p, NULL);
			loss[u][i] = p.loss;
		}
		dac_trainer_free(&t);
		dac_labelled_free(&ds);
	}
	for (i = 0; i < (int) m[0].net.nparams; i++)
		wdiff = fmax(wdiff, fabs((double) m[0].P[i] - m[1].P[i]));
	/* rounding of the rows in float moves the frame a little; Adam moves a weight ~lr a step */
	CHECK(fabs(loss[0][0] - loss[1][0]) < 1e-3 * fabs(loss[0][0]) &&
		  fabs(loss[0][2] - loss[1][2]) < 1e-3 * fabs(loss[0][2]) && wdiff < 3 * 2 * 5e-4,
		  "a scaled model trains the same on rows in other units (losses %.5f / %.5f, %.5f / %.5f; weights within %.2g)",
		  loss[0][0], loss[1][0], loss[0][2], loss[1][2], wdiff);
	dac_model_free(&m[0]);
	dac_model_free(&m[1]);
	free(y);
	free(X);
}

/*
 * The option table (options.h) is where the trainer's defaults and ranges
 * come from: dac_train_opts_default equals the table's defaults, and
 * dac_train_opts_check refuses what the table refuses (n_max 3: the SQL
 * layer's bound, which the core and dac-cli used to put at 2).
 */
static void
option_table_case(void)
{
	dac_train_opts o = dac_train_opts_default();
	dac_config	cfg = dac_config_default(DAC_MLF, 2);
	dac_error	err;
	const dac_option *t;
	int			count = 0,
				sane = 1;
	dac_status	st;

	CHECK(o.batch == dac_option_default(dac_train_option("batch")) &&
		  o.n_max == dac_option_default(dac_train_option("n_max")) &&
		  o.k_max == dac_option_default(dac_train_option("k_max")) &&
		  o.steps == dac_option_default(dac_train_option("steps")) &&
		  o.alt_ratio == dac_option_default(dac_train_option("mix_ratio")) &&
		  o.adam.lr == dac_option_default(dac_train_option("lr")) && o.adam.lr == 5e-4 &&
		  o.adam.clip == dac_option_default(dac_train_option("clip")) &&
		  o.seed == (uint64_t) dac_option_default(dac_train_option("seed")),
		  "the trainer's defaults are the option table's (batch %d, n_max %d, steps %ld, lr %g)",
		  o.batch, o.n_max, o.steps, o.adam.lr);
	for (t = dac_train_options; t->name; t++)
	{
		double		d = dac_option_default(t),
					v;

		count++;
		if (t->kind == DAC_OPT_INT || t->kind == DAC_OPT_REAL)
			sane &= dac_option_lo(t) <= dac_option_hi(t) &&
				(t->def[0] == '\0' || dac_option_check(t, d, NULL) == DAC_OK);
		else
			sane &= dac_option_value(t, NULL, &v, NULL) == DAC_OK && v == d && t->bare == NULL;
	}
	CHECK(count >= 25 && sane, "%d training options, each default within its range", count);
	count = 0;
	sane = 1;
	for (t = dac_cluster_options; t->name; t++)
	{
		double		v,
					b;

		count++;
		/* both defaults, the setting's and the bare loop's, are values the option takes */
		sane &= dac_option_value(t, NULL, &v, NULL) == DAC_OK &&
			dac_option_value(t, t->bare, &b, NULL) == DAC_OK;
	}
	CHECK(count >= 17 && sane, "%d clustering options, both defaults within their ranges", count);
	o.n_max = 3;
	st = dac_train_opts_check(&o, &cfg, &err);
	CHECK(st == DAC_ERR_INVALID && strstr(err.msg, "\"n_max\" must be between 4 and 1000000") != NULL,
		  "n_max 3 refused as SQL refuses it: %s", st == DAC_OK ? "accepted" : err.msg);
	o = dac_train_opts_default();
	o.adam.lr = 0;
	st = dac_train_opts_check(&o, &cfg, &err);
	CHECK(st == DAC_ERR_INVALID && strstr(err.msg, "greater than 0 and at most 1") != NULL, "lr 0 refused: %s",
		  st == DAC_OK ? "accepted" : err.msg);
	/* the kinds' names, one table in the core (net.h) that the JSON, SQL and dac-cli share */
	{
		dac_strategy sk = DAC_MLF;
		dac_density dk = DAC_DENSITY_GAUSSIAN;
		dac_input ik = DAC_INPUT_RAW;
		int			round = dac_strategy_parse(dac_strategy_name(DAC_AF), &sk) && sk == DAC_AF &&
			dac_strategy_parse("mlf", &sk) && sk == DAC_MLF &&
			dac_density_parse(dac_density_name(DAC_DENSITY_MAF), &dk) && dk == DAC_DENSITY_MAF &&
			dac_density_parse("none", &dk) && dk == DAC_DENSITY_NONE &&
			dac_input_parse(dac_input_name(DAC_INPUT_SCALED), &ik) && ik == DAC_INPUT_SCALED &&
			dac_input_parse("setnorm", &ik) && ik == DAC_INPUT_SETNORM &&
			strcmp(dac_input_name(DAC_INPUT_RAW), "raw") == 0,
					refused = !dac_strategy_parse("AF", &sk) && sk == DAC_MLF && !dac_density_parse("flow", &dk) &&
			!dac_input_parse(NULL, &ik) && !dac_input_parse("", &ik) && ik == DAC_INPUT_SETNORM;

		CHECK(round && refused, "kind names: each name parses to its kind and back; others refused, the kind untouched");
	}
	CHECK(dac_option_check(dac_train_option("steps"), 2.5, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "whole number") != NULL && dac_train_option("no_such") == NULL,
		  "a fractional step count is refused; an unknown name is not in the table");
}

void
test_train(void)
{
	option_table_case();
	resume_case(DAC_MLF);
	resume_case(DAC_AF);
	sampler_case();
	mix_case();
	synthetic_share_case();
	batch_case(DAC_MLF);
	batch_case(DAC_AF);
	scaled_training_case();
}
