-- The image model (mlf_fmnist): 28x28 images as 784 pixel values between 0
-- and 1.  Four groups of 24 Fashion-MNIST test images (binarised), two of
-- them with classes the model never saw (test/data/fmnist_groups.csv:
-- id, group, class, pixels).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dac;
CREATE TABLE fm (id int, grp int, label int, px real[]);
\copy fm FROM 'test/data/fmnist_groups.csv' CSV

SELECT name, config->>'model' AS model, config->>'dim_lats' AS latent, shipped
FROM dac_models WHERE name = 'mlf_fmnist';

-- every form, one clustering per group: the window function
CREATE TABLE fm_c AS
SELECT id, grp, label, dac_cluster(px, 'mlf_fmnist') OVER (PARTITION BY grp) AS c FROM fm;
SELECT count(*) = 96 AND bool_and(c >= 1) AS every_image_clustered FROM fm_c;
-- the same ids whatever the rows' order (the noise is drawn in the canonical order)
SELECT bool_and(a.c = b.c) AS same_ids_in_any_order
FROM fm_c a JOIN (SELECT id, dac_cluster(px, 'mlf_fmnist') OVER (PARTITION BY grp ORDER BY id DESC) AS c FROM fm) b USING (id);
-- the aggregate and the set form agree with it
SELECT bool_and(s.ids = w.ids) AS aggregate_agrees
FROM (SELECT grp, dac_cluster_agg(px, 'mlf_fmnist' ORDER BY id) AS ids FROM fm GROUP BY grp) s
JOIN (SELECT grp, array_agg(c ORDER BY id) AS ids FROM fm_c GROUP BY grp) w USING (grp);
-- pixels as integer[] (0 and 1) give the same ids
SELECT bool_and(a.c = b.c) AS integer_pixels_agree
FROM fm_c a JOIN (SELECT id, dac_cluster(px::int[], 'mlf_fmnist') OVER (PARTITION BY grp) AS c FROM fm) b USING (id);
-- quality, with a margin: the mean ARI over the four groups, and the one-class group in few clusters
SELECT avg(dac_ari(ls, cs)) >= 0.5 AS mean_ari_at_least_half
FROM (SELECT grp, array_agg(label ORDER BY id) AS ls, array_agg(c ORDER BY id) AS cs FROM fm_c GROUP BY grp) g;
SELECT count(DISTINCT c) <= 2 AS one_class_few_clusters FROM fm_c WHERE grp = 4;

-- a count asked for (merged and split by the images' pixels): two clusters in every group
SELECT grp, count(DISTINCT c) AS clusters
FROM (SELECT grp, dac_cluster(px, 'mlf_fmnist', k => 2) OVER (PARTITION BY grp) AS c FROM fm) s
GROUP BY grp ORDER BY grp;

-- the summary: a 128-wide context per cluster, sizes adding up
SELECT sum(size) = 24 AS sizes_add_up, bool_and(cardinality(theta) = 128) AS contexts
FROM dac_cluster_summary((SELECT array_agg(px ORDER BY id) FROM fm WHERE grp = 1), 'mlf_fmnist');
-- evaluated on the groups as they are
SELECT ari >= 0.5 AS evaluate_ari, ll < 0 AS ll_per_pixel_negative, ll > -1 AS ll_above_minus_one
FROM dac_evaluate('mlf_fmnist', 'fm', '{"vector_column": "px", "label_column": "label", "group_column": "grp", "whole_groups": true}');
-- a kept clustering assigns new images
SELECT count(*) = 24 AS assigned
FROM fm, (SELECT dac_clustering((SELECT array_agg(px ORDER BY id) FROM fm WHERE grp = 2), 'mlf_fmnist') AS k) kc
WHERE grp = 2 AND dac_assign(px, k) >= 1;

-- one network pass over a group (dac_filter): every image gets a probability, the same on every call
SELECT count(*) = 24 AND bool_and(prob BETWEEN 0 AND 1) AS filter_probabilities,
       array_agg(member ORDER BY ord) = (SELECT array_agg(member ORDER BY ord)
           FROM dac_filter((SELECT array_agg(px ORDER BY id) FROM fm WHERE grp = 3), 'mlf_fmnist')) AS filter_repeats
FROM dac_filter((SELECT array_agg(px ORDER BY id) FROM fm WHERE grp = 3), 'mlf_fmnist');
SELECT * FROM dac_filter(array_fill(2::real, ARRAY[2, 784]), 'mlf_fmnist');

-- errors: a row that is not 28x28, pixel values outside 0..1, a NULL pixel
\set VERBOSITY default
SELECT dac_cluster(px[1:783], 'mlf_fmnist') OVER () FROM fm LIMIT 1;
SELECT dac_cluster(array_fill(255::real, ARRAY[784]), 'mlf_fmnist') OVER ();
SELECT dac_cluster(array_fill(-0.5::real, ARRAY[784]), 'mlf_fmnist') OVER ();
SELECT dac_cluster(array_fill(NULL::real, ARRAY[784]), 'mlf_fmnist') OVER ();
-- training: only from a table of images, only raw pixels, options that apply
SELECT dac_train_options('fm', '{"vector_column": "px", "label_column": "label", "density": "ns", "image_latent": 16}')
    - ARRAY['seed', 'steps', 'lr', 'clip', 'batch', 'n_max', 'k_max', 'checkpoint_every', 'log_every', 'run_steps',
            'mix_n_max', 'mix_k_max', 'mix_ratio', 'num_heads', 'num_inds', 'num_blocks', 'dim_hidden'] AS options,
       dac_train_options('fm', '{"vector_column": "px", "label_column": "label", "density": "ns"}')->'n_max' AS n_max;
CALL dac_train('img_bad', 'mog', '{"density": "ns"}');
SELECT dac_train_options('fm', '{"vector_column": "px", "label_column": "label", "density": "ns", "input": "setnorm"}');
SELECT dac_train_options('fm', '{"vector_column": "px", "label_column": "label", "image_latent": 16}');
SELECT dac_train_options('fm', '{"vector_column": "px", "label_column": "label", "density": "ns", "image_filters": 0}');
-- a few steps from the table, as a user would (a small network)
CALL dac_train('img_small', 'fm', '{"vector_column": "px", "label_column": "label", "density": "ns", "steps": 2,
    "batch": 2, "n_max": 24, "image_filters": 4, "image_latent": 8, "dim_hidden": 16, "maf_hidden": 16,
    "maf_context": 16, "maf_blocks": 2}');
SELECT config->>'model' AS model, config->>'num_filters' AS filters, config->'maf'->>'num_made' AS made
FROM dac_models WHERE name = 'img_small';
SELECT count(*) FROM (SELECT dac_cluster(px, 'img_small') OVER (PARTITION BY grp) AS c FROM fm) s WHERE c >= 1;
-- images the model never saw as a training table: pixels out of range are refused
CREATE TABLE fm_grey AS SELECT id, label, array(SELECT v * 255 FROM unnest(px) v) AS px FROM fm;
CALL dac_train('img_grey', 'fm_grey', '{"vector_column": "px", "label_column": "label", "density": "ns", "steps": 1,
    "batch": 2, "n_max": 24}');
DROP TABLE fm, fm_c, fm_grey;
DELETE FROM dac_models WHERE name = 'img_small';
