-- Clusters of any shape (pgTAP): the shipped flow model mlf_warped2d on
-- warped sets with thresholds (a quality check CI runs), its lead over the
-- Gaussian-head model on the same sets, the order-free ids of a flow
-- model, and the flows as calibrated densities (the noise test's tail).
SET client_min_messages = warning;
SELECT plan(5);

-- 1. quality on 40 warped sets of (1000, 4) (docs/warped.md: 0.932 on 1,000 sets)
SELECT cmp_ok((SELECT ari FROM dac_evaluate('mlf_warped2d', 'warped_mog', '{"sets": 40, "n_max": 1000, "seed": 9}'))::numeric,
              '>=', 0.85, 'mlf_warped2d: ARI >= 0.85 on 40 warped sets of up to 1,000 points');
SELECT cmp_ok((SELECT k_mae FROM dac_evaluate('mlf_warped2d', 'warped_mog', '{"sets": 40, "n_max": 1000, "seed": 9}'))::numeric,
              '<=', 1.0, 'mlf_warped2d: k-MAE <= 1 on the same sets');

-- 2. a flow describes warped clusters that a Gaussian head cuts into pieces
SELECT cmp_ok((SELECT ari FROM dac_evaluate('mlf_warped2d', 'warped_mog', '{"sets": 40, "n_max": 1000, "seed": 9}'))::numeric,
              '>', (SELECT ari FROM dac_evaluate('mlf_mog2d', 'warped_mog', '{"sets": 40, "n_max": 1000, "seed": 9}'))::numeric + 0.2,
              'the flow model beats the Gaussian model by more than 0.2 ARI on warped sets');

-- 3. the same rows in another order get the same ids (a flow model too)
CREATE TABLE tap_w AS SELECT set_id, ord, x FROM dac_generate('warped_mog', 10, 400, 4, 12);
SELECT is(
  (SELECT count(*) FROM (
     SELECT set_id, ord, dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY set_id ORDER BY ord
                          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS a,
            dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY set_id ORDER BY md5(ord::text)
                          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS b
     FROM tap_w) s WHERE a IS DISTINCT FROM b),
  0::bigint, 'a flow model gives the same ids to the same rows in any order');

-- 4. the flows are calibrated densities: under dac.noise = 0.01 (a point is
--    noise when |z|² in its cluster's base space lies in the 1% tail of χ²₂)
--    few points of warped clusters are noise
SET dac.noise = 0.01;
SELECT cmp_ok(
  (SELECT (count(*) - count(c))::numeric / count(*) FROM (
     SELECT dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY set_id) AS c FROM tap_w) s),
  '<', 0.05::numeric, 'dac.noise = 0.01 marks under 5% of the points of warped clusters as noise');
RESET dac.noise;

DROP TABLE tap_w;
SELECT * FROM finish();
