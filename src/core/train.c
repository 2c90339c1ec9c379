/*
 * train.c
 *	  One training step: forward, loss, backward, clip, Adam.
 */
#include "train.h"
#include "cluster.h"

#include "labels.h"
#include "linalg.h"
#include "safetensors.h"
#include "frame.h"
#include "setnorm.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dac_train_opts
dac_train_opts_default(void)
{
	dac_train_opts o;

	/* every number from the option table (options.h) */
	o.data = DAC_GEN_MOG;
	o.batch = (int) dac_option_default(dac_train_option("batch"));
	o.n_max = (int) dac_option_default(dac_train_option("n_max"));
	o.fixed_n = 0;
	o.k_max = (int) dac_option_default(dac_train_option("k_max"));
	o.alt_n_max = (int) dac_option_default(dac_train_option("mix_n_max"));
	o.alt_k_max = (int) dac_option_default(dac_train_option("mix_k_max"));
	o.alt_ratio = (int) dac_option_default(dac_train_option("mix_ratio"));
	o.steps = (long) dac_option_default(dac_train_option("steps"));
	o.adam = dac_adam_default(o.steps);
	o.adam.lr = dac_option_default(dac_train_option("lr"));
	o.adam.clip = dac_option_default(dac_train_option("clip"));
	o.seed = (uint64_t) dac_option_default(dac_train_option("seed"));
	o.source = NULL;
	o.data_dim = 0;
	o.distort = 0;
	o.synthetic_share = 0;
	return o;
}

dac_status
dac_train_opts_check(const dac_train_opts *o, const dac_config *cfg, dac_error *err)
{
	dac_status	st;

	/* the ranges of the option table (options.h); a mix's sizes those of n_max and k_max */
	if ((st = dac_option_check(dac_train_option("batch"), o->batch, err)) != DAC_OK ||
		(st = dac_option_check(dac_train_option("n_max"), o->n_max, err)) != DAC_OK ||
		(st = dac_option_check(dac_train_option("k_max"), o->k_max, err)) != DAC_OK ||
		(st = dac_option_check(dac_train_option("mix_ratio"), o->alt_ratio, err)) != DAC_OK ||
		(st = dac_option_check(dac_train_option("steps"), (double) o->steps, err)) != DAC_OK ||
		(st = dac_option_check(dac_train_option("lr"), o->adam.lr, err)) != DAC_OK ||
		(st = dac_option_check(dac_train_option("clip"), o->adam.clip, err)) != DAC_OK)
		return st;
	if ((o->alt_n_max != 0 || o->alt_k_max != 0) &&
		(dac_option_check(dac_train_option("n_max"), o->alt_n_max, NULL) != DAC_OK ||
		 dac_option_check(dac_train_option("k_max"), o->alt_k_max, NULL) != DAC_OK))
		return dac_fail(err, DAC_ERR_INVALID,
						"the alternate n_max and k_max must both be set, within the ranges of n_max and k_max");
	if (o->source && !dac_config_accepts(cfg, o->source->d))
		return dac_fail(err, DAC_ERR_INVALID, "the training vectors have %d dimensions, the model takes %d",
						o->source->d, cfg->dim_input);
	if (o->data_dim != 0 && !dac_config_accepts(cfg, o->data_dim))
		return dac_fail(err, DAC_ERR_INVALID, "generated sets of width %d do not fit a model that takes %d",
						o->data_dim, cfg->dim_input);
	if (!(o->synthetic_share >= 0 && o->synthetic_share <= 1) || (o->synthetic_share > 0 && !o->source))
		return dac_fail(err, DAC_ERR_INVALID, "a synthetic share is a number from 0 to 1, for a run on labelled rows");
	if (o->data == DAC_GEN_WARPED && (!o->source || o->synthetic_share > 0) &&
		(o->source ? o->source->d : o->data_dim ? o->data_dim : cfg->dim_input) != 2)
		return dac_fail(err, DAC_ERR_INVALID, "the warped generator needs a model with dim_input 2");
	if (cfg->density == DAC_DENSITY_NS && (!o->source || o->synthetic_share > 0 || o->source->d != cfg->dim_input))
		return dac_fail(err, DAC_ERR_INVALID, "the image model trains on labelled images of %d pixels",
						cfg->dim_input);
	if (cfg->density == DAC_DENSITY_NS &&
		(st = dac_ns_check_pixels(o->source->X, (size_t) o->source->N * o->source->d, err)) != DAC_OK)
		return st;
	return DAC_OK;
}

