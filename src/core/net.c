/*
 * net.c
 *	  Parameter layout, initialisation, forward and backward of the MLF and
 *	  AF filtering networks.
 */
#include "net.h"
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

dac_config
dac_config_default(dac_strategy strategy, int dim_input)
{
	dac_config	c;

	memset(&c, 0, sizeof(c));	/* the padding too: configurations compare byte for byte */
	c.strategy = strategy;
	c.density = DAC_DENSITY_GAUSSIAN;
	c.input = DAC_INPUT_RAW;
	c.dim_input = dim_input;
	/* the sizes' defaults are the option table's (dac_train_options) */
	c.dim_hidden = (int) dac_option_default(dac_train_option("dim_hidden"));
	c.num_heads = (int) dac_option_default(dac_train_option("num_heads"));
	c.num_inds = (int) dac_option_default(dac_train_option("num_inds"));
	c.num_blocks = (int) dac_option_default(dac_train_option("num_blocks"));
	c.shared_blocks = 1;
	c.maf_blocks = (int) dac_option_default(dac_train_option("maf_blocks"));
	c.maf_hidden = (int) dac_option_default(dac_train_option("maf_hidden"));
	c.maf_context = (int) dac_option_default(dac_train_option("maf_context"));
	c.image_filters = (int) dac_option_default(dac_train_option("image_filters"));
	c.latent = (int) dac_option_default(dac_train_option("image_latent"));
	return c;
}

dac_status
dac_config_check(const dac_config *c, dac_error *err)
{
	if (c->strategy != DAC_MLF && c->strategy != DAC_AF)
		return dac_fail(err, DAC_ERR_CONFIG, "strategy must be \"mlf\" or \"af\"");
	if (c->density != DAC_DENSITY_GAUSSIAN && c->density != DAC_DENSITY_NONE &&
		c->density != DAC_DENSITY_MAF && c->density != DAC_DENSITY_NS)
		return dac_fail(err, DAC_ERR_CONFIG, "density must be \"gaussian_diag\", \"maf\", \"ns\" or \"none\"");
	if (c->input != DAC_INPUT_RAW && c->input != DAC_INPUT_SETNORM && c->input != DAC_INPUT_SCALED)
		return dac_fail(err, DAC_ERR_CONFIG, "input must be \"raw\", \"setnorm\" or \"scaled\"");
	if (c->input == DAC_INPUT_SCALED && !(c->unit_width >= 1e-6 && c->unit_width <= 1e6))
		return dac_fail(err, DAC_ERR_CONFIG, "an input \"scaled\" needs a unit_width between 1e-6 and 1e6");
	if (c->dim_input < 1 || c->dim_input > DAC_MAX_DIM_INPUT)
		return dac_fail(err, DAC_ERR_CONFIG, "dim_input must be between 1 and %d", DAC_MAX_DIM_INPUT);
	if (c->dim_hidden < 1 || c->dim_hidden > DAC_MAX_DIM_HIDDEN)
		return dac_fail(err, DAC_ERR_CONFIG, "dim_hidden must be between 1 and %d", DAC_MAX_DIM_HIDDEN);
	if (c->num_heads < 1 || c->num_heads > c->dim_hidden || c->dim_hidden % c->num_heads != 0)
		return dac_fail(err, DAC_ERR_CONFIG, "num_heads must divide dim_hidden (%d)", c->dim_hidden);
	if (c->num_inds < 1 || c->num_inds > DAC_MAX_INDS)
		return dac_fail(err, DAC_ERR_CONFIG, "num_inds must be between 1 and %d", DAC_MAX_INDS);
	if (c->num_blocks < 1 || c->num_blocks > DAC_MAX_BLOCKS)
		return dac_fail(err, DAC_ERR_CONFIG, "num_blocks must be between 1 and %d", DAC_MAX_BLOCKS);
	if (c->shared_blocks != 0 && c->shared_blocks != 1)
		return dac_fail(err, DAC_ERR_CONFIG, "shared_blocks must be a boolean");
	if (c->density == DAC_DENSITY_NS)
	{
		if (c->strategy != DAC_MLF || c->input != DAC_INPUT_RAW)
			return dac_fail(err, DAC_ERR_CONFIG, "the image model is an \"mlf\" network on raw pixels");
		if (c->dim_input != DAC_IMAGE_PIXELS)
			return dac_fail(err, DAC_ERR_CONFIG, "the image model takes %dx%d images of one channel",
							DAC_IMAGE_SIDE, DAC_IMAGE_SIDE);
		if (c->image_filters < 1 || c->image_filters > DAC_MAX_FILTERS)
			return dac_fail(err, DAC_ERR_CONFIG, "num_filters must be between 1 and %d", DAC_MAX_FILTERS);
		if (c->latent < 2 || c->latent > DAC_MAX_DIM_HIDDEN)
			return dac_fail(err, DAC_ERR_CONFIG, "dim_lats must be between 2 and %d", DAC_MAX_DIM_HIDDEN);
	}
	if (c->density == DAC_DENSITY_MAF || c->density == DAC_DENSITY_NS)
	{
		/* the reference masks leave a 1-D flow nothing to condition on */
		if (c->density == DAC_DENSITY_MAF && c->dim_input < 2)
			return dac_fail(err, DAC_ERR_CONFIG, "a \"maf\" density needs dim_input of at least 2");
		if (c->maf_blocks < 1 || c->maf_blocks > DAC_MAX_MADE)
			return dac_fail(err, DAC_ERR_CONFIG, "maf num_made must be between 1 and %d", DAC_MAX_MADE);
		if (c->maf_hidden < 1 || c->maf_hidden > DAC_MAX_DIM_HIDDEN)
			return dac_fail(err, DAC_ERR_CONFIG, "maf dim_hids must be between 1 and %d", DAC_MAX_DIM_HIDDEN);
		if (c->maf_context < 1 || c->maf_context > DAC_MAX_DIM_HIDDEN)
			return dac_fail(err, DAC_ERR_CONFIG, "maf dim_context must be between 1 and %d", DAC_MAX_DIM_HIDDEN);
	}
	if (c->map_dim != 0 && (c->input != DAC_INPUT_SETNORM || c->map_dim < 1 || c->map_dim > DAC_MAX_MAP_DIM))
		return dac_fail(err, DAC_ERR_CONFIG, "an input map needs \"input\": \"setnorm\" and a width between 1 and %d",
						DAC_MAX_MAP_DIM);
	if (c->map_rows != 0 && (c->map_dim == 0 || c->map_rows < 1 || c->map_rows > c->map_dim))
		return dac_fail(err, DAC_ERR_CONFIG, "\"input_map_rows\" needs an input map and lies between 1 and its width");
	if (c->gate_classes != 0 &&
		(c->map_dim < 1 || c->gate_classes < 2 || c->gate_classes > DAC_MAX_GATE_CLASSES ||
		 !(c->gate_threshold > 0) || !isfinite(c->gate_threshold)))
		return dac_fail(err, DAC_ERR_CONFIG, "an input gate needs an input map, between 2 and %d classes and a "
						"positive threshold", DAC_MAX_GATE_CLASSES);
	if (c->map_else && c->gate_classes == 0)
		return dac_fail(err, DAC_ERR_CONFIG, "\"input_map_else\" needs an input gate");
	return DAC_OK;
}

