-- Properties of clustering in SQL (pgTAP; run by test/sql_tests.sh with pg_prove).
BEGIN;
SELECT plan(43);

CREATE TEMP TABLE g AS
SELECT set_id AS grp, ord AS id, label, x FROM dac_generate('mog', 30, 1000, 4, 2024);

-- 1. shuffling the rows of a group gives the same partition (MLF)
SELECT is(
  (SELECT count(*)::int FROM (
     SELECT grp, dac_ari(array_agg(a ORDER BY id), array_agg(b ORDER BY id)) AS r
     FROM (SELECT grp, id,
                  dac_cluster(x) OVER (PARTITION BY grp ORDER BY id) AS a,
                  dac_cluster(x) OVER (PARTITION BY grp ORDER BY md5(id::text)) AS b
           FROM g WHERE grp <= 10) s
     GROUP BY grp) t WHERE r = 1),
  10, 'MLF: shuffled rows give the same partition in all 10 groups');

-- 2. the window function, the aggregate and the set function agree
SELECT is(
  (SELECT count(*)::int FROM (
     SELECT w.grp
     FROM (SELECT grp, array_agg(c ORDER BY id) AS ids
           FROM (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS c FROM g WHERE grp <= 5) s
           GROUP BY grp) w
     JOIN (SELECT grp, dac_cluster_agg(x ORDER BY id) AS ids FROM g WHERE grp <= 5 GROUP BY grp) a
       ON a.grp = w.grp AND a.ids = w.ids
     JOIN (SELECT grp, (SELECT array_agg(cluster ORDER BY ord)
                        FROM dac_cluster_set(array_agg(x ORDER BY id))) AS ids
           FROM g WHERE grp <= 5 GROUP BY grp) f
       ON f.grp = w.grp AND f.ids = w.ids) t),
  5, 'window function, aggregate and set function give the same ids on 5 groups');

-- 3. cluster ids are 1..k in order of discovery, without gaps (the view
-- clusters under the settings of the statement that reads it)
CREATE TEMP VIEW gapless_groups AS
SELECT count(*)::int AS n FROM (
  SELECT grp, max(c) AS k, count(DISTINCT c) AS kd, min(c) AS lo
  FROM (SELECT grp, dac_cluster(x) OVER (PARTITION BY grp) AS c FROM g) s GROUP BY grp) t
WHERE lo = 1 AND k = kd;
SELECT is((SELECT n FROM gapless_groups), 30, 'ids run 1..k without gaps in every group');

-- 4. quality of the shipped default model on (n <= 1000, k <= 4) MoG groups
CREATE TEMP TABLE q AS
SELECT grp, dac_ari(array_agg(label ORDER BY id), array_agg(c ORDER BY id)) AS ari,
       dac_nmi(array_agg(label ORDER BY id), array_agg(c ORDER BY id)) AS nmi,
       abs(count(DISTINCT label) - count(DISTINCT c)) AS kerr
FROM (SELECT grp, id, label, dac_cluster(x) OVER (PARTITION BY grp) AS c FROM g) s GROUP BY grp;
SELECT cmp_ok((SELECT avg(ari) FROM q)::numeric, '>=', 0.9,
              'shipped default (MLF): mean ARI >= 0.9 on 30 MoG groups');
SELECT cmp_ok((SELECT avg(nmi) FROM q)::numeric, '>=', 0.9,
              'shipped default (MLF): mean NMI >= 0.9 on 30 MoG groups');
SELECT cmp_ok((SELECT avg(kerr) FROM q)::numeric, '<=', 0.5,
              'shipped default (MLF): k-MAE <= 0.5 on 30 MoG groups');
SELECT cmp_ok(
  (SELECT avg(r) FROM (
     SELECT dac_ari(array_agg(label ORDER BY id), dac_cluster_agg(x, 'af_mog2d' ORDER BY id)) AS r
     FROM g GROUP BY grp) t)::numeric, '>=', 0.85,
  'shipped AF model: mean ARI >= 0.85 on 30 MoG groups');