double
dac_trainer_bytes(const dac_model *model, const dac_train_opts *opts)
{
	const dac_net *net = &model->net;
	double		w = dac_config_row_width(&net->cfg),
				largest = opts->alt_n_max > opts->n_max ? opts->alt_n_max : opts->n_max,
				rows = (double) opts->batch * largest,
				raw = opts->source ? opts->source->d : opts->data_dim ? opts->data_dim : w,
				k_max = opts->alt_k_max > opts->k_max ? opts->alt_k_max : opts->k_max,
				need;

	/* gradients and Adam's moments; the batch; the activations of a step */
	need = 3.0 * sizeof(dac_real) * (double) net->nparams + rows * (sizeof(dac_real) * w + sizeof(int)) +
		sizeof(int) * (double) opts->batch + dac_net_infer_bytes(net, opts->batch, (int) largest) * 20.0;
	/* a normalising model: the sets as drawn, the transform's scratch (its p x p matrices) */
	if (net->cfg.input == DAC_INPUT_SETNORM)
	{
		need += rows * raw * sizeof(dac_real) + dac_setnorm_bytes((int) largest, (int) raw, (int) w) +
			(net->cfg.map_dim > 0 ? sizeof(dac_real) * largest * raw : 0);
		if (opts->distort > 0)
			need += sizeof(dac_real) * (largest * w + w * w) + dac_setnorm_bytes((int) largest, (int) w, (int) w);
	}
	/*
	 * the image model: the batch's images as drawn, and a step's activations
	 * (about 60,000 values an image in training) and its convolutions' columns
	 */
	if (net->cfg.density == DAC_DENSITY_NS)
		need += rows * (raw + 1.2e5) * sizeof(dac_real) + 4.0 * (1 << 22) * sizeof(dac_real);
	/* a scaled model: one set in double and the frame's scratch */
	if (net->cfg.input == DAC_INPUT_SCALED)
		need += sizeof(double) * largest * w + dac_frame_bytes((int) largest, (int) w);
	/* the generator's scratch (its per-cluster tables) */
	if (!opts->source || opts->synthetic_share > 0)
		need += dac_generate_bytes(opts->data, (int) k_max, (int) raw);
	return need;
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
	/* P changes every step: passes over this model compute fc_q themselves */
	dac_model_forget_fixed(model);
	dac_rng_seed(&t->rng, opts->seed);
	if (init_params)
		dac_net_init_params(&model->net, model->P, &t->rng);
	rows = (size_t) opts->batch * (opts->alt_n_max > opts->n_max ? opts->alt_n_max : opts->n_max);
	if (!dac_mul_size(np, 3 * sizeof(dac_real), &bytes) ||
		(t->G = dac_alloc_zero(bytes)) == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory for the optimiser state");
	t->M = t->G + np;
	t->V = t->M + np;
	t->X = dac_alloc(sizeof(dac_real) * rows * dac_config_row_width(&model->net.cfg));
	t->labels = dac_alloc(sizeof(int) * rows);
	t->anchors = dac_alloc(sizeof(int) * (size_t) opts->batch);
	t->raw_dim = opts->source ? opts->source->d : opts->data_dim ? opts->data_dim : model->net.cfg.dim_input;
	if (model->net.cfg.input == DAC_INPUT_SETNORM || model->net.cfg.density == DAC_DENSITY_NS)
		t->Xraw = dac_alloc(sizeof(dac_real) * rows * t->raw_dim);
	if (model->net.cfg.input == DAC_INPUT_SCALED)
		t->Xd = dac_alloc(sizeof(double) * (rows / opts->batch) * model->net.cfg.dim_input);
	if (model->net.cfg.input == DAC_INPUT_SETNORM && opts->distort > 0)
	{
		int			w = model->net.cfg.dim_input;

		t->Zd = dac_alloc(sizeof(dac_real) * (rows / opts->batch) * w);
		t->Md = dac_alloc(sizeof(dac_real) * (size_t) w * w);
	}
	if (!t->X || !t->labels || !t->anchors ||
		((model->net.cfg.input == DAC_INPUT_SETNORM || model->net.cfg.density == DAC_DENSITY_NS) && !t->Xraw) ||
		(model->net.cfg.input == DAC_INPUT_SCALED && !t->Xd) ||
		(model->net.cfg.input == DAC_INPUT_SETNORM && opts->distort > 0 && (!t->Zd || !t->Md)))
	{
		dac_trainer_free(t);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory for a batch of %zu points", rows);
	}
	dac_arena_init(&t->arena, (size_t) 4 << 20);
	return DAC_OK;
}

dac_status
dac_trainer_adopt(dac_trainer *t, dac_model *model, dac_error *err)
{
	size_t		np = t->model->net.nparams,
				nq = model->net.nparams,
				bytes;
	dac_real   *G;
	dac_status	st;

	/* the same network, its input map added last (dac_model_with_map) */
	if (nq < np || memcmp(model->P, t->model->P, sizeof(dac_real) * np) != 0)
		return dac_fail(err, DAC_ERR_INVALID, "the model to adopt is not the trainer's network");
	if ((st = dac_train_opts_check(&t->opts, &model->net.cfg, err)) != DAC_OK)
		return st;
	if (!dac_mul_size(nq, 3 * sizeof(dac_real), &bytes) || (G = dac_alloc_zero(bytes)) == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory for the optimiser state");
	/* the moments carried over; the map's stay 0 (no gradient reaches it) */
	memcpy(G + nq, t->M, sizeof(dac_real) * np);
	memcpy(G + 2 * nq, t->V, sizeof(dac_real) * np);
	dac_free(t->G);
	t->G = G;
	t->M = G + nq;
	t->V = G + 2 * nq;
	t->model = model;
	dac_model_forget_fixed(model);
	return DAC_OK;
}

void
dac_trainer_free(dac_trainer *t)
{
	dac_free(t->G);
	dac_free(t->X);
	dac_free(t->Xraw);
	dac_free(t->Xd);
	dac_free(t->Zd);
	dac_free(t->Md);
	dac_free(t->labels);
	dac_free(t->anchors);
	dac_arena_free(&t->arena);
	t->G = t->M = t->V = NULL;
	t->X = t->Xraw = t->Zd = t->Md = NULL;
	t->Xd = NULL;
	t->labels = t->anchors = NULL;
}

/*
 * The share of a step of nsets of its B sets: their forward pass, their
 * terms of the batch's loss (the mean over the batch: each set's gradients
 * scaled by 1/B) and their backward pass, adding to t->G.  Sets are
 * independent in the network and in both losses, so running them one at a
 * time gives the batch's gradients (to rounding) while the activations in
 * flight are one set's: B = 10 sets of 1,000 points together ran about 25%
 * slower than one at a time, their 400 MB of activations out of every
 * cache.  The image model's batch normalisation makes the sets of a batch
 * one sample: they go together, and their statistics update the running
 * estimates.
 */
static dac_status
step_sets(dac_trainer *t, const dac_real *X, const int *labels, int anchor, int nsets, int B,
		  int n, dac_loss_parts *sum, dac_error *err)
{
	const dac_net *net = &t->model->net;
	dac_arena_mark mark = dac_arena_get_mark(&t->arena);
	dac_forward fw;
	dac_loss_parts p;
	dac_real   *dl,
			   *dll;
	int		   *dense = NULL;
	size_t		rows = (size_t) nsets * n;
	dac_status	st;
	size_t		i;
	int			s;

	st = dac_net_forward(net, t->model->P, X, nsets, n, net->cfg.strategy == DAC_AF ? &anchor : NULL,
						 &t->arena, &fw, err);
	if (st != DAC_OK)
		goto out;
	dl = dac_arena_reals(&t->arena, rows);
	dll = dac_arena_reals(&t->arena, rows);
	if (!dl || !dll)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory in a training step");
		goto out;
	}
	if (net->cfg.strategy == DAC_MLF)
	{
		/*
		 * The batch's labels are below B·n (checked by the caller); a set's
		 * loss takes labels below n, so renumber them when needed.
		 */
		for (i = 0; i < rows && labels[i] < n; i++)
			;
		if (i < rows)
		{
			int		   *map = (int *) dac_arena_alloc(&t->arena, sizeof(int) * (size_t) B * n);

			dense = (int *) dac_arena_alloc(&t->arena, sizeof(int) * rows);
			if (!map || !dense)
			{
				st = dac_fail(err, DAC_ERR_NOMEM, "out of memory in a training step");
				goto out;
			}
			for (s = 0; s < nsets; s++)
			{
				const int  *ls = labels + (size_t) s * n;
				int			next = 0,
							j;

				for (j = 0; j < n; j++)
					map[ls[j]] = -1;
				for (j = 0; j < n; j++)
				{
					if (map[ls[j]] < 0)
						map[ls[j]] = next++;
					dense[(size_t) s * n + j] = map[ls[j]];
				}
			}
			labels = dense;
		}
		st = dac_mlf_loss(fw.logits, fw.ll, labels, nsets, n, &p, dl, dll, NULL, err);
	}
	else
		st = dac_af_loss(fw.logits, fw.ll, labels, &anchor, 1, n, &p, dl, dll, err);
	if (st != DAC_OK)
		goto out;
	/* the loss is the mean over these nsets sets: weigh it as nsets of B */
	for (i = 0; i < rows; i++)
	{
		dl[i] = dl[i] * nsets / B;
		dll[i] = dll[i] * nsets / B;
	}
	sum->loss += p.loss * nsets / B;
	sum->bce += p.bce * nsets / B;
	sum->ll += p.ll * nsets / B;
	st = dac_net_backward(net, t->model->P, t->G, &fw, dl, fw.ll ? dll : NULL, &t->arena, err);
	if (st == DAC_OK)
		dac_net_update_running(net, t->model->P, &fw);
out:
	dac_arena_reset_to(&t->arena, mark);
	return st;
}

dac_status
dac_trainer_step_batch(dac_trainer *t, const dac_real *X, const int *labels,
					   const int *anchors, int B, int n, dac_loss_parts *out,
					   dac_error *err)
{
	const dac_net *net = &t->model->net;
	size_t		np = net->nparams;
	dac_arena_mark mark = dac_arena_get_mark(&t->arena);
	dac_arena_mark empty = {NULL, 0, 0};
	dac_loss_parts sum = {0, 0, 0};
	dac_status	st = DAC_OK;
	double		lr;
	int			b;
	size_t		i;

	if (net->cfg.strategy == DAC_AF && anchors == NULL)
	{
		for (b = 0; b < B; b++)
			t->anchors[b] = dac_rng_int(&t->rng, n);
		anchors = t->anchors;
	}
	for (i = 0; net->cfg.strategy == DAC_MLF && i < (size_t) B * n; i++)
		if (labels[i] < 0 || labels[i] >= B * n)
			return dac_fail(err, DAC_ERR_INVALID, "label %d is out of range", labels[i]);
	memset(t->G, 0, sizeof(dac_real) * np);
	if (net->cfg.density == DAC_DENSITY_NS)
		st = step_sets(t, X, labels, 0, B, B, n, &sum, err);
	for (b = 0; b < B && st == DAC_OK && net->cfg.density != DAC_DENSITY_NS; b++)
		st = step_sets(t, X + (size_t) b * n * dac_config_row_width(&net->cfg), labels + (size_t) b * n,
					   anchors ? anchors[b] : 0, 1, B, n, &sum, err);
	if (st != DAC_OK)
		goto out;
	*out = sum;
	{
		unsigned	csr = dac_fpu_enter();

		t->grad_norm = dac_clip_grad_norm(t->G, np, t->opts.adam.clip);
		lr = dac_cosine_lr(t->opts.adam.lr, t->step, t->opts.steps);
		dac_adam_update(t->model->P, t->G, t->M, t->V, np, t->step + 1, lr, &t->opts.adam);
		dac_fpu_leave(csr);
	}
	t->step++;
out:
	/*
	 * The arena holds only this step's activations: reset it to empty, which
	 * keeps one block grown to the peak, so later steps allocate nothing.
	 */
	dac_arena_reset_to(&t->arena, mark.head == NULL ? empty : mark);
	return st;
}

void
dac_trainer_next_shape(const dac_trainer *t, int *n_max, int *k_max)
{
	int			alt = t->opts.alt_n_max > 0 && t->step % (t->opts.alt_ratio + 1) != 0;

	*n_max = alt ? t->opts.alt_n_max : t->opts.n_max;
	*k_max = alt ? t->opts.alt_k_max : t->opts.k_max;
}

dac_status
dac_trainer_step(dac_trainer *t, dac_loss_parts *out, dac_error *err)
{
	int			n_max,
				k_max,
				n,
				b,
				w = t->model->net.cfg.dim_input;
	dac_real   *dst = t->Xraw ? t->Xraw : t->X;
	dac_status	st;

	dac_trainer_next_shape(t, &n_max, &k_max);
	n = t->opts.fixed_n ? n_max : dac_sample_n(&t->rng, n_max);

	if (t->opts.source && t->opts.synthetic_share < 1 &&
		(t->opts.synthetic_share <= 0 || dac_rng_uniform(&t->rng) >= t->opts.synthetic_share))
		st = dac_sample_labelled(t->opts.source, &t->rng, t->opts.batch, n, k_max,
								 dst, t->labels, err);
	else
		st = dac_generate(t->opts.data, &t->rng, t->opts.batch, n, k_max,
						  t->raw_dim, dst, t->labels, NULL, err);
	if (st != DAC_OK)
		return st;
	/*
	 * the image model: each pixel drawn black or white with its grey value
	 * as the probability (the authors' stochastic binarisation), then the
	 * image's noise
	 */
	if (t->model->net.cfg.density == DAC_DENSITY_NS)
	{
		int			rw = dac_config_row_width(&t->model->net.cfg),
					j;
		size_t		r;

		for (r = 0; r < (size_t) t->opts.batch * n; r++)
		{
			const dac_real *src = t->Xraw + r * t->raw_dim;
			dac_real   *row = t->X + r * rw;

			for (j = 0; j < t->raw_dim; j++)
				row[j] = (dac_real) (dac_rng_uniform(&t->rng) < (double) src[j]);
			for (j = t->raw_dim; j < rw; j++)
				row[j] = (dac_real) dac_rng_normal(&t->rng);
		}
		return dac_trainer_step_batch(t, t->X, t->labels, NULL, t->opts.batch, n, out, err);
	}
	/* a normalising model trains on the sets as it will see them */
	for (b = 0; t->Xraw && b < t->opts.batch; b++)
	{
		dac_real   *Z = t->X + (size_t) b * n * w;
		int			i;

		if ((st = dac_model_normalise(t->model, t->Xraw + (size_t) b * n * t->raw_dim, n, t->raw_dim, Z, err)) != DAC_OK)
			return st;
		if (t->opts.distort > 0)
		{
			/* shapes no class has: Z (I + distort·G/√w), normalised again */
			for (i = 0; i < w * w; i++)
				t->Md[i] = (dac_real) ((i % (w + 1) == 0) + t->opts.distort * dac_rng_normal(&t->rng) / sqrt(w));
			dac_gemm(0, 0, n, w, w, 1, Z, w, t->Md, w, 0, t->Zd, w);
			if ((st = dac_setnorm(t->Zd, n, w, w, Z, err)) != DAC_OK)
				return st;
		}
	}
	/* a scaled model too: each set in its own frame (frame.h) */
	if (t->Xd != NULL)
	{
		double	   *Xd = t->Xd;

		for (b = 0; b < t->opts.batch; b++)
		{
			dac_real   *Z = t->X + (size_t) b * n * w;
			dac_frame	f;
			int			i;

			for (i = 0; i < n * w; i++)
				Xd[i] = Z[i];
			if ((st = dac_frame_fit(Xd, NULL, n, w, t->model->net.cfg.unit_width, 0, &f, err)) != DAC_OK)
				return st;
			dac_frame_apply(&f, Xd, NULL, n, Z);
			dac_frame_free(&f);
		}
	}
	return dac_trainer_step_batch(t, t->X, t->labels, NULL, t->opts.batch, n, out, err);
}

dac_status
dac_trainer_save_state(const dac_trainer *t, uint8_t **out, size_t *out_len, dac_error *err)
{
	st_writer	w;
	char		step[32],
				rng[80];
	int64_t		shape[1];
	dac_status	st;

	shape[0] = (int64_t) t->model->net.nparams;
	snprintf(step, sizeof(step), "%ld", t->step);
	snprintf(rng, sizeof(rng), "%016" PRIx64 "%016" PRIx64 "%016" PRIx64 "%016" PRIx64,
			 t->rng.s[0], t->rng.s[1], t->rng.s[2], t->rng.s[3]);
	st_writer_init(&w);
	st_writer_add_meta(&w, "dac.step", step);
	st_writer_add_meta(&w, "dac.rng", rng);
	st_writer_add_reals(&w, "adam.m", 1, shape, t->M);
	st_writer_add_reals(&w, "adam.v", 1, shape, t->V);
	st = st_writer_finish(&w, out, out_len, err);
	st_writer_free(&w);
	return st;
}

dac_status
dac_trainer_load_state(dac_trainer *t, const uint8_t *buf, size_t len, dac_error *err)
{
	st_file		f;
	const st_tensor *m,
			   *v;
	const char *step,
			   *rng;
	char	   *end;
	long		s;
	dac_rng		r;
	dac_status	st;
	int			i;
	size_t		p;

	if ((st = st_open(buf, len, &f, err)) != DAC_OK)
		return st;
	m = st_find(&f, "adam.m");
	v = st_find(&f, "adam.v");
	step = st_meta(&f, "dac.step");
	rng = st_meta(&f, "dac.rng");
	st = dac_fail(err, DAC_ERR_FORMAT, "invalid optimiser state: missing or malformed step, RNG or moments");
	if (!m || !v || !step || !rng || strlen(rng) != 64 ||
		m->ndim != 1 || v->ndim != 1 ||
		m->shape[0] != (int64_t) t->model->net.nparams || v->shape[0] != m->shape[0])
		goto out;
	s = strtol(step, &end, 10);
	if (*step == '\0' || *end != '\0' || s < 0)
		goto out;
	for (i = 0; i < 4; i++)
	{
		char		part[17];

		memcpy(part, rng + 16 * i, 16);
		part[16] = '\0';
		r.s[i] = (uint64_t) strtoull(part, &end, 16);
		if (*end != '\0')
			goto out;
	}
	if ((st = st_read_reals(&f, m, t->M, err)) != DAC_OK ||
		(st = st_read_reals(&f, v, t->V, err)) != DAC_OK)
		goto out;
	/* moments from a stored checkpoint: finite, second moments not negative */
	for (p = 0; p < t->model->net.nparams; p++)
		if (!isfinite((double) t->M[p]) || !isfinite((double) t->V[p]) || t->V[p] < 0)
		{
			st = dac_fail(err, DAC_ERR_FORMAT, "invalid optimiser state: moment %zu is not finite or negative", p);
			goto out;
		}
	t->step = s;
	t->rng = r;
	st = DAC_OK;
out:
	st_close(&f);
	return st;
}

/* ---------------------------------------------------------------- labelled sets */

/*
 * dac_labelled_init over the rows i with mask[i] == keep (every row when mask
 * is NULL): the others stay in X but are never drawn, and their labels and
 * groups still count towards L and G (they hold no rows here).
 */
static dac_status
labelled_init_mask(dac_labelled *ds, const dac_real *X, const int *y, const int *group,
				   int N, int d, const unsigned char *mask, unsigned char keep, dac_error *err)
{
	int			i,
				l;
	int		   *lgroup;

	memset(ds, 0, sizeof(*ds));
	if (N < 1)
		return dac_fail(err, DAC_ERR_INVALID, "no labelled rows to train on");
	ds->N = N;
	ds->d = d;
	ds->X = X;
	for (i = 0; i < N; i++)
	{
		/* the table is as large as the user's: the host may stop us */
		if ((i & 8191) == 8191 && dac_interrupted())
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		if (y[i] < 0 || (group && group[i] < 0))
			return dac_fail(err, DAC_ERR_INVALID, "labels and groups must be dense and non-negative");
		if (y[i] >= ds->L)
			ds->L = y[i] + 1;
		if (group && group[i] >= ds->G)
			ds->G = group[i] + 1;
	}
	if (!group)
		ds->G = 1;
	ds->rows = dac_alloc(sizeof(int) * (size_t) N);
	ds->lstart = dac_alloc_zero(sizeof(int) * ((size_t) ds->L + 1));
	ds->glabels = dac_alloc(sizeof(int) * (size_t) ds->L);
	ds->gstart = dac_alloc_zero(sizeof(int) * ((size_t) ds->G + 1));
	ds->scratch = dac_alloc(sizeof(int) * ((size_t) N + ds->L));
	lgroup = dac_alloc(sizeof(int) * (size_t) ds->L);
	if (!ds->rows || !ds->lstart || !ds->glabels || !ds->gstart || !ds->scratch || !lgroup)
	{
		dac_free(lgroup);
		dac_labelled_free(ds);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory indexing %d labelled rows", N);
	}
	/* counting sort of the kept rows by label */
	for (i = 0; i < N; i++)
		if (!mask || mask[i] == keep)
			ds->lstart[y[i] + 1]++;
	for (l = 0; l < ds->L; l++)
		ds->lstart[l + 1] += ds->lstart[l];
	if (ds->lstart[ds->L] == 0)
	{
		dac_free(lgroup);
		dac_labelled_free(ds);
		return dac_fail(err, DAC_ERR_INVALID, "no labelled rows to train on");
	}
	memcpy(ds->scratch, ds->lstart, sizeof(int) * (size_t) ds->L);
	for (l = 0; l < ds->L; l++)
		lgroup[l] = -1;
	for (i = 0; i < N; i++)
	{
		int			g = group ? group[i] : 0;

		if (mask && mask[i] != keep)
			continue;
		ds->rows[ds->scratch[y[i]]++] = i;
		if (lgroup[y[i]] >= 0 && lgroup[y[i]] != g)
		{
			dac_free(lgroup);
			dac_labelled_free(ds);
			return dac_fail(err, DAC_ERR_INVALID,
							"a label appears in two groups (label number %d): each label must belong to one group",
							y[i] + 1);
		}
		lgroup[y[i]] = g;
	}
	/* labels by group (labels with no rows belong to no group) */
	for (l = 0; l < ds->L; l++)
		if (lgroup[l] >= 0)
			ds->gstart[lgroup[l] + 1]++;
	for (i = 0; i < ds->G; i++)
		ds->gstart[i + 1] += ds->gstart[i];
	memcpy(ds->scratch, ds->gstart, sizeof(int) * (size_t) ds->G);
	for (l = 0; l < ds->L; l++)
		if (lgroup[l] >= 0)
			ds->glabels[ds->scratch[lgroup[l]]++] = l;
	dac_free(lgroup);
	return DAC_OK;
}

dac_status
dac_labelled_init(dac_labelled *ds, const dac_real *X, const int *y, const int *group,
				  int N, int d, dac_error *err)
{
	return labelled_init_mask(ds, X, y, group, N, d, NULL, 0, err);
}

/*
 * A fifth of the n items (rounded; at least one when there are min or
 * more, none with fewer) drawn from r: moved to items [0 .. h), h returned.
 */
static int
hold_fifth(dac_rng *r, int *items, int n, int min)
{
	int			h = n >= min ? (int) floor(n * DAC_HOLDOUT_LABEL_SHARE + 0.5) : 0,
				i;

	if (n >= min && h < 1)
		h = 1;
	for (i = 0; i < h; i++)
	{
		int			s = i + dac_rng_int(r, n - i),
					tmp = items[i];

		items[i] = items[s];
		items[s] = tmp;
	}
	return h;
}

dac_status
dac_holdout_rows(const int *y, int N, uint64_t seed, unsigned char *val, int *held, int *held_labels,
				 dac_error *err)
{
	int			L = 0,
				present = 0,
				h,
				i,
				l;
	int		   *count,
			   *order;
	dac_rng		r;

	*held = *held_labels = 0;
	for (i = 0; i < N; i++)
	{
		if (y[i] < 0)
			return dac_fail(err, DAC_ERR_INVALID, "labels must be dense and non-negative");
		if (y[i] >= L)
			L = y[i] + 1;
		val[i] = 0;
	}
	count = dac_alloc_zero(sizeof(int) * (size_t) (L > 0 ? L : 1));
	order = dac_alloc(sizeof(int) * (size_t) (L > 0 ? L : 1));
	if (count == NULL || order == NULL)
	{
		dac_free(count);
		dac_free(order);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory choosing validation rows");
	}
	for (i = 0; i < N; i++)
		count[y[i]]++;
	for (l = 0; l < L; l++)
		if (count[l] > 0)
			order[present++] = l;
	/* its own stream: the training draws from the seed itself */
	dac_rng_seed(&r, seed ^ UINT64_C(0x76616c6964617465));
	/* a fifth of the labels with rows, held out whole */
	h = hold_fifth(&r, order, present, DAC_HOLDOUT_MIN_LABELS);
	for (l = 0; l < h; l++)
		count[order[l]] = -1;
	for (i = 0; i < N; i++)
	{
		/* the interrupt hook: the table is as large as the user's */
		if ((i & 8191) == 8191 && dac_interrupted())
		{
			dac_free(count);
			dac_free(order);
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		}
		if (count[y[i]] < 0)
			val[i] = DAC_HELD_LABEL;
		else if (N >= DAC_HOLDOUT_MIN_ROWS && dac_rng_uniform(&r) < DAC_HOLDOUT_ROW_SHARE)
			val[i] = DAC_HELD_ROW;
		if (val[i])
			(*held)++;
	}
	/* every row held out (one label's rows all drawn): nothing to train on, so none */
	if (*held == N)
	{
		memset(val, 0, (size_t) N);
		*held = h = 0;
	}
	*held_labels = h;
	dac_free(count);
	dac_free(order);
	return DAC_OK;
}

dac_status
dac_holdout_groups(const int *group, const int *label, int N, uint64_t seed, unsigned char *val, int *held,
				   int *held_groups, int *held_labels, dac_error *err)
{
	int			G = 0,
				L = 0,
				i;
	int		   *order;
	unsigned char *gout,
			   *lout;
	dac_rng		r;

	*held = *held_groups = *held_labels = 0;
	for (i = 0; i < N; i++)
	{
		/* the interrupt hook: the table is as large as the user's */
		if ((i & 8191) == 8191 && dac_interrupted())
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		if (group[i] < 0 || label[i] < 0)
			return dac_fail(err, DAC_ERR_INVALID, "labels and groups must be dense and non-negative");
		if (group[i] >= G)
			G = group[i] + 1;
		if (label[i] >= L)
			L = label[i] + 1;
		val[i] = 0;
	}
	if (G < DAC_HOLDOUT_MIN_GROUPS)
		return DAC_OK;
	order = dac_alloc(sizeof(int) * (size_t) (G > L ? G : L));
	gout = dac_alloc_zero((size_t) G);
	lout = dac_alloc_zero((size_t) (L > 0 ? L : 1));
	if (order == NULL || gout == NULL || lout == NULL)
	{
		dac_free(order);
		dac_free(gout);
		dac_free(lout);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory choosing validation groups");
	}
	/* the stream dac_holdout_rows draws from: one choice a seed, whichever is made */
	dac_rng_seed(&r, seed ^ UINT64_C(0x76616c6964617465));
	for (i = 0; i < G; i++)
		order[i] = i;
	*held_groups = hold_fifth(&r, order, G, DAC_HOLDOUT_MIN_GROUPS);
	for (i = 0; i < *held_groups; i++)
		gout[order[i]] = 1;
	for (i = 0; i < L; i++)
		order[i] = i;
	*held_labels = hold_fifth(&r, order, L, DAC_HOLDOUT_MIN_LABELS);
	for (i = 0; i < *held_labels; i++)
		lout[order[i]] = 1;
	for (i = 0; i < N; i++)
	{
		/* the interrupt hook: the table is as large as the user's */
		if ((i & 8191) == 8191 && dac_interrupted())
		{
			dac_free(order);
			dac_free(gout);
			dac_free(lout);
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		}
		if (gout[group[i]] || lout[label[i]])
		{
			/* a held group is scored whole; a held value's rows elsewhere are only kept from training */
			val[i] = gout[group[i]] ? DAC_HELD_LABEL : DAC_HELD_ASIDE;
			(*held)++;
		}
	}
	/* every row held out: nothing to train on, so none */
	if (*held == N)
	{
		memset(val, 0, (size_t) N);
		*held = *held_groups = *held_labels = 0;
	}
	dac_free(order);
	dac_free(gout);
	dac_free(lout);
	return DAC_OK;
}

dac_status
dac_holdout_split(const dac_real *X, const int *y, const int *group, int N, int d, const unsigned char *val,
				  dac_labelled **train, dac_labelled **held, dac_labelled **known, dac_error *err)
{
	unsigned char *any = NULL;
	int			i,
				nheld = 0,
				nknown = 0;
	dac_status	st;

	*train = *held = *known = NULL;
	for (i = 0; i < N; i++)
	{
		nheld += val[i] == DAC_HELD_LABEL || val[i] == DAC_HELD_ROW;
		nknown += val[i] == DAC_HELD_ROW;
	}
	if ((st = dac_labelled_new_subset(X, y, group, N, d, val, 0, train, err)) != DAC_OK)
		return st;
	if (nheld > 0)
	{
		if ((any = dac_alloc((size_t) N)) == NULL)
			st = dac_fail(err, DAC_ERR_NOMEM, "out of memory indexing %d held-out rows", nheld);
		else
		{
			for (i = 0; i < N; i++)
				any[i] = val[i] == DAC_HELD_LABEL || val[i] == DAC_HELD_ROW;
			st = dac_labelled_new_subset(X, y, group, N, d, any, 1, held, err);
		}
		dac_free(any);
	}
	/* the second part only when the held-out rows have both kinds */
	if (st == DAC_OK && nknown > 0 && nknown < nheld)
		st = dac_labelled_new_subset(X, y, group, N, d, val, DAC_HELD_ROW, known, err);
	if (st != DAC_OK)
	{
		dac_labelled_destroy(*train);
		dac_labelled_destroy(*held);
		dac_labelled_destroy(*known);
		*train = *held = *known = NULL;
	}
	return st;
}

dac_status
dac_labelled_new_subset(const dac_real *X, const int *y, const int *group, int N, int d,
						const unsigned char *mask, unsigned char keep, dac_labelled **out, dac_error *err)
{
	dac_labelled *ds = dac_alloc_object(sizeof(dac_labelled), err);
	dac_status	st;

	*out = NULL;
	if (ds == NULL)
		return DAC_ERR_NOMEM;
	if ((st = labelled_init_mask(ds, X, y, group, N, d, mask, keep, err)) != DAC_OK)
	{
		dac_free(ds);
		return st;
	}
	*out = ds;
	return DAC_OK;
}

void
dac_labelled_free(dac_labelled *ds)
{
	dac_free(ds->rows);
	dac_free(ds->lstart);
	dac_free(ds->glabels);
	dac_free(ds->gstart);
	dac_free(ds->scratch);
	ds->rows = ds->lstart = ds->glabels = ds->gstart = ds->scratch = NULL;
}

/*
 * dac_sample_labelled's draw; got non-NULL (B = 1): a label's count is capped
 * at its rows, so no row is drawn twice, and *got is the set's size.
 */
static dac_status
sample_labelled(dac_labelled *ds, dac_rng *r, int B, int n, int k_max, dac_real *X,
				int *labels, int *got, dac_error *err)
{
	int			b,
				i,
				cap = k_max < ds->L ? k_max : ds->L;
	double	   *pi = dac_alloc(sizeof(double) * (size_t) (cap > 0 ? cap : 1));
	int		   *cnt = dac_alloc(sizeof(int) * (size_t) (cap > 0 ? cap : 1));
	dac_status	st = DAC_OK;

	if (pi == NULL || cnt == NULL)
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory sampling a batch");
		goto done;
	}
	for (b = 0; b < B; b++)
	{
		int			g,
					nl,
					k,
					j,
					at = 0,
					present = 0;
		double		tot = 0;
		int		   *chosen = ds->scratch + ds->N;	/* [L] */
		int		   *idx = ds->scratch;	/* [N] */

		/* a group with at least one label, then k of its labels */
		do
			g = dac_rng_int(r, ds->G);
		while (ds->gstart[g + 1] == ds->gstart[g]);
		nl = ds->gstart[g + 1] - ds->gstart[g];
		k = 1 + dac_rng_int(r, k_max < nl ? k_max : nl);
		memcpy(chosen, ds->glabels + ds->gstart[g], sizeof(int) * (size_t) nl);
		for (j = 0; j < k; j++)
		{
			int			s = j + dac_rng_int(r, nl - j),
						tmp = chosen[j];

			chosen[j] = chosen[s];
			chosen[s] = tmp;
		}

		/*
		 * Proportions π ~ Dir(1) over the k labels, as the paper's generator
		 * draws its mixtures (groups are rarely balanced); each label's rows
		 * drawn without replacement when it has enough.  Labels that draw no
		 * point drop out; the rest are numbered 0, 1, ... in order.
		 */
		for (j = 0; j < k; j++)
		{
			pi[j] = dac_rng_gamma(r, 1.0);
			tot += pi[j];
			cnt[j] = 0;
		}
		for (i = 0; i < n; i++)
		{
			double		u = dac_rng_uniform(r) * tot,
						c = 0;

			for (j = 0; j < k - 1; j++)
			{
				c += pi[j];
				if (u < c)
					break;
			}
			cnt[j]++;
		}
		for (j = 0; j < k; j++)
		{
			int			lo = ds->lstart[chosen[j]],
						size = ds->lstart[chosen[j] + 1] - lo,
						q;

			if (cnt[j] == 0)
				continue;
			if (size == 0)
			{
				st = dac_fail(err, DAC_ERR_INVALID, "the chosen labels have no rows");
				goto done;
			}
			if (got && cnt[j] > size)
				cnt[j] = size;
			if (cnt[j] <= size)
				for (q = 0; q < size; q++)
					idx[q] = lo + q;
			for (i = 0; i < cnt[j]; i++, at++)
			{
				int			pos;

				if (cnt[j] <= size)
				{
					/* partial Fisher-Yates over the label's positions */
					int			s = i + dac_rng_int(r, size - i),
								tmp = idx[i];

					idx[i] = idx[s];
					idx[s] = tmp;
					pos = idx[i];
				}
				else
					pos = lo + dac_rng_int(r, size);
				memcpy(X + ((size_t) b * n + at) * ds->d, ds->X + (size_t) ds->rows[pos] * ds->d,
					   sizeof(dac_real) * ds->d);
				labels[(size_t) b * n + at] = present;
			}
			present++;
		}
		if (got)
			*got = at;
	}
done:
	dac_free(pi);
	dac_free(cnt);
	return st;
}

