/*
 * pipeline.h
 *	  The clustering's stages, declared once (pipeline.c's table): each
 *	  stage's name, the models and settings it applies to, the memory it
 *	  needs beside the loop's own, and the function that runs it.  The pass
 *	  loop (cluster.c), the memory estimate (dac_cluster_bytes), the progress
 *	  reports and dac_pipeline all read the table; no stage's condition is
 *	  written anywhere else.
 */
#ifndef DAC_PIPELINE_H
#define DAC_PIPELINE_H

#include "core.h"
#include "stages.h"

/* The stages, in the order they run (the table's rows). */
typedef enum dac_stage_id
{
	DAC_STAGE_DISTINCT,			/* equal rows clustered once */
	DAC_STAGE_SAMPLE,			/* a large group through a sample of its rows */
	DAC_STAGE_ROTATIONS,		/* a 2-D group also clustered turned */
	DAC_STAGE_PASSES,			/* the network's passes */
	DAC_STAGE_LEFTOVER,			/* rows no pass selected */
	DAC_STAGE_REASSIGN,			/* EM, then each row to its likeliest cluster */
	DAC_STAGE_KMEANS,
	DAC_STAGE_K_SEARCH,
	DAC_STAGE_GRAPH,
	DAC_STAGE_ABSORB,
	DAC_STAGE_MIN_SIZE,
	DAC_STAGE_ONE_CLUSTER,		/* one cluster (with a Gaussian head, each) tested against Gaussians */
	DAC_STAGE_MODES,			/* pieces of one mode joined (2-D Gaussian) */
	DAC_STAGE_PAIR_MERGE,
	DAC_STAGE_REFINE,
	DAC_STAGE_COUNT,			/* the count asked for (k, max_k) */
	DAC_STAGE_NOISE,
	DAC_STAGE_LOG_LIKELIHOOD,
	DAC_NSTAGES
} dac_stage_id;

/*
 * What a stage after the passes works on: the rows the network saw X
 * [n, d], the clustering so far, the rows no pass selected, and the sample
 * of rows that the count search and the graph stage share.
 */
typedef struct dac_stage_run
{
	const dac_model *m;
	const dac_real *X;
	int			n;
	int			d;
	const dac_cluster_opts *opts;
	dac_density_ref dr;
	const int  *left;			/* [nleft] the rows no pass selected */
	int			nleft;
	dac_sample_set ss;
	dac_clustering *out;
} dac_stage_run;

/* Whether stage id applies to a group of n rows under m and opts (the table's condition). */
extern int	dac_stage_applies(dac_stage_id id, const dac_model *m, int n, const dac_cluster_opts *opts);

/*
 * The stages after the passes, in order, each that applies; out->stages
 * records those that ran.  The progress hook is told each stage's name.
 */
extern dac_status dac_stages_run(dac_stage_run *s, dac_error *err);

/* Bytes the stages that apply need beside the loop's own, summed. */
extern double dac_stages_bytes(const dac_model *m, int n, int dx, const dac_cluster_opts *opts);

/*
 * The most clusters the passes may find in n rows: max_passes, but every
 * row where the caller gave the cluster width (opts->cluster_width, models
 * with "scaled" input): the width, not a count, then says how many.
 */
extern int	dac_pass_cap(const dac_model *m, const dac_cluster_opts *opts, int n);
/* Whether opts->cluster_width applies to the model's input (the frame of "scaled" models). */
extern int	dac_width_given(const dac_model *m, const dac_cluster_opts *opts);
/*
 * With a cluster width given, a row with no other row within this many
 * widths is a cluster of its own, before the passes: two points of one
 * cluster of that width (σ per axis) lie farther apart with chance
 * exp(−5²/4) ≈ 0.2% (their distance is Rayleigh, of scale σ√2).
 */
#define DAC_WIDTH_ALONE 5.0

#endif
