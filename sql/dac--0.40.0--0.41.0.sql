-- dac 0.40.0 -> 0.41.0: the same clusterings, at less cost.
--
-- * k-means' assignments and starts, the silhouette and the sample's
--   distances run eight rows to a vector, each value computed as the scalar
--   loops compute it (no fused multiply-add): every label is 0.40.0's.
-- * OpenBLAS is loaded with one thread where the server's environment sets
--   no count: it no longer starts a spinning worker a core in every backend
--   that clusters; more start when dac.blas_threads asks for them.
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs, checkpoints and clusterings are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.41.0'" to load this file. \quit
