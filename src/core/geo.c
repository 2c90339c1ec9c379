/*
 * geo.c
 *	  Longitude and latitude onto a plane in metres (geo.h).
 */
#include "geo.h"

#include <math.h>

#define DEG (M_PI / 180.0)

static void
unit_vector(double lon, double lat, double *u)
{
	u[0] = cos(lat * DEG) * cos(lon * DEG);
	u[1] = cos(lat * DEG) * sin(lon * DEG);
	u[2] = sin(lat * DEG);
}

dac_status
dac_lonlat_plane(const double *lon, const double *lat, int n, double *xy, dac_error *err)
{
	double		c[3] = {0, 0, 0},
				e[3],
				no[3],
				len,
				h;
	int			i;

	for (i = 0; i < n; i++)
	{
		double		u[3];

		if (!isfinite(lon[i]) || !isfinite(lat[i]))
			return dac_fail_hint(err, DAC_ERR_INVALID, "Give the longitude first, then the latitude, both in degrees.",
								 "point %d of the group has a longitude or latitude that is not finite", i + 1);
		if (lat[i] < -90 || lat[i] > 90)
			return dac_fail_hint(err, DAC_ERR_INVALID, "Give the longitude first, then the latitude, both in degrees.",
								 "latitude %g of point %d of the group is not between -90 and 90", lat[i], i + 1);
		unit_vector(lon[i], lat[i], u);
		c[0] += u[0];
		c[1] += u[1];
		c[2] += u[2];
		if ((i & 4095) == 4095 && dac_interrupted())
			return dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the projection of %d points", n);
	}
	len = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
	if (!(len > 1e-9 * n))
	{
		c[0] = 0;
		c[1] = 0;
		c[2] = 1;
	}
	else
	{
		c[0] /= len;
		c[1] /= len;
		c[2] /= len;
	}
	/* east: the pole's axis × the centre; at a pole, toward longitude 90° */
	h = sqrt(c[0] * c[0] + c[1] * c[1]);
	if (h > 1e-12)
	{
		e[0] = -c[1] / h;
		e[1] = c[0] / h;
		e[2] = 0;
	}
	else
	{
		e[0] = 0;
		e[1] = 1;
		e[2] = 0;
	}
	/* north: the centre × east */
	no[0] = c[1] * e[2] - c[2] * e[1];
	no[1] = c[2] * e[0] - c[0] * e[2];
	no[2] = c[0] * e[1] - c[1] * e[0];
	for (i = 0; i < n; i++)
	{
		double		u[3],
					a,
					b,
					z,
					r;

		unit_vector(lon[i], lat[i], u);
		a = u[0] * e[0] + u[1] * e[1] + u[2] * e[2];
		b = u[0] * no[0] + u[1] * no[1] + u[2] * no[2];
		z = u[0] * c[0] + u[1] * c[1] + u[2] * c[2];
		r = hypot(a, b);
		if (r > 0)
		{
			/* the great-circle distance along the bearing (a, b) */
			double		s = DAC_EARTH_RADIUS * atan2(r, z) / r;

			xy[2 * i] = a * s;
			xy[2 * i + 1] = b * s;
		}
		else
		{
			xy[2 * i] = 0;
			xy[2 * i + 1] = z > 0 ? 0 : -M_PI * DAC_EARTH_RADIUS;
		}
		if ((i & 4095) == 4095 && dac_interrupted())
			return dac_fail(err, DAC_ERR_INTERRUPTED, "canceling the projection of %d points", n);
	}
	return DAC_OK;
}