static dac_status
config_int(const json_value *root, const char *key, int *out, int required, dac_error *err)
{
	const json_value *v = json_get(root, key);

	if (v == NULL)
	{
		if (required)
			return dac_fail(err, DAC_ERR_CONFIG, "model configuration lacks \"%s\"", key);
		return DAC_OK;
	}
	if (v->type != JSON_NUMBER || !v->is_integer || !v->integer_ok ||
		v->integer < -1000000 || v->integer > 1000000)
		return dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"%s\" must be an integer", key);
	*out = (int) v->integer;
	return DAC_OK;
}

/* An optional boolean key: *out is left as it is when the key is absent. */
static dac_status
config_bool(const json_value *root, const char *key, int *out, dac_error *err)
{
	const json_value *v = json_get(root, key);

	if (v == NULL)
		return DAC_OK;
	if (v->type != JSON_BOOL)
		return dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"%s\" must be a boolean", key);
	*out = v->boolean;
	return DAC_OK;
}

static const char *const strategy_names[] = {"mlf", "af"};
static const char *const density_names[] = {"gaussian_diag", "none", "maf", "ns"};
static const char *const input_names[] = {"raw", "setnorm", "scaled"};

/* The index of name among names [n], or -1. */
static int
name_index(const char *const *names, int n, const char *name)
{
	int			i;

	for (i = 0; name && i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

const char *
dac_strategy_name(dac_strategy s)
{
	return strategy_names[s == DAC_AF];
}

const char *
dac_input_name(dac_input i)
{
	return input_names[i == DAC_INPUT_SETNORM ? 1 : i == DAC_INPUT_SCALED ? 2 : 0];
}

int
dac_strategy_parse(const char *name, dac_strategy *out)
{
	int			i = name_index(strategy_names, 2, name);

	if (i >= 0)
		*out = i == 1 ? DAC_AF : DAC_MLF;
	return i >= 0;
}

int
dac_density_parse(const char *name, dac_density *out)
{
	int			i = name_index(density_names, 4, name);

	if (i >= 0)
		*out = i == 1 ? DAC_DENSITY_NONE : i == 2 ? DAC_DENSITY_MAF : i == 3 ? DAC_DENSITY_NS :
			DAC_DENSITY_GAUSSIAN;
	return i >= 0;
}

int
dac_input_parse(const char *name, dac_input *out)
{
	int			i = name_index(input_names, 3, name);

	if (i >= 0)
		*out = i == 1 ? DAC_INPUT_SETNORM : i == 2 ? DAC_INPUT_SCALED : DAC_INPUT_RAW;
	return i >= 0;
}

/* a string member, when present, must be want */
static dac_status
config_string_is(const json_value *obj, const char *key, const char *want, const char *where,
				 dac_error *err)
{
	const json_value *v = json_get(obj, key);

	if (v != NULL && (v->type != JSON_STRING || strcmp(v->string, want) != 0))
		return dac_fail(err, DAC_ERR_CONFIG, "model configuration key %s\"%s\" must be \"%s\"",
						where, key, want);
	return DAC_OK;
}

/*
 * The image model's configuration, as the authors' FilteringNetwork of
 * multi_emnist.py is described: {"model": "neural_statistician_mixture",
 * "image": [1, 28, 28], "num_filters", "dim_lats", "dim_hids",
 * "dim_context", "num_inds", "num_heads", "num_isab_blocks",
 * "shared_blocks", "maf": {"num_made", "dim_hids", "dim_context",
 * "permutation": "InvertibleLinear (LU)"}, "likelihood": "bernoulli_logits"}.
 */
static dac_status
ns_config_from_json(const json_value *root, dac_config *cfg, dac_error *err)
{
	const json_value *v = json_get(root, "image");
	const json_value *maf = json_get(root, "maf");
	int			context = -1;
	dac_status	st;

	cfg->density = DAC_DENSITY_NS;
	cfg->dim_input = DAC_IMAGE_PIXELS;
	cfg->maf_blocks = 6;
	if (v == NULL || v->type != JSON_ARRAY || v->count != 3 ||
		v->items[0]->type != JSON_NUMBER || v->items[0]->number != 1 ||
		v->items[1]->type != JSON_NUMBER || v->items[1]->number != DAC_IMAGE_SIDE ||
		v->items[2]->type != JSON_NUMBER || v->items[2]->number != DAC_IMAGE_SIDE)
		return dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"image\" must be [1, %d, %d]",
						DAC_IMAGE_SIDE, DAC_IMAGE_SIDE);
	if ((st = config_int(root, "num_filters", &cfg->image_filters, 1, err)) != DAC_OK ||
		(st = config_int(root, "dim_lats", &cfg->latent, 1, err)) != DAC_OK ||
		(st = config_int(root, "dim_hids", &cfg->dim_hidden, 1, err)) != DAC_OK ||
		(st = config_int(root, "dim_context", &cfg->maf_context, 1, err)) != DAC_OK ||
		(st = config_int(root, "num_inds", &cfg->num_inds, 0, err)) != DAC_OK ||
		(st = config_int(root, "num_heads", &cfg->num_heads, 0, err)) != DAC_OK ||
		(st = config_int(root, "num_isab_blocks", &cfg->num_blocks, 0, err)) != DAC_OK)
		return st;
	if (maf != NULL)
	{
		if (maf->type != JSON_OBJECT)
			return dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"maf\" must be an object");
		if ((st = config_int(maf, "num_made", &cfg->maf_blocks, 0, err)) != DAC_OK ||
			(st = config_int(maf, "dim_hids", &cfg->maf_hidden, 0, err)) != DAC_OK ||
			(st = config_int(maf, "dim_context", &context, 0, err)) != DAC_OK ||
			(st = config_string_is(maf, "permutation", "InvertibleLinear (LU)", "\"maf\".", err)) != DAC_OK ||
			(st = config_string_is(maf, "base", "standard normal", "\"maf\".", err)) != DAC_OK)
			return st;
		if (context != -1 && context != cfg->maf_context)
			return dac_fail(err, DAC_ERR_CONFIG, "the prior's context must be the cluster context: \"maf\".\"dim_context\" must equal \"dim_context\"");
	}
	return config_string_is(root, "likelihood", "bernoulli_logits", "", err);
}

dac_status
dac_config_settings_from_json(const json_value *obj, dac_config *cfg, dac_status code, dac_error *err)
{
	size_t		j;

	if (obj->type != JSON_OBJECT)
		return dac_fail_hint(err, code, "Give an object such as '{\"graph_resolution\": 0.2}'; '{}' for none.",
							 "a model's settings must be a JSON object of setting names and values");
	cfg->settings_set = 0;
	memset(cfg->settings, 0, sizeof(cfg->settings));
	for (j = 0; j < obj->count; j++)
	{
		const char *name = obj->keys[j];
		const json_value *v = obj->items[j];
		int			i = dac_model_setting_index(name);
		const dac_option *o = dac_model_setting_option(i);
		char		buf[64];
		dac_status	st;

		if (o == NULL)
			return dac_fail_hint(err, code, "A model carries the settings dac_model_settings lists; "
								 "k, max_k, noise and cluster_width are given with each call.",
								 "\"%s\" is not a setting a model can carry",
								 dac_printable(name, buf, sizeof(buf)));
		if (o->kind == DAC_OPT_BOOL ? v->type != JSON_BOOL :
			o->kind == DAC_OPT_TEXT ? v->type != JSON_STRING : v->type != JSON_NUMBER)
			return dac_fail_hint(err, code, "Write a number without quotes, true or false, or a name in quotes.",
								 "setting \"%s\" must be %s", name,
								 o->kind == DAC_OPT_BOOL ? "true or false" :
								 o->kind == DAC_OPT_TEXT ? "a string" : "a number");
		if (o->kind == DAC_OPT_BOOL)
			cfg->settings[i] = v->boolean != 0;
		else if ((st = o->kind == DAC_OPT_TEXT ? dac_option_value(o, v->string, &cfg->settings[i], err) :
				  dac_option_check(o, v->number, err)) != DAC_OK)
		{
			/* the option's own message (its range, its names), as the kind of error asked for */
			if (err)
			{
				err->code = code;
				err->hint = "Give a value the message allows, or leave the setting out for its default.";
			}
			return code;
		}
		else if (o->kind != DAC_OPT_TEXT)
			cfg->settings[i] = v->number;
		cfg->settings_set |= (uint32_t) 1 << i;
	}
	return DAC_OK;
}