dac_status
dac_sample_labelled(dac_labelled *ds, dac_rng *r, int B, int n, int k_max, dac_real *X,
					int *labels, dac_error *err)
{
	return sample_labelled(ds, r, B, n, k_max, X, labels, NULL, err);
}

dac_status
dac_sample_labelled_capped(dac_labelled *ds, dac_rng *r, int n, int k_max, dac_real *X, int *labels,
						   int *got, dac_error *err)
{
	return sample_labelled(ds, r, 1, n, k_max, X, labels, got, err);
}

/* ------------------------------------------------------------------
 * dac.h's constructors and questions for the opaque trainer and table
 * ------------------------------------------------------------------ */

dac_status
dac_train_opts_read(dac_option_get get, void *ctx, dac_train_opts *to, dac_error *err)
{
	static const char *const names[] = {"steps", "batch", "n_max", "fixed_n", "k_max", "mix_n_max",
	"mix_k_max", "mix_ratio", "seed", "lr", "clip"};
	double		v[11];
	dac_status	st;

	if ((st = dac_options_read(dac_train_options, names, 11, get, ctx, 0, v, err)) != DAC_OK)
		return st;
	to->steps = (long) v[0];
	to->batch = (int) v[1];
	to->n_max = (int) v[2];
	to->fixed_n = v[3] != 0;
	to->k_max = (int) v[4];
	to->alt_n_max = (int) v[5];
	to->alt_k_max = (int) v[6];
	to->alt_ratio = (int) v[7];
	to->seed = (uint64_t) v[8];
	to->adam = dac_adam_default(to->steps);
	to->adam.lr = v[9];
	to->adam.clip = v[10];
	return DAC_OK;
}

