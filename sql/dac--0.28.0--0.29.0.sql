-- dac 0.28.0 -> 0.29.0: equal rows clustered once; longitude and latitude
-- clustered as they are.
--
-- * Rows whose vectors are equal, byte for byte, are clustered once, as one
--   row, and every copy gets that row's id (the pipeline's first stage,
--   "distinct"): repeating rows no longer changes the clusters of the
--   others (groups without repeated rows: as in 0.28.0, byte for
--   byte, but for the graph stage below; groups with them may get other
--   clusters).
-- * The graph stage visits the graph's nodes nearest the sample's mean
--   first, not in the hash order of the rows' bytes: a change of the rows
--   far below their precision no longer changes the clusters.  Models
--   without a density head may give other clusters where Leiden's ties
--   fall elsewhere.
-- * dac_cluster_lonlat(lon, lat, ...), a window function over longitude
--   and latitude in degrees: each partition is projected about its own
--   centre (azimuthal equidistant, metres), then clustered as 2-D points;
--   right far from Greenwich, across the antimeridian and about the poles.
-- * Users' models, runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.29.0'" to load this file. \quit

CREATE FUNCTION @extschema@.dac_cluster_lonlat(lon double precision, lat double precision, model text DEFAULT NULL,
    previous integer DEFAULT NULL, k integer DEFAULT NULL, max_k integer DEFAULT NULL)
RETURNS integer AS 'MODULE_PATHNAME', 'dac_cluster_lonlat_window'
LANGUAGE C STABLE WINDOW PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION @extschema@.dac_cluster_lonlat(double precision, double precision, text, integer, integer, integer) IS
'window function: clusters the partition''s points given as longitude and latitude in degrees, projected about the partition''s centre; the row''s cluster id (NULL for a NULL coordinate or noise)';
