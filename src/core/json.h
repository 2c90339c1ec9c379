/*
 * json.h
 *	  A small strict JSON parser (RFC 8259) for safetensors headers and model
 *	  configurations.  Values live in a caller-owned arena.
 */
#ifndef DAC_JSON_H
#define DAC_JSON_H

#include "core.h"

typedef enum
{
	JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT
} json_type;

typedef struct json_value json_value;
struct json_value
{
	json_type	type;
	int			boolean;
	double		number;
	int			is_integer;		/* the literal had no fraction or exponent */
	int64_t		integer;		/* exact value when is_integer and in range */
	int			integer_ok;		/* integer is exact (fits in int64) */
	char	   *string;			/* NUL-terminated; strings with NUL are rejected */
	size_t		string_len;
	size_t		count;			/* array items / object members */
	json_value **items;			/* array items or object values */
	char	  **keys;			/* object keys */
};

/* The most values (numbers, strings, arrays, objects, …) one parse accepts. */
#define JSON_MAX_VALUES DAC_JSON_MAX_VALUES

/*
 * Parse text[0..len) strictly: duplicate object keys, invalid UTF-8, more
 * than JSON_MAX_VALUES values (DAC_ERR_TOO_LARGE) or nesting deeper than 64
 * are errors; the host's interrupt check runs as it goes
 * (DAC_ERR_INTERRUPTED).
 */
extern dac_status json_parse(const char *text, size_t len, dac_arena *arena,
							 json_value **out, dac_error *err);

/* Member of an object by key, or NULL. */
extern const json_value *json_get(const json_value *obj, const char *key);

#endif							/* DAC_JSON_H */
