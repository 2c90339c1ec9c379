/*
 * test_hostile.c
 *	  Inputs any role can send, each of which once crashed a backend, ran
 *	  uncancellably or gave a wrong answer (issue "Safe in a shared
 *	  database"):
 *	  - safetensors headers whose error paths read freed memory (overlap, gap
 *	    and metadata errors among many tensors; AddressSanitizer reported
 *	    heap-use-after-free at all three sites);
 *	  - headers past the tensor, byte and value limits;
 *	  - objects with very many keys (the duplicate check was quadratic) and
 *	    the interrupt check while parsing;
 *	  - invalid UTF-8 and control bytes echoed into error messages;
 *	  - ARI/NMI over many distinct labels (quadratic, NaN for 100,000);
 *	  - finite inputs so large the network's output overflows;
 *	  - an optimiser state with non-finite or negative moments;
 *	  and from the review of 0.7.0 (issue "Safe again"):
 *	  - a pass of a normalising model over points of any width (the network
 *	    read 32 floats a point whatever the width: a crash, or memory past
 *	    the buffer echoed in an error);
 *	  - sizes claimed by a kept clustering or a weights file that allocated
 *	    gigabytes before the error (the largest request is watched here);
 *	  - the eigen-solver, the set normalisation and the embed generator,
 *	    which ran for minutes without an interrupt check.
 *	  The fuzzer's crash inputs (test/fuzz/) are added here as cases.
 */
#include "unit.h"
#include "cluster.h"
#include "gen.h"
#include "json.h"
#include "mixture.h"
#include "model.h"
#include "setnorm.h"
#include "safetensors.h"
#include "train.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing text buffer (malloc). */
typedef struct
{
	char	   *s;
	size_t		len,
				cap;
} text_buf;

static void
tb_add(text_buf *b, const char *fmt,...)
	__attribute__((format(printf, 2, 3)));

static void
tb_add(text_buf *b, const char *fmt,...)
{
	va_list		ap;
	int			n;

	for (;;)
	{
		size_t		room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
		va_end(ap);
		if (b->s && (size_t) n < room)
		{
			b->len += (size_t) n;
			return;
		}
		b->cap = b->cap ? b->cap * 2 : 4096;
		while (b->cap < b->len + (size_t) n + 1)
			b->cap *= 2;
		b->s = realloc(b->s, b->cap);
	}
}

/* 8-byte length, header, then data_len bytes. */
static uint8_t *
file_of(const char *header, size_t hlen, size_t data_len, size_t *len)
{
	uint8_t    *buf = calloc(1, 8 + hlen + data_len + 1);
	size_t		i;

	for (i = 0; i < 8; i++)
		buf[i] = (uint8_t) ((uint64_t) hlen >> (8 * i));
	memcpy(buf + 8, header, hlen);
	*len = 8 + hlen + data_len;
	return buf;
}

/*
 * A header of n one-float tensors "t0".."t{n-1}" tiling 4n data bytes,
 * but tensor `odd` made to overlap (kind 'o': it takes bytes [0, 4)) or to
 * leave a 4-byte hole before it (kind 'g'), or with a metadata value that
 * is not a string (kind 'm').  The reproduction, at a size under
 * the tensor limit.
 */
static dac_status
open_many(int n, int odd, char kind, char *msg, size_t *data_len_out)
{
	text_buf	h = {NULL, 0, 0};
	size_t		len,
				data_len = 4 * (size_t) n;
	uint8_t    *buf;
	st_file		f;
	dac_error	err;
	dac_status	st;
	int			i;

	tb_add(&h, "{");
	if (kind == 'm')
		tb_add(&h, "\"__metadata__\":{\"dac.config\":\"x\",\"key%d\":%d},", odd, odd);
	for (i = 0; i < n; i++)
	{
		size_t		b = 4 * (size_t) i;

		if (i == odd && kind == 'o')
			b = 0;
		if (kind == 'g' && i >= odd)
			b += 4;
		tb_add(&h, "%s\"t%d\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[%zu,%zu]}",
			   i ? "," : "", i, b, b + 4);
	}
	tb_add(&h, "}");
	if (kind == 'g')
		data_len += 4;
	buf = file_of(h.s, h.len, data_len, &len);
	err.msg[0] = '\0';
	st = st_open(buf, len, &f, &err);
	if (st == DAC_OK)
		st_close(&f);
	strcpy(msg, err.msg);
	free(buf);
	free(h.s);
	if (data_len_out)
		*data_len_out = data_len;
	return st;
}

static void
freed_memory_in_errors(void)
{
	char		msg[256];

	CHECK(open_many(3000, 2999, 'o', msg, NULL) == DAC_ERR_FORMAT &&
		  (strcmp(msg, "tensor \"t0\" overlaps another tensor's data") == 0 ||
		   strcmp(msg, "tensor \"t2999\" overlaps another tensor's data") == 0),
		  "3,000 tensors, two overlapping: the message names one of them (%s)", msg);
	CHECK(open_many(3000, 1500, 'g', msg, NULL) == DAC_ERR_FORMAT &&
		  strcmp(msg, "invalid safetensors file: data bytes 6000 to 6004 belong to no tensor") == 0,
		  "3,000 tensors with a 4-byte hole: the message gives the hole (%s)", msg);
	CHECK(open_many(3000, 7, 'm', msg, NULL) == DAC_ERR_FORMAT &&
		  strcmp(msg, "invalid safetensors header: metadata value \"key7\" is not a string") == 0,
		  "3,000 tensors, a metadata value not a string: the message names its key (%s)", msg);
}

