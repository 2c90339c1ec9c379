/*
 * test_geo.c
 *	  Longitude and latitude onto a plane (geo.h): values by hand, the
 *	  antimeridian, a pole, distances from the centre kept, pair distances
 *	  of a patch far from Greenwich near the great-circle ones, the same
 *	  plane after every longitude turns, bad input.
 */
#include "unit.h"

#include "geo.h"

#include <math.h>
#include <stdlib.h>

/* the great-circle distance in metres (haversine) */
static double
great_circle(double lon1, double lat1, double lon2, double lat2)
{
	double		r = M_PI / 180,
				a = sin((lat2 - lat1) * r / 2),
				b = sin((lon2 - lon1) * r / 2),
				h = a * a + cos(lat1 * r) * cos(lat2 * r) * b * b;

	return 2 * DAC_EARTH_RADIUS * asin(sqrt(h));
}

static int
close_to(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

void
test_geo(void)
{
	double		deg = DAC_EARTH_RADIUS * M_PI / 180,
				xy[2 * 400] = {0},
				xy2[2 * 400],
				lon[400],
				lat[400],
				lon2[400];
	dac_error	err;
	dac_rng		r;
	int			i,
				j,
				n = 400,
				kept = 1,
				same = 1;
	double		worst = 0;

	/* two points on the equator a degree apart: ±half a degree of arc east of the centre */
	lon[0] = 0, lat[0] = 0, lon[1] = 1, lat[1] = 0;
	CHECK(dac_lonlat_plane(lon, lat, 2, xy, &err) == DAC_OK &&
		  close_to(xy[0], -deg / 2, 1e-6) && close_to(xy[2], deg / 2, 1e-6) &&
		  close_to(xy[1], 0, 1e-6) && close_to(xy[3], 0, 1e-6),
		  "(0, 0) and (1, 0): x = -/+ %.3f m, y = 0 (%.3f %.3f %.3f %.3f)", deg / 2, xy[0], xy[1], xy[2], xy[3]);
	/* across the antimeridian: a degree apart, not 359 */
	lon[0] = 179.5, lon[1] = -179.5;
	CHECK(dac_lonlat_plane(lon, lat, 2, xy, &err) == DAC_OK && close_to(xy[2] - xy[0], deg, 1e-6),
		  "179.5 and -179.5 on the equator: %.3f m apart, one degree (%.3f)", xy[2] - xy[0], deg);
	/* about the North Pole: four points a degree from it, each a degree of arc from the centre */
	for (i = 0; i < 4; i++)
		lon[i] = 90.0 * i, lat[i] = 89;
	CHECK(dac_lonlat_plane(lon, lat, 4, xy, &err) == DAC_OK &&
		  close_to(hypot(xy[0], xy[1]), deg, 1e-6) && close_to(hypot(xy[4], xy[5]), deg, 1e-6) &&
		  close_to(hypot(xy[0] - xy[4], xy[1] - xy[5]), 2 * deg, 1e-6),
		  "four points at latitude 89 round the pole: a degree from the centre, two across");

	/* a patch of Australia (longitude 125 .. 145, latitude -35 .. -15) */
	dac_rng_seed(&r, 5);
	for (i = 0; i < n; i++)
	{
		lon[i] = 125 + 20 * dac_rng_uniform(&r);
		lat[i] = -35 + 20 * dac_rng_uniform(&r);
		lon2[i] = lon[i] + 137.25;	/* across the antimeridian */
	}
	CHECK(dac_lonlat_plane(lon, lat, n, xy, &err) == DAC_OK, "projects 400 points of Australia");
	{
		double		mlon = 0,
					mlat = 0;

		/* the centre, read back: the point nearest the origin of the plane */
		j = 0;
		for (i = 1; i < n; i++)
			if (hypot(xy[2 * i], xy[2 * i + 1]) < hypot(xy[2 * j], xy[2 * j + 1]))
				j = i;
		mlon = lon[j], mlat = lat[j];
		for (i = 0; i < n; i++)
			kept &= close_to(hypot(xy[2 * i] - xy[2 * j], xy[2 * i + 1] - xy[2 * j + 1]),
							 great_circle(lon[i], lat[i], mlon, mlat), 0.01 * deg);
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
		{
			double		g = great_circle(lon[i], lat[i], lon[j], lat[j]),
						p = hypot(xy[2 * i] - xy[2 * j], xy[2 * i + 1] - xy[2 * j + 1]);

			if (fabs(p / g - 1) > worst)
				worst = fabs(p / g - 1);
		}
	CHECK(kept, "distances from the point nearest the centre are the great-circle ones, within 1 km");
	CHECK(worst < 0.02, "every pair of a 20-degree patch far from Greenwich within 2%% of its great-circle "
		  "distance (worst %.4f)", worst);
	CHECK(dac_lonlat_plane(lon2, lat, n, xy2, &err) == DAC_OK, "projects the patch turned by 137.25 degrees");
	for (i = 0; i < 2 * n; i++)
		same &= close_to(xy[i], xy2[i], 1e-5);
	CHECK(same, "every longitude turned by 137.25 degrees, across the antimeridian: the same plane within 10 um");

	lat[3] = 90.5;
	CHECK(dac_lonlat_plane(lon, lat, n, xy, &err) == DAC_ERR_INVALID && err.hint != NULL,
		  "latitude 90.5 is refused, with a hint: %s", err.msg);
	lat[3] = 0;
	lon[7] = NAN;
	CHECK(dac_lonlat_plane(lon, lat, n, xy, &err) == DAC_ERR_INVALID, "a NaN longitude is refused: %s", err.msg);
}
