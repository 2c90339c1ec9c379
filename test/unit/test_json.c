/*
 * test_json.c
 *	  The strict JSON parser: what it accepts and what it rejects.
 */
#include "unit.h"
#include "json.h"

#include <string.h>

static int
parses(const char *text)
{
	dac_arena	ar;
	json_value *v;
	dac_error	err;
	int			ok;

	dac_arena_init(&ar, 0);
	ok = json_parse(text, strlen(text), &ar, &v, &err) == DAC_OK;
	dac_arena_free(&ar);
	return ok;
}

void
test_json(void)
{
	static const char *good[] = {
		"{}", "[]", "0", "-1.5e3", "\"a\\u00e9\\ud83d\\ude00\"", "{\"a\": [1, 2, {\"b\": null}]}",
		" true ", "{\"k\": false}", "[1e-5, 2E+3, 0.25]",
	};
	static const char *bad[] = {
		"", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "01", "1.", ".5", "+1", "-",
		"\"unterminated", "\"bad \\x escape\"", "\"\\ud800\"", "\"\\u0000\"", "{\"a\":1}{",
		"{\"a\":1, \"a\":2}", "nul", "tru", "[1 2]", "\"tab\there\"", "1e999", "{1:2}",
	};
	size_t		i;
	dac_arena	ar;
	json_value *v;
	char		deep[300];

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(parses(good[i]), "json accepts %s", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(!parses(bad[i]), "json rejects '%s'", bad[i]);

	/* nesting deeper than the limit is an error, not a stack overflow */
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	CHECK(!parses(deep), "json rejects 299 levels of nesting");

	/* values */
	dac_arena_init(&ar, 0);
	{
		const char *obj = "{\"n\": 42, \"s\": \"x\\\"y\", \"f\": 2.5, \"big\": 123456789012}";

		CHECK(json_parse(obj, strlen(obj), &ar, &v, NULL) == DAC_OK, "json parses an object");
	}
	CHECK(json_get(v, "n") && json_get(v, "n")->integer == 42 && json_get(v, "n")->is_integer, "integer value");
	CHECK(json_get(v, "s") && strcmp(json_get(v, "s")->string, "x\"y") == 0, "escaped string value");
	CHECK(json_get(v, "f") && json_get(v, "f")->number == 2.5 && !json_get(v, "f")->is_integer, "fraction value");
	CHECK(json_get(v, "big") && json_get(v, "big")->integer == 123456789012LL, "64-bit integer value");
	CHECK(json_get(v, "missing") == NULL, "missing key");
	dac_arena_free(&ar);
}
