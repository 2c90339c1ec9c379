/*
 * model.c
 *	  Weights file <-> model.
 */
#include "model.h"
#include "safetensors.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "linalg.h"

dac_status
dac_model_create(dac_model *m, const dac_config *cfg, dac_error *err)
{
	dac_status	st;
	size_t		bytes;

	m->P = NULL;
	m->F = NULL;
	m->lower = 0;
	if ((st = dac_net_init(&m->net, cfg, err)) != DAC_OK)
		return st;
	if (!dac_mul_size(m->net.nparams, sizeof(dac_real), &bytes) ||
		(m->P = dac_alloc_zero(bytes)) == NULL)
	{
		dac_net_free(&m->net);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory allocating %zu parameters", m->net.nparams);
	}
	return DAC_OK;
}

void
dac_model_free(dac_model *m)
{
	dac_free(m->P);
	m->P = NULL;
	dac_model_forget_fixed(m);
	dac_net_free(&m->net);
}

int
dac_model_width(const dac_model *m)
{
	return m->net.cfg.input == DAC_INPUT_SETNORM ? 0 : m->net.cfg.dim_input;
}

int
dac_model_map_dim(const dac_model *m)
{
	return m->net.cfg.map_dim;
}

int
dac_model_map_rows(const dac_model *m)
{
	return dac_config_map_rows(&m->net.cfg);
}

int
dac_model_dim_input(const dac_model *m)
{
	return m->net.cfg.dim_input;
}

const dac_config *
dac_model_config(const dac_model *m)
{
	return &m->net.cfg;
}

int
dac_model_ntensors(const dac_model *m)
{
	return m->net.ntensors;
}

int
dac_model_takes_width(const dac_model *m, int d)
{
	return dac_config_accepts(&m->net.cfg, d);
}

int
dac_model_has_density(const dac_model *m)
{
	return dac_head_has_density(&m->net.head);
}

int
dac_model_is_anchored(const dac_model *m)
{
	return m->net.cfg.strategy == DAC_AF;
}

int
dac_model_theta_is_gaussian(const dac_model *m)
{
	return m->net.cfg.density == DAC_DENSITY_GAUSSIAN && m->net.cfg.input != DAC_INPUT_SETNORM;
}

int
dac_model_keeps_doubles(const dac_model *m)
{
	return m->net.cfg.input == DAC_INPUT_SCALED;
}

size_t
dac_model_nparams(const dac_model *m)
{
	return m->net.nparams;
}

void
dac_model_forget_fixed(dac_model *m)
{
	dac_free(m->F);
	m->F = NULL;
	m->lower = 0;
}

void
dac_model_refresh(dac_model *m)
{
	const dac_config *c = &m->net.cfg;
	size_t		bytes;

	/* the input maps a triangular product may take (dac_model_normalise, the gate) */
	m->lower = 0;
	if (c->map_dim > 0 && dac_config_map_rows(c) == c->map_dim &&
		dac_lower_triangular(m->P + m->net.map, c->map_dim))
		m->lower |= DAC_LOWER_MAP;
	if (c->gate_classes > 0 && dac_lower_triangular(m->P + m->net.gate, c->map_dim))
		m->lower |= DAC_LOWER_GATE;
	if (c->map_else && dac_lower_triangular(m->P + m->net.map_else, c->map_dim))
		m->lower |= DAC_LOWER_ELSE;
	if (m->F == NULL &&
		(!dac_mul_size(m->net.nfixed, sizeof(dac_real), &bytes) ||
		 (m->F = dac_alloc(bytes)) == NULL))
		return;
	dac_net_fixed(&m->net, m->P, m->F);
}

/*
 * If name is "<stack>.blocks.<k>.<rest>" with k >= 2, write the name of the
 * blocks.1 tensor it copies into canon and return 1.
 */
static int
shared_copy_name(const char *name, int num_blocks, char *canon, size_t canon_size)
{
	const char *p = strstr(name, ".blocks.");
	int			k = 0,
				digits = 0;
	const char *q;

	if (p == NULL)
		return 0;
	q = p + strlen(".blocks.");
	while (*q >= '0' && *q <= '9' && digits < 4)
	{
		k = k * 10 + (*q - '0');
		q++;
		digits++;
	}
	if (digits == 0 || *q != '.' || k < 2 || k >= num_blocks)
		return 0;
	snprintf(canon, canon_size, "%.*s.blocks.1%s", (int) (p - name), name, q);
	return 1;
}

