/*
 * test_safetensors.c
 *	  Round trips, a table of malformed files (each must be an error with a
 *	  message, never a crash), model-level checks of weights files, and
 *	  random corruption of a real model file.
 */
#include "unit.h"
#include "model.h"
#include "rng.h"
#include "safetensors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file: 8-byte length, header text, then data_len bytes of data (0, 1, 2, …). */
static uint8_t *
make_file(const char *header, size_t data_len, size_t *len)
{
	size_t		h = strlen(header),
				i;
	uint8_t    *buf = malloc(8 + h + data_len + 1);

	for (i = 0; i < 8; i++)
		buf[i] = (uint8_t) ((uint64_t) h >> (8 * i));
	memcpy(buf + 8, header, h);
	for (i = 0; i < data_len; i++)
		buf[8 + h + i] = (uint8_t) i;
	*len = 8 + h + data_len;
	return buf;
}

static dac_status
open_status(const uint8_t *buf, size_t len, char *msg)
{
	st_file		f;
	dac_error	err;
	dac_status	st;

	err.msg[0] = '\0';
	st = st_open(buf, len, &f, &err);
	if (st == DAC_OK)
		st_close(&f);
	if (msg)
		strcpy(msg, err.msg);
	return st;
}

static void
malformed_table(void)
{
	static const struct
	{
		const char *what;
		const char *header;
		size_t		data_len;
	}			cases[] = {
		{"header is not an object", "[1, 2]", 0},
		{"truncated JSON", "{\"a\": {\"dtype\": \"F32\"", 0},
		{"offsets past the data", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4},
		{"end before begin", "{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[4,0]}}", 4},
		{"overlapping tensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		"\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12},
		{"hole between tensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
		"\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 12},
		{"trailing data", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 8},
		{"unknown dtype", "{\"a\":{\"dtype\":\"F12\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4},
		{"dtype not a string", "{\"a\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", 4},
		{"shape disagrees with bytes", "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8},
		{"negative dimension", "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4},
		{"fractional dimension", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4},
		{"shape overflows", "{\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296,16],\"data_offsets\":[0,8]}}", 8},
		{"too many dimensions", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}}", 1},
		{"one offset", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4},
		{"offset not an integer", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,\"4\"]}}", 4},
		{"missing dtype", "{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4},
		{"missing shape", "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4},
		{"unknown field", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}", 4},
		{"entry not an object", "{\"a\":[1]}", 0},
		{"metadata not an object", "{\"__metadata__\":[],\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4},
		{"metadata value not a string", "{\"__metadata__\":{\"k\":1}}", 0},
		{"duplicate tensor name", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
		"\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8},
		{"empty tensor name", "{\"\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4},
		{"huge offset", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[18446744073709551612,18446744073709551616]}}", 4},
	};
	size_t		i,
				len;
	uint8_t    *buf;
	char		msg[256];
	uint8_t		tiny[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		dac_status	st;

		buf = make_file(cases[i].header, cases[i].data_len, &len);
		st = open_status(buf, len, msg);
		CHECK(st == DAC_ERR_FORMAT && msg[0] != '\0', "malformed safetensors (%s) rejected: %s",
			  cases[i].what, msg);
		free(buf);
	}
	CHECK(open_status(NULL, 0, msg) == DAC_ERR_FORMAT, "empty input rejected: %s", msg);
	CHECK(open_status(tiny, 5, msg) == DAC_ERR_FORMAT, "5 bytes rejected: %s", msg);
	CHECK(open_status(tiny, 8, msg) == DAC_ERR_FORMAT, "header length past the end rejected: %s", msg);

	/* a valid file parses, and every truncation of it is an error */
	buf = make_file("{\"__metadata__\":{\"k\":\"v\"},\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
					"\"b\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[8,16]}}", 16, &len);
	CHECK(open_status(buf, len, msg) == DAC_OK, "valid file parses");
	{
		size_t		cut;
		int			all = 1;

		for (cut = 0; cut < len; cut++)
			if (open_status(buf, cut, NULL) != DAC_ERR_FORMAT)
				all = 0;
		CHECK(all, "every truncation of a valid file is rejected");
	}
	free(buf);
}

static void
round_trip(void)
{
	st_writer	w;
	uint8_t    *buf;
	size_t		len;
	dac_real	a[6] = {1, -2, 3.5f, 0, 1e-3f, 7};
	int64_t		idx[3] = {5, -1, 1LL << 40};
	int64_t		sa[2] = {2, 3},
				si[1] = {3};
	st_file		f;
	dac_real	ra[6];
	int64_t		ri[3];
	const st_tensor *t;

	st_writer_init(&w);
	st_writer_add_meta(&w, "dac.config", "{\"x\": \"quote \\\" here\"}");
	st_writer_add_reals(&w, "layer.weight", 2, sa, a);
	st_writer_add_raw(&w, "idx", ST_I64, 1, si, idx);
	CHECK(st_writer_finish(&w, &buf, &len, NULL) == DAC_OK, "writer finishes");
	st_writer_free(&w);
	CHECK(open_status(buf, len, NULL) == DAC_OK, "written file parses");
	st_open(buf, len, &f, NULL);
	CHECK(strcmp(st_meta(&f, "dac.config"), "{\"x\": \"quote \\\" here\"}") == 0, "metadata survives a round trip");
	t = st_find(&f, "layer.weight");
	CHECK(t && t->dtype == ST_F32 && t->ndim == 2 && t->shape[0] == 2 && t->shape[1] == 3, "shape survives");
	st_read_reals(&f, t, ra, NULL);
	CHECK(memcmp(ra, a, sizeof(a)) == 0, "float data survives");
	t = st_find(&f, "idx");
	st_read_i64(&f, t, ri, NULL);
	CHECK(ri[0] == 5 && ri[1] == -1 && ri[2] == (1LL << 40), "integer data survives");
	CHECK(f.tensors[0].begin == 0 && strcmp(st_find(&f, "idx")->name, "idx") == 0 &&
		  st_find(&f, "idx")->begin == 0, "8-byte tensors come first");
	{
		uint64_t	h = 0;
		int			i;

		for (i = 7; i >= 0; i--)
			h = (h << 8) | buf[i];
		CHECK(h % 8 == 0, "header padded to a multiple of 8");
	}
	st_close(&f);
	dac_free(buf);
}

/* Model files: round trip, then each way a weights file can be wrong. */
static void
model_files(void)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 3);
	dac_model	m,
				m2;
	dac_rng		r;
	uint8_t    *buf,
			   *buf2;
	size_t		len,
				len2;
	dac_error	err;
	st_writer	w;
	int			t;

	cfg.dim_hidden = 8;
	cfg.num_heads = 2;
	cfg.num_inds = 2;
	cfg.num_blocks = 3;
	unit_random_model(&m, &cfg, 5, &r);
	/* weights files hold float32: round first so the float64 build round-trips exactly */
	for (t = 0; t < (int) m.net.nparams; t++)
		m.P[t] = (dac_real) (float) m.P[t];
	CHECK(dac_model_save(&m, NULL, &buf, &len, &err) == DAC_OK, "model saves");
	CHECK(dac_model_load(&m2, buf, len, &err) == DAC_OK, "model loads back");
	CHECK(m2.net.nparams == m.net.nparams &&
		  memcmp(m2.P, m.P, sizeof(dac_real) * m.net.nparams) == 0 &&
		  memcmp(&m2.net.cfg, &m.net.cfg, sizeof(cfg)) == 0, "model round trip is exact");
	CHECK(dac_model_save(&m2, NULL, &buf2, &len2, &err) == DAC_OK && len2 == len &&
		  memcmp(buf, buf2, len) == 0, "saving is deterministic, byte for byte");
	dac_free(buf2);
	dac_model_free(&m2);

	/* random corruption: byte flips and truncations never crash */
	{
		int			i,
					ok = 0,
					rejected = 0;
		uint8_t    *c = malloc(len);

		for (i = 0; i < 3000; i++)
		{
			size_t		cl = len;
			int			flips = 1 + dac_rng_int(&r, 4),
						j;

			memcpy(c, buf, len);
			for (j = 0; j < flips; j++)
			{
				/* mostly the header, where structure lives */
				size_t		pos = dac_rng_int(&r, 4) ? (size_t) dac_rng_int(&r, 1200) % len
				: (size_t) dac_rng_int(&r, (int) len);

				c[pos] = (uint8_t) dac_rng_int(&r, 256);
			}
			if (dac_rng_int(&r, 5) == 0)
				cl = (size_t) dac_rng_int(&r, (int) len);
			if (dac_model_load(&m2, c, cl, &err) == DAC_OK)
			{
				ok++;
				dac_model_free(&m2);
			}
			else
				rejected += err.msg[0] != '\0';
		}
		CHECK(ok + rejected == 3000, "3000 corrupted model files: %d loaded, %d rejected with a message",
			  ok, rejected);
		free(c);
	}
	dac_free(buf);

	/* files built tensor by tensor with one thing wrong */
	for (t = 0; t < 7; t++)
	{
		int			p;
		char	   *cj = dac_config_to_json(&cfg);
		dac_real	nan_val[64];
		int64_t		bad_shape[2] = {7, 7};
		const char *what[] = {"no dac.config", "bad dac.config", "missing tensor", "wrong shape",
		"non-finite value", "unexpected tensor", "F16 tensor"};
		dac_status	st;

		st_writer_init(&w);
		if (t == 1)
			st_writer_add_meta(&w, "dac.config", "{\"strategy\": \"kmeans\", \"dim_input\": 3}");
		else if (t != 0)
			st_writer_add_meta(&w, "dac.config", cj);
		dac_free(cj);
		for (p = 0; p < 64; p++)
			nan_val[p] = p == 3 ? (dac_real) NAN : 0;
		for (p = 0; p < m.net.ntensors; p++)
		{
			const dac_param_info *pi = &m.net.params[p];

			if (t == 2 && p == 5)
				continue;
			if (t == 3 && p == 5)
				st_writer_add_reals(&w, pi->name, 2, bad_shape, m.P);
			else if (t == 4 && p == 1)
				st_writer_add_reals(&w, pi->name, pi->ndim, pi->shape, nan_val);
			else if (t == 6 && p == 1)
				st_writer_add_raw(&w, pi->name, ST_F16, pi->ndim, pi->shape, m.P);
			else
				st_writer_add_reals(&w, pi->name, pi->ndim, pi->shape, m.P + pi->offset);
		}
		if (t == 5)
			st_writer_add_reals(&w, "extra.weight", 2, bad_shape, m.P);
		st_writer_finish(&w, &buf, &len, NULL);
		st_writer_free(&w);
		err.msg[0] = '\0';
		st = dac_model_load(&m2, buf, len, &err);
		CHECK(st != DAC_OK && err.msg[0] != '\0', "weights file with %s rejected: %s", what[t], err.msg);
		if (st == DAC_OK)
			dac_model_free(&m2);
		dac_free(buf);
	}

	/* a state_dict with the shared block repeated as blocks.2 loads; a differing copy does not */
	{
		int			variant;

		for (variant = 0; variant < 2; variant++)
		{
			char	   *cj = dac_config_to_json(&cfg);
			int			p;
			dac_status	st;

			st_writer_init(&w);
			st_writer_add_meta(&w, "dac.config", cj);
			dac_free(cj);
			for (p = 0; p < m.net.ntensors; p++)
			{
				const dac_param_info *pi = &m.net.params[p];

				st_writer_add_reals(&w, pi->name, pi->ndim, pi->shape, m.P + pi->offset);
				if (strncmp(pi->name, "isab2.blocks.1.", 15) == 0)
				{
					char		copy[160];

					snprintf(copy, sizeof(copy), "isab2.blocks.2.%s", pi->name + 15);
					st_writer_add_reals(&w, copy, pi->ndim, pi->shape,
										m.P + pi->offset + (variant && p % 3 == 0 ? 1 : 0));
				}
			}
			st_writer_finish(&w, &buf, &len, NULL);
			st_writer_free(&w);
			st = dac_model_load(&m2, buf, len, &err);
			if (variant == 0)
				CHECK(st == DAC_OK, "copies of a shared block (blocks.2) are accepted");
			else
				CHECK(st == DAC_ERR_FORMAT, "a copy that differs from the shared block is rejected: %s", err.msg);
			if (st == DAC_OK)
				dac_model_free(&m2);
			dac_free(buf);
		}
	}
	dac_model_free(&m);
}

void
test_safetensors(void)
{
	malformed_table();
	round_trip();
	model_files();
}
