/*
 * read_file.h
 *	  Reading a whole file, for the programs around the core (the driver, the
 *	  benchmark, the unit tests); the core itself does no file I/O.
 */
#ifndef DAC_READ_FILE_H
#define DAC_READ_FILE_H

#include "dac.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The file's bytes (malloc'ed) and their count, or NULL. */
static inline uint8_t *
dac_read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	long		sz;
	uint8_t    *buf;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
	{
		fclose(f);
		return NULL;
	}
	buf = malloc(sz ? (size_t) sz : 1);
	if (buf == NULL || fread(buf, 1, (size_t) sz, f) != (size_t) sz)
	{
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t) sz;
	return buf;
}

/* The model of a weights file into *out, or an error (DAC_ERR_IO: the file cannot be read). */
static inline dac_status
dac_read_model(const char *path, dac_model **out, dac_error *err)
{
	size_t		len;
	uint8_t    *buf = dac_read_file(path, &len);
	dac_status	st;

	if (buf == NULL)
	{
		err->code = DAC_ERR_IO;
		err->hint = NULL;
		snprintf(err->msg, sizeof(err->msg), "cannot read \"%s\"", path);
		return DAC_ERR_IO;
	}
	st = dac_model_read(buf, len, out, err);
	free(buf);
	return st;
}

#endif