/* The prefix of a head's flow tensors in the reference's state_dict. */
static const char *
flow_prefix(const dac_head *h)
{
	return h->kind == DAC_DENSITY_NS ? "prior." : "flow.";
}

/*
 * The MADE mask buffer a name refers to ("<flow>.transform.transforms.<2k>.
 * {linear,mlp.1,mlp.3}.mask" of the reference's state_dict): its block and
 * which mask (0 in, 1 hid, 2 out), or 0 when the name is no mask.
 */
static int
mask_of_name(const dac_head *h, const char *name, int *block, int *which)
{
	static const char *const suffix[3] = {"linear.mask", "mlp.1.mask", "mlp.3.mask"};
	const dac_flow *f = dac_head_flow(h);
	int			k,
				w;

	for (k = 0; f && k < f->nmade; k++)
		for (w = 0; w < 3; w++)
		{
			char		full[96];

			snprintf(full, sizeof(full), "%stransform.transforms.%d.%s", flow_prefix(h), 2 * k, suffix[w]);
			if (strcmp(full, name) == 0)
			{
				*block = k;
				*which = w;
				return 1;
			}
		}
	return 0;
}

/* read a whole tensor of count values as doubles (dac_alloc'ed), or NULL with *st set */
static double *
read_values(const st_file *f, const st_tensor *ten, size_t count, dac_status *st, dac_error *err)
{
	double	   *v = dac_alloc(sizeof(double) * (count ? count : 1));

	if (v == NULL)
	{
		*st = dac_fail(err, DAC_ERR_NOMEM, "out of memory reading a buffer");
		return NULL;
	}
	if ((*st = st_read_f64(f, ten, v, err)) != DAC_OK)
	{
		dac_free(v);
		return NULL;
	}
	return v;
}

/* A stored mask must be the one the degree rule builds (0/1 values). */
static dac_status
check_mask(const dac_head *h, const st_file *f, const st_tensor *ten, int block, int which,
		   dac_error *err)
{
	const dac_flow *fl = dac_head_flow(h);
	const dac_linear *l = dac_flow_masked(fl, block, which);
	size_t		count = (size_t) l->out * l->in,
				i;
	double	   *v;
	dac_status	st = DAC_OK;

	if (ten->ndim != 2 || ten->shape[0] != l->out || ten->shape[1] != l->in)
		return dac_fail(err, DAC_ERR_FORMAT, "mask \"%s\" has the wrong shape for this configuration", ten->name);
	if ((v = read_values(f, ten, count, &st, err)) == NULL)
		return st;
	for (i = 0; i < count; i++)
		if (v[i] != (double) dac_flow_mask(fl, which, (int) (i / l->in), (int) (i % l->in)))
		{
			st = dac_fail(err, DAC_ERR_FORMAT, "mask \"%s\" is not the MADE mask of this configuration", ten->name);
			break;
		}
	dac_free(v);
	return st;
}

/*
 * The buffers of the image model that are not kept because they are fixed
 * (an invertible map's l_mask, the strictly lower ones, and eye, the
 * identity), and BatchNorm's num_batches_tracked, which nothing reads:
 * accepted when they hold what they must.  Returns 1 when name is one of
 * them (*st says whether it is right), 0 otherwise.
 */