-- 4b. the fast model clusters as well as the default; small groups get the
-- small model (dac.small_group_models), which clusters them better than the
-- default model would
SELECT cmp_ok(
  (SELECT avg(r) FROM (
     SELECT dac_ari(array_agg(label ORDER BY id), dac_cluster_agg(x, 'mlf_fast2d' ORDER BY id)) AS r
     FROM g GROUP BY grp) t)::numeric, '>=', (SELECT avg(ari) FROM q)::numeric - 0.01,
  'mlf_fast2d: mean ARI within 0.01 of the default model''s on 30 MoG groups');
CREATE TEMP TABLE small AS
SELECT set_id AS grp, ord AS id, label, x FROM dac_generate('mog', 200, 30, 4, 2025);
CREATE TEMP TABLE sq AS
SELECT grp, dac_ari(array_agg(label ORDER BY id), dac_cluster_agg(x ORDER BY id)) AS ari,
       dac_ari(array_agg(label ORDER BY id), dac_cluster_agg(x, 'mlf_mog2d' ORDER BY id)) AS ari_default
FROM small GROUP BY grp;
SELECT cmp_ok((SELECT avg(ari) FROM sq)::numeric, '>=', 0.93,
              'small groups (9-29 points) at the defaults: mean ARI >= 0.93 on 200 groups');
-- (0.032 ahead under the authors' loop; dac.absorb_size lifts both, the
-- default model more, and the small model stays 0.017 ahead on these groups)
SELECT cmp_ok((SELECT avg(ari) - avg(ari_default) FROM sq)::numeric, '>=', 0.01,
              'small groups: the small model beats the default model by >= 0.01 ARI');
-- large groups (900-3,000 points, 12 clusters) at the defaults: mlf_fast2d for those of
-- 1,000 rows or more (dac.large_group_models), as good as mlf_mog2d
CREATE TEMP TABLE large AS
SELECT set_id AS grp, ord AS id, label, x FROM dac_generate('mog', 20, 3000, 12, 2026);
CREATE TEMP TABLE lq AS
SELECT grp, dac_ari(array_agg(label ORDER BY id), dac_cluster_agg(x ORDER BY id)) AS ari,
       dac_ari(array_agg(label ORDER BY id), dac_cluster_agg(x, 'mlf_mog2d' ORDER BY id)) AS ari_mog2d
FROM large GROUP BY grp;
SELECT cmp_ok((SELECT avg(ari) FROM lq)::numeric, '>=', 0.95,
              'large groups (900-3,000 points, 12 clusters) at the defaults: mean ARI >= 0.95 on 20 groups');
SELECT cmp_ok((SELECT avg(ari) - avg(ari_mog2d) FROM lq)::numeric, '>=', -0.01,
              'large groups at the defaults: mean ARI within 0.01 of mlf_mog2d''s');

-- 5. AF's anchors are deterministic: the same answer twice, and it clusters
SELECT is(
  (SELECT dac_cluster_agg(x, 'af_mog2d' ORDER BY id) FROM g WHERE grp = 1),
  (SELECT dac_cluster_agg(x, 'af_mog2d' ORDER BY id) FROM g WHERE grp = 1),
  'AF: the same query gives the same ids');
SELECT cmp_ok(
  (SELECT dac_ari(array_agg(label ORDER BY id), dac_cluster_agg(x, 'af_mog2d' ORDER BY id)) FROM g WHERE grp = 1)::numeric,
  '>=', 0.8, 'AF clusters group 1');

-- 6. a replaced model is seen by the next statement
SELECT dac_import('swap', decode(replace(encode(dac_export('mlf_mog2d'), 'base64'), E'\n', ''), 'base64'));
SELECT is((SELECT dac_cluster_agg(x, 'swap' ORDER BY id) FROM g WHERE grp = 2),
          (SELECT dac_cluster_agg(x ORDER BY id) FROM g WHERE grp = 2),
          'a model imported from the default''s export clusters like it');
SELECT dac_import('swap', dac_export('af_mog2d'));
SELECT is((SELECT dac_cluster_agg(x, 'swap' ORDER BY id) FROM g WHERE grp = 2),
          (SELECT dac_cluster_agg(x, 'af_mog2d' ORDER BY id) FROM g WHERE grp = 2),
          'after replacing its weights, the next statement uses the new ones');