/* ", \"settings\": {...}" when cfg carries any, in the options' order */
static void
settings_to_json(const dac_config *c, dac_strbuf *sb)
{
	int			i,
				first = 1;

	if (c->settings_set == 0)
		return;
	dac_strbuf_printf(sb, ", \"settings\": {");
	for (i = 0; i < DAC_MAX_MODEL_SETTINGS; i++)
		if (c->settings_set & ((uint32_t) 1 << i))
		{
			const dac_option *o = dac_model_setting_option(i);
			char		buf[64];

			dac_option_text(o, c->settings[i], buf, sizeof(buf));
			dac_strbuf_printf(sb, "%s\"%s\": ", first ? "" : ", ", o->name);
			if (o->kind == DAC_OPT_TEXT)
				dac_strbuf_json_string(sb, buf);
			else
				dac_strbuf_printf(sb, "%s", buf);
			first = 0;
		}
	dac_strbuf_printf(sb, "}");
}

dac_status
dac_config_from_json(const char *text, size_t len, dac_config *cfg, dac_error *err)
{
	dac_arena	ar;
	json_value *root;
	const json_value *v;
	dac_status	st;

	dac_arena_init(&ar, 4096);
	st = json_parse(text, len, &ar, &root, err);
	if (st != DAC_OK)
		goto done;
	if (root->type != JSON_OBJECT)
	{
		st = dac_fail(err, DAC_ERR_CONFIG, "model configuration is not a JSON object");
		goto done;
	}
	*cfg = dac_config_default(DAC_MLF, 2);
	v = json_get(root, "strategy");
	if (v == NULL || v->type != JSON_STRING || !dac_strategy_parse(v->string, &cfg->strategy))
	{
		st = dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"strategy\" must be \"mlf\" or \"af\"");
		goto done;
	}
	if (json_get(root, "model") != NULL)
	{
		if ((st = config_string_is(root, "model", "neural_statistician_mixture", "", err)) != DAC_OK ||
			(st = ns_config_from_json(root, cfg, err)) != DAC_OK)
			goto done;
		goto flags;
	}
	v = json_get(root, "density");
	if (v != NULL)
	{
		if (v->type != JSON_STRING || !dac_density_parse(v->string, &cfg->density) ||
			cfg->density == DAC_DENSITY_NS)
		{
			st = dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"density\" must be \"gaussian_diag\", \"maf\" or \"none\"");
			goto done;
		}
	}
	/* the flow: {"num_made", "dim_hids", "dim_context", "permutation": "flip", "base": "standard normal"} */
	v = json_get(root, "maf");
	if (v != NULL)
	{
		const json_value *s;

		if (v->type != JSON_OBJECT)
		{
			st = dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"maf\" must be an object");
			goto done;
		}
		if ((st = config_int(v, "num_made", &cfg->maf_blocks, 0, err)) != DAC_OK ||
			(st = config_int(v, "dim_hids", &cfg->maf_hidden, 0, err)) != DAC_OK ||
			(st = config_int(v, "dim_context", &cfg->maf_context, 0, err)) != DAC_OK)
			goto done;
		s = json_get(v, "permutation");
		if (s != NULL && (s->type != JSON_STRING || strcmp(s->string, "flip") != 0))
		{
			st = dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"maf\".\"permutation\" must be \"flip\"");
			goto done;
		}
		s = json_get(v, "base");
		if (s != NULL && (s->type != JSON_STRING || strcmp(s->string, "standard normal") != 0))
		{
			st = dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"maf\".\"base\" must be \"standard normal\"");
			goto done;
		}
	}
	v = json_get(root, "input");
	if (v != NULL)
	{
		if (v->type != JSON_STRING || !dac_input_parse(v->string, &cfg->input))
		{
			st = dac_fail(err, DAC_ERR_CONFIG,
						  "model configuration key \"input\" must be \"raw\", \"setnorm\" or \"scaled\"");
			goto done;
		}
	}
	v = json_get(root, "unit_width");
	if (v != NULL)
	{
		if (v->type != JSON_NUMBER || cfg->input != DAC_INPUT_SCALED)
		{
			st = dac_fail(err, DAC_ERR_CONFIG,
						  "model configuration key \"unit_width\" must be a number, with \"input\": \"scaled\"");
			goto done;
		}
		cfg->unit_width = v->number;
	}
	if ((st = config_int(root, "dim_input", &cfg->dim_input, 1, err)) != DAC_OK ||
		(st = config_int(root, "dim_hidden", &cfg->dim_hidden, 0, err)) != DAC_OK ||
		(st = config_int(root, "num_heads", &cfg->num_heads, 0, err)) != DAC_OK ||
		(st = config_int(root, "num_inds", &cfg->num_inds, 0, err)) != DAC_OK ||
		(st = config_int(root, "num_blocks", &cfg->num_blocks, 0, err)) != DAC_OK ||
		(st = config_int(root, "input_map", &cfg->map_dim, 0, err)) != DAC_OK ||
		(st = config_int(root, "input_map_rows", &cfg->map_rows, 0, err)) != DAC_OK ||
		(st = config_int(root, "input_gate", &cfg->gate_classes, 0, err)) != DAC_OK)
		goto done;
	if ((st = config_bool(root, "input_map_else", &cfg->map_else, err)) != DAC_OK)
		goto done;
	v = json_get(root, "input_gate_threshold");
	if (v != NULL || cfg->gate_classes != 0)
	{
		if (v == NULL || v->type != JSON_NUMBER || !(v->number > 0) || !isfinite(v->number) ||
			cfg->gate_classes == 0)
		{
			st = dac_fail(err, DAC_ERR_CONFIG, "model configuration key \"input_gate_threshold\" must be a "
						  "positive number, with \"input_gate\"");
			goto done;
		}
		cfg->gate_threshold = v->number;
	}
flags:
	if ((st = config_bool(root, "shared_blocks", &cfg->shared_blocks, err)) != DAC_OK)
		goto done;
	v = json_get(root, "settings");
	if (v != NULL && (st = dac_config_settings_from_json(v, cfg, DAC_ERR_CONFIG, err)) != DAC_OK)
		goto done;
	st = dac_config_check(cfg, err);
done:
	dac_arena_free(&ar);
	return st;
}