static int
check_fixed_buffer(const dac_head *h, const st_file *f, const st_tensor *ten, dac_status *st,
				   dac_error *err)
{
	const dac_flow *fl = dac_head_flow(h);
	const char *dot = strrchr(ten->name, '.');
	int			d,
				k,
				lmask = 0;
	char		want[96];

	*st = DAC_OK;
	if (h->kind != DAC_DENSITY_NS || dot == NULL)
		return 0;
	if (strcmp(dot, ".num_batches_tracked") == 0)
	{
		static const char *const bn[4] = {"enc.1", "enc.4", "dec.4", "dec.7"};

		for (k = 0; k < 4; k++)
			if ((size_t) (dot - ten->name) == strlen(bn[k]) && strncmp(ten->name, bn[k], dot - ten->name) == 0)
			{
				if (ten->ndim != 0 || ten->dtype != ST_I64)
					*st = dac_fail(err, DAC_ERR_FORMAT, "buffer \"%s\" must be one 64-bit integer", ten->name);
				return 1;
			}
		return 0;
	}
	if (strcmp(dot, ".l_mask") == 0)
		lmask = 1;
	else if (strcmp(dot, ".eye") != 0)
		return 0;
	d = fl->d;
	for (k = 0; k < fl->nmade; k++)
	{
		snprintf(want, sizeof(want), "prior.transform.transforms.%d%s", 2 * k + 1, dot);
		if (strcmp(want, ten->name) == 0)
		{
			double	   *v;
			size_t		i;

			if (ten->ndim != 2 || ten->shape[0] != d || ten->shape[1] != d)
			{
				*st = dac_fail(err, DAC_ERR_FORMAT, "buffer \"%s\" has the wrong shape for this configuration", ten->name);
				return 1;
			}
			if ((v = read_values(f, ten, (size_t) d * d, st, err)) == NULL)
				return 1;
			for (i = 0; i < (size_t) d * d; i++)
			{
				size_t		o = i / d,
							c = i % d;

				if (v[i] != (double) (lmask ? c < o : c == o))
				{
					*st = dac_fail(err, DAC_ERR_FORMAT, "buffer \"%s\" is not the %s", ten->name,
								   lmask ? "strictly lower mask" : "identity");
					break;
				}
			}
			dac_free(v);
			return 1;
		}
	}
	return 0;
}

/* An invertible map's p must be a permutation matrix and sign_s ±1. */
static dac_status
check_permutations(const dac_head *h, const dac_real *P, dac_error *err)
{
	const dac_flow *f = dac_head_flow(h);
	int			k,
				o,
				i;

	if (f == NULL || f->perm != DAC_PERM_INVLIN)
		return DAC_OK;
	for (k = 0; k < f->nmade; k++)
	{
		const dac_real *p = P + f->inv[k].perm;

		for (o = 0; o < f->d; o++)
		{
			int			row = 0,
						col = 0;

			if (P[f->inv[k].sign + o] != 1 && P[f->inv[k].sign + o] != -1)
				return dac_fail(err, DAC_ERR_FORMAT, "buffer \"prior.transform.transforms.%d.sign_s\" must hold 1 or -1", 2 * k + 1);
			for (i = 0; i < f->d; i++)
			{
				dac_real	a = p[(size_t) o * f->d + i],
							b = p[(size_t) i * f->d + o];

				if ((a != 0 && a != 1) || (b != 0 && b != 1))
					row = col = -1;
				else
				{
					row += a == 1;
					col += b == 1;
				}
			}
			if (row != 1 || col != 1)
				return dac_fail(err, DAC_ERR_FORMAT, "buffer \"prior.transform.transforms.%d.p\" is not a permutation matrix", 2 * k + 1);
		}
	}
	return DAC_OK;
}

static int
same_shape(const st_tensor *t, const dac_param_info *p)
{
	int			i;

	if (t->ndim != p->ndim)
		return 0;
	for (i = 0; i < p->ndim; i++)
		if (t->shape[i] != p->shape[i])
			return 0;
	return 1;
}

/*
 * Open a weights file, read its configuration and lay out its network in
 * *net, then check that every tensor the network needs is in the file with
 * its shape: the file's own bytes then bound what loading allocates, before
 * any parameter is (a small file claiming a huge network is refused here).
 * On success f and net are open; on failure both are closed.
 */
static dac_status
open_weights(const uint8_t *buf, size_t len, st_file *f, dac_config *cfg, dac_net *net,
			 dac_error *err)
{
	const char *cfg_text;
	dac_status	st;
	int			t;

	if ((st = st_open(buf, len, f, err)) != DAC_OK)
		return st;
	cfg_text = st_meta(f, "dac.config");
	if (cfg_text == NULL)
	{
		st_close(f);
		return dac_fail(err, DAC_ERR_FORMAT, "weights file has no \"dac.config\" metadata");
	}
	if ((st = dac_config_from_json(cfg_text, strlen(cfg_text), cfg, err)) != DAC_OK)
	{
		char		msg[sizeof(err->msg)];

		if (err)
		{
			memcpy(msg, err->msg, sizeof(msg));
			dac_fail(err, st, "invalid \"dac.config\" metadata: %.200s", msg);
		}
		st_close(f);
		return st;
	}
	if ((st = dac_net_init(net, cfg, err)) != DAC_OK)
	{
		st_close(f);
		return st;
	}
	for (t = 0; t < net->ntensors; t++)
	{
		const dac_param_info *p = &net->params[t];
		const st_tensor *ten = st_find(f, p->name);

		if (ten == NULL)
			st = dac_fail(err, DAC_ERR_FORMAT, "weights file lacks tensor \"%s\"", p->name);
		else if (!same_shape(ten, p))
			st = dac_fail(err, DAC_ERR_FORMAT, "tensor \"%s\" has the wrong shape for this configuration", p->name);
		if (st != DAC_OK)
		{
			dac_net_free(net);
			st_close(f);
			return st;
		}
	}
	return DAC_OK;
}

