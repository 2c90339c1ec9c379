-- 2-D points in any units (0.9.0): every shipped 2-D model measures each
-- set's centre and cluster width in double precision and clusters it in
-- the frame it was trained in ("input": "scaled"), so the same points in
-- metres, kilometres or degrees, anywhere, get the same ids.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;

SELECT name, config->>'input' AS input, config->>'unit_width' AS unit_width
FROM dac_models WHERE shipped AND config->>'dim_input' = '2' ORDER BY name;

CREATE TEMP TABLE mog AS SELECT set_id, ord, label, x::float8[] AS x FROM dac_generate('mog', 6, 400, 4, 9090);
CREATE TEMP TABLE warped AS SELECT set_id, ord, label, x::float8[] AS x FROM dac_generate('warped_mog', 3, 400, 3, 9091);
-- units from 1e-3 to 1e6, origins up to 1e6 away (in double precision: at
-- 1e6, a real keeps no detail of a cluster 1e-3 wide)
CREATE TEMP TABLE units (a float8, b1 float8, b2 float8);
INSERT INTO units VALUES (1e-3, 1e6, -1e6), (1e6, 0, 0), (1e6, -1e6, 1e6), (7.5, 123.25, -4e5);

-- every model: the same ids in every unit and origin as in the generator's
SELECT m.name, u.a, u.b1, u.b2,
       count(*) FILTER (WHERE c0 IS DISTINCT FROM c1) AS ids_differ
FROM (VALUES ('mlf_mog2d'), ('af_mog2d'), ('mlf64_mog2d'), ('mlf_small2d'), ('mlf_fast2d')) m(name)
CROSS JOIN units u
CROSS JOIN LATERAL (
  SELECT dac_cluster(x, m.name) OVER (PARTITION BY set_id) AS c0,
         dac_cluster(ARRAY[x[1] * u.a + u.b1, x[2] * u.a + u.b2], m.name) OVER (PARTITION BY set_id) AS c1
  FROM mog) s
GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;
SELECT u.a, count(*) FILTER (WHERE c0 IS DISTINCT FROM c1) AS warped_ids_differ
FROM units u
CROSS JOIN LATERAL (
  SELECT dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY set_id) AS c0,
         dac_cluster(ARRAY[x[1] * u.a + u.b1, x[2] * u.a + u.b2], 'mlf_warped2d') OVER (PARTITION BY set_id) AS c1
  FROM warped) s
GROUP BY 1 ORDER BY 1;

-- the default (no model named), the aggregate and the set function too; ARI
-- against the truth is the same figure
SELECT round(avg(dac_ari(truth, a))::numeric, 4) = round(avg(dac_ari(truth, b))::numeric, 4) AS same_ari,
       bool_and(a = b) AS agg_same
FROM (SELECT set_id, array_agg(label ORDER BY ord) AS truth, dac_cluster_agg(x ORDER BY ord) AS a,
             dac_cluster_agg(ARRAY[x[1] * 1e-3 + 1e6, x[2] * 1e-3 + 1e6] ORDER BY ord) AS b
      FROM mog GROUP BY set_id) s;
SELECT count(*) FILTER (WHERE p.cluster IS DISTINCT FROM q.cluster) AS set_function_differs
FROM dac_cluster_set((SELECT array_agg(x ORDER BY ord) FROM mog WHERE set_id = 1)) p
JOIN dac_cluster_set((SELECT array_agg(ARRAY[x[1] * 1e6, x[2] * 1e6] ORDER BY ord) FROM mog WHERE set_id = 1)) q USING (ord);

-- a kept clustering and its summary are in the caller's units: the means of
-- the points in kilometres are those in metres / 1000, and dac_assign sends
-- the points to their own clusters in either
CREATE TEMP TABLE metres AS SELECT ord, ARRAY[x[1] * 1000 + 4.5e5, x[2] * 1000 + 5.4e6] AS x FROM mog WHERE set_id = 2;
SELECT bool_and(abs(km.mean[1] * 1000 - m.mean[1]) < 1e-6 * abs(m.mean[1]) AND
                abs(km.stddev[2] * 1000 - m.stddev[2]) < 1e-4 * m.stddev[2]) AS summary_in_callers_units
FROM dac_cluster_summary((SELECT array_agg(x ORDER BY ord) FROM metres)) m
JOIN dac_cluster_summary((SELECT array_agg(ARRAY[x[1] / 1000, x[2] / 1000] ORDER BY ord) FROM metres)) km USING (cluster);
SELECT avg((dac_assign(x, k.c) = s.cluster)::int) >= 0.99 AS assign_agrees
FROM metres, (SELECT dac_clustering(array_agg(x ORDER BY ord)) AS c FROM metres) k,
     dac_cluster_set((SELECT array_agg(x ORDER BY ord) FROM metres)) s
WHERE s.ord = metres.ord;

