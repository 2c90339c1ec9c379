/*
 * model.h
 *	  A model = network configuration + one flat parameter buffer, read from
 *	  and written to safetensors with the reference PyTorch tensor names and
 *	  the "dac.config" metadata.
 */
#ifndef DAC_MODEL_H
#define DAC_MODEL_H

#include "core.h"
#include "net.h"

typedef struct dac_model
{
	dac_net		net;
	dac_real   *P;				/* net.nparams values */
	dac_real   *F;				/* dac_net_fixed of P [net.nfixed], made by
								 * dac_model_load and dac_model_refresh; NULL
								 * when P may have changed since */
} dac_model;

/* Bytes of a model's parameter buffers (P and F) for cfg, allocating none. */
extern dac_status dac_config_param_bytes(const dac_config *cfg, double *bytes, dac_error *err);

/* A model with all-zero parameters. */
extern dac_status dac_model_create(dac_model *m, const dac_config *cfg, dac_error *err);

/*
 * Decode a weights file.  Every tensor of the network must be present with
 * its exact shape (F32 or F64) and finite values.  Copies of a shared block
 * (blocks.2, blocks.3, … as PyTorch's state_dict lists them) are accepted
 * when they equal blocks.1; any other extra tensor is an error.
 */
extern dac_status dac_model_load(dac_model *m, const uint8_t *buf, size_t len, dac_error *err);

/*
 * The configuration of a weights file and the bytes dac_model_load would
 * allocate for its parameters, after the checks that come before any
 * allocation (its metadata, and each tensor present with its shape).
 */
extern dac_status dac_model_peek(const uint8_t *buf, size_t len, dac_config *cfg, double *bytes,
								 dac_error *err);

/* Encode; meta is a NULL-terminated list of key, value, key, value, … (may be NULL). */
extern dac_status dac_model_save(const dac_model *m, const char *const *meta,
								 uint8_t **out, size_t *out_len, dac_error *err);

extern void dac_model_free(dac_model *m);

/*
 * (Re)compute m->F from m->P after changing P by other means than
 * dac_model_load; whoever changes P without it must set m->F to NULL
 * (dac_model_forget_fixed).  Out of memory leaves F NULL: passes then compute
 * those products themselves.
 */
extern void dac_model_refresh(dac_model *m);
extern void dac_model_forget_fixed(dac_model *m);

/*
 * What a caller asks of a model, so that it need not read m->net.  The
 * width: the model's dim_input, or 0 for a model whose input is normalised
 * per set (it takes any width); dac_model_takes_width: whether vectors of
 * width d fit.  A density head (Gaussian or flow); an anchored (AF) model;
 * a θ that is a diagonal Gaussian in the rows' own space (mean then σ: a
 * Gaussian head on raw or scaled input); input "scaled" (the caller keeps
 * the rows in double precision too, where the units frame is measured);
 * the number of parameters.
 */
extern int	dac_model_width(const dac_model *m);
extern int	dac_model_dim_input(const dac_model *m);	/* the configured width, even when any is taken */
extern const dac_config *dac_model_config(const dac_model *m);
extern int	dac_model_takes_width(const dac_model *m, int d);
extern int	dac_model_has_density(const dac_model *m);
extern int	dac_model_is_anchored(const dac_model *m);
extern int	dac_model_theta_is_gaussian(const dac_model *m);
extern int	dac_model_keeps_doubles(const dac_model *m);
extern size_t dac_model_nparams(const dac_model *m);
extern int	dac_model_ntensors(const dac_model *m);

#endif							/* DAC_MODEL_H */