-- 7. leftover policies, with one pass so that every group with more than one
-- cluster has leftovers: own makes them a second cluster, first and best put
-- them in the one found; every point gets an id (the one-cluster test, which
-- would split a group so left, off: dac.k_search = 0)
SET LOCAL dac.max_passes = 1;
SET LOCAL dac.k_search = 0;
CREATE TEMP VIEW ids AS
    SELECT grp, dac_cluster(x) OVER (PARTITION BY grp) AS c FROM g;
SELECT is((SELECT max(n)::int FROM (SELECT count(DISTINCT c) AS n FROM ids GROUP BY grp) s), 2,
          'leftover = own (the default), one pass: the leftovers form a second cluster');
SET LOCAL dac.leftover = 'first';
SELECT is((SELECT max(n)::int FROM (SELECT count(DISTINCT c) AS n FROM ids GROUP BY grp) s), 1,
          'leftover = first, one pass: one cluster per group');
SET LOCAL dac.leftover = 'best';
SELECT is((SELECT count(*)::int FROM ids WHERE c IS NULL OR c <> 1), 0,
          'leftover = best, one pass: every point gets id 1');
RESET dac.max_passes;
RESET dac.leftover;
RESET dac.k_search;

-- 8. EM refit (dac.em_steps): ids still run 1..k without gaps (it drops the
-- clusters it empties), and on 30 sets the refit mixture fits better (LL)
-- than the plain reassignment's
SET LOCAL dac.em_steps = 50;
SELECT is((SELECT n FROM gapless_groups), 30, 'EM refit: ids run 1..k without gaps in every group');
CREATE TEMP TABLE em_ll AS
SELECT ll FROM dac_evaluate('mlf_mog2d', 'mog', '{"sets": 30, "seed": 2024}');
SET LOCAL dac.em_steps = 0;
SET LOCAL dac.reassign = on;
SELECT cmp_ok((SELECT ll FROM em_ll)::numeric, '>',
              (SELECT ll FROM dac_evaluate('mlf_mog2d', 'mog', '{"sets": 30, "seed": 2024}'))::numeric,
              'EM refit: a higher LL than the plain reassignment on 30 MoG sets');
RESET dac.reassign;
RESET dac.em_steps;

-- dac.absorb_size (default 4) only ever gathers small clusters into others:
-- never more clusters than the authors' loop (absorb_size 1), and the clusters
-- of 4 points or more keep their members, one to one
SET LOCAL dac.absorb_size = 1;
CREATE TEMP TABLE loop1 AS SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS c FROM g;
RESET dac.absorb_size;
CREATE TEMP TABLE absorbed AS
SELECT l.grp, l.id, l.c AS c1, a.c AS c4, count(*) OVER (PARTITION BY l.grp, l.c) AS size1
FROM loop1 l JOIN (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS c FROM g) a USING (grp, id);
SELECT is(
  (SELECT count(*)::int FROM (SELECT grp FROM absorbed GROUP BY grp
                              HAVING count(DISTINCT c4) <= count(DISTINCT c1)) t),
  30, 'absorb_size 4: no group has more clusters than with absorb_size 1');
SELECT is(
  (SELECT count(*)::int FROM (SELECT grp FROM absorbed WHERE size1 >= 4 GROUP BY grp
                              HAVING count(DISTINCT c1) = count(DISTINCT c4)
                                 AND count(DISTINCT c1) = count(DISTINCT (c1, c4))) t),
  30, 'absorb_size 4: the clusters of 4 points or more keep their members, one to one, in every group');