-- longitude and latitude: a degree of longitude is cos(latitude) of a
-- degree of latitude, so scale it by cosd(lat) first (README: "Points in real
-- units"); the frame does the rest.  Four places in Paris, 300 points each,
-- spread about 300 m (walks around the Eiffel Tower, Montmartre, the
-- Bastille and La Défense).
CREATE TEMP TABLE paris AS
SELECT p.place, g.ord, p.lat + 0.0027 * g.x[1] AS lat, p.lon + 0.0041 * g.x[2] AS lon
FROM (VALUES (1, 48.8584, 2.2945), (2, 48.8867, 2.3431), (3, 48.8532, 2.3692), (4, 48.8918, 2.2361)) p(place, lat, lon)
JOIN LATERAL (SELECT ord, ARRAY[x[1] / 0.25, x[2] / 0.25] AS x FROM dac_generate('mog', 1, 300, 1, 100 + p.place)) g ON true;
SELECT count(*) AS points, round(dac_ari(array_agg(place ORDER BY place, ord), array_agg(c ORDER BY place, ord))::numeric, 2) AS ari,
       count(DISTINCT c) AS clusters
FROM (SELECT place, ord, dac_cluster(ARRAY[lon * cosd(lat), lat]) OVER () AS c FROM paris) s;
-- without cosd(lat) each place is stretched 1.5 : 1 across (a degree of
-- longitude taken for its length at the equator); these places are far
-- enough apart for that not to matter, closer or rounder ones need it
SELECT round(dac_ari(array_agg(place ORDER BY place, ord), array_agg(c ORDER BY place, ord))::numeric, 2) AS ari_unprojected
FROM (SELECT place, ord, dac_cluster(ARRAY[lon, lat]) OVER () AS c FROM paris) s;
-- the same places in metres (an equirectangular projection) get the same ids
SELECT count(*) FILTER (WHERE a IS DISTINCT FROM b) AS metres_differ
FROM (SELECT dac_cluster(ARRAY[lon * cosd(lat), lat]) OVER () AS a,
             dac_cluster(ARRAY[lon * cosd(lat) * 111320, lat * 111320]) OVER () AS b FROM paris) s;

-- longitude and latitude as they are: dac_cluster_lonlat projects each
-- partition about its own centre (great-circle distances and bearings from
-- it kept), so a group across the antimeridian is one piece.  Four places
-- of Fiji (Suva, Nadi, Labasa and Taveuni, which the 180th meridian
-- crosses), 60 points each within 2 km.
CREATE TEMP TABLE fiji AS
SELECT p.place, i AS ord,
       p.lat + r * sin(a) / 111195 AS lat,
       -- longitude written between -180 and 180
       (p.lon + r * cos(a) / (111195 * cosd(p.lat)) + 540)::numeric % 360 - 180 AS lon
FROM (VALUES (1, -18.14, 178.44), (2, -17.80, 177.44), (3, -16.43, 179.39), (4, -16.80, -179.99)) p(place, lat, lon),
     generate_series(1, 60) i,
     LATERAL (SELECT 2 * pi() * (hashint4(p.place * 1000 + i) / 4294967296.0 + 0.5) AS a,
                     2000 * sqrt(hashint4(p.place * 1000 + i + 500) / 4294967296.0 + 0.5) AS r) u;
SELECT count(*) FILTER (WHERE lon < 0) AS west_of_180, count(*) FILTER (WHERE lon > 0 AND place = 4) AS taveuni_east_of_180
FROM fiji;
SELECT round(dac_ari(array_agg(place ORDER BY place, ord), array_agg(c ORDER BY place, ord))::numeric, 2) AS ari,
       count(DISTINCT c) AS clusters
FROM (SELECT place, ord, dac_cluster_lonlat(lon, lat) OVER () AS c FROM fiji) s;
-- lon * cosd(lat) cuts Taveuni's points at the antimeridian
SELECT count(DISTINCT c) > 1 AS taveuni_cut
FROM (SELECT place, ord, dac_cluster(ARRAY[lon * cosd(lat), lat]) OVER () AS c FROM fiji) s WHERE place = 4;
-- the same ids with longitudes written 0 .. 360, turned by 178.5 degrees,
-- and every point moved by at most 100 m
SELECT count(*) FILTER (WHERE a IS DISTINCT FROM b) AS differ_0_360,
       count(*) FILTER (WHERE a IS DISTINCT FROM t) AS differ_turned,
       count(*) FILTER (WHERE a IS DISTINCT FROM j) AS differ_100m
FROM (SELECT dac_cluster_lonlat(lon, lat) OVER () AS a,
             dac_cluster_lonlat(CASE WHEN lon < 0 THEN lon + 360 ELSE lon END, lat) OVER () AS b,
             dac_cluster_lonlat(lon - 178.5, lat) OVER () AS t,
             dac_cluster_lonlat(lon + 0.0009 * (hashint4(ord * 7 + place) / 4294967296.0),
                                lat + 0.0009 * (hashint4(ord * 11 + place) / 4294967296.0)) OVER () AS j
      FROM fiji) s;
-- a NULL coordinate gets a NULL id; a count, a model, previous ids as dac_cluster takes them
SELECT count(*) FILTER (WHERE c IS NULL) AS null_ids, count(DISTINCT c) AS clusters
FROM (SELECT dac_cluster_lonlat(CASE WHEN ord = 3 THEN NULL ELSE lon END, lat, k => 2) OVER () AS c FROM fiji) s;
SELECT count(DISTINCT c) AS clusters FROM (SELECT dac_cluster_lonlat(lon, lat, 'mlf_fast2d') OVER () AS c FROM fiji) s;
SELECT count(*) FILTER (WHERE c = place) AS kept_ids
FROM (SELECT place, dac_cluster_lonlat(lon, lat, previous => place) OVER () AS c FROM fiji) s;
-- a cluster width given in metres (dac.cluster_width): within 2 km each
-- place, about 100 km apart, is one cluster at 20 km; at 200 m the places
-- come apart into more; at 500 km they are one
SET dac.cluster_width = 200;
SELECT count(DISTINCT c) AS clusters_at_200_m FROM (SELECT dac_cluster_lonlat(lon, lat) OVER () AS c FROM fiji) s;
SET dac.cluster_width = 20000;
SELECT count(DISTINCT c) AS clusters_at_20_km,
       round(dac_ari(array_agg(place ORDER BY place, ord), array_agg(c ORDER BY place, ord))::numeric, 2) AS ari
FROM (SELECT place, ord, dac_cluster_lonlat(lon, lat) OVER () AS c FROM fiji) s;
SET dac.cluster_width = 500000;
SELECT count(DISTINCT c) AS clusters_at_500_km FROM (SELECT dac_cluster_lonlat(lon, lat) OVER () AS c FROM fiji) s;
RESET dac.cluster_width;
SET dac.cluster_width = -1;
SET dac.cluster_width = 'NaN';
-- the same width given in the call (width => ): the setting's ids; the
-- argument wins over the setting, and width => 0 is each group's own width
SET dac.cluster_width = 20000;
CREATE TEMP TABLE fiji_20km AS SELECT place, ord, dac_cluster_lonlat(lon, lat) OVER () AS c FROM fiji;
SET dac.cluster_width = 200;
SELECT count(*) FILTER (WHERE f.c IS DISTINCT FROM s.c) AS differ_from_setting, count(DISTINCT s.c) AS clusters
FROM fiji_20km f JOIN (SELECT place, ord, dac_cluster_lonlat(lon, lat, width => 20000) OVER () AS c FROM fiji) s USING (place, ord);
SELECT count(DISTINCT c) AS clusters_width_0_over_200_m FROM (SELECT dac_cluster_lonlat(lon, lat, width => 0) OVER () AS c FROM fiji) s;
RESET dac.cluster_width;
-- every clustering form takes it: 2-D points 10 apart on a line are one
-- cluster at a width of 100 and a cluster each at 0.1
SELECT dac_cluster_ids(a, width => 100) AS ids_100, dac_cluster_ids(a, width => 0.1) AS ids_0_1,
       (SELECT count(DISTINCT cluster) FROM dac_cluster_set(a, width => 0.1)) AS set_clusters,
       (SELECT count(*) FROM dac_cluster_summary(a, width => 0.1)) AS summary_clusters,
       jsonb_array_length(dac_clustering(a, width => 0.1) -> 'clusters') AS kept_clusters
FROM (SELECT array_agg(ARRAY[i * 10, 0]::real[] ORDER BY i) AS a FROM generate_series(1, 6) i) s;
SELECT array_agg(c ORDER BY i) AS window_ids_0_1,
       array_agg(p ORDER BY i) AS point_ids_100
FROM (SELECT i, dac_cluster(ARRAY[i * 10, 0]::real[], width => 0.1) OVER () AS c,
             dac_cluster(point(i * 10, 0), width => 100) OVER () AS p
      FROM generate_series(1, 6) i) s;
-- errors: a width below 0 or not a number
SELECT dac_cluster_lonlat(lon, lat, width => -1) OVER () FROM fiji LIMIT 1;
SELECT dac_cluster_ids('{{0,0},{1,1}}'::real[], width => 'NaN');
-- errors: a latitude out of range, a model of another width
SELECT dac_cluster_lonlat(lon, CASE WHEN ord = 5 THEN 95 ELSE lat END) OVER () FROM fiji LIMIT 1;
SELECT dac_cluster_lonlat(lon, lat, 'mlf_fmnist') OVER () FROM fiji LIMIT 1;
SELECT dac_cluster_lonlat(lon, 'NaN') OVER () FROM fiji LIMIT 1;

-- degenerate sets: one point, equal points, two points (no spread to
-- measure, or too little): no error, and the same ids at any scale
SELECT array_agg(cluster ORDER BY ord) AS one FROM dac_cluster_set('{{1e6,1e6}}'::float8[]);
SELECT array_agg(cluster ORDER BY ord) AS equal FROM dac_cluster_set('{{5,5},{5,5},{5,5}}'::float8[]);
SELECT (SELECT array_agg(cluster ORDER BY ord) FROM dac_cluster_set('{{0,0},{1,1}}'::float8[])) =
       (SELECT array_agg(cluster ORDER BY ord) FROM dac_cluster_set('{{1e6,1e6},{1000001e0,1000001e0}}'::float8[])) AS two_same;
