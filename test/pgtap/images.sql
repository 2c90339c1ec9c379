-- The shipped image model (mlf_fmnist) on Fashion-MNIST test images (pgTAP;
-- run by test/sql_tests.sh with pg_prove).  Eight sets of 100 binarised test
-- images, two or three classes each, four of the classes the model was
-- trained on (0-5) and four of the classes it never saw (6-9):
-- test/data/fmnist_sets.csv (split, set, ord, class, pixels).  The thresholds
-- are below what the shipped model scores (docs/images.md), with a margin for
-- the other CPU's kernels.
BEGIN;
SELECT plan(5);

CREATE TEMP TABLE fs (split text, set_id int, ord int, label int, px real[]);
\copy fs FROM 'test/data/fmnist_sets.csv' CSV
CREATE TEMP TABLE fc AS
SELECT split, set_id, ord, label, dac_cluster(px, 'mlf_fmnist') OVER (PARTITION BY set_id) AS c FROM fs;
CREATE TEMP TABLE fa AS
SELECT split, set_id, dac_ari(array_agg(label ORDER BY ord), array_agg(c ORDER BY ord)) AS ari,
       abs(count(DISTINCT label) - count(DISTINCT c)) AS k_err
FROM fc GROUP BY split, set_id;

SELECT cmp_ok((SELECT avg(ari) FROM fa WHERE split = 'seen'), '>=', 0.75::float8,
  'classes it was trained on: mean ARI over 4 sets at least 0.75 (shipped: 0.902)');
SELECT cmp_ok((SELECT avg(ari) FROM fa WHERE split = 'unseen'), '>=', 0.40::float8,
  'classes it never saw: mean ARI over 4 sets at least 0.40 (shipped: 0.456)');
SELECT cmp_ok((SELECT avg(k_err) FROM fa), '<=', 1.0::numeric,
  'the count is off by at most one cluster on average');
SELECT is(
  (SELECT count(*)::int FROM fc a JOIN (
     SELECT set_id, ord, dac_cluster(px, 'mlf_fmnist') OVER (PARTITION BY set_id ORDER BY md5(ord::text)) AS c
     FROM fs WHERE set_id IN (1, 5)) b USING (set_id, ord) WHERE a.c = b.c),
  200, 'shuffled images give the same ids (the noise is drawn in the canonical order)');
SELECT ok(
  (SELECT ll BETWEEN -1 AND 0 FROM dac_evaluate('mlf_fmnist', 'fs',
     '{"vector_column": "px", "label_column": "label", "group_column": "set_id", "whole_groups": true}')),
  'the evidence bound per pixel lies between -1 and 0');

SELECT * FROM finish();
ROLLBACK;
