/*
 * net.h
 *	  The DAC filtering networks: minimum-loss filtering (MLF) and anchored
 *	  filtering (AF), with a diagonal-Gaussian density head or none.
 *
 *	  MLF:  H_X = isab1(X);  H_t = pma(H_X);  θ = head(fc1(H_t));
 *	        logits = fc2(isab2(mab(H_X, H_t)))
 *	  AF:   H = mab1(X, x_anchor);  H_X = isab1(H);  ... as MLF with mab2
 */
#ifndef DAC_NET_H
#define DAC_NET_H

#include "core.h"
#include "density.h"
#include "json.h"
#include "nn.h"
#include "rng.h"

typedef enum
{
	DAC_MLF = 0, DAC_AF = 1
} dac_strategy;

/*
 * What the network sees: the rows as they are (dim_input wide), the set
 * normalised (setnorm.h) to dim_input columns from rows of any width, or
 * the set centred and scaled to the cluster width the network was trained
 * at (frame.h: points in any units).
 */
typedef enum
{
	DAC_INPUT_RAW = 0, DAC_INPUT_SETNORM = 1, DAC_INPUT_SCALED = 2
} dac_input;

typedef struct dac_config
{
	dac_strategy strategy;
	dac_density density;
	dac_input	input;
	int			dim_input;		/* the network's input width */
	double		unit_width;		/* input "scaled": the cluster width the
								 * network was trained at ("unit_width") */
	int			dim_hidden;
	int			num_heads;
	int			num_inds;
	int			num_blocks;
	int			shared_blocks;
	/* density "maf" (and "ns"'s prior): MADE blocks, their hidden units, the context width */
	int			maf_blocks;
	int			maf_hidden;
	int			maf_context;
	/* density "ns" (image.h): the encoder's first filters, the latent width */
	int			image_filters;
	int			latent;
	/*
	 * input "setnorm": > 0 when the rows pass through a fixed linear map
	 * [map_rows, map_dim] before the set is normalised (whiten.h: a table's
	 * within-label whitening), which then takes rows of that width only;
	 * map_rows 0 stands for map_dim (a square map, as every map before
	 * 0.24.0), fewer for a projection to map_rows coordinates
	 */
	int			map_dim;
	int			map_rows;

	/*
	 * With a map: > 0 when it applies only to groups that look like the
	 * table's gate_classes classes (cluster.h, dac_gate_opens): a second map
	 * [map_dim, map_dim] (the table's within-label whitening), the classes'
	 * means in its coordinates [gate_classes, map_dim], and the squared
	 * distance beyond which a row lies outside every class.
	 */
	int			gate_classes;
	double		gate_threshold;
	/* with a gate: nonzero when a group the gate turns away passes through a map of its own */
	int			map_else;

	/*
	 * The clustering settings the model carries as its defaults ("settings"
	 * in the JSON): bit i of settings_set says that settings[i] holds the
	 * value of dac_model_setting_option(i) (dac.h), as dac_option_value
	 * reads it.
	 */
	uint32_t	settings_set;
	double		settings[DAC_MAX_MODEL_SETTINGS];
} dac_config;

/* Limits that keep every size computation far from overflow. */
#define DAC_MAX_DIM_HIDDEN 4096
#define DAC_MAX_INDS 1024

/* The reference configuration: 2-D, 128 wide, 4 heads, 32 inducing, 4 shared blocks. */
extern dac_config dac_config_default(dac_strategy strategy, int dim_input);
extern dac_status dac_config_check(const dac_config *cfg, dac_error *err);
extern dac_status dac_config_from_json(const char *text, size_t len, dac_config *cfg, dac_error *err);
/*
 * cfg's settings from a JSON object of setting names and values (numbers,
 * true/false, a text setting's name), replacing those it had; an error of
 * kind code names the member at fault.
 */
extern dac_status dac_config_settings_from_json(const json_value *obj, dac_config *cfg, dac_status code,
												dac_error *err);
/* Returns a dac_alloc'ed NUL-terminated string, or NULL when out of memory. */
extern char *dac_config_to_json(const dac_config *cfg);
/* Whether a model takes rows of width d (any width, for a setnorm input). */
extern int	dac_config_accepts(const dac_config *cfg, int d);
/*
 * Width of the rows the network reads: dim_input, or for the image model
 * an image's pixels followed by its latent noise (image.h).
 */
extern int	dac_config_row_width(const dac_config *cfg);
/* The rows of a model's input map (map_rows, or map_dim for a square one); 0 without a map. */
extern int	dac_config_map_rows(const dac_config *cfg);

/*
 * The names of a configuration's kinds, as the weights' "dac.config", CALL
 * dac_train's options and dac-cli's flags spell them ("mlf", "af";
 * "gaussian_diag", "none", "maf"; "raw", "setnorm", "scaled"): the name of
 * a kind (a density's: dac_density_name, density.h), and a name's kind (0
 * when it names none, *out untouched).
 */
extern const char *dac_strategy_name(dac_strategy s);
extern const char *dac_input_name(dac_input i);
extern int	dac_strategy_parse(const char *name, dac_strategy *out);
extern int	dac_density_parse(const char *name, dac_density *out);
extern int	dac_input_parse(const char *name, dac_input *out);

/* One named parameter tensor in the flat buffer. */
typedef enum
{
	DAC_INIT_LINEAR,			/* U(±1/√fan_in), PyTorch's Linear default */
	DAC_INIT_XAVIER,			/* U(±√(6/(fan_in+fan_out))) */
	DAC_INIT_ZERO,				/* 0 */
	DAC_INIT_ONE,				/* 1 */
	DAC_INIT_PERM				/* a random permutation matrix */
} dac_init_kind;

