/*
 * train.h
 *	  The training loop: batches of B sets sharing one n, the DAC loss,
 *	  global-norm clipping and Adam with cosine decay.  Gradients and the two
 *	  Adam moments are each one flat buffer beside the parameters, so a
 *	  checkpoint is the parameters, two buffers, the step and the RNG state.
 */
#ifndef DAC_TRAIN_H
#define DAC_TRAIN_H

#include "core.h"
#include "gen.h"
#include "loss.h"
#include "model.h"
#include "optim.h"

/*
 * Labelled vectors to draw training sets from, the way the paper draws sets
 * from embedded ImageNet: pick k <= k_max labels (within one group, when
 * there are groups), then n rows among them.
 */
typedef struct dac_labelled
{
	int			N;				/* rows */
	int			d;				/* width */
	int			L;				/* labels, dense 0 .. L-1 */
	int			G;				/* groups, dense 0 .. G-1 (1 without groups) */
	const dac_real *X;			/* [N, d] */
	int		   *rows;			/* row ids ordered by label */
	int		   *lstart;			/* [L+1]: rows of label l are rows[lstart[l] .. lstart[l+1]) */
	int		   *glabels;		/* labels ordered by group */
	int		   *gstart;			/* [G+1] */
	int		   *scratch;		/* [N + L] */
} dac_labelled;

/*
 * y[i] in 0..L-1; group[i] in 0..G-1 or group NULL.  Every label must live
 * in one group.  X is referenced, not copied.
 */
extern dac_status dac_labelled_init(dac_labelled *ds, const dac_real *X, const int *y,
									const int *group, int N, int d, dac_error *err);
extern void dac_labelled_free(dac_labelled *ds);
/* B sets of n points: X [B*n, d], labels [B*n] in 0..k-1 per set. */
extern dac_status dac_sample_labelled(dac_labelled *ds, dac_rng *r, int B, int n, int k_max,
									  dac_real *X, int *labels, dac_error *err);

typedef struct dac_train_opts
{
	dac_gen_kind data;			/* generator of the training sets */
	int			batch;			/* sets per step (B) */
	int			n_max;			/* points per set: n ~ U{0.3·n_max … n_max−1} */
	int			fixed_n;		/* nonzero: every set has exactly n_max points */
	int			k_max;			/* clusters per set at most */
	int			alt_n_max;		/* nonzero: mix steps draw sets with these */
	int			alt_k_max;		/* n_max and k_max instead (a curriculum mix) */
	int			alt_ratio;		/* mix steps per plain step: step s draws the
								 * mix unless s % (alt_ratio + 1) == 0, so 1
								 * (the default) alternates, odd steps mixed */
	long		steps;			/* total steps (the cosine schedule's length) */
	dac_adam_config adam;
	uint64_t	seed;
	dac_labelled *source;		/* draw sets from these rows instead of data */
	double		distort;		/* > 0 (setnorm models): each normalised set
								 * is multiplied by I + distort·G/√w (G
								 * standard normal, drawn per set) and
								 * normalised again, so that the network
								 * sees clusters of shapes no class has */
	int			data_dim;		/* width of generated sets (0: the model's
								 * dim_input; other widths only for a model
								 * that normalises its input) */
} dac_train_opts;

extern dac_train_opts dac_train_opts_default(void);
extern dac_status dac_train_opts_check(const dac_train_opts *o, const dac_config *cfg, dac_error *err);

typedef struct dac_trainer
{
	dac_model  *model;
	dac_train_opts opts;
	dac_real   *G;				/* gradients */
	dac_real   *M;				/* Adam first moment */
	dac_real   *V;				/* Adam second moment */
	long		step;			/* steps done */
	dac_rng		rng;			/* data and anchors */
	dac_real   *X;				/* batch buffers, sized for B·n_max */
	dac_real   *Xraw;			/* setnorm models: the sets before normalising */
	double	   *Xd;				/* scaled models: one set in double, to frame it */
	dac_real   *Zd;				/* distort: one distorted set [n_max, w] */
	dac_real   *Md;				/* distort: its matrix [w, w] */
	int			raw_dim;		/* their width */
	int		   *labels;
	int		   *anchors;
	dac_arena	arena;			/* activations of one step */
	double		grad_norm;		/* before clipping, last step */
} dac_trainer;

/*
 * Bytes training model with opts needs, at most: the optimiser state, the
 * batch, a step's activations, the set normalisation's scratch and the
 * generator's (checked against dac.memory_limit before dac_trainer_init).
 */
extern double dac_trainer_bytes(const dac_model *model, const dac_train_opts *opts);

/*
 * Set up training of model.  With init_params, the parameters are drawn
 * from the seed (PyTorch's initialisation) before any data.
 */
extern dac_status dac_trainer_init(dac_trainer *t, dac_model *model, const dac_train_opts *opts,
								   int init_params, dac_error *err);
/* n_max and k_max of the next generated batch (alternating with alt_*). */
extern void dac_trainer_next_shape(const dac_trainer *t, int *n_max, int *k_max);
/* One step on a generated batch. */
extern dac_status dac_trainer_step(dac_trainer *t, dac_loss_parts *out, dac_error *err);
/* One step on a given batch: X [B*n, d], labels [B*n], anchors [B] (AF; NULL draws them). */
extern dac_status dac_trainer_step_batch(dac_trainer *t, const dac_real *X, const int *labels,
										 const int *anchors, int B, int n,
										 dac_loss_parts *out, dac_error *err);
extern void dac_trainer_free(dac_trainer *t);

/*
 * The optimiser state (Adam moments, step, RNG) as a safetensors file, and
 * back: a trainer restored from it and the model's weights continues exactly
 * as the saved one would have.
 */
extern dac_status dac_trainer_save_state(const dac_trainer *t, uint8_t **out, size_t *out_len,
										 dac_error *err);
extern dac_status dac_trainer_load_state(dac_trainer *t, const uint8_t *buf, size_t len,
										 dac_error *err);

#endif							/* DAC_TRAIN_H */
