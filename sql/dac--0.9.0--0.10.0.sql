-- dac 0.9.0 -> 0.10.0
\echo Use "ALTER EXTENSION dac UPDATE TO '0.10.0'" to load this file. \quit

-- The clustering's graph stage (dac.graph_neighbors, dac.graph_resolution)
-- is in the module; it changes the clusters that models without a density
-- head give, and needs no new object.  User models, runs and checkpoints
-- are not touched.

-- Costs that reflect the work, so that plans show it: the window function
-- clusters its whole partition (tens of microseconds a row), the one-call
-- forms a whole group (milliseconds).  The aggregate's final function keeps
-- cost 1: with postgres_fdw, a costlier aggregate is no longer pushed down to
-- the shards (test/shard.sh), and shipping it is what makes them work.
ALTER FUNCTION @extschema@.dac_cluster(real[]) COST 1000;
ALTER FUNCTION @extschema@.dac_cluster(real[], text) COST 1000;
ALTER FUNCTION @extschema@.dac_cluster(double precision[]) COST 1000;
ALTER FUNCTION @extschema@.dac_cluster(double precision[], text) COST 1000;
ALTER FUNCTION @extschema@.dac_cluster(real[], text, integer) COST 1000;
ALTER FUNCTION @extschema@.dac_cluster(double precision[], text, integer) COST 1000;
ALTER FUNCTION @extschema@.dac_cluster_set(real[], text) COST 100000;
ALTER FUNCTION @extschema@.dac_cluster_set(double precision[], text) COST 100000;
ALTER FUNCTION @extschema@.dac_cluster_summary(real[], text) COST 100000;
ALTER FUNCTION @extschema@.dac_cluster_summary(double precision[], text) COST 100000;
ALTER FUNCTION @extschema@.dac_clustering(real[], text, integer[]) COST 100000;
ALTER FUNCTION @extschema@.dac_clustering(double precision[], text, integer[]) COST 100000;
