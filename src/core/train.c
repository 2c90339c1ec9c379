/*
 * train.c
 *	  One training step: forward, loss, backward, clip, Adam.
 */
#include "train.h"

#include <string.h>

dac_train_opts
dac_train_opts_default(void)
{
	dac_train_opts o;

	o.data = DAC_GEN_MOG;
	o.batch = 10;
	o.n_max = 300;
	o.fixed_n = 0;
	o.k_max = 4;
	o.steps = 1000;
	o.adam = dac_adam_default(o.steps);
	o.seed = 1;
	return o;
}

dac_status
dac_train_opts_check(const dac_train_opts *o, const dac_config *cfg, dac_error *err)
{
	if (o->batch < 1 || o->batch > 100000)
		return dac_fail(err, DAC_ERR_INVALID, "batch must be between 1 and 100000");
	if (o->n_max < 2 || o->n_max > 1000000)
		return dac_fail(err, DAC_ERR_INVALID, "n_max must be between 2 and 1000000");
	if (o->k_max < 1 || o->k_max > 10000)
		return dac_fail(err, DAC_ERR_INVALID, "k_max must be between 1 and 10000");
	if (o->steps < 1)
		return dac_fail(err, DAC_ERR_INVALID, "steps must be at least 1");
	if (!(o->adam.lr > 0) || o->adam.lr > 1)
		return dac_fail(err, DAC_ERR_INVALID, "lr must be in (0, 1]");
	if (!(o->adam.clip >= 0))
		return dac_fail(err, DAC_ERR_INVALID, "clip must be non-negative");
	if (o->data == DAC_GEN_WARPED && cfg->dim_input != 2)
		return dac_fail(err, DAC_ERR_INVALID, "the warped generator needs a model with dim_input 2");
	return DAC_OK;
}

dac_status
dac_trainer_init(dac_trainer *t, dac_model *model, const dac_train_opts *opts,
				 int init_params, dac_error *err)
{
	size_t		np = model->net.nparams,
				rows,
				bytes;
	dac_status	st;

	memset(t, 0, sizeof(*t));
	if ((st = dac_train_opts_check(opts, &model->net.cfg, err)) != DAC_OK)
		return st;
	t->model = model;
	t->opts = *opts;
	dac_rng_seed(&t->rng, opts->seed);
	if (init_params)
		dac_net_init_params(&model->net, model->P, &t->rng);
	rows = (size_t) opts->batch * opts->n_max;
	if (!dac_mul_size(np, 3 * sizeof(dac_real), &bytes) ||
		(t->G = dac_alloc_zero(bytes)) == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory for the optimiser state");
	t->M = t->G + np;
	t->V = t->M + np;
	t->X = dac_alloc(sizeof(dac_real) * rows * model->net.cfg.dim_input);
	t->labels = dac_alloc(sizeof(int) * rows);
	t->anchors = dac_alloc(sizeof(int) * (size_t) opts->batch);
	if (!t->X || !t->labels || !t->anchors)
	{
		dac_trainer_free(t);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory for a batch of %zu points", rows);
	}
	dac_arena_init(&t->arena, (size_t) 4 << 20);
	return DAC_OK;
}

void
dac_trainer_free(dac_trainer *t)
{
	dac_free(t->G);
	dac_free(t->X);
	dac_free(t->labels);
	dac_free(t->anchors);
	dac_arena_free(&t->arena);
	t->G = t->M = t->V = NULL;
	t->X = NULL;
	t->labels = t->anchors = NULL;
}

dac_status
dac_trainer_step_batch(dac_trainer *t, const dac_real *X, const int *labels,
					   const int *anchors, int B, int n, dac_loss_parts *out,
					   dac_error *err)
{
	const dac_net *net = &t->model->net;
	size_t		np = net->nparams;
	dac_forward fw;
	dac_real   *dl,
			   *dll;
	dac_arena_mark mark = dac_arena_get_mark(&t->arena);
	dac_status	st;
	double		lr;
	int			b;

	if (net->cfg.strategy == DAC_AF && anchors == NULL)
	{
		for (b = 0; b < B; b++)
			t->anchors[b] = dac_rng_int(&t->rng, n);
		anchors = t->anchors;
	}
	memset(t->G, 0, sizeof(dac_real) * np);
	st = dac_net_forward(net, t->model->P, X, B, n, anchors, &t->arena, &fw, err);
	if (st != DAC_OK)
		goto out;
	dl = dac_arena_reals(&t->arena, (size_t) B * n);
	dll = dac_arena_reals(&t->arena, (size_t) B * n);
	if (!dl || !dll)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory in a training step");
		goto out;
	}
	if (net->cfg.strategy == DAC_MLF)
		st = dac_mlf_loss(fw.logits, fw.ll, labels, B, n, out, dl, dll, NULL, err);
	else
		st = dac_af_loss(fw.logits, fw.ll, labels, anchors, B, n, out, dl, dll, err);
	if (st != DAC_OK)
		goto out;
	st = dac_net_backward(net, t->model->P, t->G, &fw, dl, fw.ll ? dll : NULL, &t->arena, err);
	if (st != DAC_OK)
		goto out;
	t->grad_norm = dac_clip_grad_norm(t->G, np, t->opts.adam.clip);
	lr = dac_cosine_lr(t->opts.adam.lr, t->step, t->opts.steps);
	dac_adam_update(t->model->P, t->G, t->M, t->V, np, t->step + 1, lr, &t->opts.adam);
	t->step++;
out:
	dac_arena_reset_to(&t->arena, mark);
	return st;
}

dac_status
dac_trainer_step(dac_trainer *t, dac_loss_parts *out, dac_error *err)
{
	int			n = t->opts.fixed_n ? t->opts.n_max : dac_sample_n(&t->rng, t->opts.n_max);
	dac_status	st;

	st = dac_generate(t->opts.data, &t->rng, t->opts.batch, n, t->opts.k_max,
					  t->model->net.cfg.dim_input, t->X, t->labels, NULL, err);
	if (st != DAC_OK)
		return st;
	return dac_trainer_step_batch(t, t->X, t->labels, NULL, t->opts.batch, n, out, err);
}