char *
dac_config_to_json(const dac_config *c)
{
	dac_strbuf	sb;

	dac_strbuf_init(&sb);
	if (c->density == DAC_DENSITY_NS)
		dac_strbuf_printf(&sb,
						  "{\"strategy\": \"mlf\", \"model\": \"neural_statistician_mixture\", "
						  "\"image\": [1, %d, %d], \"num_filters\": %d, \"dim_lats\": %d, "
						  "\"dim_hids\": %d, \"dim_context\": %d, \"num_inds\": %d, \"num_heads\": %d, "
						  "\"num_isab_blocks\": %d, \"shared_blocks\": %s, "
						  "\"maf\": {\"num_made\": %d, \"dim_hids\": %d, \"dim_context\": %d, "
						  "\"permutation\": \"InvertibleLinear (LU)\", \"base\": \"standard normal\"}, "
						  "\"likelihood\": \"bernoulli_logits\"",
						  DAC_IMAGE_SIDE, DAC_IMAGE_SIDE, c->image_filters, c->latent, c->dim_hidden,
						  c->maf_context, c->num_inds, c->num_heads, c->num_blocks,
						  c->shared_blocks ? "true" : "false", c->maf_blocks, c->maf_hidden,
						  c->maf_context);
	else
		dac_strbuf_printf(&sb,
					  "{\"strategy\": \"%s\", \"density\": \"%s\", \"dim_input\": %d, "
					  "\"dim_hidden\": %d, \"num_heads\": %d, \"num_inds\": %d, "
					  "\"num_blocks\": %d, \"shared_blocks\": %s%s",
					  dac_strategy_name(c->strategy),
					  dac_density_name(c->density),
					  c->dim_input, c->dim_hidden, c->num_heads, c->num_inds,
					  c->num_blocks, c->shared_blocks ? "true" : "false",
					  c->input == DAC_INPUT_SETNORM ? ", \"input\": \"setnorm\"" : "");
	if (c->input == DAC_INPUT_SCALED)
		dac_strbuf_printf(&sb, ", \"input\": \"scaled\", \"unit_width\": %.17g", c->unit_width);
	if (c->map_dim > 0)
		dac_strbuf_printf(&sb, ", \"input_map\": %d", c->map_dim);
	if (c->map_dim > 0 && c->map_rows > 0 && c->map_rows < c->map_dim)
		dac_strbuf_printf(&sb, ", \"input_map_rows\": %d", c->map_rows);
	if (c->gate_classes > 0)
		dac_strbuf_printf(&sb, ", \"input_gate\": %d, \"input_gate_threshold\": %.17g", c->gate_classes,
						  c->gate_threshold);
	if (c->map_else)
		dac_strbuf_printf(&sb, ", \"input_map_else\": true");
	if (c->density == DAC_DENSITY_MAF)
		dac_strbuf_printf(&sb, ", \"maf\": {\"num_made\": %d, \"dim_hids\": %d, \"dim_context\": %d, "
						  "\"permutation\": \"flip\", \"base\": \"standard normal\"}",
						  c->maf_blocks, c->maf_hidden, c->maf_context);
	settings_to_json(c, &sb);
	dac_strbuf_printf(&sb, "}");
	if (sb.failed)
	{
		dac_strbuf_free(&sb);
		return NULL;
	}
	return sb.data;
}

int
dac_config_map_rows(const dac_config *cfg)
{
	return cfg->map_rows > 0 ? cfg->map_rows : cfg->map_dim;
}

int
dac_config_row_width(const dac_config *cfg)
{
	return cfg->dim_input + (cfg->density == DAC_DENSITY_NS ? cfg->latent : 0);
}

int
dac_config_accepts(const dac_config *cfg, int d)
{
	if (cfg->input == DAC_INPUT_SETNORM && cfg->map_dim > 0)
		return d == cfg->map_dim;
	if (cfg->input == DAC_INPUT_SETNORM)
		return d >= 1 && d <= DAC_MAX_DIM_INPUT;
	/* images, or (the core's callers and tests) images with their noise */
	return d == cfg->dim_input || d == dac_config_row_width(cfg);
}

/* ---------------------------------------------------------------- layout */

typedef struct
{
	dac_net    *net;
	int			cap;
	int			failed;
} layout_builder;

/* A tensor of ndim (0 to 4) dimensions shape; returns its offset in P. */
static size_t
add_tensor(layout_builder *lb, const char *prefix, const char *name, int ndim, const int *shape,
		   dac_init_kind init, int fan_in, int fan_out, int buffer)
{
	dac_net    *net = lb->net;
	dac_param_info *p;
	int			i;

	if (lb->failed)
		return 0;
	if (net->ntensors == lb->cap)
	{
		int			cap = lb->cap ? lb->cap * 2 : 128;
		dac_param_info *n = dac_alloc(sizeof(dac_param_info) * cap);

		if (n == NULL)
		{
			lb->failed = 1;
			return 0;
		}
		if (net->ntensors)
			memcpy(n, net->params, sizeof(dac_param_info) * net->ntensors);
		dac_free(net->params);
		net->params = n;
		lb->cap = cap;
	}
	p = &net->params[net->ntensors++];
	snprintf(p->name, sizeof(p->name), "%.100s%s", prefix, name);
	p->ndim = ndim;
	p->count = 1;
	for (i = 0; i < DAC_MAX_PARAM_DIMS; i++)
	{
		p->shape[i] = i < ndim ? shape[i] : 1;
		if (i < ndim)
			p->count *= (size_t) shape[i];
	}
	p->offset = net->nparams;
	p->init = init;
	p->fan_in = fan_in;
	p->fan_out = fan_out;
	p->buffer = buffer;
	net->nparams += p->count;
	return p->offset;
}

static size_t
add_param(layout_builder *lb, const char *prefix, const char *name, int ndim,
		  int d0, int d1, dac_init_kind init, int fan_in, int fan_out)
{
	int			shape[2] = {d0, d1};

	return add_tensor(lb, prefix, name, ndim, shape, init, fan_in, fan_out, 0);
}

static void
add_linear(layout_builder *lb, const char *prefix, const char *name, int in, int out,
		   dac_linear *l)
{
	char		full[128];

	snprintf(full, sizeof(full), "%.100s%s.", prefix, name);
	l->in = in;
	l->out = out;
	l->w = add_param(lb, full, "weight", 2, out, in, DAC_INIT_LINEAR, in, out);
	l->b = add_param(lb, full, "bias", 1, out, 0, DAC_INIT_LINEAR, in, out);
}

/* MAB(dim_X, dim_Y, D) */
static void
add_mab(layout_builder *lb, const char *prefix, int dx, int dy, int D, int heads, dac_mab *m)
{
	m->heads = heads;
	add_linear(lb, prefix, "fc_q", dx, D, &m->fc_q);
	add_linear(lb, prefix, "fc_k", dy, D, &m->fc_k);
	add_linear(lb, prefix, "fc_v", dy, D, &m->fc_v);
	add_linear(lb, prefix, "fc_o", D, D, &m->fc_o);
}

/* PMA(dim_X, D, m) = MAB(I, X) with I [m, D] */
static void
add_pma(layout_builder *lb, const char *prefix, int dx, int D, int m, int heads, dac_pma *p)
{
	char		full[128];

	p->m = m;
	p->I = add_param(lb, prefix, "I", 2, m, D, DAC_INIT_XAVIER, D, m);
	p->Q = lb->net->nfixed;
	lb->net->nfixed += (size_t) m * D;
	snprintf(full, sizeof(full), "%.100smab.", prefix);
	add_mab(lb, full, D, dx, D, heads, &p->mab);
}

/* ISAB(dim_X, D, m): pma = PMA(dim_X, D, m), mab = MAB(dim_X, D, D) */
static void
add_isab(layout_builder *lb, const char *prefix, int dx, int D, int m, int heads, dac_isab *s)
{
	char		full[128];

	snprintf(full, sizeof(full), "%.100spma.", prefix);
	add_pma(lb, full, dx, D, m, heads, &s->pma);
	snprintf(full, sizeof(full), "%.100smab.", prefix);
	add_mab(lb, full, dx, D, D, heads, &s->mab);
}