static void
size_limits(void)
{
	char		msg[256];
	size_t		len;
	uint8_t    *buf;
	char	   *big;
	st_file		f;
	dac_error	err;

	CHECK(open_many(ST_MAX_TENSORS, -1, 'o', msg, NULL) == DAC_OK,
		  "%d tensors (the limit) open", ST_MAX_TENSORS);
	CHECK(open_many(ST_MAX_TENSORS + 1, -1, 'o', msg, NULL) == DAC_ERR_TOO_LARGE &&
		  strstr(msg, "more than the limit of 4096") != NULL,
		  "%d tensors are refused (%s)", ST_MAX_TENSORS + 1, msg);
	CHECK(open_many(20000, 19999, 'o', msg, NULL) == DAC_ERR_TOO_LARGE,
		  "the issue's 20,000-tensor header is refused by the limit (%s)", msg);

	/* a header one byte over the limit: refused before it is parsed */
	big = malloc(ST_MAX_HEADER + 2);
	memset(big, ' ', ST_MAX_HEADER + 1);
	big[0] = '{';
	big[ST_MAX_HEADER] = '}';
	buf = file_of(big, ST_MAX_HEADER + 1, 0, &len);
	CHECK(st_open(buf, len, &f, &err) == DAC_ERR_TOO_LARGE && strstr(err.msg, "more than the limit") != NULL,
		  "a header of 4 MiB + 1 byte is refused (%s)", err.msg);
	free(buf);
	free(big);
}

/* ---------------------------------------------------------------- JSON */

static int	checks_until_stop;
static int	checks_seen;

static int
stop_after_some(void)
{
	checks_seen++;
	return checks_seen >= checks_until_stop;
}

static dac_status
parse_text(const char *text, size_t len, char *msg)
{
	dac_arena	ar;
	json_value *v;
	dac_error	err;
	dac_status	st;

	err.msg[0] = '\0';
	dac_arena_init(&ar, 0);
	st = json_parse(text, len, &ar, &v, &err);
	dac_arena_free(&ar);
	if (msg)
		strcpy(msg, err.msg);
	return st;
}

static void
json_limits(void)
{
	text_buf	t = {NULL, 0, 0};
	char		msg[256];
	int			i;
	dac_hooks	stop = {NULL, NULL, stop_after_some, NULL};

	/* 200,000 distinct keys: accepted, and fast (the check was quadratic) */
	tb_add(&t, "{");
	for (i = 0; i < 200000; i++)
		tb_add(&t, "%s\"k%d\":0", i ? "," : "", i);
	tb_add(&t, "}");
	CHECK(parse_text(t.s, t.len, msg) == DAC_OK, "an object of 200,000 distinct keys parses (%s)", msg);
	/* the same with the first key again at the end */
	t.len--;
	tb_add(&t, ",\"k0\":1}");
	CHECK(parse_text(t.s, t.len, msg) == DAC_ERR_FORMAT && strstr(msg, "duplicate key") != NULL,
		  "200,000 keys and one again at the end: duplicate key (%s)", msg);

	/* the interrupt check runs while parsing */
	checks_seen = 0;
	checks_until_stop = 3;
	dac_set_hooks(&stop);
	CHECK(parse_text(t.s, t.len, msg) == DAC_ERR_INTERRUPTED && checks_seen == 3,
		  "parsing stops at the host's third interrupt check (%d checks: %s)", checks_seen, msg);
	dac_set_hooks(NULL);

	/* more values than the limit */
	t.len = 0;
	tb_add(&t, "[");
	for (i = 0; i < JSON_MAX_VALUES; i++)
		tb_add(&t, "%s0", i ? "," : "");
	tb_add(&t, "]");
	CHECK(parse_text(t.s, t.len, msg) == DAC_ERR_TOO_LARGE && strstr(msg, "more than 262144 values") != NULL,
		  "an array of 262,144 numbers (262,145 values) is refused (%s)", msg);
	t.len = 0;
	tb_add(&t, "[");
	for (i = 0; i < JSON_MAX_VALUES - 1; i++)
		tb_add(&t, "%s0", i ? "," : "");
	tb_add(&t, "]");
	CHECK(parse_text(t.s, t.len, msg) == DAC_OK, "an array of 262,143 numbers (262,144 values) parses");
	free(t.s);
}

