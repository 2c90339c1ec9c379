/*
 * options.h
 *	  The training options, each defined once: its name (as CALL dac_train
 *	  spells it), dac-cli's flag, whether it is an integer, its default and
 *	  its range.  The core's defaults and checks (train.c), dac-cli's flags
 *	  and the SQL layer (dac_internal.dac_train_option_table, which
 *	  dac_train_options reads) all take them from here.  Numbers are kept as
 *	  text, so that SQL reads them exactly (numeric) and C by strtod.
 */
#ifndef DAC_OPTIONS_H
#define DAC_OPTIONS_H

#include "core.h"

typedef struct dac_option
{
	const char *name;			/* the option's name in dac_train's options */
	const char *flag;			/* dac-cli's flag, or NULL */
	int			integer;		/* 1: a whole number */
	const char *def;			/* default ("" when it depends on the source) */
	const char *lo;				/* least value */
	const char *hi;				/* greatest value */
	int			lo_open;		/* 1: lo itself is not allowed (lr > 0) */
} dac_option;

/* The table, ended by an entry whose name is NULL. */
extern const dac_option dac_train_options[];

/* The option of that name, or NULL. */
extern const dac_option *dac_train_option(const char *name);
/* Its default, least and greatest values as numbers. */
extern double dac_option_default(const dac_option *o);
extern double dac_option_lo(const dac_option *o);
extern double dac_option_hi(const dac_option *o);
/* DAC_ERR_INVALID (naming the option and its range) unless v is in range (and whole for an integer). */
extern dac_status dac_option_check(const dac_option *o, double v, dac_error *err);

#endif							/* DAC_OPTIONS_H */