static void
add_stack(layout_builder *lb, const char *prefix, int dx, const dac_config *c, dac_stack *s)
{
	int			i;
	char		full[128];

	s->L = c->num_blocks;
	for (i = 0; i < c->num_blocks; i++)
	{
		if (c->shared_blocks && i >= 2)
		{
			s->blocks[i] = s->blocks[1];
			continue;
		}
		snprintf(full, sizeof(full), "%.100sblocks.%d.", prefix, i);
		add_isab(lb, full, i == 0 ? dx : c->dim_hidden, c->dim_hidden, c->num_inds,
				 c->num_heads, &s->blocks[i]);
	}
}

/*
 * A flow's tensors, with the reference names: <prefix>transform.transforms.
 * <2k>.{ctx_linear, linear.linear, mlp.1.linear, mlp.3.linear} of MADE
 * block k; for invertible maps <2k+1>.{lower, upper, log_s} and the buffers
 * p and sign_s (the flips have none).
 */
static void
add_flow(layout_builder *lb, const char *prefix, int d, const dac_config *c, dac_perm perm,
		 dac_flow *f)
{
	int			k;
	int			dd[2] = {d, d};

	f->d = d;
	f->C = c->maf_context;
	f->H = c->maf_hidden;
	f->nmade = c->maf_blocks;
	f->perm = perm;
	for (k = 0; k < f->nmade; k++)
	{
		char		pre[96];
		dac_made   *mb = &f->made[k];

		snprintf(pre, sizeof(pre), "%stransform.transforms.%d.", prefix, 2 * k);
		mb->ctx = add_param(lb, pre, "ctx_linear.weight", 2, f->H, f->C, DAC_INIT_LINEAR, f->C, f->H);
		add_linear(lb, pre, "linear.linear", d, f->H, &mb->in);
		add_linear(lb, pre, "mlp.1.linear", f->H, f->H, &mb->hid);
		add_linear(lb, pre, "mlp.3.linear", f->H, 2 * d, &mb->out);
		if (perm != DAC_PERM_INVLIN)
			continue;
		snprintf(pre, sizeof(pre), "%stransform.transforms.%d.", prefix, 2 * k + 1);
		f->inv[k].lower = add_tensor(lb, pre, "lower", 2, dd, DAC_INIT_ZERO, d, d, 0);
		f->inv[k].upper = add_tensor(lb, pre, "upper", 2, dd, DAC_INIT_ZERO, d, d, 0);
		f->inv[k].log_s = add_tensor(lb, pre, "log_s", 1, dd, DAC_INIT_ZERO, d, d, 0);
		f->inv[k].perm = add_tensor(lb, pre, "p", 2, dd, DAC_INIT_PERM, d, d, 1);
		f->inv[k].sign = add_tensor(lb, pre, "sign_s", 1, dd, DAC_INIT_ONE, d, d, 1);
	}
}

/* Conv2d (transposed: ConvTranspose2d) <prefix>.{weight, bias}, PyTorch's initialisation */
static void
add_conv(layout_builder *lb, const char *prefix, int cin, int cout, int stride, int pad,
		 int out_pad, int transposed, int hin, dac_conv *cv)
{
	int			shape[4] = {transposed ? cin : cout, transposed ? cout : cin, 3, 3};
	int			fan_in = (transposed ? cout : cin) * 9;

	cv->cin = cin;
	cv->cout = cout;
	cv->k = 3;
	cv->stride = stride;
	cv->pad = pad;
	cv->out_pad = out_pad;
	cv->transposed = transposed;
	cv->hin = cv->win = hin;
	if (!dac_conv_shape(cv))
		lb->failed = 1;
	cv->w = add_tensor(lb, prefix, ".weight", 4, shape, DAC_INIT_LINEAR, fan_in, cout, 0);
	cv->b = add_tensor(lb, prefix, ".bias", 1, &cout, DAC_INIT_LINEAR, fan_in, cout, 0);
}

static void
add_bn(layout_builder *lb, const char *prefix, int C, dac_bn *bn)
{
	bn->C = C;
	bn->gamma = add_tensor(lb, prefix, ".weight", 1, &C, DAC_INIT_ONE, C, C, 0);
	bn->beta = add_tensor(lb, prefix, ".bias", 1, &C, DAC_INIT_ZERO, C, C, 0);
	bn->mean = add_tensor(lb, prefix, ".running_mean", 1, &C, DAC_INIT_ZERO, C, C, 1);
	bn->var = add_tensor(lb, prefix, ".running_var", 1, &C, DAC_INIT_ONE, C, C, 1);
}

/* The image encoder (before the set part). */
static void
add_encoder(layout_builder *lb, const dac_config *c, dac_ns *ns)
{
	int			F = c->image_filters;

	ns->F = F;
	ns->L = c->latent;
	ns->C = c->maf_context;
	ns->pix = DAC_IMAGE_PIXELS;
	add_conv(lb, "enc.0", 1, F, 2, 0, 0, 0, DAC_IMAGE_SIDE, &ns->enc[0]);
	add_bn(lb, "enc.1", F, &ns->ebn[0]);
	add_conv(lb, "enc.3", F, 2 * F, 2, 0, 0, 0, ns->enc[0].hout, &ns->enc[1]);
	add_bn(lb, "enc.4", 2 * F, &ns->ebn[1]);
	add_conv(lb, "enc.6", 2 * F, 4 * F, 1, 0, 0, 0, ns->enc[1].hout, &ns->enc[2]);
	ns->feat = 4 * F * ns->enc[2].hout * ns->enc[2].wout;
}

/* The image model's density: posterior, prior, decoder (after fc1). */
static void
add_image_density(layout_builder *lb, const dac_config *c, dac_ns *ns)
{
	int			F = ns->F,
				side = ns->enc[2].hout;

	add_linear(lb, "", "posterior.context_enc", ns->feat + ns->C, 2 * ns->L, &ns->post);
	add_flow(lb, "prior.", ns->L, c, DAC_PERM_INVLIN, &ns->prior);
	add_linear(lb, "", "dec.0", ns->L + ns->C, ns->feat, &ns->dec0);
	add_conv(lb, "dec.3", 4 * F, 2 * F, 2, 1, 0, 1, side, &ns->dec[0]);
	add_bn(lb, "dec.4", 2 * F, &ns->dbn[0]);
	add_conv(lb, "dec.6", 2 * F, F, 2, 1, 0, 1, ns->dec[0].hout, &ns->dec[1]);
	add_bn(lb, "dec.7", F, &ns->dbn[1]);
	add_conv(lb, "dec.9", F, 1, 2, 0, 1, 1, ns->dec[1].hout, &ns->dec[2]);
	if (ns->dec[2].hout != DAC_IMAGE_SIDE)
		lb->failed = 1;
}

/* The density head's tensors, with the reference names. */
static void
add_head(layout_builder *lb, const dac_config *c, dac_head *h)
{
	dac_ns		enc = h->ns;	/* the encoder, laid out before the set part */

	memset(h, 0, sizeof(*h));
	h->kind = c->density;
	h->d = dac_config_row_width(c);
	h->D = c->dim_hidden;
	if (c->density == DAC_DENSITY_GAUSSIAN)
		add_linear(lb, "", "fc1", h->D, 2 * h->d, &h->fc1);
	if (c->density == DAC_DENSITY_MAF)
	{
		add_linear(lb, "", "fc1", h->D, c->maf_context, &h->fc1);
		add_flow(lb, "flow.", h->d, c, DAC_PERM_FLIP, &h->flow);
	}
	if (c->density == DAC_DENSITY_NS)
	{
		h->ns = enc;
		add_linear(lb, "", "fc1", h->D, c->maf_context, &h->fc1);
		add_image_density(lb, c, &h->ns);
	}
}