static void
utf8_and_messages(void)
{
	static const struct
	{
		const char *text;
		int			ok;
	}			cases[] = {
		{"\"caf\xc3\xa9\"", 1},
		{"\"\xf0\x9f\x98\x80\"", 1},
		{"\"\xe2\x82\xac\"", 1},
		{"\"\xff\"", 0},
		{"\"\xc0\xaf\"", 0},	/* overlong '/' */
		{"\"\xe0\x80\xaf\"", 0},	/* overlong '/' */
		{"\"\xed\xa0\x80\"", 0},	/* a surrogate */
		{"\"\xf4\x90\x80\x80\"", 0},	/* above U+10FFFF */
		{"\"\xc3\"", 0},		/* cut short */
		{"\"\x80\"", 0},		/* a lone continuation byte */
	};
	size_t		i,
				len;
	char		buf[32];
	char		msg[256];
	uint8_t    *file;
	const char *hdr = "{\"a\\u0001\\u00e9\\n\":{\"dtype\":\"F\\u001b32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
	st_file		f;
	dac_error	err;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK((parse_text(cases[i].text, strlen(cases[i].text), msg) == DAC_OK) == cases[i].ok,
			  "UTF-8 case %zu is %s", i, cases[i].ok ? "accepted" : "refused");

	CHECK(strcmp(dac_printable("a\x01\xc3\xa9\"z", buf, sizeof(buf)), "a\\x01\\xc3\\xa9\"z") == 0,
		  "dac_printable escapes control and non-ASCII bytes (%s)", buf);
	CHECK(strcmp(dac_printable("abcdefghijklmnopqrstuvwxyz0123456789", buf, 16), "abcdefghijkl...") == 0 &&
		  strlen(buf) == 15, "dac_printable cuts with ... (%s)", buf);
	CHECK(strcmp(dac_printable("\xff\xff\xff\xff", buf, 12), "\\xff\\xff...") == 0,
		  "dac_printable never splits an escape (%s)", buf);

	/* a tensor name and a dtype with control and non-ASCII characters */
	file = file_of(hdr, strlen(hdr), 4, &len);
	CHECK(st_open(file, len, &f, &err) == DAC_ERR_FORMAT &&
		  strcmp(err.msg, "unsupported dtype \"F\\x1b32\" for tensor \"a\\x01\\xc3\\xa9\\x0a\"") == 0,
		  "the error message escapes the name's and dtype's bytes (%s)", err.msg);
	for (i = 0; err.msg[i]; i++)
		if ((unsigned char) err.msg[i] < 0x20 || (unsigned char) err.msg[i] >= 0x7f)
			break;
	CHECK(err.msg[i] == '\0', "the message is printable ASCII");
	free(file);
}

/* ---------------------------------------------------------------- metrics */

/* The quadratic definition, straight from the contingency table. */
static void
naive_metrics(const int *a, const int *b, int n, int k, double *ari, double *nmi)
{
	double	   *t = calloc((size_t) k * k, sizeof(double)),
			   *ra = calloc(k, sizeof(double)),
			   *rb = calloc(k, sizeof(double));
	double		sij = 0,
				sa = 0,
				sb = 0,
				ha = 0,
				hb = 0,
				mi = 0,
				e,
				mx;
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		t[a[i] * k + b[i]]++;
		ra[a[i]]++;
		rb[b[i]]++;
	}
	for (i = 0; i < k; i++)
	{
		sa += ra[i] * (ra[i] - 1) / 2;
		sb += rb[i] * (rb[i] - 1) / 2;
		if (ra[i] > 0)
			ha -= ra[i] / n * log(ra[i] / n);
		if (rb[i] > 0)
			hb -= rb[i] / n * log(rb[i] / n);
		for (j = 0; j < k; j++)
		{
			double		v = t[i * k + j];

			sij += v * (v - 1) / 2;
			if (v > 0)
				mi += v / n * log(v * n / (ra[i] * rb[j]));
		}
	}
	e = sa * sb / ((double) n * (n - 1) / 2);
	mx = (sa + sb) / 2;
	*ari = (sij - e) / (mx - e);
	*nmi = mi / ((ha + hb) / 2);
	free(t);
	free(ra);
	free(rb);
}

static void
metrics_at_scale(void)
{
	int			n = 100000,
				i,
				trial;
	int		   *a = malloc(sizeof(int) * n),
			   *b = malloc(sizeof(int) * n);
	double		ari = 0,
				nmi = 0,
				want_ari,
				want_nmi;
	dac_error	err;
	dac_rng		r;
	dac_hooks	stop = {NULL, NULL, stop_after_some, NULL};

	/* 100,000 distinct labels, the same partition under other names */
	for (i = 0; i < n; i++)
	{
		a[i] = i * 7 - 350000;
		b[i] = n - i;
	}
	CHECK(dac_compare_labels(a, b, n, &ari, &nmi, &err) == DAC_OK && ari == 1.0 && fabs(nmi - 1.0) < 1e-12,
		  "100,000 distinct labels, same partition: ARI %.15g, NMI %.15g (was NaN)", ari, nmi);
	CHECK(dac_ari(a, b, n) == 1.0, "dac_ari of it: 1");
	CHECK(dac_count_labels(a, n) == n, "100,000 distinct labels counted");

	/* random labelings against the quadratic definition */
	dac_rng_seed(&r, 77);
	for (trial = 0; trial < 5; trial++)
	{
		int			k = 2 + 9 * trial,
					m = 3000;

		for (i = 0; i < m; i++)
		{
			a[i] = dac_rng_int(&r, k);
			b[i] = (i % 3 == 0) ? dac_rng_int(&r, k) : a[i];
		}
		naive_metrics(a, b, m, k, &want_ari, &want_nmi);
		CHECK(dac_compare_labels(a, b, m, &ari, &nmi, &err) == DAC_OK &&
			  fabs(ari - want_ari) < 1e-12 && fabs(nmi - want_nmi) < 1e-12,
			  "k = %d: ARI %.12f NMI %.12f equal the quadratic definition's %.12f %.12f",
			  k, ari, nmi, want_ari, want_nmi);
	}

	/* the interrupt check runs */
	for (i = 0; i < n; i++)
		a[i] = b[i] = i;
	checks_seen = 0;
	checks_until_stop = 1;
	dac_set_hooks(&stop);
	CHECK(dac_compare_labels(a, b, n, &ari, &nmi, &err) == DAC_ERR_INTERRUPTED && checks_seen == 1,
		  "comparing 100,000 labels stops at the host's interrupt check (%s)", err.msg);
	dac_set_hooks(NULL);
	CHECK(dac_compare_labels(a, b, 0, &ari, &nmi, &err) == DAC_ERR_INVALID, "empty labelings: an error");
	CHECK(dac_compare_labels_bytes(n) < 100.0 * n, "memory bound is linear: %.0f bytes for %d labels",
		  dac_compare_labels_bytes(n), n);
	free(a);
	free(b);
}