#define DAC_MAX_PARAM_DIMS 4

typedef struct dac_param_info
{
	char		name[128];
	int			ndim;
	int64_t		shape[DAC_MAX_PARAM_DIMS];
	size_t		offset;
	size_t		count;
	dac_init_kind init;
	int			fan_in;
	int			fan_out;
	int			buffer;			/* not trained: running statistics, a permutation */
} dac_param_info;

typedef struct dac_net
{
	dac_config	cfg;
	dac_mab		mab1;			/* AF: anchor MAB (d -> D, single key) */
	dac_stack	isab1;
	dac_pma		pma;			/* pooling, one seed */
	dac_head	head;			/* the density head (density.h), fc1 included */
	dac_mab		mab;			/* decoder MAB (MLF "mab", AF "mab2") */
	dac_stack	isab2;
	dac_linear	fc2;			/* D -> 1 */
	size_t		map;			/* map_dim > 0: the input map's offset in P (the last tensor) */
	size_t		gate;			/* gate_classes > 0: the gate's map and means (after the map) */
	size_t		gate_means;
	size_t		map_else;		/* cfg.map_else: the other groups' map */
	size_t		nparams;		/* floats in the flat buffer */
	size_t		nfixed;			/* floats of the derived buffer (dac_net_fixed) */
	dac_param_info *params;		/* unique tensors, in buffer order */
	int			ntensors;
} dac_net;

extern dac_status dac_net_init(dac_net *net, const dac_config *cfg, dac_error *err);
extern void dac_net_free(dac_net *net);
extern const dac_param_info *dac_net_find_param(const dac_net *net, const char *name);

/*
 * The data-independent products of an inference pass, F [nfixed], from P:
 * compute once per set of parameters and pass to dac_net_infer.
 */
extern void dac_net_fixed(const dac_net *net, const dac_real *P, dac_real *F);

/* Draw initial parameters as PyTorch does (Linear default, Xavier for I). */
extern void dac_net_init_params(const dac_net *net, dac_real *P, dac_rng *rng);

/* Width of θ: 2d (μ, σ) for the Gaussian head, the context for a flow, D (H_θ) without one. */
extern int	dac_net_theta_dim(const dac_net *net);

/* A forward pass over B sets of n points, kept for the backward pass. */
typedef struct dac_forward
{
	int			B,
				n;
	const dac_real *X;			/* [B*n, row width] */
	dac_real   *Xa;				/* AF: anchor rows [B, d] */
	dac_ns_enc_cache image;		/* ns: the image encoder's pass; image.h = its features */
	dac_mab_cache anchor;
	dac_stack_cache enc;
	dac_mab_cache pool;			/* pool.out = H_θ [B, D] */
	dac_head_cache head;		/* the density head's pass */
	dac_real   *theta;			/* [B, theta_dim] = head.theta */
	dac_real   *ll;				/* [B*n] = head.ll: log p(x_i | θ), NULL without density */
	dac_mab_cache dec;
	dac_stack_cache dec_stack;
	dac_real   *logits;			/* [B*n] */
	int			infer;			/* made by dac_net_infer: no backward possible */
} dac_forward;

/*
 * anchors: AF only, one row index in 0..n-1 per set.  Everything lives in ar;
 * reset the arena to drop it.
 */
extern dac_status dac_net_forward(const dac_net *net, const dac_real *P, const dac_real *X,
								  int B, int n, const int *anchors, dac_arena *ar,
								  dac_forward *fw, dac_error *err);
/*
 * The same pass for inference: the same θ, ll and logits (bit for bit), but
 * only the block outputs are kept, so it needs a fraction of the memory
 * (dac_net_infer_bytes) and runs faster.  fw serves no backward pass.  F:
 * the derived buffer dac_net_fixed made from these P (the pass then skips
 * those products), or NULL.
 */
extern dac_status dac_net_infer(const dac_net *net, const dac_real *P, const dac_real *F,
								const dac_real *X, int B, int n, const int *anchors,
								dac_arena *ar, dac_forward *fw, dac_error *err);
/*
 * The same pass for the membership logits and θ only: the image model's
 * ll is left out (fw->ll NULL); other models' is computed as by dac_net_infer.
 * feat: the image model's features of the rows (dac_net_features), or NULL
 * to compute them in the pass.
 */
extern dac_status dac_net_infer_logits(const dac_net *net, const dac_real *P, const dac_real *F,
									   const dac_real *X, const dac_real *feat, int B, int n,
									   const int *anchors, dac_arena *ar, dac_forward *fw,
									   dac_error *err);
/* The image model's features feat [n, its width] of rows X [n, row width] (inference). */
extern dac_status dac_net_features(const dac_net *net, const dac_real *P, const dac_real *X, int n,
								   dac_real *feat, dac_error *err);
/* Bytes of arena an inference pass over B sets of n points needs, at most. */
extern double dac_net_infer_bytes(const dac_net *net, int B, int n);

/* G += d loss / d P given dlogits [B*n] and dll [B*n] (NULL: no ll term). */
extern dac_status dac_net_backward(const dac_net *net, const dac_real *P, dac_real *G,
								   const dac_forward *fw, const dac_real *dlogits,
								   const dac_real *dll, dac_arena *ar, dac_error *err);

/*
 * After a training step whose forward pass was fw: the running estimates of
 * the image model's batch normalisations (nothing for other models).
 */
extern void dac_net_update_running(const dac_net *net, dac_real *P, const dac_forward *fw);

/* Matrix FLOPs of one forward pass over one set of n points. */
extern double dac_net_forward_flops(const dac_net *net, int n);

#endif							/* DAC_NET_H */
