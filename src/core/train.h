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

/* Labelled vectors to draw training sets from (dac.h's dac_labelled, opaque there). */
struct dac_labelled
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
};

/* dac_labelled_new (dac.h) into a caller's struct. */
extern dac_status dac_labelled_init(dac_labelled *ds, const dac_real *X, const int *y,
									const int *group, int N, int d, dac_error *err);
extern void dac_labelled_free(dac_labelled *ds);


extern dac_status dac_train_opts_check(const dac_train_opts *o, const dac_config *cfg, dac_error *err);

/* A training run (dac.h's dac_trainer, opaque there). */
struct dac_trainer
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
};


/*
 * dac_trainer_new (dac.h) into a caller's struct: set up training of model.
 * With init_params, the parameters are drawn from the seed (PyTorch's
 * initialisation) before any data.
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

#endif							/* DAC_TRAIN_H */