/*
 * dac_match_ids by its definition, in O(n^2): count every (new, previous)
 * pair, take the largest first (ties: smaller previous id, then smaller new
 * id), then fresh ids after the largest previous one in new-id order.
 */
static int
same_ints(const int *a, const int *b, int n)
{
	return memcmp(a, b, sizeof(int) * (size_t) n) == 0;
}

static int
naive_match(const int *ids, const int *prev, const unsigned char *has, int n, int *out)
{
	int		   *na = malloc(sizeof(int) * (n + 1)),
			   *pb = malloc(sizeof(int) * (n + 1)),
			   *map = malloc(sizeof(int) * (n + 1));
	char	   *used = calloc(n + 1, 1),
			   *done = calloc(n + 1, 1);
	int			nn = 0,
				no = 0,
				i,
				j;
	long long	next = 0;
	int			overflow = 0;

	for (i = 0; i < n; i++)
	{
		int			seen = 0;

		for (j = 0; j < nn; j++)
			seen |= na[j] == ids[i];
		if (ids[i] > 0 && !seen)
			na[nn++] = ids[i];
		if (has[i])
		{
			seen = 0;
			for (j = 0; j < no; j++)
				seen |= pb[j] == prev[i];
			if (!seen)
				pb[no++] = prev[i];
			next = prev[i] > next ? prev[i] : next;
		}
	}
	for (;;)
	{
		int			ba = -1,
					bb = -1,
					bc = 0;

		for (i = 0; i < nn; i++)
			for (j = 0; j < no; j++)
			{
				int			c = 0,
							r;

				if (done[i] || used[j])
					continue;
				for (r = 0; r < n; r++)
					c += ids[r] == na[i] && has[r] && prev[r] == pb[j];
				if (c > 0 && (c > bc || (c == bc && (pb[j] < pb[bb] || (pb[j] == pb[bb] && na[i] < na[ba])))))
				{
					ba = i;
					bb = j;
					bc = c;
				}
			}
		if (ba < 0)
			break;
		map[ba] = pb[bb];
		done[ba] = 1;
		used[bb] = 1;
	}
	for (;;)
	{
		int			lo = -1;

		for (i = 0; i < nn; i++)
			if (!done[i] && (lo < 0 || na[i] < na[lo]))
				lo = i;
		if (lo < 0)
			break;
		if (next >= INT_MAX)
		{
			overflow = 1;		/* no id left: an error */
			break;
		}
		map[lo] = (int) ++next;
		done[lo] = 1;
	}
	for (i = 0; i < n; i++)
	{
		out[i] = 0;
		for (j = 0; j < nn; j++)
			if (ids[i] == na[j])
				out[i] = map[j];
	}
	free(na);
	free(pb);
	free(map);
	free(used);
	free(done);
	return overflow ? -1 : 0;
}

/*
 * Labels and ids of any value cost the same: dac_match_ids equals its
 * definition on random ids spread over the whole int range; labels that all
 * fall in one slot of a fixed-multiplier hash (the key that 0.25.0 probed
 * quadratically) give the same metrics as any other names of the same
 * partition; every loop reaches the host's interrupt check within 65,536
 * steps.
 */