void
dac_train_opts_json(const dac_train_opts *to, dac_strbuf *sb)
{
	dac_strbuf_printf(sb, "\"batch\": %d, \"n_max\": %d, \"k_max\": %d, \"mix_n_max\": %d, "
					  "\"mix_k_max\": %d, \"mix_ratio\": %d, \"lr\": %g, \"clip\": %g, \"seed\": %llu, "
					  "\"total_steps\": %ld",
					  to->batch, to->n_max, to->k_max, to->alt_n_max, to->alt_k_max, to->alt_ratio,
					  to->adam.lr, to->adam.clip, (unsigned long long) to->seed, to->steps);
}

dac_status
dac_trainer_new(dac_model *model, const dac_train_opts *opts, int init_params, dac_trainer **out,
				dac_error *err)
{
	dac_trainer *t = dac_alloc_object(sizeof(dac_trainer), err);
	dac_status	st;

	*out = NULL;
	if (t == NULL)
		return DAC_ERR_NOMEM;
	if ((st = dac_trainer_init(t, model, opts, init_params, err)) != DAC_OK)
	{
		dac_free(t);
		return st;
	}
	*out = t;
	return DAC_OK;
}

const dac_train_opts *
dac_trainer_opts(const dac_trainer *t)
{
	return &t->opts;
}