/* Bytes of the parameter buffers (P and F) of a laid-out network. */
static double
param_bytes(const dac_net *net)
{
	return sizeof(dac_real) * ((double) net->nparams + (double) net->nfixed);
}

dac_status
dac_config_param_bytes(const dac_config *cfg, double *bytes, dac_error *err)
{
	dac_net		net;
	dac_status	st;

	if ((st = dac_net_init(&net, cfg, err)) != DAC_OK)
		return st;
	*bytes = param_bytes(&net);
	dac_net_free(&net);
	return DAC_OK;
}

dac_status
dac_model_peek(const uint8_t *buf, size_t len, dac_config *cfg, double *bytes, dac_error *err)
{
	st_file		f;
	dac_net		net;
	dac_status	st;

	if ((st = open_weights(buf, len, &f, cfg, &net, err)) != DAC_OK)
		return st;
	*bytes = param_bytes(&net);
	dac_net_free(&net);
	st_close(&f);
	return DAC_OK;
}

dac_status
dac_model_load(dac_model *m, const uint8_t *buf, size_t len, dac_error *err)
{
	st_file		f;
	dac_config	cfg;
	dac_status	st;
	size_t		i,
				bytes;
	int			t;

	memset(m, 0, sizeof(*m));
	if ((st = open_weights(buf, len, &f, &cfg, &m->net, err)) != DAC_OK)
		return st;
	if (!dac_mul_size(m->net.nparams, sizeof(dac_real), &bytes) ||
		(m->P = dac_alloc_zero(bytes)) == NULL)
	{
		dac_net_free(&m->net);
		st_close(&f);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory allocating %zu parameters", m->net.nparams);
	}

	for (t = 0; t < m->net.ntensors; t++)
	{
		const dac_param_info *p = &m->net.params[t];
		const st_tensor *ten = st_find(&f, p->name);

		if ((st = st_read_reals(&f, ten, m->P + p->offset, err)) != DAC_OK)
			goto fail;
		for (i = 0; i < p->count; i++)
			if (!isfinite((double) m->P[p->offset + i]))
			{
				st = dac_fail(err, DAC_ERR_FORMAT, "tensor \"%s\" holds a non-finite value", p->name);
				goto fail;
			}
	}

	/* the weights a MADE mask removes are not used: keep them at zero */
	dac_head_mask_params(&m->net.head, m->P);
	if ((st = check_permutations(&m->net.head, m->P, err)) != DAC_OK)
		goto fail;

	/*
	 * Every tensor in the file must be one we used, a MADE mask equal to the
	 * one we build, or a copy of a shared block.
	 */
	for (i = 0; i < f.ntensors; i++)
	{
		const st_tensor *ten = &f.tensors[i];
		char		canon[96];
		char		pname[104];
		const dac_param_info *p;
		size_t		j;
		int			block,
					which;

		if (dac_net_find_param(&m->net, ten->name))
			continue;
		if (mask_of_name(&m->net.head, ten->name, &block, &which))
		{
			if ((st = check_mask(&m->net.head, &f, ten, block, which, err)) != DAC_OK)
				goto fail;
			continue;
		}
		if (check_fixed_buffer(&m->net.head, &f, ten, &st, err))
		{
			if (st != DAC_OK)
				goto fail;
			continue;
		}
		if (!cfg.shared_blocks ||
			!shared_copy_name(ten->name, cfg.num_blocks, canon, sizeof(canon)) ||
			(p = dac_net_find_param(&m->net, canon)) == NULL)
		{
			st = dac_fail(err, DAC_ERR_FORMAT, "weights file has unexpected tensor \"%s\"", dac_printable(ten->name, pname, sizeof(pname)));
			goto fail;
		}
		if (!same_shape(ten, p) || (ten->dtype != ST_F32 && ten->dtype != ST_F64))
		{
			st = dac_fail(err, DAC_ERR_FORMAT, "tensor \"%s\" does not match the shared block it copies", dac_printable(ten->name, pname, sizeof(pname)));
			goto fail;
		}
		for (j = 0; j < p->count; j++)
		{
			double		v;

			if (ten->dtype == ST_F32)
			{
				float		fv;

				memcpy(&fv, f.data + ten->begin + 4 * j, 4);
				v = fv;
			}
			else
				memcpy(&v, f.data + ten->begin + 8 * j, 8);
			if ((dac_real) v != m->P[p->offset + j])
			{
				st = dac_fail(err, DAC_ERR_FORMAT, "tensor \"%s\" differs from the shared block it copies", dac_printable(ten->name, pname, sizeof(pname)));
				goto fail;
			}
		}
	}
	st_close(&f);
	dac_model_refresh(m);
	return DAC_OK;

fail:
	st_close(&f);
	dac_model_free(m);
	return st;
}