static void
labels_any_values(void)
{
	int			n = 102400,
				i,
				trial,
				bad = 0;
	int		   *a = malloc(sizeof(int) * n),
			   *b = malloc(sizeof(int) * n),
			   *out = malloc(sizeof(int) * n),
			   *want = malloc(sizeof(int) * n);
	unsigned char *has = malloc(n);
	double		ari,
				nmi,
				ari2,
				nmi2;
	dac_error	err;
	dac_rng		r;
	dac_hooks	stop = {NULL, NULL, stop_after_some, NULL};
	static const int extremes[] = {INT_MIN, INT_MIN + 1, -1, 1, 2, INT_MAX - 1, INT_MAX};

	dac_rng_seed(&r, 2026);
	for (trial = 0; trial < 200; trial++)
	{
		int			m = 1 + dac_rng_int(&r, 60),
					k = 1 + dac_rng_int(&r, 6);

		for (i = 0; i < m; i++)
		{
			a[i] = dac_rng_int(&r, 5) == 0 ? 0 :
				(trial % 2 ? 1 + dac_rng_int(&r, k) : INT_MAX - dac_rng_int(&r, k));
			b[i] = trial % 3 == 0 ? extremes[dac_rng_int(&r, 7)] : 1 + dac_rng_int(&r, k);
			has[i] = dac_rng_int(&r, 4) != 0;
		}
		if (naive_match(a, b, has, m, want) < 0 ?
			dac_match_ids(a, b, has, m, out, &err) != DAC_ERR_TOO_LARGE :
			dac_match_ids(a, b, has, m, out, &err) != DAC_OK || !same_ints(out, want, m))
			bad++;
	}
	CHECK(bad == 0, "match: 200 random sets with ids over the whole int range equal the definition (%d differ)", bad);

	/* keys k whose k * 0x9E3779B97F4A7C15 has bits 17..36 in [0, 50): one hash slot for 0.25.0 */
	for (i = 0, trial = 0; trial < 50 * 131072 && i < n; trial++)
	{
		uint64_t	k = ((uint64_t) trial * UINT64_C(6865515325)) & ((UINT64_C(1) << 37) - 1);

		if (k < (UINT64_C(1) << 31))
			a[i++] = (int) k;
	}
	n = i;
	CHECK(n == 102399, "%d chosen labels", n);
	/* groups of 3 and of 5 named by the chosen keys, then by ordinary names */
	for (i = 0; i < n; i++)
	{
		want[i] = a[i / 3];
		b[i] = a[n - 1 - i / 5];
	}
	CHECK(dac_compare_labels(want, b, n, &ari, &nmi, &err) == DAC_OK, "metrics of the chosen labels");
	for (i = 0; i < n; i++)
	{
		a[i] = i / 3 + 1;
		b[i] = INT_MIN + i / 5;
	}
	CHECK(dac_compare_labels(a, b, n, &ari2, &nmi2, &err) == DAC_OK && fabs(ari - ari2) < 1e-12 &&
		  fabs(nmi - nmi2) < 1e-12 &&
		  ari > 0.3 && ari < 0.9,
		  "the same partitions under ordinary names: the same ARI %.15g and NMI %.15g", ari2, nmi2);
	for (i = 0; i < n; i++)
		has[i] = 1;
	CHECK(dac_match_ids(a, b, has, n, out, &err) == DAC_OK && out[0] == INT_MIN && out[6] == INT_MIN + 1,
		  "match: 102,399 ids, previous ones from INT_MIN: the groups keep the previous ids they overlap most");

	bad = 0;

	/* the interrupt check is reached within 65,536 steps of every loop */
	for (trial = 1; trial <= 12; trial++)
	{
		dac_status	st;

		checks_seen = 0;
		checks_until_stop = trial;
		dac_set_hooks(&stop);
		st = dac_match_ids(a, b, has, n, out, &err);
		dac_set_hooks(NULL);
		if (st != DAC_ERR_INTERRUPTED || checks_seen != trial)
			bad++;
		checks_seen = 0;
		dac_set_hooks(&stop);
		st = dac_compare_labels(a, b, n, &ari, &nmi, &err);
		dac_set_hooks(NULL);
		if (st != DAC_ERR_INTERRUPTED || checks_seen != trial)
			bad++;
	}
	CHECK(bad == 0, "matching and comparing 102,399 labels stop at the 1st to 12th interrupt check (%d did not)", bad);
	CHECK(dac_match_ids_bytes(n) < 100.0 * n, "match: memory bound is linear: %.0f bytes for %d ids",
		  dac_match_ids_bytes(n), n);

	/* a set's canonical order: a run of rows of one hash (here equal rows) in index order */
	{
		int			m = 50000,
				   *perm = malloc(sizeof(int) * m),
					ordered = 1;
		dac_real   *X = calloc((size_t) m * 2, sizeof(dac_real));

		for (i = 0; i < m; i += 1000)
			X[2 * i] = (dac_real) (i % 3);
		CHECK(dac_canonical_order(X, m, 2, perm) == DAC_OK, "canonical order of 50,000 rows of three values");
		for (i = 1; i < m; i++)
			if (memcmp(X + 2 * perm[i], X + 2 * perm[i - 1], 2 * sizeof(dac_real)) == 0 && perm[i] < perm[i - 1])
				ordered = 0;
		CHECK(ordered, "equal rows (one hash) stay in the order of their indexes");
		free(perm);
		free(X);
	}

	/* distinct rows: by hand, and 50,000 rows of three values */
	{
		dac_real	R[10] = {1, 2, 3, 4, 1, 2, 5, 6, 3, 4};
		int			map[5],
					nd = -1,
					want5[5] = {0, 1, 0, 2, 1},
					m = 50000,
				   *big = malloc(sizeof(int) * m),
					right = 1;
		double		D[4] = {0.0, -0.0, 0.0, 1.0};
		dac_real   *X = calloc((size_t) m * 2, sizeof(dac_real));

		CHECK(dac_distinct_rows(R, 5, 2 * sizeof(dac_real), map, &nd) == DAC_OK && nd == 3 &&
			  memcmp(map, want5, sizeof(want5)) == 0,
			  "distinct rows of (1,2) (3,4) (1,2) (5,6) (3,4): 0 1 0 2 1, three (%d: %d %d %d %d %d)",
			  nd, map[0], map[1], map[2], map[3], map[4]);
		CHECK(dac_distinct_rows(D, 4, sizeof(double), map, &nd) == DAC_OK && nd == 3 &&
			  map[0] == 0 && map[1] == 1 && map[2] == 0 && map[3] == 2,
			  "double rows 0, -0, 0, 1: equal by their bytes (0 and -0 apart)");
		CHECK(dac_distinct_rows(R, 1, 2 * sizeof(dac_real), map, &nd) == DAC_OK && nd == 1 && map[0] == 0,
			  "one row is one distinct row");
		for (i = 0; i < m; i++)
			X[2 * i] = (dac_real) (i % 3);
		CHECK(dac_distinct_rows(X, m, 2 * sizeof(dac_real), big, &nd) == DAC_OK && nd == 3,
			  "50,000 rows of three values: three distinct rows (%d)", nd);
		for (i = 0; i < m; i++)
			right &= big[i] == i % 3;
		CHECK(right, "each of the 50,000 rows maps to the first row of its value");
		CHECK(dac_distinct_rows_bytes(m) < 64.0 * m, "distinct rows: memory bound is linear");
		free(big);
		free(X);
	}
	free(a);
	free(b);
	free(out);
	free(want);
	free(has);
}