long
dac_trainer_steps_done(const dac_trainer *t)
{
	return t->step;
}

long
dac_trainer_steps_total(const dac_trainer *t)
{
	return t->opts.steps;
}

void
dac_trainer_destroy(dac_trainer *t)
{
	if (t == NULL)
		return;
	dac_trainer_free(t);
	dac_free(t);
}

dac_status
dac_labelled_new(const dac_real *X, const int *y, const int *group, int N, int d, dac_labelled **out,
				 dac_error *err)
{
	dac_labelled *ds = dac_alloc_object(sizeof(dac_labelled), err);
	dac_status	st;

	*out = NULL;
	if (ds == NULL)
		return DAC_ERR_NOMEM;
	if ((st = dac_labelled_init(ds, X, y, group, N, d, err)) != DAC_OK)
	{
		dac_free(ds);
		return st;
	}
	*out = ds;
	return DAC_OK;
}

int
dac_labelled_width(const dac_labelled *ds)
{
	return ds->d;
}

int
dac_labelled_labels(const dac_labelled *ds)
{
	return ds->L;
}

int
dac_labelled_groups(const dac_labelled *ds)
{
	return ds->G;
}

int
dac_labelled_group_size(const dac_labelled *ds, int g)
{
	int			j,
				n = 0;

	if (g < 0 || g >= ds->G)
		return 0;
	for (j = ds->gstart[g]; j < ds->gstart[g + 1]; j++)
		n += ds->lstart[ds->glabels[j] + 1] - ds->lstart[ds->glabels[j]];
	return n;
}

