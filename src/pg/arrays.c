/*
 * arrays.c
 *	  Vectors from SQL arrays: real[], double precision[], numeric[] and
 *	  the integer arrays, checked for shape, NULL elements, non-finite and
 *	  out-of-range values and the expected width before they are copied.
 */
#include "dac_pg.h"

#include <math.h>
#include <float.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/geo_decls.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/*
 * Scratch memory for numeric elements, whose conversion to double
 * allocates: made once per backend, reset after each array (and every 4,096
 * elements), so that a window over many rows creates no context per row.
 */
static MemoryContext numeric_scratch = NULL;

/* v, or an ERROR naming what: non-finite, or outside real's range. */
static inline void
store_one(double v, int i, dac_real *out, double *out64, const char *what)
{
	if (!isfinite(v))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s contains a non-finite value (NaN or infinity)", what),
				 errhint("Leave the row out, or pass NULL as its vector: a NULL vector gets a NULL cluster.")));
	if (fabs(v) > FLT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s contains %g, out of range for real", what, v),
				 errhint("Rescale the values: dac computes in real, whose largest magnitude is about 3.4e38.")));
	out[i] = (dac_real) v;
	if (out64)
		out64[i] = v;
}

static void
store_values(ArrayType *a, Oid elemtype, int count, dac_real *out, double *out64, const char *what)
{
	int			i;

	if (ARR_HASNULL(a))
	{
		bits8	   *bm = ARR_NULLBITMAP(a);

		for (i = 0; i < count; i++)
			if (!(bm[i / 8] & (1 << (i % 8))))
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("%s contains a NULL element", what),
						 errhint("Replace the NULL elements (coalesce), or pass NULL as the whole vector to leave the row out.")));
	}
	if (elemtype == FLOAT4OID || elemtype == FLOAT8OID)
	{
		const float4 *v4 = (const float4 *) ARR_DATA_PTR(a);
		const float8 *v8 = (const float8 *) ARR_DATA_PTR(a);

		for (i = 0; i < count; i++)
		{
			store_one(elemtype == FLOAT4OID ? (double) v4[i] : v8[i], i, out, out64, what);
			if ((i & 65535) == 65535)
				CHECK_FOR_INTERRUPTS();
		}
	}
	else if (elemtype == NUMERICOID || elemtype == INT4OID || elemtype == INT2OID || elemtype == INT8OID)
	{
		/* numeric[] and integer arrays: each element as double precision, one at a time */
		ArrayIterator it = array_create_iterator(a, 0, NULL);
		MemoryContext old;
		Datum		e;
		bool		isnull;

		if (numeric_scratch == NULL)
			numeric_scratch = AllocSetContextCreate(TopMemoryContext, "dac numeric elements",
													ALLOCSET_SMALL_SIZES);
		old = MemoryContextSwitchTo(numeric_scratch);
		for (i = 0; i < count && array_iterate(it, &e, &isnull); i++)
		{
			store_one(elemtype == NUMERICOID ? DatumGetFloat8(DirectFunctionCall1(numeric_float8, e))
					  : elemtype == INT4OID ? (double) DatumGetInt32(e)
					  : elemtype == INT2OID ? (double) DatumGetInt16(e)
					  : (double) DatumGetInt64(e), i, out, out64, what);
			if ((i & 4095) == 4095)
			{
				MemoryContextReset(numeric_scratch);
				CHECK_FOR_INTERRUPTS();
			}
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(numeric_scratch);
		array_free_iterator(it);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s must be an array of numbers", what),
				 errhint("Pass real[], double precision[], numeric[] or integer[].")));
}

/* A vector must be a non-empty one-dimensional array. */
static void
check_vector_shape(ArrayType *a, const char *what)
{
	if (ARR_NDIM(a) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s is an empty array", what),
				 errhint("Pass NULL as the vector to leave the row out.")));
	if (ARR_NDIM(a) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s must be a one-dimensional array, not %d-dimensional", what, ARR_NDIM(a)),
				 errhint("Give each row one vector, a one-dimensional array such as ARRAY[x, y].")));
}