/* ---------------------------------------------------------------- network */

static void
huge_inputs(void)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 2);
	dac_model	m;
	dac_rng		r;
	dac_real	X[40];
	dac_clustering c;
	dac_cluster_opts o = dac_cluster_opts_default();
	dac_error	err;
	int			i;

	cfg.dim_hidden = 16;
	cfg.num_heads = 2;
	cfg.num_inds = 4;
	if (unit_random_model(&m, &cfg, 5, &r) != DAC_OK)
	{
		CHECK(0, "huge inputs: model");
		return;
	}
	/* the 1e18 overflows float32 inside the network; float64 needs more */
#ifdef DAC_DOUBLE
#define HUGE_INPUT 1e160
#define HUGE_TEXT "4e+161"
#else
#define HUGE_INPUT 1e18
#define HUGE_TEXT "4e+19"
#endif
	for (i = 0; i < 40; i++)
		X[i] = (dac_real) ((i % 2 ? 1 : -1) * (1 + i) * HUGE_INPUT);
	CHECK(dac_cluster_set(&m, X, 20, m.net.cfg.dim_input, &o, &c, &err) == DAC_ERR_INVALID &&
		  strstr(err.msg, "not finite") != NULL && strstr(err.msg, HUGE_TEXT) != NULL,
		  "finite inputs near 1e18 are an error, not NaN probabilities (%s)", err.msg);
	for (i = 0; i < 40; i++)
		X[i] = (dac_real) ((i % 2 ? 1 : -1) * (1 + i) * 0.1);
	CHECK(dac_cluster_set(&m, X, 20, m.net.cfg.dim_input, &o, &c, &err) == DAC_OK, "ordinary inputs still cluster");
	dac_clustering_free(&c);
	dac_model_free(&m);
}

static void
bad_optimiser_state(void)
{
	dac_config	cfg = dac_config_default(DAC_MLF, 2);
	dac_model	m;
	dac_rng		r;
	dac_trainer t;
	dac_train_opts to = dac_train_opts_default();
	uint8_t    *buf;
	size_t		len;
	dac_error	err;
	st_file		f;
	const st_tensor *v;

	cfg.dim_hidden = 8;
	cfg.num_heads = 2;
	cfg.num_inds = 2;
	cfg.num_blocks = 2;
	to.steps = 2;
	to.batch = 1;
	to.n_max = 20;
	if (unit_random_model(&m, &cfg, 9, &r) != DAC_OK || dac_trainer_init(&t, &m, &to, 0, &err) != DAC_OK)
	{
		CHECK(0, "optimiser state case: set-up");
		return;
	}
	if (dac_trainer_save_state(&t, &buf, &len, &err) != DAC_OK || st_open(buf, len, &f, &err) != DAC_OK)
	{
		CHECK(0, "optimiser state case: save");
		return;
	}
	CHECK(dac_trainer_load_state(&t, buf, len, &err) == DAC_OK, "a saved state loads");
	v = st_find(&f, "adam.v");
	{
		float		neg = -1.0f,
					nan = NAN;

		memcpy((uint8_t *) f.data + v->begin, &neg, 4);
		CHECK(dac_trainer_load_state(&t, buf, len, &err) == DAC_ERR_FORMAT && strstr(err.msg, "moment") != NULL,
			  "a negative second moment is refused (%s)", err.msg);
		memcpy((uint8_t *) f.data + v->begin, &nan, 4);
		CHECK(dac_trainer_load_state(&t, buf, len, &err) == DAC_ERR_FORMAT,
			  "a NaN second moment is refused (%s)", err.msg);
	}
	st_close(&f);
	dac_free(buf);
	dac_trainer_free(&t);
	dac_model_free(&m);
}

/* ---------------------------------------------------------------- 0.7.0's review */

/* The largest single allocation asked for while the watch is on. */
static size_t largest_request;

static void *
watched_alloc(size_t size)
{
	if (size > largest_request)
		largest_request = size;
	return malloc(size);
}

static int
never_interrupted(void)
{
	return 0;
}

/*
 * A pass of a normalising model over points of widths 1 .. 100: each gives
 * probabilities, the same (to rounding) for the set rotated, shifted and
 * scaled, since the pass normalises the set as a clustering does; before
 * the fix the network read 32 floats a point past narrower inputs (ASan:
 * heap-buffer-overflow) and took wider ones unnormalised.
 */