dac_status
dac_labelled_group(const dac_labelled *ds, int g, dac_real *X, int *y, int *n, dac_error *err)
{
	int			j;

	*n = 0;
	if (g < 0 || g >= ds->G)
		return dac_fail(err, DAC_ERR_INVALID, "group %d out of 0 .. %d", g, ds->G - 1);
	for (j = ds->gstart[g]; j < ds->gstart[g + 1]; j++)
	{
		int			l = ds->glabels[j],
					r;

		for (r = ds->lstart[l]; r < ds->lstart[l + 1]; r++)
		{
			/* a group is as large as the user's table: the host may stop us */
			if ((*n & 8191) == 8191 && dac_interrupted())
				return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			memcpy(X + (size_t) *n * ds->d, ds->X + (size_t) ds->rows[r] * ds->d, sizeof(dac_real) * ds->d);
			y[(*n)++] = j - ds->gstart[g];
		}
	}
	return DAC_OK;
}

void
dac_labelled_destroy(dac_labelled *ds)
{
	if (ds == NULL)
		return;
	dac_labelled_free(ds);
	dac_free(ds);
}

dac_status
dac_evaluate_labelled(const dac_model *m, dac_labelled *ds, int sets, int n_max, int k_max, uint64_t seed,
					  const dac_cluster_opts *co, dac_real *X, int *y, dac_eval_sums *e, double *ari,
					  dac_error *err)
{
	dac_rng		r;
	int			s;

	dac_rng_seed(&r, seed);
	for (s = 0; s < sets; s++)
	{
		int			n = dac_sample_n(&r, n_max);
		dac_clustering c;
		dac_status	st;

		if (dac_interrupted())
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		/* rows drawn once each, as in a real group: a small held-out part gives small sets */
		if ((st = dac_sample_labelled_capped(ds, &r, n, k_max, X, y, &n, err)) != DAC_OK)
			return st;
		if ((st = dac_cluster_set(m, X, n, ds->d, co, &c, err)) != DAC_OK)
			return st;
		if (ari)
			ari[s] = dac_ari(y, c.labels, n);
		dac_eval_add(e, y, &c, 0);
		dac_clustering_free(&c);
	}
	return DAC_OK;
}