-- dac.pair_merge (default 0.9) only ever joins whole clusters of the flow
-- model: on 20 warped groups, every cluster found with pair_merge 0 lies
-- inside one cluster found with it, no group has more clusters, and some
-- group has fewer; a Gaussian model's clusters do not change (dac.pair_split
-- off: it moves boundaries, below)
CREATE TEMP TABLE wg AS
SELECT set_id AS grp, ord AS id, x FROM dac_generate('warped_mog', 20, 1000, 4, 2025);
SET LOCAL dac.pair_split = off;
SET LOCAL dac.pair_merge = 0;
CREATE TEMP TABLE unpaired AS
SELECT grp, id, dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp) AS c FROM wg;
CREATE TEMP TABLE g_unpaired AS
SELECT grp, id, dac_cluster(x, 'mlf_mog2d') OVER (PARTITION BY grp) AS c FROM g WHERE grp <= 10;
RESET dac.pair_merge;
CREATE TEMP TABLE paired AS
SELECT u.grp, u.id, u.c AS c0, p.c AS c9
FROM unpaired u JOIN (SELECT grp, id, dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp) AS c FROM wg) p
     USING (grp, id);
SELECT is(
  (SELECT count(*)::int FROM (SELECT grp, c0 FROM paired GROUP BY grp, c0 HAVING count(DISTINCT c9) = 1) t),
  (SELECT count(*)::int FROM (SELECT DISTINCT grp, c0 FROM paired) t),
  'pair_merge: every cluster found without it lies inside one cluster found with it (20 warped groups)');
SELECT ok(
  (SELECT bool_and(k9 <= k0) AND bool_or(k9 < k0)
   FROM (SELECT grp, count(DISTINCT c0) AS k0, count(DISTINCT c9) AS k9 FROM paired GROUP BY grp) t),
  'pair_merge: no warped group has more clusters, some have fewer');
SELECT is(
  (SELECT count(*)::int FROM g_unpaired u
   JOIN (SELECT grp, id, dac_cluster(x, 'mlf_mog2d') OVER (PARTITION BY grp) AS c FROM g WHERE grp <= 10) p
   USING (grp, id) WHERE u.c = p.c),
  (SELECT count(*)::int FROM g_unpaired),
  'pair_merge: a Gaussian model''s clusters are the same with it and without');
RESET dac.pair_split;

-- dac.pair_split (default on) keeps what the loop promises: shuffled rows
-- and other units give the same partition, a Gaussian model's clusters do
-- not change, and over 40 warped sets the mixture's mean LL does not fall
-- the warped groups up to grp max_grp whose partition by mlf_warped2d is the
-- same with their rows shuffled (other_units false) or times 1000, shifted
-- (in double precision, which the 2-D models keep: a real at 5e5 would
-- round each point by 3e-2, a change of the data, not of its units)
CREATE FUNCTION pg_temp.warped_same(max_grp int, other_units boolean) RETURNS int
LANGUAGE sql SET search_path = public, pg_temp AS $$
  SELECT count(*)::int FROM (
    SELECT grp, dac_ari(array_agg(a ORDER BY id), array_agg(b ORDER BY id)) AS r
    FROM (SELECT grp, id,
                 dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY grp ORDER BY id) AS a,
                 dac_cluster(CASE WHEN other_units THEN ARRAY[x[1] * 1000 + 5e5, x[2] * 1000 - 3e5]::float8[]
                                  ELSE x::float8[] END, 'mlf_warped2d')
                   OVER (PARTITION BY grp ORDER BY CASE WHEN other_units THEN id::text ELSE md5(id::text) END) AS b
          FROM wg WHERE grp <= max_grp) s
    GROUP BY grp) t WHERE r = 1
$$;
SELECT is(pg_temp.warped_same(20, false), 20,
  'pair_split: shuffled rows give the same partition in all 20 warped groups');
SELECT is(pg_temp.warped_same(20, true), 20,
  'pair_split: the groups times 1000, shifted, give the same partition');
SELECT is(
  (SELECT count(*)::int FROM g_unpaired u
   JOIN (SELECT grp, id, dac_cluster(x, 'mlf_mog2d') OVER (PARTITION BY grp) AS c FROM g WHERE grp <= 10) p
   USING (grp, id) WHERE u.c = p.c),
  (SELECT count(*)::int FROM g_unpaired),
  'pair_split: a Gaussian model''s clusters are the same with it (and pair_merge) and without');