dac_status
dac_net_init(dac_net *net, const dac_config *cfg, dac_error *err)
{
	layout_builder lb;
	int			D = cfg->dim_hidden,
				d = cfg->dim_input;
	dac_status	st;

	memset(net, 0, sizeof(*net));
	if ((st = dac_config_check(cfg, err)) != DAC_OK)
		return st;
	net->cfg = *cfg;
	lb.net = net;
	lb.cap = 0;
	lb.failed = 0;
	if (cfg->strategy == DAC_AF)
	{
		add_mab(&lb, "mab1.", d, d, D, cfg->num_heads, &net->mab1);
		add_stack(&lb, "isab1.", D, cfg, &net->isab1);
	}
	else if (cfg->density == DAC_DENSITY_NS)
	{
		add_encoder(&lb, cfg, &net->head.ns);
		add_stack(&lb, "isab1.", net->head.ns.feat, cfg, &net->isab1);
	}
	else
		add_stack(&lb, "isab1.", d, cfg, &net->isab1);
	add_pma(&lb, "pma.", D, D, 1, cfg->num_heads, &net->pma);
	add_head(&lb, cfg, &net->head);
	add_mab(&lb, cfg->strategy == DAC_AF ? "mab2." : "mab.", D, D, D, cfg->num_heads, &net->mab);
	add_stack(&lb, "isab2.", D, cfg, &net->isab2);
	add_linear(&lb, "", "fc2", D, 1, &net->fc2);
	if (cfg->map_dim > 0)
	{
		int			rows = dac_config_map_rows(cfg),
					shape[2] = {rows, cfg->map_dim};

		/* last, so that the network's tensors lie where they lie without it */
		net->map = add_tensor(&lb, "", "input_map", 2, shape, DAC_INIT_ZERO, cfg->map_dim, rows, 1);
	}
	if (cfg->gate_classes > 0)
	{
		int			gshape[2] = {cfg->map_dim, cfg->map_dim},
					mshape[2] = {cfg->gate_classes, cfg->map_dim};

		net->gate = add_tensor(&lb, "", "input_gate", 2, gshape, DAC_INIT_ZERO, cfg->map_dim, cfg->map_dim, 1);
		net->gate_means = add_tensor(&lb, "", "input_gate_means", 2, mshape, DAC_INIT_ZERO, cfg->map_dim,
									 cfg->gate_classes, 1);
	}
	if (cfg->map_else)
	{
		int			eshape[2] = {cfg->map_dim, cfg->map_dim};

		net->map_else = add_tensor(&lb, "", "input_map_else", 2, eshape, DAC_INIT_ZERO, cfg->map_dim, cfg->map_dim, 1);
	}
	if (lb.failed)
	{
		dac_net_free(net);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory building the network layout");
	}
	return DAC_OK;
}

void
dac_net_free(dac_net *net)
{
	dac_free(net->params);
	net->params = NULL;
	net->ntensors = 0;
}

const dac_param_info *
dac_net_find_param(const dac_net *net, const char *name)
{
	int			i;

	for (i = 0; i < net->ntensors; i++)
		if (strcmp(net->params[i].name, name) == 0)
			return &net->params[i];
	return NULL;
}

void
dac_net_init_params(const dac_net *net, dac_real *P, dac_rng *rng)
{
	int			t;
	size_t		i;

	for (t = 0; t < net->ntensors; t++)
	{
		const dac_param_info *p = &net->params[t];
		double		bound;

		if (p->init == DAC_INIT_ZERO || p->init == DAC_INIT_ONE)
		{
			for (i = 0; i < p->count; i++)
				P[p->offset + i] = p->init == DAC_INIT_ONE;
			continue;
		}
		if (p->init == DAC_INIT_PERM)
		{
			/* rows of the identity in a random order (Fisher-Yates) */
			int			d = (int) p->shape[0],
						r;
			int		   *order = dac_alloc(sizeof(int) * d);

			for (i = 0; i < p->count; i++)
				P[p->offset + i] = 0;
			for (r = 0; order && r < d; r++)
				order[r] = r;
			for (r = d - 1; order && r > 0; r--)
			{
				int			j = (int) (dac_rng_uniform(rng) * (r + 1)),
							tmp;

				j = j > r ? r : j;
				tmp = order[r];
				order[r] = order[j];
				order[j] = tmp;
			}
			for (r = 0; r < d; r++)
				P[p->offset + (size_t) r * d + (order ? order[r] : r)] = 1;
			dac_free(order);
			continue;
		}
		if (p->init == DAC_INIT_XAVIER)
			bound = sqrt(6.0 / (double) (p->fan_in + p->fan_out));
		else
			bound = 1.0 / sqrt((double) p->fan_in);
		for (i = 0; i < p->count; i++)
			P[p->offset + i] = (dac_real) ((2.0 * dac_rng_uniform(rng) - 1.0) * bound);
	}
	dac_head_mask_params(&net->head, P);
}

/*
 * The products that do not depend on the data: fc_q of every learned query
 * set (each ISAB's inducing points and the pooling seed), written to
 * F [net->nfixed] in the layout the pass reads.  Shared blocks hold the same
 * offsets as the block they copy and are skipped.  Subnormals are
 * flushed as in the pass, so the values are those the pass would compute.
 */
void
dac_net_fixed(const dac_net *net, const dac_real *P, dac_real *F)
{
	const dac_stack *stacks[2] = {&net->isab1, &net->isab2};
	unsigned	csr = dac_fpu_enter();
	int			s,
				i;

	for (s = 0; s < 2; s++)
		for (i = 0; i < stacks[s]->L; i++)
		{
			const dac_pma *p = &stacks[s]->blocks[i].pma;

			if (i > 0 && p->Q == stacks[s]->blocks[i - 1].pma.Q)
				continue;		/* a shared block: written already */
			linear_forward(&p->mab.fc_q, P, P + p->I, p->m, F + p->Q);
		}
	linear_forward(&net->pma.mab.fc_q, P, P + net->pma.I, net->pma.m, F + net->pma.Q);
	dac_fpu_leave(csr);
}

int
dac_net_theta_dim(const dac_net *net)
{
	return dac_head_theta_dim(&net->head);
}

/* ---------------------------------------------------------------- forward */

#define NOMEM(err) dac_fail(err, DAC_ERR_NOMEM, "out of memory in the network pass")

static dac_status
forward_status(dac_status st, dac_error *err)
{
	if (st == DAC_ERR_NOMEM)
		return NOMEM(err);
	if (st == DAC_ERR_INTERRUPTED)
		return dac_fail(err, st, "canceling the network pass");
	return st;
}

/*
 * The pass.  With infer, each block's output goes to a buffer of its own
 * and the blocks drop their activations as they finish (see nn.h).
 */
