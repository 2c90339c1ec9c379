/*
 * json.c
 *	  Strict recursive-descent JSON parser with a depth limit, and a string
 *	  builder used to write JSON.
 */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Limits that keep any one parse bounded: nesting, and the number of values
 * (each a node in the arena; a safetensors header of the largest model has
 * a few thousand).  The host's interrupt check runs every
 * JSON_INTERRUPT_EVERY values.
 */
#define JSON_MAX_DEPTH 64
#define JSON_INTERRUPT_EVERY 4096

typedef struct
{
	const char *p;
	const char *end;
	const char *start;
	dac_arena  *arena;
	dac_error  *err;
	int			depth;
	size_t		values;			/* values parsed so far */
	dac_status	why;			/* why new_value gave NULL */
} json_parser;

static dac_status parse_value(json_parser *ps, json_value **out);

static dac_status
json_fail(json_parser *ps, const char *what)
{
	return dac_fail(ps->err, DAC_ERR_FORMAT, "invalid JSON at byte %zu: %s",
					(size_t) (ps->p - ps->start), what);
}

static void
skip_ws(json_parser *ps)
{
	while (ps->p < ps->end &&
		   (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static json_value *
new_value(json_parser *ps, json_type type)
{
	json_value *v;

	ps->why = DAC_ERR_TOO_LARGE;
	if (ps->values >= JSON_MAX_VALUES)
		return NULL;
	ps->why = DAC_ERR_INTERRUPTED;
	if (++ps->values % JSON_INTERRUPT_EVERY == 0 && dac_interrupted())
		return NULL;
	ps->why = DAC_ERR_NOMEM;
	v = dac_arena_alloc_small(ps->arena, sizeof(json_value));
	if (v)
	{
		memset(v, 0, sizeof(*v));
		v->type = type;
	}
	return v;
}

static int
hex4(const char *p, unsigned *out)
{
	unsigned	v = 0;
	int			i;

	for (i = 0; i < 4; i++)
	{
		char		c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned) (c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned) (c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned) (c - 'A' + 10);
		else
			return 0;
	}
	*out = v;
	return 1;
}

static size_t
put_utf8(char *dst, unsigned cp)
{
	if (cp < 0x80)
	{
		dst[0] = (char) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		dst[0] = (char) (0xC0 | (cp >> 6));
		dst[1] = (char) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		dst[0] = (char) (0xE0 | (cp >> 12));
		dst[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
		dst[2] = (char) (0x80 | (cp & 0x3F));
		return 3;
	}
	dst[0] = (char) (0xF0 | (cp >> 18));
	dst[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	dst[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	dst[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, at most U+10FFFF), or 0.
 */
static size_t
utf8_sequence(const unsigned char *p, size_t avail)
{
	unsigned char c = p[0];
	size_t		len,
				i;
	unsigned	cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (avail < len)
		return 0;
	for (i = 1; i < len; i++)
	{
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
		(len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return len;
}

/* Parse a string at ps->p (which points at the opening quote). */
static dac_status
parse_string(json_parser *ps, char **out, size_t *out_len)
{
	const char *q;
	char	   *buf,
			   *w;

	ps->p++;					/* opening quote */
	/* the decoded string is never longer than the raw text */
	for (q = ps->p; q < ps->end && *q != '"'; q++)
	{
		if (*q == '\\')
			q++;
	}
	if (q >= ps->end)
		return json_fail(ps, "unterminated string");
	buf = dac_arena_alloc_small(ps->arena, (size_t) (q - ps->p) + 1);
	if (buf == NULL)
		return dac_fail(ps->err, DAC_ERR_NOMEM, "out of memory parsing JSON");
	w = buf;
	while (ps->p < ps->end && *ps->p != '"')
	{
		unsigned char c = (unsigned char) *ps->p;

		if (c < 0x20)
			return json_fail(ps, "control character in string");
		if (c >= 0x80)
		{
			size_t		len = utf8_sequence((const unsigned char *) ps->p,
											(size_t) (ps->end - ps->p));

			if (len == 0)
				return json_fail(ps, "invalid UTF-8 in string");
			memcpy(w, ps->p, len);
			w += len;
			ps->p += len;
			continue;
		}
		if (c != '\\')
		{
			*w++ = (char) c;
			ps->p++;
			continue;
		}
		ps->p++;
		if (ps->p >= ps->end)
			return json_fail(ps, "unterminated escape");
		switch (*ps->p)
		{
			case '"':
				*w++ = '"';
				break;
			case '\\':
				*w++ = '\\';
				break;
			case '/':
				*w++ = '/';
				break;
			case 'b':
				*w++ = '\b';
				break;
			case 'f':
				*w++ = '\f';
				break;
			case 'n':
				*w++ = '\n';
				break;
			case 'r':
				*w++ = '\r';
				break;
			case 't':
				*w++ = '\t';
				break;
			case 'u':
				{
					unsigned	cp,
								lo;

					if (ps->end - ps->p < 5 || !hex4(ps->p + 1, &cp))
						return json_fail(ps, "bad \\u escape");
					ps->p += 4;
					if (cp >= 0xD800 && cp <= 0xDBFF)
					{
						if (ps->end - ps->p < 7 || ps->p[1] != '\\' || ps->p[2] != 'u' ||
							!hex4(ps->p + 3, &lo) || lo < 0xDC00 || lo > 0xDFFF)
							return json_fail(ps, "unpaired surrogate");
						ps->p += 6;
						cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					}
					else if (cp >= 0xDC00 && cp <= 0xDFFF)
						return json_fail(ps, "unpaired surrogate");
					if (cp == 0)
						return json_fail(ps, "NUL character in string");
					/* a \uXXXX escape is 6 raw bytes, its UTF-8 at most 4 */
					w += put_utf8(w, cp);
					break;
				}
			default:
				return json_fail(ps, "bad escape");
		}
		ps->p++;
	}
	if (ps->p >= ps->end)
		return json_fail(ps, "unterminated string");
	ps->p++;					/* closing quote */
	*w = '\0';
	*out = buf;
	*out_len = (size_t) (w - buf);
	return DAC_OK;
}

static dac_status
parse_number(json_parser *ps, json_value *v)
{
	const char *s = ps->p;
	char		tmp[64];
	size_t		len;
	int			frac = 0;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end)
		return json_fail(ps, "bad number");
	if (*ps->p == '0')
		ps->p++;
	else if (*ps->p >= '1' && *ps->p <= '9')
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	else
		return json_fail(ps, "bad number");
	if (ps->p < ps->end && *ps->p == '.')
	{
		frac = 1;
		ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return json_fail(ps, "bad number");
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E'))
	{
		frac = 1;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return json_fail(ps, "bad number");
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	len = (size_t) (ps->p - s);
	if (len >= sizeof(tmp))
		return json_fail(ps, "number too long");
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	v->number = strtod(tmp, NULL);
	if (!isfinite(v->number))
		return json_fail(ps, "number out of range");
	v->is_integer = !frac;
	if (!frac)
	{
		long long	ll;

		errno = 0;
		ll = strtoll(tmp, NULL, 10);
		v->integer_ok = (errno == 0);
		v->integer = (int64_t) ll;
	}
	return DAC_OK;
}

static int
match_word(json_parser *ps, const char *word)
{
	size_t		n = strlen(word);

	if ((size_t) (ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return 0;
	ps->p += n;
	return 1;
}

/* Grow a pointer array held in the arena (doubling). */
static int
grow(json_parser *ps, void ***arr, size_t count, size_t *cap)
{
	void	  **n;

	if (count < *cap)
		return 1;
	*cap = *cap ? *cap * 2 : 8;
	n = dac_arena_alloc_small(ps->arena, *cap * sizeof(void *));
	if (n == NULL)
		return 0;
	if (count)
		memcpy(n, *arr, count * sizeof(void *));
	*arr = n;
	return 1;
}

static int
cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * Whether an object has a key twice: a sorted copy of its keys, adjacent
 * pairs compared (O(n log n); a pairwise scan was quadratic in the keys).
 * -1 when out of memory.
 */
static int
has_duplicate_key(const json_value *v)
{
	char	  **sorted;
	size_t		i;

	if (v->count < 2)
		return 0;
	if (v->count <= 8)
	{
		size_t		j;

		for (i = 0; i < v->count; i++)
			for (j = i + 1; j < v->count; j++)
				if (strcmp(v->keys[i], v->keys[j]) == 0)
					return 1;
		return 0;
	}
	sorted = dac_alloc(v->count * sizeof(char *));
	if (sorted == NULL)
		return -1;
	memcpy(sorted, v->keys, v->count * sizeof(char *));
	qsort(sorted, v->count, sizeof(char *), cmp_key);
	for (i = 1; i < v->count; i++)
		if (strcmp(sorted[i - 1], sorted[i]) == 0)
			break;
	dac_free(sorted);
	return i < v->count;
}

static dac_status
parse_container(json_parser *ps, json_value *v, int is_object)
{
	size_t		cap_items = 0,
				cap_keys = 0;
	char		close = is_object ? '}' : ']';
	dac_status	st;

	if (++ps->depth > JSON_MAX_DEPTH)
		return json_fail(ps, "nesting too deep");
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close)
	{
		ps->p++;
		ps->depth--;
		return DAC_OK;
	}
	for (;;)
	{
		json_value *item;

		skip_ws(ps);
		if (is_object)
		{
			char	   *key;
			size_t		klen;

			if (ps->p >= ps->end || *ps->p != '"')
				return json_fail(ps, "expected a string key");
			if ((st = parse_string(ps, &key, &klen)) != DAC_OK)
				return st;
			if (strlen(key) != klen)
				return json_fail(ps, "NUL in key");
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return json_fail(ps, "expected ':'");
			ps->p++;
			if (!grow(ps, (void ***) &v->keys, v->count, &cap_keys))
				return dac_fail(ps->err, DAC_ERR_NOMEM, "out of memory parsing JSON");
			v->keys[v->count] = key;
		}
		if ((st = parse_value(ps, &item)) != DAC_OK)
			return st;
		if (!grow(ps, (void ***) &v->items, v->count, &cap_items))
			return dac_fail(ps->err, DAC_ERR_NOMEM, "out of memory parsing JSON");
		v->items[v->count++] = item;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',')
		{
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close)
		{
			ps->p++;
			break;
		}
		return json_fail(ps, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
	ps->depth--;
	if (is_object)
	{
		int			dup = has_duplicate_key(v);

		if (dup < 0)
			return dac_fail(ps->err, DAC_ERR_NOMEM, "out of memory parsing JSON");
		if (dup)
			return json_fail(ps, "duplicate key");
	}
	return DAC_OK;
}

/* Why new_value gave NULL: too many values, interrupted, or out of memory. */
static dac_status
no_value(json_parser *ps)
{
	if (ps->why == DAC_ERR_TOO_LARGE)
		return dac_fail(ps->err, DAC_ERR_TOO_LARGE, "JSON has more than %d values", JSON_MAX_VALUES);
	if (ps->why == DAC_ERR_INTERRUPTED)
		return dac_fail(ps->err, DAC_ERR_INTERRUPTED, "canceling JSON parsing");
	return dac_fail(ps->err, DAC_ERR_NOMEM, "out of memory parsing JSON");
}

static dac_status
parse_value(json_parser *ps, json_value **out)
{
	json_value *v;
	dac_status	st = DAC_OK;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return json_fail(ps, "unexpected end");
	switch (*ps->p)
	{
		case '{':
		case '[':
			v = new_value(ps, *ps->p == '{' ? JSON_OBJECT : JSON_ARRAY);
			if (v == NULL)
				return no_value(ps);
			st = parse_container(ps, v, v->type == JSON_OBJECT);
			break;
		case '"':
			v = new_value(ps, JSON_STRING);
			if (v == NULL)
				return no_value(ps);
			st = parse_string(ps, &v->string, &v->string_len);
			if (st == DAC_OK && strlen(v->string) != v->string_len)
				return json_fail(ps, "NUL in string");
			break;
		case 't':
		case 'f':
			v = new_value(ps, JSON_BOOL);
			if (v == NULL)
				return no_value(ps);
			if (match_word(ps, "true"))
				v->boolean = 1;
			else if (!match_word(ps, "false"))
				return json_fail(ps, "bad literal");
			break;
		case 'n':
			v = new_value(ps, JSON_NULL);
			if (v == NULL)
				return no_value(ps);
			if (!match_word(ps, "null"))
				return json_fail(ps, "bad literal");
			break;
		default:
			v = new_value(ps, JSON_NUMBER);
			if (v == NULL)
				return no_value(ps);
			st = parse_number(ps, v);
			break;
	}
	if (st != DAC_OK)
		return st;
	*out = v;
	return DAC_OK;
}

dac_status
json_parse(const char *text, size_t len, dac_arena *arena, json_value **out,
		   dac_error *err)
{
	json_parser ps;
	dac_status	st;

	ps.p = ps.start = text;
	ps.end = text + len;
	ps.arena = arena;
	ps.err = err;
	ps.depth = 0;
	ps.values = 0;
	if ((st = parse_value(&ps, out)) != DAC_OK)
		return st;
	skip_ws(&ps);
	if (ps.p != ps.end)
		return json_fail(&ps, "trailing characters");
	return DAC_OK;
}

const json_value *
json_get(const json_value *obj, const char *key)
{
	size_t		i;

	if (obj == NULL || obj->type != JSON_OBJECT)
		return NULL;
	for (i = 0; i < obj->count; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return obj->items[i];
	return NULL;
}

/* ---------------------------------------------------------------- strbuf */

void
dac_strbuf_init(dac_strbuf *sb)
{
	sb->data = NULL;
	sb->len = sb->cap = 0;
	sb->failed = 0;
}

void
dac_strbuf_append(dac_strbuf *sb, const char *s, size_t n)
{
	if (sb->failed)
		return;
	if (sb->len + n + 1 > sb->cap)
	{
		size_t		cap = sb->cap ? sb->cap : 256;
		char	   *d;

		while (cap < sb->len + n + 1)
			cap *= 2;
		d = dac_alloc(cap);
		if (d == NULL)
		{
			sb->failed = 1;
			return;
		}
		if (sb->len)
			memcpy(d, sb->data, sb->len);
		dac_free(sb->data);
		sb->data = d;
		sb->cap = cap;
	}
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void
dac_strbuf_printf(dac_strbuf *sb, const char *fmt,...)
{
	char		tmp[512];
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t) n >= sizeof(tmp))
	{
		sb->failed = 1;
		return;
	}
	dac_strbuf_append(sb, tmp, (size_t) n);
}

void
dac_strbuf_json_string(dac_strbuf *sb, const char *s)
{
	dac_strbuf_append(sb, "\"", 1);
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
		{
			char		e[2] = {'\\', (char) c};

			dac_strbuf_append(sb, e, 2);
		}
		else if (c < 0x20)
			dac_strbuf_printf(sb, "\\u%04x", c);
		else
			dac_strbuf_append(sb, (const char *) &c, 1);
	}
	dac_strbuf_append(sb, "\"", 1);
}

void
dac_strbuf_free(dac_strbuf *sb)
{
	dac_free(sb->data);
	dac_strbuf_init(sb);
}