SET LOCAL dac.pair_split = off;
CREATE TEMP TABLE unsplit_eval AS
SELECT * FROM dac_evaluate('mlf_warped2d', 'warped_mog', '{"sets": 40, "n_max": 1000, "seed": 2026}');
RESET dac.pair_split;
SELECT cmp_ok(
  (SELECT ll FROM dac_evaluate('mlf_warped2d', 'warped_mog', '{"sets": 40, "n_max": 1000, "seed": 2026}')),
  '>=', (SELECT ll FROM unsplit_eval),
  'pair_split: the mean LL of 40 warped sets does not fall');

-- dac.rotations turns each group in the network's frame, after the
-- canonical order and the units frame: with 4 orientations, the rows of
-- 10 warped groups shuffled, and the same groups in other units and origin,
-- give the same partition
SET LOCAL dac.rotations = 4;
SELECT is(pg_temp.warped_same(10, false), 10,
  'rotations 4: shuffled rows give the same partition in all 10 warped groups');
SELECT is(pg_temp.warped_same(10, true), 10,
  'rotations 4: the groups times 1000, shifted, give the same partition');
RESET dac.rotations;

-- dac.refine_rounds fits each cluster's context in the network's frame,
-- after the canonical order: with 2 rounds, the rows of 10 warped groups
-- shuffled, and the same groups in other units and origin, give the same
-- partition; over 40 warped sets the mean LL rises and ARI does not fall
CREATE TEMP TABLE plain_eval AS
SELECT * FROM dac_evaluate('mlf_warped2d', 'warped_mog', '{"sets": 40, "n_max": 1000, "seed": 2026}');
SET LOCAL dac.refine_rounds = 2;
SELECT is(pg_temp.warped_same(10, false), 10,
  'refine_rounds 2: shuffled rows give the same partition in all 10 warped groups');
SELECT is(pg_temp.warped_same(10, true), 10,
  'refine_rounds 2: the groups times 1000, shifted, give the same partition');
CREATE TEMP TABLE refined_eval AS
SELECT * FROM dac_evaluate('mlf_warped2d', 'warped_mog', '{"sets": 40, "n_max": 1000, "seed": 2026}');
RESET dac.refine_rounds;
SELECT cmp_ok((SELECT ll FROM refined_eval), '>', (SELECT ll + 0.05 FROM plain_eval),
  'refine_rounds 2: the mean LL of 40 warped sets rises by more than 0.05');
SELECT cmp_ok((SELECT ari FROM refined_eval), '>=', (SELECT ari FROM plain_eval),
  'refine_rounds 2: the mean ARI of 40 warped sets does not fall');

-- equal rows are clustered once: each row repeated three times, or every
-- other row repeated, gives each copy the id its row gets alone, in every
-- group, for the 2-D default and for embeddings; the issue's three points
-- repeated 20 times are three rows
SELECT is((SELECT count(*)::int FROM (
             SELECT grp, bool_and(a = b) AS same
             FROM (SELECT grp, id, r, dac_cluster(x) OVER (PARTITION BY grp) AS b FROM g, generate_series(1, 3) r
                   WHERE grp <= 10) t
             JOIN (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS a FROM g WHERE grp <= 10) o USING (grp, id)
             GROUP BY grp) s WHERE same),
          10, '2-D: every row three times, each copy gets its row''s id, in all 10 groups');
SELECT is((SELECT count(*)::int FROM (
             SELECT grp, bool_and(a = b) AS same
             FROM (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS b
                   FROM g, generate_series(1, 2) r WHERE grp <= 10 AND (r = 1 OR id % 2 = 0)) t
             JOIN (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS a FROM g WHERE grp <= 10) o USING (grp, id)
             GROUP BY grp) s WHERE same),
          10, '2-D: every other row twice, each copy gets its row''s id, in all 10 groups');
CREATE TEMP TABLE e AS SELECT set_id AS grp, ord AS id, x FROM dac_generate('embed', 6, 200, 5, 77, 32);
SELECT is((SELECT count(*)::int FROM (
             SELECT grp, bool_and(a = b) AS same
             FROM (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS b FROM e, generate_series(1, 3) r) t
             JOIN (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS a FROM e) o USING (grp, id)
             GROUP BY grp) s WHERE same),
          6, 'embeddings: every row three times, each copy gets its row''s id, in all 6 groups');
