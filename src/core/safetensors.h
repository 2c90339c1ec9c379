/*
 * safetensors.h
 *	  Reading and writing the safetensors format: an 8-byte little-endian
 *	  header length, a JSON header mapping names to {dtype, shape,
 *	  data_offsets} plus a "__metadata__" object of strings, then raw
 *	  little-endian data.
 *
 * The reader trusts nothing: every length, offset, shape and dtype is
 * checked, tensors may neither overlap nor leave holes, and a bad file is an
 * error code with a message, never an out-of-bounds read.
 */
#ifndef DAC_SAFETENSORS_H
#define DAC_SAFETENSORS_H

#include "core.h"

#define ST_MAX_DIMS 8
/*
 * Limits that keep reading any file bounded and quick.  The largest header
 * of a real model (the authors' warped MAF checkpoints) is 17 kB with 138
 * tensors: these leave a wide margin.
 */
#define ST_MAX_HEADER ((uint64_t) 4 << 20)	/* bytes of JSON header */
#define ST_MAX_TENSORS 4096

typedef enum
{
	ST_F64, ST_F32, ST_F16, ST_BF16, ST_I64, ST_I32, ST_I16, ST_I8, ST_U8, ST_BOOL
} st_dtype;

typedef struct st_tensor
{
	const char *name;
	st_dtype	dtype;
	int			ndim;
	int64_t		shape[ST_MAX_DIMS];
	size_t		count;			/* product of shape (1 for a scalar) */
	size_t		begin;			/* offsets into the data section */
	size_t		end;
} st_tensor;

typedef struct st_file
{
	dac_arena	arena;			/* everything parsed lives here */
	st_tensor  *tensors;
	size_t		ntensors;
	char	  **meta_keys;
	char	  **meta_vals;
	size_t		nmeta;
	const uint8_t *data;		/* points into the caller's buffer */
	size_t		data_len;
} st_file;

extern size_t st_dtype_size(st_dtype dt);
extern const char *st_dtype_name(st_dtype dt);

/* Parse buf[0..len); buf must outlive f.  On error f holds nothing to free. */
extern dac_status st_open(const uint8_t *buf, size_t len, st_file *f, dac_error *err);
extern void st_close(st_file *f);
extern const st_tensor *st_find(const st_file *f, const char *name);
extern const char *st_meta(const st_file *f, const char *key);

/* Copy a float tensor (F32 or F64) into out[t->count] as dac_real. */
extern dac_status st_read_reals(const st_file *f, const st_tensor *t, dac_real *out, dac_error *err);
/* Copy a float tensor (F32 or F64) into out[t->count] as double. */
extern dac_status st_read_f64(const st_file *f, const st_tensor *t, double *out, dac_error *err);
/* Copy an integer tensor (I64, I32, U8, BOOL) into out[t->count]. */
extern dac_status st_read_i64(const st_file *f, const st_tensor *t, int64_t *out, dac_error *err);

/* Writer: tensors are referenced, not copied, until st_writer_finish. */
typedef struct st_entry st_entry;
typedef struct st_writer
{
	st_entry   *entries;
	size_t		n,
				cap;
	char	  **meta_keys;
	char	  **meta_vals;
	size_t		nmeta,
				meta_cap;
	int			failed;
} st_writer;

extern void st_writer_init(st_writer *w);
/* Add dac_real data, stored as F32. */
extern void st_writer_add_reals(st_writer *w, const char *name, int ndim,
								const int64_t *shape, const dac_real *data);
/* Add raw data already in dtype dt (little-endian host assumed). */
extern void st_writer_add_raw(st_writer *w, const char *name, st_dtype dt, int ndim,
							  const int64_t *shape, const void *data);
extern void st_writer_add_meta(st_writer *w, const char *key, const char *value);
/* Produce the file in a buffer from dac_alloc (caller frees with dac_free). */
extern dac_status st_writer_finish(st_writer *w, uint8_t **out, size_t *out_len, dac_error *err);
extern void st_writer_free(st_writer *w);

#endif							/* DAC_SAFETENSORS_H */