/* reals of all the MADE masks */
static size_t
mask_reals(const dac_head *h)
{
	const dac_flow *f = dac_head_flow(h);
	size_t		total = 0;
	int			k;

	for (k = 0; f && k < f->nmade; k++)
		total += (size_t) f->d * f->H + (size_t) f->H * f->H + (size_t) 2 * f->d * f->H;
	return total;
}

dac_status
dac_model_save(const dac_model *m, const char *const *meta, uint8_t **out,
			   size_t *out_len, dac_error *err)
{
	st_writer	w;
	char	   *cfg = dac_config_to_json(&m->net.cfg);
	dac_status	st;
	int			t,
				k,
				which;
	dac_real   *masks,
			   *at;
	const dac_flow *fl = dac_head_flow(&m->net.head);

	if (cfg == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory writing weights");
	st_writer_init(&w);
	st_writer_add_meta(&w, "dac.config", cfg);
	dac_free(cfg);
	if (meta)
		for (; meta[0] && meta[1]; meta += 2)
			st_writer_add_meta(&w, meta[0], meta[1]);
	for (t = 0; t < m->net.ntensors; t++)
	{
		const dac_param_info *p = &m->net.params[t];

		st_writer_add_reals(&w, p->name, p->ndim, p->shape, m->P + p->offset);
	}
	/* a flow's mask buffers, as the reference's state_dict holds them */
	masks = dac_alloc_zero(sizeof(dac_real) * mask_reals(&m->net.head) + 1);
	if (masks == NULL)
	{
		st_writer_free(&w);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory writing weights");
	}
	for (k = 0, at = masks; fl && k < fl->nmade; k++)
		for (which = 0; which < 3; which++)
		{
			static const char *const suffix[3] = {"linear.mask", "mlp.1.mask", "mlp.3.mask"};
			const dac_linear *l = dac_flow_masked(fl, k, which);
			char		name[96];
			int64_t		shape[2] = {l->out, l->in};
			int			o,
						c;

			for (o = 0; o < l->out; o++)
				for (c = 0; c < l->in; c++)
					at[(size_t) o * l->in + c] = (dac_real) dac_flow_mask(fl, which, o, c);
			snprintf(name, sizeof(name), "%stransform.transforms.%d.%s", flow_prefix(&m->net.head),
					 2 * k, suffix[which]);
			st_writer_add_reals(&w, name, 2, shape, at);
			at += (size_t) l->out * l->in;
		}
	st = st_writer_finish(&w, out, out_len, err);
	st_writer_free(&w);
	dac_free(masks);
	return st;
}

/* ------------------------------------------------------------------
 * dac.h's constructors and questions for an opaque model
 * ------------------------------------------------------------------ */

dac_status
dac_model_read(const uint8_t *buf, size_t len, dac_model **out, dac_error *err)
{
	dac_model  *m = dac_alloc_object(sizeof(dac_model), err);
	dac_status	st;

	*out = NULL;
	if (m == NULL)
		return DAC_ERR_NOMEM;
	if ((st = dac_model_load(m, buf, len, err)) != DAC_OK)
	{
		dac_free(m);
		return st;
	}
	*out = m;
	return DAC_OK;
}

dac_status
dac_model_read_bytes(const uint8_t *buf, size_t len, double *bytes, dac_error *err)
{
	dac_config	cfg;

	return dac_model_peek(buf, len, &cfg, bytes, err);
}

char *
dac_weights_meta(const uint8_t *buf, size_t len, const char *key, dac_error *err)
{
	st_file		f;
	const char *v;
	char	   *copy = NULL;

	if (st_open(buf, len, &f, err) != DAC_OK)
		return NULL;
	if ((v = st_meta(&f, key)) != NULL && (copy = dac_alloc(strlen(v) + 1)) != NULL)
		memcpy(copy, v, strlen(v) + 1);
	else if (v != NULL)
		dac_fail(err, DAC_ERR_NOMEM, "out of memory");
	st_close(&f);
	return copy;
}

dac_status
dac_config_from_options(dac_option_get get, void *ctx, int data_width, dac_config *cfg, dac_error *err)
{
	/* the architecture's options (dim apart: its default depends on the source) */
	static const char *const names[] = {"strategy", "density", "input", "dim_hidden", "num_heads",
		"num_inds", "num_blocks", "shared_blocks", "maf_blocks", "maf_hidden", "maf_context",
	"image_filters", "image_latent"};
	static const char *const dim_name[] = {"dim"};
	const char *text[3];
	dac_strategy kind = DAC_MLF;
	double		v[13],
				dim = 2;
	dac_status	st;
	int			i;

	if ((st = dac_options_read(dac_train_options, names, 13, get, ctx, 0, v, err)) != DAC_OK)
		return st;
	if (get(ctx, "dim") && (st = dac_options_read(dac_train_options, dim_name, 1, get, ctx, 0, &dim, err)) != DAC_OK)
		return st;
	/* the text options by name: the table allowed only the names the core parses (net.h) */
	for (i = 0; i < 3; i++)
		text[i] = get(ctx, names[i]) ? get(ctx, names[i]) : dac_train_option(names[i])->def;
	dac_strategy_parse(text[0], &kind);
	*cfg = dac_config_default(kind, 2);
	dac_density_parse(text[1], &cfg->density);
	dac_input_parse(text[2], &cfg->input);
	cfg->dim_hidden = (int) v[3];
	cfg->num_heads = (int) v[4];
	cfg->num_inds = (int) v[5];
	cfg->num_blocks = (int) v[6];
	cfg->shared_blocks = v[7] != 0;
	/* the flow's sizes; the image model's prior has the authors' six blocks unless told */
	cfg->maf_blocks = cfg->density == DAC_DENSITY_NS && get(ctx, "maf_blocks") == NULL ? 6 : (int) v[8];
	cfg->maf_hidden = (int) v[9];
	cfg->maf_context = (int) v[10];
	cfg->image_filters = (int) v[11];
	cfg->latent = (int) v[12];
	/* 28x28 images; a raw model takes its rows' width; otherwise "dim" */
	if (cfg->density == DAC_DENSITY_NS)
		cfg->dim_input = data_width > 0 ? data_width : 784;
	else
		cfg->dim_input = data_width > 0 && cfg->input == DAC_INPUT_RAW ? data_width : (int) dim;
	return dac_config_check(cfg, err);
}

dac_status
dac_model_new_bytes(dac_option_get get, void *ctx, int data_width, double *bytes, dac_error *err)
{
	dac_config	cfg;
	dac_status	st;

	if ((st = dac_config_from_options(get, ctx, data_width, &cfg, err)) != DAC_OK)
		return st;
	if ((st = dac_config_param_bytes(&cfg, bytes, err)) != DAC_OK)
		return st;
	/* the parameters, and the optimiser's three buffers beside them */
	*bytes *= 4;
	return DAC_OK;
}

/* A new model of cfg in *out. */
static dac_status
model_of(const dac_config *cfg, dac_model **out, dac_error *err)
{
	dac_model  *m = dac_alloc_object(sizeof(dac_model), err);
	dac_status	st;

	*out = NULL;
	if (m == NULL)
		return DAC_ERR_NOMEM;
	if ((st = dac_model_create(m, cfg, err)) != DAC_OK)
	{
		dac_free(m);
		return st;
	}
	*out = m;
	return DAC_OK;
}

dac_status
dac_model_new(dac_option_get get, void *ctx, int data_width, dac_model **out, dac_error *err)
{
	dac_config	cfg;
	dac_status	st;

	*out = NULL;
	if ((st = dac_config_from_options(get, ctx, data_width, &cfg, err)) != DAC_OK)
		return st;
	return model_of(&cfg, out, err);
}

dac_status
dac_model_copy(const dac_model *from, dac_model **out, dac_error *err)
{
	dac_status	st;

	if ((st = model_of(&from->net.cfg, out, err)) != DAC_OK)
		return st;
	memcpy((*out)->P, from->P, sizeof(dac_real) * from->net.nparams);
	return DAC_OK;
}

dac_status
dac_model_with_map(const dac_model *from, const dac_real *M, int d, dac_model **out, dac_error *err)
{
	return dac_model_with_gated_map(from, M, d, d, NULL, NULL, 0, 0, NULL, out, err);
}

dac_status
dac_model_with_gated_map(const dac_model *from, const dac_real *M, int rows, int d, const dac_real *G,
						 const dac_real *means, int classes, double threshold, const dac_real *Melse,
						 dac_model **out, dac_error *err)
{
	dac_config	cfg = from->net.cfg;
	dac_status	st;

	*out = NULL;
	if (cfg.input != DAC_INPUT_SETNORM)
		return dac_fail(err, DAC_ERR_INVALID, "only a model whose input is normalised per set takes an input map");
	if (M && (rows < 1 || rows > d))
		return dac_fail(err, DAC_ERR_INVALID, "an input map of %d rows for %d-wide rows", rows, d);
	cfg.map_dim = M ? d : 0;
	cfg.map_rows = M && rows < d ? rows : 0;
	cfg.gate_classes = M && G ? classes : 0;
	cfg.gate_threshold = M && G ? threshold : 0;
	cfg.map_else = M && G && Melse;
	if ((st = model_of(&cfg, out, err)) != DAC_OK)
		return st;
	/* the map and the gate are the last tensors: the network's lie where they lay */
	memcpy((*out)->P, from->P, sizeof(dac_real) *
		   (from->net.cfg.map_dim > 0 ? from->net.map : from->net.nparams));
	if (M)
		memcpy((*out)->P + (*out)->net.map, M, sizeof(dac_real) * (size_t) rows * d);
	if (M && G)
	{
		memcpy((*out)->P + (*out)->net.gate, G, sizeof(dac_real) * (size_t) d * d);
		memcpy((*out)->P + (*out)->net.gate_means, means, sizeof(dac_real) * (size_t) classes * d);
	}
	if (M && G && Melse)
		memcpy((*out)->P + (*out)->net.map_else, Melse, sizeof(dac_real) * (size_t) d * d);
	dac_model_refresh(*out);
	return DAC_OK;
}

int
dac_model_same_config(const dac_model *a, const dac_model *b)
{
	/* the networks, not the settings they carry */
	dac_config	fa = a->net.cfg,
				fb = b->net.cfg;
	char	   *ca,
			   *cb;
	int			same;

	fa.settings_set = fb.settings_set = 0;
	ca = dac_config_to_json(&fa);
	cb = dac_config_to_json(&fb);
	same = ca && cb ? strcmp(ca, cb) == 0 && a->net.nparams == b->net.nparams : -1;

	dac_free(ca);
	dac_free(cb);
	return same;
}

dac_status
dac_model_average(dac_model *m, const dac_model *const *others, int n, dac_error *err)
{
	size_t		i;
	int			j;

	for (j = 0; j < n; j++)
	{
		int			same = dac_model_same_config(m, others[j]);

		if (same < 0)
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory");
		if (!same)
			return dac_fail(err, DAC_ERR_INVALID,
							"model %d of the average has another configuration than the first", j + 2);
	}
	/* each parameter's mean in double, rounded once to the model's precision */
	for (i = 0; i < m->net.nparams; i++)
	{
		double		s = m->P[i];

		for (j = 0; j < n; j++)
			s += others[j]->P[i];
		m->P[i] = (dac_real) (s / (n + 1));
	}
	dac_model_refresh(m);
	return DAC_OK;
}

dac_status
dac_model_assign(dac_model *m, const dac_model *from, dac_error *err)
{
	int			same = dac_model_same_config(m, from);

	if (same < 0)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory");
	if (!same)
		return dac_fail(err, DAC_ERR_INVALID, "the two models have different configurations");
	memcpy(m->P, from->P, sizeof(dac_real) * m->net.nparams);
	dac_model_refresh(m);
	return DAC_OK;
}

dac_status
dac_model_set_units(dac_model *m, double unit_width, dac_error *err)
{
	dac_config	cfg = m->net.cfg;
	dac_status	st;

	cfg.input = unit_width > 0 ? DAC_INPUT_SCALED : DAC_INPUT_RAW;
	cfg.unit_width = unit_width > 0 ? unit_width : cfg.unit_width;
	if ((st = dac_config_check(&cfg, err)) != DAC_OK)
		return st;
	m->net.cfg = cfg;
	return DAC_OK;
}

dac_status
dac_model_shrink_inds(dac_model *m, int inds, dac_error *err)
{
	dac_config	cfg = m->net.cfg;
	dac_model	small;
	dac_status	st;
	int			t;

	if (inds == cfg.num_inds)
		return DAC_OK;
	if (inds < 1 || inds > cfg.num_inds)
		return dac_fail(err, DAC_ERR_INVALID, "inducing points must be between 1 and %d, not %d",
						cfg.num_inds, inds);
	cfg.num_inds = inds;
	if ((st = dac_model_create(&small, &cfg, err)) != DAC_OK)
		return st;
	for (t = 0; t < small.net.ntensors; t++)
	{
		const dac_param_info *to = &small.net.params[t];
		const dac_param_info *from = dac_net_find_param(&m->net, to->name);

		/* a shrunk tensor (an ISAB's I, [inds, D]) keeps its first rows */
		if (from == NULL || from->ndim != to->ndim || from->count < to->count ||
			(to->ndim == 2 && from->shape[1] != to->shape[1]))
		{
			dac_model_free(&small);
			return dac_fail(err, DAC_ERR_CONFIG, "cannot shrink tensor %s", to->name);
		}
		memcpy(small.P + to->offset, m->P + from->offset, sizeof(dac_real) * to->count);
	}
	dac_model_free(m);
	*m = small;
	return DAC_OK;
}

void
dac_model_destroy(dac_model *m)
{
	if (m == NULL)
		return;
	dac_model_free(m);
	dac_free(m);
}

int
dac_model_num_inds(const dac_model *m)
{
	return m->net.cfg.num_inds;
}

char *
dac_model_config_json(const dac_model *m)
{
	return dac_config_to_json(&m->net.cfg);
}

int
dac_model_setting(const dac_model *m, const char *name, double *v)
{
	int			i = dac_model_setting_index(name);

	if (i < 0 || !(m->net.cfg.settings_set & ((uint32_t) 1 << i)))
		return 0;
	*v = m->net.cfg.settings[i];
	return 1;
}

dac_status
dac_weights_with_settings(const uint8_t *buf, size_t len, const char *json, size_t json_len,
						  uint8_t **out, size_t *out_len, dac_error *err)
{
	st_file		f;
	st_writer	w;
	dac_config	cfg;
	dac_net		net;
	dac_arena	ar;
	json_value *root;
	char	   *cfg_text = NULL;
	dac_status	st;
	size_t		i;

	*out = NULL;
	*out_len = 0;
	if ((st = open_weights(buf, len, &f, &cfg, &net, err)) != DAC_OK)
		return st;
	dac_net_free(&net);
	dac_arena_init(&ar, 4096);
	if ((st = json_parse(json, json_len, &ar, &root, err)) == DAC_OK &&
		(st = dac_config_settings_from_json(root, &cfg, DAC_ERR_INVALID, err)) == DAC_OK &&
		(cfg_text = dac_config_to_json(&cfg)) == NULL)
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory writing weights");
	dac_arena_free(&ar);
	if (st != DAC_OK)
	{
		st_close(&f);
		return st;
	}
	/* the same file, its configuration written anew */
	st_writer_init(&w);
	st_writer_add_meta(&w, "dac.config", cfg_text);
	for (i = 0; i < f.nmeta; i++)
		if (strcmp(f.meta_keys[i], "dac.config") != 0)
			st_writer_add_meta(&w, f.meta_keys[i], f.meta_vals[i]);
	for (i = 0; i < f.ntensors; i++)
	{
		const st_tensor *t = &f.tensors[i];

		st_writer_add_raw(&w, t->name, t->dtype, t->ndim, t->shape, f.data + t->begin);
	}
	st = st_writer_finish(&w, out, out_len, err);
	st_writer_free(&w);
	st_close(&f);
	dac_free(cfg_text);
	return st;
}
