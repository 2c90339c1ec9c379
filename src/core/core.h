/*
 * core.h
 *	  Base of the pure C core of dac, beside dac.h's: error reporting,
 *	  interrupts, subnormals, size arithmetic, arenas.
 *
 * The core never includes a PostgreSQL header.  It reaches its host only
 * through the hooks below, installed once at load time: allocation, error
 * reporting and interrupt checks.  Under PostgreSQL they map to palloc,
 * ereport and CHECK_FOR_INTERRUPTS; in the unit tests and the command-line
 * driver, to malloc and a flag.
 */
#ifndef DAC_CORE_H
#define DAC_CORE_H

#include "dac.h"

#include <math.h>

/* The public base (numbers, dac_status, dac_error, the hooks, dac_alloc) is dac.h's. */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* One binary, the widest vector unit the CPU has (resolved at load time). */
#define DAC_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
/*
 * Kernels compiled for one vector unit each (chosen by dac_vector_level),
 * each product rounded before its sum as in plain C on the baseline CPU
 * (no fused multiply-add): every variant's answers are the scalar loop's
 * to the bit.  DAC_EXACT_INLINE: the body they share.
 */
#define DAC_EXACT_AVX512 __attribute__((target("avx512f"), optimize("fp-contract=off")))
#define DAC_EXACT_AVX2 __attribute__((target("avx2"), optimize("fp-contract=off")))
#define DAC_EXACT_PLAIN __attribute__((optimize("fp-contract=off")))
#define DAC_EXACT_INLINE __attribute__((always_inline, optimize("fp-contract=off"))) inline
#define DAC_EXACT_VARIANTS 1
#else
#define DAC_VECTOR_CLONES
#define DAC_EXACT_PLAIN
#define DAC_EXACT_INLINE inline
#endif

/*
 * The vector unit dac's exact kernels use: 2 AVX-512, 1 AVX2, 0 neither
 * (the CPU's; at most 1 while dac_direct_avx2_only is set, 0 while
 * dac_vector_plain is: the tests run every variant on one CPU).
 */
extern int	dac_vector_level(void);
extern int	dac_vector_plain;

/* Whether the host asked to stop, and a clustering's progress (the hooks). */
extern int	dac_interrupted(void);
extern void dac_progress(const char *stage, int64_t done, int64_t total);

/*
 * Compute with subnormals flushed to zero (x86 MXCSR FTZ | DAZ):
 * unsigned saved = dac_fpu_enter(); ... dac_fpu_leave(saved);
 */
#define DAC_FPU_FLUSH 0x8040u
extern unsigned dac_fpu_enter(void);
extern int	dac_fpu_flush;			/* 1 (default); 0 only to measure the cost (bench) */
extern void dac_fpu_leave(unsigned saved);

/* Fill *err (which may be NULL) and return code. */
extern dac_status dac_fail(dac_error *err, dac_status code, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));
/* The same with a hint (a static string: PostgreSQL's HINT). */
extern dac_status dac_fail_hint(dac_error *err, dac_status code, const char *hint, const char *fmt,...)
			__attribute__((format(printf, 4, 5)));

/*
 * Copy s into buf[size] for an error message: printable ASCII as is, any
 * other byte as \xNN, cut with "..." when it does not fit.  Messages never
 * echo raw input bytes (invalid UTF-8, control characters).  Returns buf.
 */
extern const char *dac_printable(const char *s, char *buf, size_t size);

/*
 * The log-sum-exp, the core's one: log Σ_k e^{v_k} without overflow.
 *
 * dac_logsumexp takes the values at once: the largest first, then
 * Σ e^{v_k − max}, each term below e^cut of the largest taken as 0 (cut < 0;
 * -INFINITY: none); p [n] (may be NULL) gets the softmax e^{v_k − max} / Σ.
 * The EM steps use it (their responsibilities are p).
 *
 * dac_lse takes them one at a time, rescaling its sum at a new largest:
 * dac_lse s = {0, 0}; dac_lse_add(&s, v) …; dac_lse_value(&s) (-INFINITY
 * when empty).  Where values come one by one (a row's clusters, strided).
 */
extern double dac_logsumexp(const double *v, int n, double cut, double *p);

typedef struct dac_lse
{
	double		mx;				/* the largest value added */
	double		z;				/* Σ e^{v − mx}; 0: nothing added yet */
} dac_lse;

static inline void
dac_lse_add(dac_lse *s, double v)
{
	if (s->z == 0)
	{
		s->mx = v;
		s->z = 1;
	}
	else if (v > s->mx)
	{
		s->z = s->z * exp(s->mx - v) + 1;
		s->mx = v;
	}
	else
		s->z += exp(v - s->mx);
}

static inline double
dac_lse_value(const dac_lse *s)
{
	return s->z == 0 ? -INFINITY : s->mx + log(s->z);
}

/*
 * The values of the options names [n] of table (dac_train_options or
 * dac_cluster_options) into v [n], each from get (NULL: none given); one
 * not given takes the table's default, or with bare its bare loop's.
 * DAC_ERR_INVALID naming the first out of range (options.c).
 */
extern dac_status dac_options_read(const dac_option *table, const char *const *names, int n,
								   dac_option_get get, void *ctx, int bare, double *v, dac_error *err);

/* A zeroed struct of size bytes from the hooks, or NULL with DAC_ERR_NOMEM in err (core.c). */
extern void *dac_alloc_object(size_t size, dac_error *err);

/* Overflow-checked size arithmetic: return 0 on overflow. */
extern int	dac_mul_size(size_t a, size_t b, size_t *out);
extern int	dac_add_size(size_t a, size_t b, size_t *out);

/*
 * A bump arena: many allocations, freed at once.  Used for activations of a
 * forward/backward pass and for parsed JSON.  Blocks come from dac_alloc.
 */
typedef struct dac_arena_block dac_arena_block;
typedef struct dac_arena
{
	dac_arena_block *head;
	size_t		block_size;
	size_t		total;			/* bytes handed out, for memory accounting */
	size_t		peak;			/* the most total has been since init */
	int			no_grow;		/* do not grow block_size to the peak on reset */
} dac_arena;

typedef struct dac_arena_mark
{
	dac_arena_block *head;
	size_t		used;
	size_t		total;
} dac_arena_mark;

extern void dac_arena_init(dac_arena *a, size_t block_size);
extern void *dac_arena_alloc(dac_arena *a, size_t size);	/* 64-byte aligned, NULL on failure */
extern void *dac_arena_alloc_small(dac_arena *a, size_t size);	/* 8-byte aligned, NULL on failure */
extern dac_real *dac_arena_reals(dac_arena *a, size_t count);	/* zeroed */
extern dac_real *dac_arena_reals_raw(dac_arena *a, size_t count);	/* not zeroed */
extern dac_arena_mark dac_arena_get_mark(dac_arena *a);
extern void dac_arena_reset_to(dac_arena *a, dac_arena_mark mark);
extern void dac_arena_free(dac_arena *a);

#endif							/* DAC_CORE_H */
