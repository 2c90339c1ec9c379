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

/* dac.h declares dac_model opaque; the core's own code reads it here. */
struct dac_model
{
	dac_net		net;
	dac_real   *P;				/* net.nparams values */
	dac_real   *F;				/* dac_net_fixed of P [net.nfixed], made by
								 * dac_model_load and dac_model_refresh; NULL
								 * when P may have changed since */
	int			lower;			/* DAC_LOWER_* bits: which square input maps
								 * are zero above the diagonal (whitenings),
								 * so that a triangular product applies; set
								 * by dac_model_refresh, 0 (general products)
								 * otherwise */
};

#define DAC_LOWER_MAP 1
#define DAC_LOWER_GATE 2
#define DAC_LOWER_ELSE 4

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

/* Free a model's buffers (dac_model_destroy frees one made by dac.h's constructors, and it). */
extern void dac_model_free(dac_model *m);

/*
 * (Re)compute m->F from m->P after changing P by other means than
 * dac_model_load; whoever changes P without it must set m->F to NULL
 * (dac_model_forget_fixed).  Out of memory leaves F NULL: passes then compute
 * those products themselves.
 */
extern void dac_model_refresh(dac_model *m);

/* The model's configuration (the questions a host asks are dac.h's). */
extern const dac_config *dac_model_config(const dac_model *m);
/* The configuration of new model from the training options (dac.h's dac_model_new). */
extern dac_status dac_config_from_options(dac_option_get get, void *ctx, int data_width,
										  dac_config *cfg, dac_error *err);

#endif							/* DAC_MODEL_H */
