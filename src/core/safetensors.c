/*
 * safetensors.c
 *	  Hostile-input-safe safetensors reader and a deterministic writer.
 */
#include "safetensors.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

static const struct
{
	const char *name;
	size_t		size;
}			dtype_info[] = {
	[ST_F64] = {"F64", 8},
	[ST_F32] = {"F32", 4},
	[ST_F16] = {"F16", 2},
	[ST_BF16] = {"BF16", 2},
	[ST_I64] = {"I64", 8},
	[ST_I32] = {"I32", 4},
	[ST_I16] = {"I16", 2},
	[ST_I8] = {"I8", 1},
	[ST_U8] = {"U8", 1},
	[ST_BOOL] = {"BOOL", 1},
};

#define N_DTYPES ((int) (sizeof(dtype_info) / sizeof(dtype_info[0])))

size_t
st_dtype_size(st_dtype dt)
{
	return dtype_info[dt].size;
}

const char *
st_dtype_name(st_dtype dt)
{
	return dtype_info[dt].name;
}

static uint64_t
read_le64(const uint8_t *p)
{
	uint64_t	v = 0;
	int			i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static int
cmp_tensor_begin(const void *a, const void *b)
{
	const st_tensor *x = a,
			   *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

/* A JSON value that is a non-negative integer fitting in size_t. */
static int
json_size(const json_value *v, size_t *out)
{
	if (v == NULL || v->type != JSON_NUMBER || !v->is_integer || !v->integer_ok ||
		v->integer < 0)
		return 0;
	if ((uint64_t) v->integer > (uint64_t) SIZE_MAX)
		return 0;
	*out = (size_t) v->integer;
	return 1;
}

static dac_status
parse_tensor(const char *name, const json_value *v, size_t data_len,
			 st_tensor *t, dac_error *err)
{
	const json_value *dt,
			   *shape,
			   *offs;
	size_t		i,
				bytes,
				nbytes;
	int			d;
	char		pname[80];
	char		pother[40];

	if (name[0] == '\0')
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: empty tensor name");
	dac_printable(name, pname, sizeof(pname));
	if (v->type != JSON_OBJECT)
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: entry \"%s\" is not an object", pname);
	for (i = 0; i < v->count; i++)
		if (strcmp(v->keys[i], "dtype") != 0 && strcmp(v->keys[i], "shape") != 0 &&
			strcmp(v->keys[i], "data_offsets") != 0)
			return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: tensor \"%s\" has unknown field \"%s\"",
							pname, dac_printable(v->keys[i], pother, sizeof(pother)));
	dt = json_get(v, "dtype");
	shape = json_get(v, "shape");
	offs = json_get(v, "data_offsets");
	if (dt == NULL || shape == NULL || offs == NULL)
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: tensor \"%s\" lacks dtype, shape or data_offsets", pname);
	if (dt->type != JSON_STRING)
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: dtype of \"%s\" is not a string", pname);
	for (d = 0; d < N_DTYPES; d++)
		if (strcmp(dt->string, dtype_info[d].name) == 0)
			break;
	if (d == N_DTYPES)
		return dac_fail(err, DAC_ERR_FORMAT, "unsupported dtype \"%s\" for tensor \"%s\"", dac_printable(dt->string, pother, sizeof(pother)), pname);
	t->name = name;
	t->dtype = (st_dtype) d;
	if (shape->type != JSON_ARRAY || shape->count > ST_MAX_DIMS)
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: shape of \"%s\" is not an array of at most %d sizes",
						pname, ST_MAX_DIMS);
	t->ndim = (int) shape->count;
	t->count = 1;
	for (i = 0; i < shape->count; i++)
	{
		size_t		s;

		if (!json_size(shape->items[i], &s) || s > (size_t) INT64_MAX)
			return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: shape of \"%s\" has a bad size", pname);
		t->shape[i] = (int64_t) s;
		if (!dac_mul_size(t->count, s, &t->count))
			return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: shape of \"%s\" overflows", pname);
	}
	if (offs->type != JSON_ARRAY || offs->count != 2 ||
		!json_size(offs->items[0], &t->begin) || !json_size(offs->items[1], &t->end))
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: data_offsets of \"%s\" must be two sizes", pname);
	if (t->end < t->begin || t->end > data_len)
		return dac_fail(err, DAC_ERR_FORMAT, "data_offsets [%zu, %zu] of tensor \"%s\" lie outside the %zu data bytes",
						t->begin, t->end, pname, data_len);
	bytes = t->end - t->begin;
	if (!dac_mul_size(t->count, dtype_info[d].size, &nbytes))
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: size of \"%s\" overflows", pname);
	if (nbytes != bytes)
		return dac_fail(err, DAC_ERR_FORMAT, "tensor \"%s\" has %zu data bytes but its shape and dtype need %zu",
						pname, bytes, nbytes);
	return DAC_OK;
}