static void
filter_any_width(void)
{
	dac_config	cfg;
	dac_model	m;
	dac_rng		r;
	dac_error	err;
	static const int widths[] = {1, 3, 31, 32, 33, 64, 100};
	unsigned	w;

	if (unit_small_setnorm_model(&m, 32, 11, &r) != DAC_OK)
	{
		CHECK(0, "filter case: set-up");
		return;
	}
	for (w = 0; w < sizeof(widths) / sizeof(*widths); w++)
	{
		int			d = widths[w],
					n = 40,
					i,
					k,
					ok = 1;
		dac_real   *X = malloc(sizeof(dac_real) * n * d),
				   *Y = malloc(sizeof(dac_real) * n * d);
		double	   *p = malloc(sizeof(double) * n),
				   *q = malloc(sizeof(double) * n),
					worst = 0;

		for (i = 0; i < n * d; i++)
			X[i] = (dac_real) (dac_rng_normal(&r) + (i / d < n / 2 ? 3 : 0));
		/* the same set, scaled by 1000 and shifted: a normalising model cannot tell */
		for (i = 0; i < n; i++)
			for (k = 0; k < d; k++)
				Y[i * d + k] = (dac_real) (1000.0 * X[i * d + k] + 5e4 * (k + 1));
		if (dac_filter_pass(&m, X, n, d, 0, 0, p, &err) != DAC_OK ||
			dac_filter_pass(&m, Y, n, d, 0, 0, q, &err) != DAC_OK)
			ok = 0;
		for (i = 0; ok && i < n; i++)
		{
			if (!(p[i] >= 0 && p[i] <= 1))
				ok = 0;
			worst = fmax(worst, fabs(p[i] - q[i]));
		}
		CHECK(ok && worst < 2e-3, "a pass of a normalising model over width %d: probabilities, the same for the set scaled and shifted (%g)",
			  d, worst);
		free(X);
		free(Y);
		free(p);
		free(q);
	}
	{
		dac_real	X[6] = {0, 1, 2, 3, 4, 5};
		double		p[3];

		CHECK(dac_filter_pass(&m, X, 3, 0, 0, 0, p, &err) == DAC_ERR_INVALID,
			  "a pass refuses width 0 (%s)", err.msg);
		CHECK(dac_filter_pass(&m, X, 3, 2, 0, 1024, p, &err) == DAC_ERR_TOO_LARGE,
			  "a pass over the memory limit is refused before allocating (%s)", err.msg);
	}
	dac_model_free(&m);
	/* a raw model takes its own width only */
	cfg = dac_config_default(DAC_AF, 2);
	cfg.dim_hidden = 8;
	cfg.num_heads = 2;
	cfg.num_inds = 2;
	cfg.num_blocks = 1;
	if (unit_random_model(&m, &cfg, 12, &r) == DAC_OK)
	{
		dac_real	X[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
		double		p[3];

		CHECK(dac_filter_pass(&m, X, 3, 3, 0, 0, p, &err) == DAC_ERR_INVALID && strstr(err.msg, "takes 2") != NULL,
			  "a raw 2-D model refuses 3-D points (%s)", err.msg);
		CHECK(dac_filter_pass(&m, X, 3, 2, 3, 0, p, &err) == DAC_ERR_INVALID,
			  "an anchor past the points is refused (%s)", err.msg);
		CHECK(dac_filter_pass(&m, X, 3, 2, 2, 0, p, &err) == DAC_OK, "an AF pass with a valid anchor runs");
		dac_model_free(&m);
	}
}

/*
 * A weights file whose "dac.config" claims a network far larger than its
 * tensors: refused with "lacks tensor" before the parameters are allocated
 * (0.7.0 allocated 1.2 GB first); a kept clustering whose "dim" claims more
 * values than its arrays hold: refused before its tables are allocated.
 */
static void
claimed_sizes(void)
{
	dac_hooks	watch = {watched_alloc, free, never_interrupted, NULL};
	dac_config	cfg = dac_config_default(DAC_MLF, 2);
	dac_model	m;
	dac_rng		r;
	dac_error	err;
	uint8_t    *buf;
	size_t		len;
	double		bytes = 0;
	dac_mixture mix;

	cfg.dim_hidden = 8;
	cfg.num_heads = 2;
	cfg.num_inds = 2;
	cfg.num_blocks = 1;
	if (unit_random_model(&m, &cfg, 13, &r) != DAC_OK || dac_model_save(&m, NULL, &buf, &len, &err) != DAC_OK)
	{
		CHECK(0, "claimed sizes: set-up");
		return;
	}
	dac_model_free(&m);
	{
		/* the same tensors under a config claiming 1024 wide, 16 unshared blocks */
		const char *claim = "{\"strategy\": \"mlf\", \"density\": \"gaussian_diag\", \"dim_input\": 2, "
			"\"dim_hidden\": 1024, \"num_heads\": 4, \"num_inds\": 32, \"num_blocks\": 16, \"shared_blocks\": false}";
		const char *meta[3] = {"dac.config", claim, NULL};
		st_file		f;
		st_writer	wr;
		uint8_t    *bad;
		size_t		bad_len,
					i;

		CHECK(st_open(buf, len, &f, &err) == DAC_OK, "claimed sizes: the small file opens");
		st_writer_init(&wr);
		for (i = 0; i < f.ntensors; i++)
			st_writer_add_raw(&wr, f.tensors[i].name, f.tensors[i].dtype, f.tensors[i].ndim, f.tensors[i].shape,
							  f.data + f.tensors[i].begin);
		st_writer_add_meta(&wr, meta[0], meta[1]);
		CHECK(st_writer_finish(&wr, &bad, &bad_len, &err) == DAC_OK, "claimed sizes: the forged file is written");
		st_writer_free(&wr);
		st_close(&f);
		largest_request = 0;
		dac_set_hooks(&watch);
		CHECK(dac_model_load(&m, bad, bad_len, &err) == DAC_ERR_FORMAT &&
			  (strstr(err.msg, "lacks tensor") != NULL || strstr(err.msg, "wrong shape") != NULL),
			  "a %zu-byte file claiming a 1024-wide, 16-block network is refused (%s)", bad_len, err.msg);
		CHECK(largest_request < ((size_t) 1 << 20), "... and no allocation over 1 MB was asked for (largest %zu bytes)",
			  largest_request);
		CHECK(dac_model_peek(bad, bad_len, &cfg, &bytes, &err) == DAC_ERR_FORMAT, "dac_model_peek refuses it too");
		dac_set_hooks(NULL);
		dac_free(bad);
	}
	CHECK(dac_model_peek(buf, len, &cfg, &bytes, &err) == DAC_OK && bytes > 0 && cfg.dim_hidden == 8,
		  "dac_model_peek gives a good file's config and parameter bytes (%.0f)", bytes);
	dac_free(buf);

	/* a kept clustering claiming 100 clusters of 1,000,000 dimensions in a short text */
	{
		text_buf	t = {NULL, 0, 0};
		int			k;

		tb_add(&t, "{\"dac_clustering\": %d, \"dim\": 1000000, \"n\": 100, \"noise\": 0, "
			   "\"density\": \"none\", \"clusters\": [", DAC_MIXTURE_FORMAT);
		for (k = 0; k < 100; k++)
			tb_add(&t, "%s{\"id\": %d, \"size\": 1, \"mean\": [0], \"stddev\": [1]}", k ? "," : "", k + 1);
		tb_add(&t, "]}");
		largest_request = 0;
		dac_set_hooks(&watch);
		CHECK(dac_mixture_from_json(t.s, t.len, &mix, &err) == DAC_ERR_FORMAT && strstr(err.msg, "dim") != NULL,
			  "a %zu-byte clustering claiming 100 x 1,000,000 values is refused (%s)", t.len, err.msg);
		CHECK(largest_request < ((size_t) 1 << 20), "... before its tables are allocated (largest request %zu bytes)",
			  largest_request);
		dac_set_hooks(NULL);
		free(t.s);
	}
}

/*
 * The loops over user-sized data that had no interrupt check: the
 * eigen-solver (O(p³) a sweep), the set normalisation, the embed generator
 * (O(k_max · dim · rank) a set); each stops at the host's check.  And the
 * trainer's memory need counts the normalisation's p x p matrices and the
 * generator's tables.
 */
static void
interrupts_and_training_bytes(void)
{
	dac_hooks	stop = {NULL, NULL, stop_after_some, NULL};
	int			p = 64,
				i;
	double	   *A = malloc(sizeof(double) * p * p),
			   *ev = malloc(sizeof(double) * p),
			   *V = malloc(sizeof(double) * p * p);
	dac_real   *X = malloc(sizeof(dac_real) * 200 * 64),
			   *Z = malloc(sizeof(dac_real) * 200 * 64);
	int		   *y = malloc(sizeof(int) * 200);
	dac_rng		r;
	dac_error	err;

	dac_rng_seed(&r, 5);
	for (i = 0; i < p * p; i++)
		A[i] = 0;
	for (i = 0; i < p; i++)
	{
		int			j;

		for (j = 0; j <= i; j++)
			A[i * p + j] = A[j * p + i] = dac_rng_normal(&r);
	}
	checks_seen = 0;
	checks_until_stop = 2;
	dac_set_hooks(&stop);
	CHECK(dac_sym_eigen(A, p, ev, V) != 0 && checks_seen == 2,
		  "the eigen-solver stops at the host's second interrupt check (%d)", checks_seen);
	for (i = 0; i < 200 * 64; i++)
		X[i] = (dac_real) dac_rng_normal(&r);
	checks_seen = 0;
	checks_until_stop = 3;
	CHECK(dac_setnorm(X, 200, 64, 64, Z, &err) == DAC_ERR_INTERRUPTED,
		  "an exact set normalisation (64 wide) stops at the host's check (%s)", err.msg);
	checks_seen = 0;
	checks_until_stop = 5;
	CHECK(dac_generate(DAC_GEN_EMBED, &r, 1, 4, 2000, 64, X, y, NULL, &err) == DAC_ERR_INTERRUPTED && checks_seen == 5,
		  "the embed generator stops at the host's check, between clusters (%d checks)", checks_seen);
	dac_set_hooks(NULL);
	CHECK(dac_generate_bytes(DAC_GEN_EMBED, 2000, 4096) > 1e9,
		  "the embed generator's scratch for k_max 2,000 at 4,096 dims is counted (%.0f bytes)",
		  dac_generate_bytes(DAC_GEN_EMBED, 2000, 4096));
	{
		dac_config	cfg = dac_config_default(DAC_MLF, 768);
		dac_model	m;
		dac_train_opts to = dac_train_opts_default();

		cfg.input = DAC_INPUT_SETNORM;
		cfg.density = DAC_DENSITY_NONE;
		cfg.dim_hidden = 8;
		cfg.num_heads = 1;
		cfg.num_inds = 2;
		cfg.num_blocks = 1;
		to.data = DAC_GEN_EMBED;
		to.batch = 1;
		to.n_max = 8;
		if (dac_model_create(&m, &cfg, &err) == DAC_OK)
		{
			CHECK(dac_trainer_bytes(&m, &to) > 2.0 * sizeof(double) * 768 * 768,
				  "training a 768-wide normalising model counts the normalisation's 768 x 768 matrices (%.0f bytes)",
				  dac_trainer_bytes(&m, &to));
			dac_model_free(&m);
		}
	}
	free(A);
	free(ev);
	free(V);
	free(X);
	free(Z);
	free(y);
}

void
test_hostile(void)
{
	freed_memory_in_errors();
	size_limits();
	json_limits();
	utf8_and_messages();
	metrics_at_scale();
	labels_any_values();
	huge_inputs();
	bad_optimiser_state();
	filter_any_width();
	claimed_sizes();
	interrupts_and_training_bytes();
}