SELECT is((SELECT array_agg(DISTINCT p::text || ':' || c) FROM (
             SELECT p, dac_cluster(p) OVER () AS c FROM (VALUES (ARRAY[0, 0]::real[]), (ARRAY[10, 0]::real[]), (ARRAY[0, 10]::real[])) v(p),
                    generate_series(1, 20)) s),
          (SELECT array_agg(DISTINCT p::text || ':' || c) FROM (
             SELECT p, dac_cluster(p) OVER () AS c FROM (VALUES (ARRAY[0, 0]::real[]), (ARRAY[10, 0]::real[]), (ARRAY[0, 10]::real[])) v(p)) s),
          'three points repeated 20 times get the ids the three points get');
-- the aggregate and the set function choose the model and cluster the repeats as the window does
-- (groups of 300 to 999 rows, three times over 1,000: the repeats do not move them to the
-- large-group model)
SELECT is((SELECT nullif(count(*)::int, 0) FROM (SELECT grp FROM g GROUP BY grp HAVING count(*) BETWEEN 334 AND 999) b),
          (SELECT count(*)::int FROM (
             SELECT grp, (SELECT dac_cluster_agg(x ORDER BY id, r) FROM g, generate_series(1, 3) r WHERE g.grp = b.grp) AS agg,
                    (SELECT array_agg(c ORDER BY id, r) FROM (SELECT id, r, dac_cluster(x) OVER () AS c FROM g, generate_series(1, 3) r
                                                              WHERE g.grp = b.grp) s) AS win
             FROM (SELECT grp FROM g GROUP BY grp HAVING count(*) BETWEEN 334 AND 999) b) t WHERE agg = win),
          'groups of 334 to 999 rows, each row three times: the aggregate gives the window''s ids');
SELECT is((SELECT nullif(count(*)::int, 0) FROM (SELECT grp FROM g GROUP BY grp HAVING count(*) BETWEEN 334 AND 999) b),
          (SELECT count(*)::int FROM (
             SELECT grp, (SELECT dac_cluster_agg(x ORDER BY id, r) FROM g, generate_series(1, 3) r WHERE g.grp = b.grp) AS agg,
                    (SELECT dac_cluster_ids(array_agg(x ORDER BY id, r)) FROM g, generate_series(1, 3) r WHERE g.grp = b.grp) AS ids
             FROM (SELECT grp FROM g GROUP BY grp HAVING count(*) BETWEEN 334 AND 999) b) t WHERE agg = ids),
          'groups of 334 to 999 rows, each row three times: dac_cluster_ids gives the aggregate''s ids');

-- a change far below the data's precision leaves the answer: every coordinate of 20 embedding
-- groups moved by 1e-4 of the group's spread, the same partition in every group (the graph
-- stage's nodes in an order such a change barely moves)
CREATE TEMP TABLE en AS SELECT set_id AS grp, ord AS id, x FROM dac_generate('embed', 20, 300, 6, 91, 32);
CREATE TEMP TABLE en_spread AS
SELECT grp, sqrt(avg(v)) AS spread
FROM (SELECT grp, j, var_pop(v) AS v FROM en, unnest(x) WITH ORDINALITY u(v, j) GROUP BY 1, 2) t GROUP BY 1;
SELECT is((SELECT count(*)::int FROM (
             SELECT grp, dac_ari(array_agg(a ORDER BY id), array_agg(b ORDER BY id)) AS r
             FROM (SELECT grp, id, dac_cluster(x) OVER (PARTITION BY grp) AS a,
                          dac_cluster(ARRAY(SELECT (v + 1e-4 * sp.spread * sqrt(12) *
                                                    (hashint4(id * 7919 + j::int * 104729 + grp) / 4294967296.0))::real
                                            FROM unnest(x) WITH ORDINALITY u(v, j) ORDER BY j)) OVER (PARTITION BY grp) AS b
                   FROM en JOIN en_spread sp USING (grp)) s
             GROUP BY grp) t WHERE r = 1),
          20, 'embeddings moved by 1e-4 of their spread: the same partition in all 20 groups');

SELECT * FROM finish();
ROLLBACK;
