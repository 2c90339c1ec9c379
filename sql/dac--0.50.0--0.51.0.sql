-- dac 0.50.0 -> 0.51.0: the one-cluster test's Gaussian draws read normals
-- a backend keeps.
--
-- * Every group's Gaussian draw i reads the same stream of normals (a fixed
--   seed); a backend now makes the first 8,192 normals of the first 8 such
--   streams once and keeps them (512 kB of static memory, outside
--   dac.memory_limit).  The same draws to the bit: every clustering is
--   unchanged, cheaper (tables' groups by about 6 %).
-- * No SQL object changes and no shipped model changes.  Users' models,
--   runs and checkpoints are untouched.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.51.0'" to load this file. \quit
