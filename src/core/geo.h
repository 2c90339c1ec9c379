/*
 * geo.h
 *	  Longitude and latitude onto a plane in metres, for clustering: the
 *	  azimuthal equidistant projection about the group's own centre (the
 *	  mean of its points as unit vectors, pushed back onto the sphere).  A
 *	  point keeps its great-circle distance and bearing from that centre,
 *	  so a group is not sheared however far it lies from Greenwich, and a
 *	  group across the antimeridian or about a pole is one piece.  Turning
 *	  every longitude by the same angle turns nothing: the plane is the
 *	  same (up to rounding).
 */
#ifndef DAC_GEO_H
#define DAC_GEO_H

#include "core.h"

#define DAC_EARTH_RADIUS	6371008.8	/* metres, the mean radius (IUGG) */

/* dac_lonlat_plane (dac.h) projects with this radius. */

#endif							/* DAC_GEO_H */
