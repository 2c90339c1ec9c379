-- dac 0.6.0 -> 0.7.0: no table, function or model changes.
--
-- What changes is the module's behaviour, through two new settings that need
-- no SQL object: when a call names no model, groups of at least
-- dac.large_group_size (1,000) rows use the model dac.large_group_models pairs
-- with the default (mlf_mog2d=mlf_fast2d; 0.6.0 shipped mlf_fast2d), so such
-- groups get mlf_fast2d's ids; SET dac.large_group_models = '' restores 0.6.0's
-- choice.  The version number says which behaviour a database has.

\echo Use "ALTER EXTENSION dac UPDATE TO '0.7.0'" to load this file. \quit