dac_status
st_open(const uint8_t *buf, size_t len, st_file *f, dac_error *err)
{
	uint64_t	hlen;
	json_value *root;
	dac_status	st;
	size_t		i,
				nt = 0,
				nm = 0,
				pos;
	const json_value *meta = NULL;

	memset(f, 0, sizeof(*f));
	dac_arena_init(&f->arena, 64 * 1024);
	if (buf == NULL || len < 8)
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors file: %zu bytes is shorter than the 8-byte header length",
						buf ? len : 0);
	hlen = read_le64(buf);
	if (hlen > (uint64_t) (len - 8))
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors file: header length %llu exceeds the %zu bytes that follow",
						(unsigned long long) hlen, len - 8);
	if (hlen > ST_MAX_HEADER)
		return dac_fail(err, DAC_ERR_TOO_LARGE, "invalid safetensors file: header length %llu is more than the limit of %llu bytes",
						(unsigned long long) hlen, (unsigned long long) ST_MAX_HEADER);
	if (hlen < 2 || buf[8] != '{')
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors file: header is not a JSON object");
	f->data = buf + 8 + hlen;
	f->data_len = len - 8 - (size_t) hlen;

	st = json_parse((const char *) buf + 8, (size_t) hlen, &f->arena, &root, err);
	if (st != DAC_OK)
	{
		char		msg[sizeof(err->msg)];

		if (err && st == DAC_ERR_FORMAT)
		{
			memcpy(msg, err->msg, sizeof(msg));
			dac_fail(err, st, "invalid safetensors header: %.200s", msg);
		}
		st_close(f);
		return st;
	}
	if (root->type != JSON_OBJECT)
	{
		st_close(f);
		return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors file: header is not a JSON object");
	}

	for (i = 0; i < root->count; i++)
		if (strcmp(root->keys[i], "__metadata__") == 0)
			meta = root->items[i];
		else
			nt++;
	if (nt > ST_MAX_TENSORS)
	{
		st_close(f);
		return dac_fail(err, DAC_ERR_TOO_LARGE, "invalid safetensors file: %zu tensors, more than the limit of %d",
						nt, ST_MAX_TENSORS);
	}
	f->tensors = dac_arena_alloc(&f->arena, (nt ? nt : 1) * sizeof(st_tensor));
	if (f->tensors == NULL)
	{
		st_close(f);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory reading safetensors header");
	}
	for (i = 0; i < root->count; i++)
	{
		if (root->items[i] == meta)
			continue;
		st = parse_tensor(root->keys[i], root->items[i], f->data_len, &f->tensors[f->ntensors], err);
		if (st != DAC_OK)
		{
			st_close(f);
			return st;
		}
		f->ntensors++;
	}

	if (meta)
	{
		if (meta->type != JSON_OBJECT)
		{
			st_close(f);
			return dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: __metadata__ is not an object");
		}
		f->meta_keys = dac_arena_alloc(&f->arena, (meta->count + 1) * sizeof(char *));
		f->meta_vals = dac_arena_alloc(&f->arena, (meta->count + 1) * sizeof(char *));
		if (!f->meta_keys || !f->meta_vals)
		{
			st_close(f);
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory reading safetensors header");
		}
		for (i = 0; i < meta->count; i++)
		{
			if (meta->items[i]->type != JSON_STRING)
			{
				char		pname[80];

				/* the message first: the key lives in the arena st_close frees */
				st = dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors header: metadata value \"%s\" is not a string",
							  dac_printable(meta->keys[i], pname, sizeof(pname)));
				st_close(f);
				return st;
			}
			f->meta_keys[nm] = meta->keys[i];
			f->meta_vals[nm] = meta->items[i]->string;
			nm++;
		}
		f->nmeta = nm;
	}

	/* Tensors must tile the data section exactly: no overlap, no hole. */
	{
		st_tensor  *sorted = dac_arena_alloc(&f->arena, (nt ? nt : 1) * sizeof(st_tensor));

		if (sorted == NULL)
		{
			st_close(f);
			return dac_fail(err, DAC_ERR_NOMEM, "out of memory reading safetensors header");
		}
		if (nt)
			memcpy(sorted, f->tensors, nt * sizeof(st_tensor));
		qsort(sorted, nt, sizeof(st_tensor), cmp_tensor_begin);
		pos = 0;
		for (i = 0; i < nt; i++)
		{
			/* each message is made before st_close frees what it names */
			if (sorted[i].begin < pos)
			{
				char		pname[80];

				st = dac_fail(err, DAC_ERR_FORMAT, "tensor \"%s\" overlaps another tensor's data",
							  dac_printable(sorted[i].name, pname, sizeof(pname)));
				st_close(f);
				return st;
			}
			if (sorted[i].begin > pos)
			{
				st = dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors file: data bytes %zu to %zu belong to no tensor",
							  pos, sorted[i].begin);
				st_close(f);
				return st;
			}
			pos = sorted[i].end;
		}
		if (pos != f->data_len)
		{
			st = dac_fail(err, DAC_ERR_FORMAT, "invalid safetensors file: %zu trailing data bytes belong to no tensor",
						  f->data_len - pos);
			st_close(f);
			return st;
		}
	}
	return DAC_OK;
}

