#!/usr/bin/env bash
# Geo points in real coordinates: the world's cities (R's maps package,
# Debian r-cran-maps), the 60 countries with the most cities (at most 3,000
# of a country's, chosen by a hash of the name), each country one window
# partition.  For dac_cluster_lonlat(lon, lat) and for the recipe
# dac_cluster(ARRAY[lon * cosd(lat), lat]), it prints per country and as
# medians: the clusters found, the ARI between the answer and the answer
# after every city moves by at most 100 m, and after one city is dropped
# (on the rest), and the ARI between the two methods' answers.
# SETTINGS (e.g. "SET dac.cluster_width = 20000") run before the clusterings.
# Run it inside pg_virtualenv, where dac is installed:
#   pg_virtualenv -t -v 15 bash test/bench/geo.sh DIR [SETTINGS]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$1
settings=${2:-}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ -s "$dir/cities.csv" ] || Rscript -e 'library(maps); data(world.cities);
  write.table(world.cities[, c("country.etc", "name", "long", "lat")], "'"$dir"'/cities.csv",
              sep = ",", row.names = FALSE, col.names = FALSE, qmethod = "double")'
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
DROP TABLE IF EXISTS geo_raw, geo, geo_out;
CREATE TABLE geo_raw (country text, name text, lon float8, lat float8);
\copy geo_raw FROM '$dir/cities.csv' CSV
CREATE TABLE geo AS
SELECT country, row_number() OVER (PARTITION BY country ORDER BY md5(name || lon || lat)) AS id, lon, lat
FROM geo_raw WHERE country IN (SELECT country FROM geo_raw GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 60);
DELETE FROM geo WHERE id > 3000;
-- moved by at most 100 m (a uniform point of a disc), and without the city of id 1
ALTER TABLE geo ADD jlon float8, ADD jlat float8;
UPDATE geo SET jlat = lat + r * sin(a) / 111195, jlon = lon + r * cos(a) / (111195 * greatest(cosd(lat), 0.01))
FROM (SELECT country AS c, id AS i, 2 * pi() * (hashint4((id * 7 + length(country))::int) / 4294967296.0 + 0.5) AS a,
             100 * sqrt(hashint4((id * 11 + length(country))::int) / 4294967296.0 + 0.5) AS r FROM geo) u
WHERE country = c AND id = i;
$settings;
\timing on
CREATE TABLE geo_out AS
SELECT country, id,
       dac_cluster_lonlat(lon, lat) OVER w AS ll,
       dac_cluster_lonlat(jlon, jlat) OVER w AS ll_j,
       dac_cluster(ARRAY[lon * cosd(lat), lat]) OVER w AS cd,
       dac_cluster(ARRAY[jlon * cosd(jlat), jlat]) OVER w AS cd_j
FROM geo WINDOW w AS (PARTITION BY country);
\timing off
ALTER TABLE geo_out ADD ll_d int, ADD cd_d int;
UPDATE geo_out o SET ll_d = d.ll_d, cd_d = d.cd_d
FROM (SELECT country, id, dac_cluster_lonlat(lon, lat) OVER w AS ll_d,
             dac_cluster(ARRAY[lon * cosd(lat), lat]) OVER w AS cd_d
      FROM geo WHERE id > 1 WINDOW w AS (PARTITION BY country)) d
WHERE o.country = d.country AND o.id = d.id;
CREATE TEMP TABLE per AS
SELECT country, count(*) AS cities,
       count(DISTINCT ll) AS k_lonlat, count(DISTINCT cd) AS k_cosd,
       dac_ari(array_agg(ll ORDER BY id), array_agg(ll_j ORDER BY id)) AS jit_lonlat,
       dac_ari(array_agg(cd ORDER BY id), array_agg(cd_j ORDER BY id)) AS jit_cosd,
       dac_ari(array_agg(ll ORDER BY id) FILTER (WHERE id > 1), array_agg(ll_d ORDER BY id) FILTER (WHERE id > 1)) AS drop_lonlat,
       dac_ari(array_agg(cd ORDER BY id) FILTER (WHERE id > 1), array_agg(cd_d ORDER BY id) FILTER (WHERE id > 1)) AS drop_cosd,
       dac_ari(array_agg(ll ORDER BY id), array_agg(cd ORDER BY id)) AS lonlat_vs_cosd
FROM geo_out GROUP BY 1;
\pset format aligned
SELECT country, cities, k_lonlat, k_cosd, round(jit_lonlat::numeric, 3) AS jit_lonlat, round(jit_cosd::numeric, 3) AS jit_cosd,
       round(drop_lonlat::numeric, 3) AS drop_lonlat, round(drop_cosd::numeric, 3) AS drop_cosd,
       round(lonlat_vs_cosd::numeric, 3) AS lonlat_vs_cosd
FROM per ORDER BY cities DESC, country;
\pset format unaligned
\pset fieldsep ' | '
\echo
\echo | method | countries | median clusters | one cluster | 100 m jitter: median ARI | 10th pct | one city dropped: median ARI | 10th pct |
\echo |---|---|---|---|---|---|---|---|
\pset tuples_only on
SELECT '| dac_cluster_lonlat(lon, lat)', count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY k_lonlat),
       count(*) FILTER (WHERE k_lonlat = 1),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY jit_lonlat)::numeric, 3), round(percentile_cont(0.1) WITHIN GROUP (ORDER BY jit_lonlat)::numeric, 3),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY drop_lonlat)::numeric, 3), round(percentile_cont(0.1) WITHIN GROUP (ORDER BY drop_lonlat)::numeric, 3) || ' |'
FROM per
UNION ALL
SELECT '| dac_cluster(ARRAY[lon * cosd(lat), lat])', count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY k_cosd),
       count(*) FILTER (WHERE k_cosd = 1),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY jit_cosd)::numeric, 3), round(percentile_cont(0.1) WITHIN GROUP (ORDER BY jit_cosd)::numeric, 3),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY drop_cosd)::numeric, 3), round(percentile_cont(0.1) WITHIN GROUP (ORDER BY drop_cosd)::numeric, 3) || ' |'
FROM per;
SELECT 'ARI between the two answers: median ' || round(percentile_cont(0.5) WITHIN GROUP (ORDER BY lonlat_vs_cosd)::numeric, 3) ||
       ', 10th percentile ' || round(percentile_cont(0.1) WITHIN GROUP (ORDER BY lonlat_vs_cosd)::numeric, 3) FROM per;
SQL