ArrayType *
dac_float8_array(const double *v, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * (n > 0 ? n : 1));
	int			i;

	for (i = 0; i < n; i++)
		d[i] = Float8GetDatum(v[i]);
	return construct_array(d, n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

int
dac_vector_width(ArrayType *a, const char *what)
{
	check_vector_shape(a, what);
	if (ARR_DIMS(a)[0] > DAC_MAX_DIM_INPUT)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has length %d, more than the %d a model takes", what, ARR_DIMS(a)[0],
						DAC_MAX_DIM_INPUT),
				 errhint("Reduce the vectors to at most %d columns first, e.g. by a projection.", DAC_MAX_DIM_INPUT)));
	return ARR_DIMS(a)[0];
}

void
dac_vector_from_array(ArrayType *a, Oid elemtype, int d, bool model_width, dac_real *out,
					  double *out64, const char *what)
{
	int			n;

	check_vector_shape(a, what);
	n = ARR_DIMS(a)[0];
	if (n != d && model_width)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s has length %d, but the model takes vectors of length %d", what, n, d),
				 errhint("Give every vector of the group the length the model takes; with no model named, the first vector's length chooses the model.")));
	if (n != d)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s has length %d, but the first vector has length %d", what, n, d),
				 errhint("Every vector of a group must have the same length.")));
	store_values(a, elemtype, n, out, out64, what);
}

void
dac_points_from_matrix(ArrayType *a, Oid elemtype, int d, bool keep64, dac_points *p)
{
	int			n;

	if (ARR_NDIM(a) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot cluster an empty set of points"),
				 errhint("Pass at least one point, one row of the array per point.")));
	if (ARR_NDIM(a) != 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("points must be a two-dimensional array, one row per point"),
				 errdetail("The array has %d dimensions.", ARR_NDIM(a)),
				 errhint("Pass an array of n rows of d columns, e.g. ARRAY[[x1, y1], [x2, y2]].")));
	n = ARR_DIMS(a)[0];
	if (ARR_DIMS(a)[1] != d)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("points have length %d, but the model takes vectors of length %d", ARR_DIMS(a)[1], d),
				 errhint("Name a model that takes vectors of length %d, or none: with no model named, the width chooses the model.", ARR_DIMS(a)[1])));
	dac_check_memory((double) n * d * (sizeof(dac_real) + (keep64 ? sizeof(double) : 0)),
					 psprintf("reading %d points", n));
	p->n = n;
	p->d = d;
	p->X = palloc_extended(sizeof(dac_real) * (size_t) n * d, MCXT_ALLOC_HUGE);
	p->X64 = keep64 ? palloc_extended(sizeof(double) * (size_t) n * d, MCXT_ALLOC_HUGE) : NULL;
	store_values(a, elemtype, n * d, p->X, p->X64, "points");
}

int
dac_vector_width_datum(Datum v, Oid type, const char *what)
{
	return type == POINTOID ? 2 : dac_vector_width(DatumGetArrayTypeP(v), what);
}

void
dac_vector_from_datum(Datum v, Oid type, int d, bool model_width, dac_real *out, double *out64,
					  const char *what)
{
	ArrayType  *a;

	if (type == POINTOID)
	{
		Point	   *p = DatumGetPointP(v);

		if (d != 2)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("%s is a point, but the model takes vectors of length %d", what, d),
					 errhint("Name a model that takes 2-D points, or leave the model to dac.")));
		store_one(p->x, 0, out, out64, what);
		store_one(p->y, 1, out, out64, what);
		return;
	}
	a = DatumGetArrayTypeP(v);
	dac_vector_from_array(a, ARR_ELEMTYPE(a), d, model_width, out, out64, what);
}