static dac_status
net_pass(const dac_net *net, const dac_real *P, const dac_real *F, const dac_real *X, int B,
		 int n, const int *anchors, int infer, const dac_real *feat, dac_arena *ar, dac_forward *fw,
		 dac_error *err)
{
	const dac_config *c = &net->cfg;
	int			d = c->dim_input,
				D = c->dim_hidden;
	size_t		rows = (size_t) B * n;
	const dac_real *Hin = X;
	dac_real   *o_anchor = NULL,
			   *o_enc = NULL,
			   *o_pool = NULL,
			   *o_dec = NULL,
			   *o_dec_stack = NULL;
	dac_status	st;
	int			b;

	memset(fw, 0, sizeof(*fw));
	if (B < 1 || n < 1)
		return dac_fail(err, DAC_ERR_INVALID, "a network pass needs at least one set of one point");
	fw->B = B;
	fw->n = n;
	fw->X = X;
	fw->infer = infer;
	if (infer)
	{
		o_anchor = c->strategy == DAC_AF ? dac_arena_reals_raw(ar, rows * D) : NULL;
		o_enc = dac_arena_reals_raw(ar, rows * D);
		o_pool = dac_arena_reals_raw(ar, (size_t) B * D);
		o_dec = dac_arena_reals_raw(ar, rows * D);
		o_dec_stack = dac_arena_reals_raw(ar, rows * D);
		if ((c->strategy == DAC_AF && !o_anchor) || !o_enc || !o_pool || !o_dec || !o_dec_stack)
			return NOMEM(err);
	}

	if (c->strategy == DAC_AF)
	{
		if (anchors == NULL)
			return dac_fail(err, DAC_ERR_INVALID, "anchored filtering needs an anchor per set");
		fw->Xa = dac_arena_reals(ar, (size_t) B * d);
		if (fw->Xa == NULL)
			return NOMEM(err);
		for (b = 0; b < B; b++)
		{
			if (anchors[b] < 0 || anchors[b] >= n)
				return dac_fail(err, DAC_ERR_INVALID, "anchor %d is outside the set of %d points", anchors[b], n);
			memcpy(fw->Xa + (size_t) b * d, X + ((size_t) b * n + anchors[b]) * d, sizeof(dac_real) * d);
		}
		st = mab_forward(&net->mab1, P, X, fw->Xa, B, n, 1, 0, NULL, o_anchor, ar, &fw->anchor);
		if (st != DAC_OK)
			return forward_status(st, err);
		Hin = fw->anchor.out;
	}
	if (c->density == DAC_DENSITY_NS && infer && feat)
		Hin = fw->image.h = (dac_real *) feat;	/* the images' features, computed once by the caller */
	else if (c->density == DAC_DENSITY_NS)
	{
		st = dac_ns_encode(&net->head.ns, P, X, dac_config_row_width(c), (int) rows, !infer, ar,
						   &fw->image);
		if (st != DAC_OK)
			return forward_status(st, err);
		Hin = fw->image.h;
	}
	if ((st = stack_forward(&net->isab1, P, F, Hin, B, n, o_enc, ar, &fw->enc)) != DAC_OK)
		return forward_status(st, err);
	if ((st = pma_forward(&net->pma, P, F, fw->enc.out, B, n, o_pool, ar, &fw->pool)) != DAC_OK)
		return forward_status(st, err);

	if ((st = dac_head_forward(&net->head, P, fw->pool.out, X, fw->image.h, B, n, infer, ar,
							   &fw->head)) != DAC_OK)
		return forward_status(st, err);
	fw->theta = fw->head.theta;
	fw->ll = fw->head.ll;

	st = mab_forward(&net->mab, P, fw->enc.out, fw->pool.out, B, n, 1, 0, NULL, o_dec, ar, &fw->dec);
	if (st != DAC_OK)
		return forward_status(st, err);
	if ((st = stack_forward(&net->isab2, P, F, fw->dec.out, B, n, o_dec_stack, ar, &fw->dec_stack)) != DAC_OK)
		return forward_status(st, err);
	fw->logits = dac_arena_reals(ar, (size_t) B * n);
	if (fw->logits == NULL)
		return NOMEM(err);
	linear_forward(&net->fc2, P, fw->dec_stack.out, B * n, fw->logits);
	return DAC_OK;
}

/* net_pass with subnormals flushed (see dac_fpu_enter) */
static dac_status
net_pass_flushed(const dac_net *net, const dac_real *P, const dac_real *F, const dac_real *X,
				 int B, int n, const int *anchors, int infer, const dac_real *feat, dac_arena *ar,
				 dac_forward *fw, dac_error *err)
{
	unsigned	csr = dac_fpu_enter();
	dac_status	st = net_pass(net, P, F, X, B, n, anchors, infer, feat, ar, fw, err);

	dac_fpu_leave(csr);
	return st;
}

dac_status
dac_net_forward(const dac_net *net, const dac_real *P, const dac_real *X, int B, int n,
				const int *anchors, dac_arena *ar, dac_forward *fw, dac_error *err)
{
	return net_pass_flushed(net, P, NULL, X, B, n, anchors, 0, NULL, ar, fw, err);
}

/*
 * An upper bound of the arena bytes dac_net_infer needs for B sets of n
 * points, from the allocations net_pass and the blocks make (see the
 * analysis in mab_forward, isab_forward and stack_forward): the buffers kept
 * for the whole pass, plus the largest set of temporaries alive at once.
 * Every allocation is rounded up to 64 bytes; 48 of them cover a pass.
 */
double
dac_net_infer_bytes(const dac_net *net, int B, int n)
{
	const dac_config *c = &net->cfg;
	double		d = c->dim_input,
				D = c->dim_hidden,
				m = c->num_inds,
				rows = (double) B * n,
				kept,
				stack,
				pool,
				dec,
				anchor,
				head_scratch,
				head_kept = dac_head_infer_bytes(&net->head, B, n, &head_scratch),
				peak;

	kept = B * d + (c->strategy == DAC_AF ? rows * D : 0) + 3 * rows * D + B * D + rows;
	if (c->density == DAC_DENSITY_NS)
		kept += rows * net->head.ns.feat;	/* the image features, scratch in the head's */
	stack = (c->num_blocks > 1 ? rows * D : 0) + B * m * D
		+ fmax(2 * rows * D + (B + 1) * m * D + m * n, rows * D + 2 * B * m * D + m * n);
	pool = B * D + D + 2 * rows * D + n;
	dec = rows * D + 2 * B * D + n;
	anchor = c->strategy == DAC_AF ? rows * D + 2 * B * D + n : 0;
	peak = kept + fmax(fmax(stack, pool), fmax(dec, anchor));
	return fmax(peak * sizeof(dac_real), kept * sizeof(dac_real) + head_scratch) + 48 * 64 + head_kept;
}

static int
all_finite(const dac_real *v, size_t count)
{
	size_t		i;

	for (i = 0; i < count; i++)
		if (!isfinite((double) v[i]))
			return 0;
	return 1;
}

/*
 * An inference pass whose output is not finite is an error, not NaN
 * probabilities: finite inputs far larger than any the model was trained on
 * (|x| of 1e18, say) overflow float32 inside the network.
 */
static dac_status
infer_checked(const dac_net *net, const dac_real *P, const dac_real *F, const dac_real *X,
			  int B, int n, const int *anchors, int mode, const dac_real *feat, dac_arena *ar,
			  dac_forward *fw, dac_error *err)
{
	dac_status	st = net_pass_flushed(net, P, F, X, B, n, anchors, mode, feat, ar, fw, err);

	if (st == DAC_OK &&
		(!all_finite(fw->logits, (size_t) B * n) ||
		 (fw->theta && !all_finite(fw->theta, (size_t) B * dac_net_theta_dim(net)))))
	{
		double		mx = 0;
		size_t		i;

		for (i = 0; i < (size_t) B * n * dac_config_row_width(&net->cfg); i++)
			mx = fmax(mx, fabs((double) X[i]));
		return dac_fail(err, DAC_ERR_INVALID,
						"the network's output is not finite: the values (largest magnitude %g) are too large for this model",
						mx);
	}
	return st;
}