dac_status
dac_evaluate_whole_groups(const dac_model *m, const dac_labelled *ds, const dac_cluster_opts *co, dac_real *X,
						  int *y, dac_eval_sums *e, double *ari, int *sets, dac_error *err)
{
	int			g,
				n;

	*sets = 0;
	for (g = 0; g < ds->G; g++)
	{
		dac_clustering c;
		dac_status	st;

		if (dac_interrupted())
			return dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		if ((st = dac_labelled_group(ds, g, X, y, &n, err)) != DAC_OK)
			return st;
		if (n == 0)
			continue;
		if ((st = dac_cluster_set(m, X, n, ds->d, co, &c, err)) != DAC_OK)
			return st;
		if (ari)
			ari[*sets] = dac_ari(y, c.labels, n);
		dac_eval_add(e, y, &c, 0);
		dac_clustering_free(&c);
		(*sets)++;
	}
	return DAC_OK;
}

int
dac_validation_prefers(const double *model, const double *candidate, int sets, double ses, double *diff,
					   double *se)
{
	double		sum = 0,
				sq = 0;
	int			s;

	*diff = *se = 0;
	if (sets < 2)
		return 0;
	for (s = 0; s < sets; s++)
		sum += candidate[s] - model[s];
	*diff = sum / sets;
	for (s = 0; s < sets; s++)
	{
		double		v = candidate[s] - model[s] - *diff;

		sq += v * v;
	}
	*se = sqrt(sq / (sets - 1) / sets);
	/* ahead by more than ses paired standard errors: within that, the model stays */
	return *diff > 0 && *diff > ses * *se;
}

dac_status
dac_choice_validated(const double *scores, int P, int G, double *work, double *loo_mean, double *diff, double *se,
					 int *holds)
{
	double	   *sum = work,
			   *loo = work + P,
				tot = 0;
	int			p,
				g;

	for (p = 0; p < P; p++)
	{
		if (dac_interrupted())
			return DAC_ERR_INTERRUPTED;
		sum[p] = 0;
		for (g = 0; g < G; g++)
			sum[p] += scores[(size_t) p * G + g];
	}
	for (g = 0; g < G; g++)
	{
		int			best = 0;

		if ((g & 1023) == 0 && dac_interrupted())
			return DAC_ERR_INTERRUPTED;

		/* the choice the other groups make: the best sum without g, the earlier on a tie */
		for (p = 1; p < P && G > 1; p++)
			if (sum[p] - scores[(size_t) p * G + g] > sum[best] - scores[(size_t) best * G + g])
				best = p;
		loo[g] = scores[(size_t) best * G + g];
		tot += loo[g];
	}
	*loo_mean = G > 0 ? tot / G : NAN;
	*holds = dac_validation_prefers(scores, loo, G, 1, diff, se);
	return DAC_OK;
}