void
st_close(st_file *f)
{
	dac_arena_free(&f->arena);
	f->tensors = NULL;
	f->ntensors = 0;
	f->meta_keys = f->meta_vals = NULL;
	f->nmeta = 0;
}

const st_tensor *
st_find(const st_file *f, const char *name)
{
	size_t		i;

	for (i = 0; i < f->ntensors; i++)
		if (strcmp(f->tensors[i].name, name) == 0)
			return &f->tensors[i];
	return NULL;
}

const char *
st_meta(const st_file *f, const char *key)
{
	size_t		i;

	for (i = 0; i < f->nmeta; i++)
		if (strcmp(f->meta_keys[i], key) == 0)
			return f->meta_vals[i];
	return NULL;
}

/* Unaligned little-endian loads: the data section has no alignment guarantee. */
static double
load_float(const uint8_t *p, st_dtype dt)
{
	if (dt == ST_F32)
	{
		float		v;

		memcpy(&v, p, 4);
		return v;
	}
	else
	{
		double		v;

		memcpy(&v, p, 8);
		return v;
	}
}

dac_status
st_read_reals(const st_file *f, const st_tensor *t, dac_real *out, dac_error *err)
{
	size_t		i,
				es;

	if (t->dtype != ST_F32 && t->dtype != ST_F64)
		return dac_fail(err, DAC_ERR_FORMAT, "tensor \"%s\" has dtype %s, expected F32 or F64",
						t->name, st_dtype_name(t->dtype));
	es = st_dtype_size(t->dtype);
	for (i = 0; i < t->count; i++)
		out[i] = (dac_real) load_float(f->data + t->begin + i * es, t->dtype);
	return DAC_OK;
}

dac_status
st_read_f64(const st_file *f, const st_tensor *t, double *out, dac_error *err)
{
	size_t		i,
				es;

	if (t->dtype != ST_F32 && t->dtype != ST_F64)
		return dac_fail(err, DAC_ERR_FORMAT, "tensor \"%s\" has dtype %s, expected F32 or F64",
						t->name, st_dtype_name(t->dtype));
	es = st_dtype_size(t->dtype);
	for (i = 0; i < t->count; i++)
		out[i] = load_float(f->data + t->begin + i * es, t->dtype);
	return DAC_OK;
}