dac_status
dac_net_infer(const dac_net *net, const dac_real *P, const dac_real *F, const dac_real *X,
			  int B, int n, const int *anchors, dac_arena *ar, dac_forward *fw, dac_error *err)
{
	return infer_checked(net, P, F, X, B, n, anchors, 1, NULL, ar, fw, err);
}

dac_status
dac_net_infer_logits(const dac_net *net, const dac_real *P, const dac_real *F, const dac_real *X,
					 const dac_real *feat, int B, int n, const int *anchors, dac_arena *ar,
					 dac_forward *fw, dac_error *err)
{
	return infer_checked(net, P, F, X, B, n, anchors, DAC_INFER_NO_LL, feat, ar, fw, err);
}

dac_status
dac_net_features(const dac_net *net, const dac_real *P, const dac_real *X, int n, dac_real *feat,
				 dac_error *err)
{
	dac_arena	ar;
	dac_status	st;
	unsigned	csr;

	if (net->cfg.density != DAC_DENSITY_NS)
		return dac_fail(err, DAC_ERR_INVALID, "only the image model has features");
	csr = dac_fpu_enter();
	dac_arena_init(&ar, 0);
	/* straight into the caller's buffer: only a chunk's scratch besides it */
	st = dac_ns_features(&net->head.ns, P, X, dac_config_row_width(&net->cfg), n, &ar, feat);
	dac_arena_free(&ar);
	dac_fpu_leave(csr);
	return forward_status(st, err);
}

static dac_status net_backward(const dac_net *net, const dac_real *P, dac_real *G,
							   const dac_forward *fw, const dac_real *dlogits,
							   const dac_real *dll, dac_arena *ar, dac_error *err);

dac_status
dac_net_backward(const dac_net *net, const dac_real *P, dac_real *G, const dac_forward *fw,
				 const dac_real *dlogits, const dac_real *dll, dac_arena *ar, dac_error *err)
{
	unsigned	csr = dac_fpu_enter();
	dac_status	st = net_backward(net, P, G, fw, dlogits, dll, ar, err);

	dac_fpu_leave(csr);
	return st;
}

static dac_status
net_backward(const dac_net *net, const dac_real *P, dac_real *G, const dac_forward *fw,
			 const dac_real *dlogits, const dac_real *dll, dac_arena *ar, dac_error *err)
{
	const dac_config *c = &net->cfg;
	int			D = c->dim_hidden;
	int			B = fw->B,
				n = fw->n;
	size_t		rows = (size_t) B * n;
	dac_arena_mark mark;
	dac_real   *dHm2;
	dac_real   *dHm;
	dac_real   *dHX;
	dac_real   *dHt;
	dac_real   *dHin = NULL;
	dac_real   *dfeat = NULL;
	dac_status	st;

	if (fw->infer)
		return dac_fail(err, DAC_ERR_INVALID, "an inference pass has no backward pass");
	mark = dac_arena_get_mark(ar);
	dHm2 = dac_arena_reals(ar, rows * D);
	dHm = dac_arena_reals(ar, rows * D);
	dHX = dac_arena_reals(ar, rows * D);
	dHt = dac_arena_reals(ar, (size_t) B * D);
	if (c->density == DAC_DENSITY_NS)
		dfeat = dac_arena_reals(ar, rows * net->head.ns.feat);
	if (!dHm2 || !dHm || !dHX || !dHt || (c->density == DAC_DENSITY_NS && !dfeat))
	{
		dac_arena_reset_to(ar, mark);
		return NOMEM(err);
	}
	linear_backward(&net->fc2, P, G, fw->dec_stack.out, dlogits, B * n, dHm2);
	if ((st = stack_backward(&net->isab2, P, G, &fw->dec_stack, dHm2, dHm, ar)) != DAC_OK)
		goto out;
	if ((st = mab_backward(&net->mab, P, G, &fw->dec, dHm, dHX, dHt, ar)) != DAC_OK)
		goto out;

	if ((st = dac_head_backward(&net->head, P, G, &fw->head, dll, dHt, dfeat, ar)) != DAC_OK)
		goto out;
	if ((st = pma_backward(&net->pma, P, G, &fw->pool, dHt, dHX, ar)) != DAC_OK)
		goto out;
	if (c->strategy == DAC_AF)
	{
		dHin = dac_arena_reals(ar, rows * D);
		if (dHin == NULL)
		{
			st = DAC_ERR_NOMEM;
			goto out;
		}
	}
	if ((st = stack_backward(&net->isab1, P, G, &fw->enc, dHX, dfeat ? dfeat : dHin, ar)) != DAC_OK)
		goto out;
	if (dfeat)
		st = dac_ns_encode_backward(&net->head.ns, P, G, &fw->image, dfeat, ar);
	if (c->strategy == DAC_AF)
		st = mab_backward(&net->mab1, P, G, &fw->anchor, dHin, NULL, NULL, ar);
out:
	dac_arena_reset_to(ar, mark);
	return forward_status(st, err);
}

double
dac_net_forward_flops(const dac_net *net, int n)
{
	const dac_config *c = &net->cfg;
	double		D = c->dim_hidden,
				d = c->dim_input,
				m = c->num_inds;
	double		lin = 2.0 * D * D;	/* per row, D -> D */
	double		f = 0;
	int			i;

	/* an ISAB with input width dx over n rows */
#define ISAB_FLOPS(dx) (2.0 * n * (dx) * D * 2 /* pma fc_k, fc_v */ \
		+ 2.0 * m * D * D + 2.0 * m * D * D /* pma fc_q (on I), fc_o */ \
		+ 2.0 * 2 * m * n * D /* pma attention */ \
		+ 2.0 * n * (dx) * D /* mab fc_q */ + 2.0 * m * D * D * 2 /* mab fc_k, fc_v */ \
		+ 2.0 * 2 * n * m * D /* mab attention */ + lin * n /* mab fc_o */)
	if (c->density == DAC_DENSITY_NS)
	{
		d = net->head.ns.feat;
		f += dac_ns_encode_flops(&net->head.ns, n);
	}
	for (i = 0; i < c->num_blocks; i++)
	{
		double		dx = i == 0 ? (c->strategy == DAC_AF ? D : d) : D;

		f += ISAB_FLOPS(dx) + ISAB_FLOPS(D);
	}
#undef ISAB_FLOPS
	if (c->strategy == DAC_AF)
		f += 2.0 * n * d * D + 2.0 * 2 * d * D + 2.0 * 2 * n * D + lin * n;
	/* pooling PMA (one seed) */
	f += 2.0 * n * D * D * 2 + 2.0 * 2 * D * D + 2.0 * 2 * n * D;
	f += dac_head_flops(&net->head, n);
	/* decoder MAB: fc_q and fc_o on n rows, fc_k/fc_v on one */
	f += lin * n * 2 + 2.0 * 2 * D * D + 2.0 * 2 * n * D;
	f += 2.0 * n * D;			/* fc2 */
	return f;
}

void
dac_net_update_running(const dac_net *net, dac_real *P, const dac_forward *fw)
{
	if (net->cfg.density == DAC_DENSITY_NS && !fw->infer)
		dac_ns_update_running(&net->head.ns, P, &fw->image, &fw->head.ns);
}
