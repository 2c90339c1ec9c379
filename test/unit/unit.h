/*
 * unit.h
 *	  A minimal test harness for the core's unit tests.  Each check prints
 *	  "ok"/"not ok" lines; the run ends with "N passed, N failed".
 */
#ifndef DAC_UNIT_H
#define DAC_UNIT_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "model.h"
#include "rng.h"

extern int	unit_passed;
extern int	unit_failed;
extern int	unit_verbose;

extern void unit_check(int ok, const char *file, int line, const char *fmt,...)
			__attribute__((format(printf, 4, 5)));

#define CHECK(cond, ...) unit_check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

/* Read a whole file (dac_alloc'ed); NULL if it cannot be read. */
extern uint8_t *unit_read_file(const char *path, size_t *len);
/* Path of a reference fixture: $DAC_FIXTURES or test/data/reference (the repository's copy). */
extern const char *unit_fixture(const char *name);

/*
 * A model of cfg with PyTorch-style random parameters drawn from seed; r is
 * left seeded after them, for the test's data.
 */
extern dac_status unit_random_model(dac_model *m, const dac_config *cfg, uint64_t seed, dac_rng *r);
/* The same for a small normalising model (any input width, network width width, no density head). */
extern dac_status unit_small_setnorm_model(dac_model *m, int width, uint64_t seed, dac_rng *r);

/* Test groups (one file each). */
extern void test_json(void);
extern void test_safetensors(void);
extern void test_blas(void);
extern void test_parity(void);
extern void test_grad(void);
extern void test_optim(void);
extern void test_gen(void);
extern void test_cluster(void);
extern void test_infer(void);
extern void test_train(void);
extern void test_hostile(void);
extern void test_mixture(void);
extern void test_setnorm(void);
extern void test_whiten(void);
extern void test_frame(void);
extern void test_geo(void);
extern void test_graph(void);
extern void test_front(void);
extern void test_pipeline(void);

#endif