dac_status
st_read_i64(const st_file *f, const st_tensor *t, int64_t *out, dac_error *err)
{
	size_t		i;
	const uint8_t *p = f->data + t->begin;

	for (i = 0; i < t->count; i++)
	{
		switch (t->dtype)
		{
			case ST_I64:
				memcpy(&out[i], p + 8 * i, 8);
				break;
			case ST_I32:
				{
					int32_t		v;

					memcpy(&v, p + 4 * i, 4);
					out[i] = v;
					break;
				}
			case ST_U8:
			case ST_BOOL:
				out[i] = p[i];
				break;
			default:
				return dac_fail(err, DAC_ERR_FORMAT, "tensor \"%s\" has dtype %s, expected an integer type",
								t->name, st_dtype_name(t->dtype));
		}
	}
	return DAC_OK;
}

/* ---------------------------------------------------------------- writer */

struct st_entry
{
	char	   *name;
	st_dtype	dtype;
	int			ndim;
	int64_t		shape[ST_MAX_DIMS];
	size_t		count;
	const void *data;
	int			from_reals;		/* data is dac_real, written as F32 */
};

static char *
dup_string(const char *s)
{
	size_t		n = strlen(s) + 1;
	char	   *d = dac_alloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

void
st_writer_init(st_writer *w)
{
	memset(w, 0, sizeof(*w));
}

static void
writer_add(st_writer *w, const char *name, st_dtype dt, int ndim,
		   const int64_t *shape, const void *data, int from_reals)
{
	st_entry   *e;
	int			i;

	if (w->failed)
		return;
	if (ndim < 0 || ndim > ST_MAX_DIMS)
	{
		w->failed = 1;
		return;
	}
	if (w->n == w->cap)
	{
		size_t		cap = w->cap ? w->cap * 2 : 64;
		st_entry   *n = dac_alloc(cap * sizeof(st_entry));

		if (n == NULL)
		{
			w->failed = 1;
			return;
		}
		if (w->n)
			memcpy(n, w->entries, w->n * sizeof(st_entry));
		dac_free(w->entries);
		w->entries = n;
		w->cap = cap;
	}
	e = &w->entries[w->n];
	e->name = dup_string(name);
	if (e->name == NULL)
	{
		w->failed = 1;
		return;
	}
	e->dtype = dt;
	e->ndim = ndim;
	e->count = 1;
	for (i = 0; i < ndim; i++)
	{
		e->shape[i] = shape[i];
		e->count *= (size_t) shape[i];
	}
	e->data = data;
	e->from_reals = from_reals;
	w->n++;
}

void
st_writer_add_reals(st_writer *w, const char *name, int ndim, const int64_t *shape,
					const dac_real *data)
{
	writer_add(w, name, ST_F32, ndim, shape, data, 1);
}

void
st_writer_add_raw(st_writer *w, const char *name, st_dtype dt, int ndim,
				  const int64_t *shape, const void *data)
{
	writer_add(w, name, dt, ndim, shape, data, 0);
}

void
st_writer_add_meta(st_writer *w, const char *key, const char *value)
{
	if (w->failed)
		return;
	if (w->nmeta == w->meta_cap)
	{
		size_t		cap = w->meta_cap ? w->meta_cap * 2 : 8;
		char	  **k = dac_alloc(cap * sizeof(char *));
		char	  **v = dac_alloc(cap * sizeof(char *));

		if (!k || !v)
		{
			dac_free(k);
			dac_free(v);
			w->failed = 1;
			return;
		}
		if (w->nmeta)
		{
			memcpy(k, w->meta_keys, w->nmeta * sizeof(char *));
			memcpy(v, w->meta_vals, w->nmeta * sizeof(char *));
		}
		dac_free(w->meta_keys);
		dac_free(w->meta_vals);
		w->meta_keys = k;
		w->meta_vals = v;
		w->meta_cap = cap;
	}
	w->meta_keys[w->nmeta] = dup_string(key);
	w->meta_vals[w->nmeta] = dup_string(value);
	if (!w->meta_keys[w->nmeta] || !w->meta_vals[w->nmeta])
	{
		w->failed = 1;
		return;
	}
	w->nmeta++;
}

/* Larger element sizes first, then by name: the layout of the reference files. */
static int
cmp_entry(const void *a, const void *b)
{
	const st_entry *x = a,
			   *y = b;
	size_t		sx = st_dtype_size(x->dtype),
				sy = st_dtype_size(y->dtype);

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return strcmp(x->name, y->name);
}

dac_status
st_writer_finish(st_writer *w, uint8_t **out, size_t *out_len, dac_error *err)
{
	dac_strbuf	sb;
	size_t		i,
				off = 0,
				hlen,
				total;
	uint8_t    *buf,
			   *p;

	*out = NULL;
	*out_len = 0;
	if (w->failed)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory writing safetensors");
	qsort(w->entries, w->n, sizeof(st_entry), cmp_entry);
	dac_strbuf_init(&sb);
	dac_strbuf_append(&sb, "{", 1);
	if (w->nmeta)
	{
		dac_strbuf_json_string(&sb, "__metadata__");
		dac_strbuf_append(&sb, ":{", 2);
		for (i = 0; i < w->nmeta; i++)
		{
			if (i)
				dac_strbuf_append(&sb, ",", 1);
			dac_strbuf_json_string(&sb, w->meta_keys[i]);
			dac_strbuf_append(&sb, ":", 1);
			dac_strbuf_json_string(&sb, w->meta_vals[i]);
		}
		dac_strbuf_append(&sb, "}", 1);
	}
	for (i = 0; i < w->n; i++)
	{
		st_entry   *e = &w->entries[i];
		size_t		bytes = e->count * st_dtype_size(e->dtype);
		int			d;

		if (i || w->nmeta)
			dac_strbuf_append(&sb, ",", 1);
		dac_strbuf_json_string(&sb, e->name);
		dac_strbuf_printf(&sb, ":{\"dtype\":\"%s\",\"shape\":[", st_dtype_name(e->dtype));
		for (d = 0; d < e->ndim; d++)
			dac_strbuf_printf(&sb, "%s%lld", d ? "," : "", (long long) e->shape[d]);
		dac_strbuf_printf(&sb, "],\"data_offsets\":[%zu,%zu]}", off, off + bytes);
		off += bytes;
	}
	dac_strbuf_append(&sb, "}", 1);
	while (!sb.failed && sb.len % 8 != 0)
		dac_strbuf_append(&sb, " ", 1);
	if (sb.failed)
	{
		dac_strbuf_free(&sb);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory writing safetensors");
	}
	hlen = sb.len;
	total = 8 + hlen + off;
	buf = dac_alloc(total);
	if (buf == NULL)
	{
		dac_strbuf_free(&sb);
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory writing safetensors");
	}
	for (i = 0; i < 8; i++)
		buf[i] = (uint8_t) (((uint64_t) hlen >> (8 * i)) & 0xFF);
	memcpy(buf + 8, sb.data, hlen);
	dac_strbuf_free(&sb);
	p = buf + 8 + hlen;
	for (i = 0; i < w->n; i++)
	{
		st_entry   *e = &w->entries[i];

		if (e->from_reals)
		{
			const dac_real *src = e->data;
			size_t		j;

			for (j = 0; j < e->count; j++)
			{
				float		v = (float) src[j];

				memcpy(p + 4 * j, &v, 4);
			}
		}
		else if (e->count)
			memcpy(p, e->data, e->count * st_dtype_size(e->dtype));
		p += e->count * st_dtype_size(e->dtype);
	}
	*out = buf;
	*out_len = total;
	return DAC_OK;
}

void
st_writer_free(st_writer *w)
{
	size_t		i;

	for (i = 0; i < w->n; i++)
		dac_free(w->entries[i].name);
	for (i = 0; i < w->nmeta; i++)
	{
		dac_free(w->meta_keys[i]);
		dac_free(w->meta_vals[i]);
	}
	dac_free(w->entries);
	dac_free(w->meta_keys);
	dac_free(w->meta_vals);
	st_writer_init(w);
}
