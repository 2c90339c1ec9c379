#!/bin/bash
# ALTER EXTENSION dac UPDATE keeps what users made under 0.1.0 (then 0.2.0
# to 0.26.0): install the
# 0.1.0 script, add models (imported and trained, from a generator and from
# a table), runs and checkpoints, update, and check that they survive
# byte for byte, still cluster, and resume training.  Usage (against a
# running server, as a superuser): bash test/upgrade.sh
set -uo pipefail
db=dac_upgrade
. "$(dirname "$0")/check.sh"
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d $db "$@"; }
# users' models (name, version, weights), runs and checkpoints: what an update must keep
user_rows() {
	q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped" \
		-c "SELECT string_agg(run_id || ':' || model || ':' || status || ':' || step, ' ' ORDER BY run_id) FROM dac_training_runs" \
		-c "SELECT string_agg(model || ':' || step || ':' || md5(state), ' ' ORDER BY model) FROM dac_checkpoints"
}
# A database at version $1 with a user's embedding table and a model $2 trained
# on it (a run and checkpoints); further psql arguments run after that.
emb_user_db() {
	local version=$1 model=$2
	shift 2
	createdb $db
	q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '$version'" \
		-c "CREATE TABLE emb AS SELECT set_id * 10 + label AS label, x FROM dac_generate('embed', 4, 200, 3, 5, 16)" \
		-c "CALL dac_train('$model', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"batch\": 2, \"n_max\": 40, \"checkpoint_every\": 2, \"log_every\": 2}')" \
		"$@" >/dev/null
}
# The shipped row of model $1 holding model $2's bytes and configuration: an
# older version's stand-in (a fresh install of an old version reads today's
# files), so that an update must set both from the file.
old_shipped_bytes() {
	q -c "ALTER TABLE dac_models DISABLE TRIGGER dac_models_guard" \
		-c "UPDATE dac_models SET weights = dac_export('$2'), config = dac_weights_info(dac_export('$2')) -> 'config' WHERE name = '$1'" \
		-c "ALTER TABLE dac_models ENABLE TRIGGER dac_models_guard" >/dev/null
}
# ALTER EXTENSION dac UPDATE from version $1: it reaches the default version
# and keeps the user's rows ($before) byte for byte.
# the ids the user's model gives the emb table's rows, in a fixed order
emb_ids_q() {
	echo "SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, '$1') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
}
update_keeps_rows() {
	q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
	check "$1 updates to $default" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
	check "the user's model, run and checkpoint are kept byte for byte" "$(user_rows)" "$before"
}
# The extension's SQL objects, by name: after an update they must be a
# fresh install's ($fresh_objects), nothing more, nothing less.
# 0.27.0's vector forms (bigint[], point) and the overloads that name the right call
vector_forms_27='bigint\[\]\|[(,]point[,)]\|dac_cluster(text)\|dac_cluster(jsonb)\|dac_cluster([a-z ]*\[\],integer)'
# 0.35.0's change, checked in its own block: each clustering form's signature
# moves to dac_internal and one with width after it takes its place
forms_35='^[<>] function \(dac_internal\.\)\?dac_cluster\(_lonlat\|_ids\|_set\|_summary\|ing\)\?('
# 0.30.0's internal evaluation functions, with their zero_shot argument
evaluate_30='< function dac_internal.dac_evaluate_groups(text,text,text,text,text)|< function dac_internal.dac_evaluate_sets(text,text,integer,integer,integer,bigint,text,text,text)|'
evaluate_30_new='> function dac_internal.dac_evaluate_groups(text,text,text,text,text,boolean)|> function dac_internal.dac_evaluate_sets(text,text,integer,integer,integer,bigint,text,text,text,boolean)|'
# 0.32.0's new functions (left out of the older blocks' lists), as objects_diff prints them
# (checked in the 0.30.0 and 0.31.0 blocks), and as a grep pattern
new_objects_32="> function dac_model_settings(text)|> function dac_tune(text,regclass,jsonb)|> function dac_weights_with_settings(bytea,jsonb)|"
objects_32=$(echo "$new_objects_32" | sed 's/> function //g; s/|$//; s/|/\\|/g')
# 0.53.0's new functions (left out of the older blocks' lists, checked in the 0.52.0 block), the same two ways
new_objects_53="> function dac_internal.dac_choice_check(double precision[])|> function dac_internal.dac_evaluate_group_aris(text,text,text,text,text)|"
objects_53=$(echo "$new_objects_53" | sed 's/> function //g; s/|$//; s/[][]/\\&/g; s/|/\\|/g')
objects_q="SELECT string_agg(pg_describe_object(classid, objid, objsubid), '; ' ORDER BY pg_describe_object(classid, objid, objsubid)) FROM pg_depend WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dac') AND deptype = 'e'"
dropdb --if-exists $db >/dev/null 2>&1
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" >/dev/null
fresh_objects=$(q -c "$objects_q")
# the shipped models of a fresh install (name:version:md5 of the weights), one a line
shipped_q="SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models WHERE shipped"
fresh_shipped=$(q -c "$shipped_q")
# the shipped models but those named ($1: a quoted, comma-separated list)
shipped_but() { echo "$2" | tr ' ' '\n' | grep -v -E "^($(echo "$1" | tr -d "'" | tr ',' '|')):" | tr '\n' ' ' | sed 's/ $//'; }
# the privileges on dac's tables, whole and by column, and their policies
acl_q="SELECT string_agg(c.relname || '=' || coalesce(c.relacl::text, '') || ' ' || coalesce((SELECT string_agg(a.attname || ':' || a.attacl::text, ',' ORDER BY a.attnum) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attacl IS NOT NULL), '') || ' ' || coalesce((SELECT string_agg(p.polname || ':' || coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ':' || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), ''), ',' ORDER BY p.polname) FROM pg_policy p WHERE p.polrelid = c.oid), ''), ' | ' ORDER BY c.relname) FROM pg_class c WHERE c.relname IN ('dac_models', 'dac_training_runs', 'dac_training_log', 'dac_checkpoints')"
fresh_acls=$(q -c "$acl_q")
dropdb $db
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.1.0'" \
	-c "SELECT dac_import('kept', dac_export('af_mog2d'))" \
	-c "CALL dac_train('gen', 'mog', '{\"steps\": 6, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 3, \"log_every\": 3}')" \
	-c "CREATE TABLE items AS SELECT ord AS id, label, x FROM dac_generate('mog', 1, 200, 3, 11)" \
	-c "CALL dac_train('tab', 'items', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 2, \"log_every\": 2}')" >/dev/null
before=$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped" \
	-c "SELECT string_agg(run_id || ':' || model || ':' || status || ':' || step, ' ' ORDER BY run_id) FROM dac_training_runs" \
	-c "SELECT string_agg(model || ':' || step || ':' || md5(state), ' ' ORDER BY model) FROM dac_checkpoints" \
	-c "SELECT count(*) FROM dac_training_log")
ids_before=$(q -c "SELECT string_agg(c::text, ',') FROM (SELECT dac_cluster(x, 'gen') OVER (ORDER BY id) AS c FROM items) s")
check "0.1.0 is installed" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" 0.1.0

q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
default=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$(dirname "$0")/../dac.control")
check "ALTER EXTENSION dac UPDATE reaches the default version ($default)" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
check "the module and the scripts have the same version" "$(q -c "SELECT split_part(dac_version(), ' ', 1)")" "$default"
after=$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped" \
	-c "SELECT string_agg(run_id || ':' || model || ':' || status || ':' || step, ' ' ORDER BY run_id) FROM dac_training_runs" \
	-c "SELECT string_agg(model || ':' || step || ':' || md5(state), ' ' ORDER BY model) FROM dac_checkpoints" \
	-c "SELECT count(*) FROM dac_training_log")
check "every user model (weights, versions), run, checkpoint and log row is kept" "$after" "$before"
check "the update adds the shipped mlf_embed, which takes any width" \
	"$(q -c "SELECT shipped AND config->>'input' = 'setnorm' FROM dac_models WHERE name = 'mlf_embed'")" t
check "the user's models belong to the role that updated" \
	"$(q -c "SELECT string_agg(DISTINCT owner, ',') FROM dac_models WHERE NOT shipped")" "$(q -c "SELECT current_user")"
check "the kept models cluster as before" \
	"$(q -c "SELECT string_agg(c::text, ',') FROM (SELECT dac_cluster(x, 'gen') OVER (ORDER BY id) AS c FROM items) s")" "$ids_before"
check "the table checkpoint's source is schema-qualified" "$(q -c "SELECT source FROM dac_checkpoints WHERE model = 'tab'")" public.items
q -c "SET client_min_messages = warning" -c "CALL dac_train('gen', 'mog', '{\"resume\": true, \"steps\": 9}')" \
	-c "CALL dac_train('tab', 'items', '{\"resume\": true, \"steps\": 6}')" >/dev/null 2>&1
check "a 0.1.0 checkpoint resumes after the update (generator and table)" \
	"$(q -c "SELECT string_agg(model || ':' || step, ' ' ORDER BY model) FROM dac_checkpoints")" "gen:9 tab:6"
check "a table model of 0.1.0 keeps its raw input after resuming" \
	"$(q -c "SELECT coalesce(config->>'input', 'raw') || ':' || (config->>'dim_input') FROM dac_models WHERE name = 'tab'")" raw:2
check "a kept model gets the 0.3.0 functions: a kept clustering, representatives, assignment" \
	"$(q -c "WITH k AS (SELECT dac_clustering(array_agg(x ORDER BY id), 'gen') AS c FROM items)
	         SELECT bool_and(dac_assign(x, c) IS NOT NULL) AND
	                (SELECT count(*) FROM dac_cluster_summary((SELECT array_agg(x ORDER BY id) FROM items), 'kept')
	                 WHERE representative IS NOT NULL) > 0 FROM items, k")" t
check "the internal helpers moved out of PUBLIC's reach (0.34.0's clustering signatures, which users' views call, aside)" \
	"$(q -c "SELECT count(*) FROM pg_proc WHERE pronamespace = 'dac_internal'::regnamespace AND has_function_privilege('public', oid, 'EXECUTE') AND obj_description(oid, 'pg_proc') NOT LIKE 'dac 0.34.0''s signature of %'")" 0
check "the dump of a 0.1.0-made database restores after the update too" \
	"$(pg_dump $db >/tmp/dac_upgrade.sql && dropdb ${db}2 2>/dev/null; createdb ${db}2 && psql -X -q -d ${db}2 -f /tmp/dac_upgrade.sql >/dev/null 2>&1 && psql -X -At -d ${db}2 -c "SELECT count(*) FROM dac_models WHERE NOT shipped")" 3
rm -f /tmp/dac_upgrade.sql
dropdb ${db}2 >/dev/null 2>&1
dropdb $db

# From 0.2.0: a model shared with a role, and its owner, survive the update.
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.2.0'" \
	-c "SELECT dac_import('m2', dac_export('mlf_mog2d'))" -c "SELECT dac_share_model('m2', 'public')" \
	-c "CALL dac_train('g2', 'mog', '{\"steps\": 4, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 2}')" >/dev/null
before=$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights) || ':' || owner || ':' || coalesce(readers::text, ''), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped" \
	-c "SELECT string_agg(model || ':' || step || ':' || md5(state), ' ' ORDER BY model) FROM dac_checkpoints")
q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "0.2.0 updates to $default" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
check "0.2.0 models (owner, readers, weights) and checkpoints are kept" \
	"$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights) || ':' || owner || ':' || coalesce(readers::text, ''), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped" \
		-c "SELECT string_agg(model || ':' || step || ':' || md5(state), ' ' ORDER BY model) FROM dac_checkpoints")" "$before"
dropdb $db

# From 0.3.0: a user's model already named mlf_embed does not block the
# update (any role that may create models could otherwise block it): it is
# renamed mlf_embed_<owner>, with a warning, and kept.
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.3.0'" \
	-c "SELECT dac_import('mlf_embed', dac_export('af_mog2d'))" \
	-c "CREATE TABLE items AS SELECT set_id * 10 + label AS label, ord AS id, x FROM dac_generate('mog', 3, 100, 3, 5)" \
	-c "CALL dac_train('tab3', 'items', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 2, \"run_steps\": 2}')" >/dev/null
owner=$(q -c "SELECT owner FROM dac_models WHERE name = 'mlf_embed'")
before=$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped")
check "a user's model named mlf_embed does not stop the update: a warning names its new name" \
	"$(q -c "ALTER EXTENSION dac UPDATE" 2>&1 | grep -o 'model "mlf_embed" of role "[^"]*" is renamed "[^"]*"')" \
	"model \"mlf_embed\" of role \"$owner\" is renamed \"mlf_embed_$owner\""
check "0.3.0 updates to $default, the user's model kept (same weights) beside the shipped one" \
	"$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'"):$(q -c "SELECT string_agg(name || ':' || shipped, ' ' ORDER BY name) FROM dac_models WHERE name IN ('mlf_embed', 'mlf_embed_$owner')"):$(q -c "SELECT md5(weights) FROM dac_models WHERE name = 'mlf_embed_$owner'")" \
	"$default:mlf_embed:true mlf_embed_$owner:false:$(echo "$before" | tr ' ' '\n' | grep '^mlf_embed:' | cut -d: -f3)"
q -c "SET client_min_messages = warning" -c "CALL dac_train('tab3', 'items', '{\"resume\": true}')" >/dev/null 2>&1
check "a 0.3.0 table checkpoint resumes after the update, its model still raw 2-D" \
	"$(q -c "SELECT step FROM dac_checkpoints WHERE model = 'tab3'"):$(q -c "SELECT coalesce(config->>'input', 'raw') || ':' || (config->>'dim_input') FROM dac_models WHERE name = 'tab3'")" "4:raw:2"
dropdb $db

# From 0.4.0: a user's model named mlf_warped2d is renamed by the update
# (mlf_warped2d_<owner>), which keeps it, and a warped_mog run of 0.4.0 (a
# Gaussian head, that version's default) resumes as it was; the summary gains θ.
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.4.0'" \
	-c "SELECT dac_import('mlf_warped2d', dac_export('mlf_mog2d'))" \
	-c "CALL dac_train('w4', 'warped_mog', '{\"steps\": 4, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 2, \"run_steps\": 2}')" >/dev/null
before=$(user_rows)
q -c "SET client_min_messages = error" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "0.4.0 updates to $default over a user's mlf_warped2d; the shipped flow model beside the user's, renamed" \
	"$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'"):$(q -c "SELECT string_agg(name || ':' || shipped || ':' || (config->>'density'), ' ' ORDER BY name) FROM dac_models WHERE name IN ('mlf_warped2d', 'mlf_warped2d_$owner')")" \
	"$default:mlf_warped2d:true:maf mlf_warped2d_$owner:false:gaussian_diag"
check "0.4.0 models, checkpoints and runs are kept" \
	"$(user_rows)" \
	"$(echo "$before" | sed "s/mlf_warped2d/mlf_warped2d_$owner/")"
q -c "SET client_min_messages = warning" -c "CALL dac_train('w4', 'warped_mog', '{\"resume\": true}')" >/dev/null 2>&1
check "a 0.4.0 warped_mog checkpoint resumes after the update, its Gaussian head kept" \
	"$(q -c "SELECT step FROM dac_checkpoints WHERE model = 'w4'"):$(q -c "SELECT config->>'density' FROM dac_models WHERE name = 'w4'")" "4:gaussian_diag"
check "the summary of a kept model has θ after the update" \
	"$(q -c "SELECT array_length(theta, 1) FROM dac_cluster_summary('{{0,0},{0.1,0},{5,5},{5,5.1}}'::real[], 'mlf_warped2d_$owner') LIMIT 1")" 4
dropdb $db

# From 0.5.0: a user's model named mlf_small2d is renamed by the update,
# which goes through beside the shipped small-group model, which then
# clusters the small groups of calls that name no model (dac.small_group_models).
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.5.0'" \
	-c "SELECT dac_import('mlf_small2d', dac_export('af_mog2d'))" \
	-c "CALL dac_train('g5', 'mog', '{\"steps\": 4, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 2, \"run_steps\": 2}')" >/dev/null
before=$(user_rows)
q -c "SET client_min_messages = error" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "0.5.0 updates to $default over a user's mlf_small2d; the shipped small-group model beside the user's, renamed" \
	"$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'"):$(q -c "SELECT string_agg(name || ':' || shipped || ':' || (config->>'dim_hidden') || ':' || (config->>'num_inds'), ' ' ORDER BY name) FROM dac_models WHERE name IN ('mlf_fast2d', 'mlf_small2d', 'mlf_small2d_$owner')")" \
	"$default:mlf_fast2d:true:64:8 mlf_small2d:true:64:8 mlf_small2d_$owner:false:128:32"
check "0.5.0 models, checkpoints and runs are kept" \
	"$(user_rows)" \
	"$(echo "$before" | sed "s/mlf_small2d/mlf_small2d_$owner/")"
q -c "SET client_min_messages = warning" -c "CALL dac_train('g5', 'mog', '{\"resume\": true}')" >/dev/null 2>&1
check "a 0.5.0 checkpoint resumes after the update" "$(q -c "SELECT step FROM dac_checkpoints WHERE model = 'g5'")" 4
check "after the update a small group that names no model is clustered by mlf_small2d" \
	"$(q -c "SELECT dac_clustering('{{0,0},{0.1,0},{5,5},{5,5.1}}'::real[])->>'model'")" mlf_small2d
dropdb $db

# From 0.6.0: no object changes; user models, runs and checkpoints kept, and a
# checkpoint resumes; a large group that names no model gets mlf_fast2d
# (dac.large_group_models), a user's default keeps its own.
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.6.0'" \
	-c "SELECT dac_import('mine6', dac_export('mlf64_mog2d'))" \
	-c "CALL dac_train('g6', 'mog', '{\"steps\": 4, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 2, \"run_steps\": 2}')" >/dev/null
before=$(user_rows)
q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "0.6.0 updates to $default" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
check "0.6.0 models (shipped and the user's), checkpoints and runs are kept" \
	"$(user_rows)" \
	"$before"
q -c "SET client_min_messages = warning" -c "CALL dac_train('g6', 'mog', '{\"resume\": true}')" >/dev/null 2>&1
check "a 0.6.0 checkpoint resumes after the update" "$(q -c "SELECT step FROM dac_checkpoints WHERE model = 'g6'")" 4
check "after the update a group of 1,185 rows that names no model is clustered by mlf_fast2d; the user's default keeps its own" \
	"$(q -c "SELECT dac_clustering(array_agg(x ORDER BY ord))->>'model' FROM dac_generate('mog', 1, 3000, 12, 922)"):$(q -c "SET dac.default_model = 'mine6'" -c "SELECT dac_clustering(array_agg(x ORDER BY ord))->>'model' FROM dac_generate('mog', 1, 3000, 12, 922)")" \
	"mlf_fast2d:mine6"
dropdb $db

# From 0.7.0: user models, runs, log rows and checkpoints kept; a checkpoint
# resumes, its run row and status read through the new training lock (a
# run in progress shows as running from another session); the old lock key
# function is gone; runs may no longer be recorded as dac_user.
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.7.0'" \
	-c "SELECT dac_import('mine7', dac_export('mlf64_mog2d'))" \
	-c "CALL dac_train('g7', 'mog', '{\"steps\": 4, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4, \"checkpoint_every\": 2, \"run_steps\": 2}')" >/dev/null
before=$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped" \
	-c "SELECT string_agg(model || ':' || step || ':' || md5(state), ' ' ORDER BY model) FROM dac_checkpoints" \
	-c "SELECT string_agg(run_id || ':' || model || ':' || status || ':' || step, ' ' ORDER BY run_id) FROM dac_training_runs" \
	-c "SELECT count(*) FROM dac_training_log")
q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "0.7.0 updates to $default" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
check "0.7.0 user models, checkpoints, runs and log rows are kept" \
	"$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped" \
		-c "SELECT string_agg(model || ':' || step || ':' || md5(state), ' ' ORDER BY model) FROM dac_checkpoints" \
		-c "SELECT string_agg(run_id || ':' || model || ':' || status || ':' || step, ' ' ORDER BY run_id) FROM dac_training_runs" \
		-c "SELECT count(*) FROM dac_training_log")" \
	"$before"
check "the 0.7.0 lock key function is gone, the 64-bit one is there" \
	"$(q -c "SELECT to_regprocedure('dac_internal.dac_train_lock_key(text)') IS NULL AND to_regprocedure('dac_internal.dac_train_lock_id(text)') IS NOT NULL")" t
q -c "SET client_min_messages = warning" -c "CALL dac_train('g7', 'mog', '{\"resume\": true, \"steps\": 2000, \"run_steps\": 1998}')" >/dev/null 2>&1 &
trainer=$!
# what another session sees while the run lasts (a short run on a loaded
# machine can end between two looks: the status is the one seen in the loop)
seen=none
for i in $(seq 1 200); do
	seen=$(q -c "SELECT status FROM dac_training_status WHERE model = 'g7' ORDER BY run_id DESC LIMIT 1")
	[ "$seen" = running ] && break
	sleep 0.05
done
check "a run resumed after the update shows as running from another session (the new lock)" "$seen" running
wait $trainer
check "and it finishes at the step asked for" "$(q -c "SELECT step FROM dac_checkpoints WHERE model = 'g7'")" 2000
check "after the update the runs policy refuses dac_user (and public) as an owner" \
	"$(q -c "SELECT pg_get_expr(polwithcheck, polrelid) ~ 'dac_may_own' AND NOT dac_internal.dac_may_own('dac_user') AND NOT dac_internal.dac_may_own('public') FROM pg_policy WHERE polname = 'dac_training_runs_owner'")" t
dropdb $db

# From 0.8.0: the shipped 2-D models come to take any units (input
# "scaled", version up by one); a user's 2-D model keeps its raw input and
# its bytes.  The 0.8.0 rows are made as 0.8.0 shipped them: the same
# weights with a raw input (a user's raw model's bytes stand in for them).
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.8.0'" \
	-c "CALL dac_train('raw8', 'mog', '{\"steps\": 2, \"batch\": 2, \"n_max\": 40, \"dim_hidden\": 16, \"num_inds\": 4}')" \
	-c "ALTER TABLE dac_models DISABLE TRIGGER dac_models_guard" \
	-c "UPDATE dac_models SET weights = (SELECT weights FROM dac_models WHERE name = 'raw8'), config = (SELECT config FROM dac_models WHERE name = 'raw8') WHERE name = 'mlf_fast2d'" \
	-c "ALTER TABLE dac_models ENABLE TRIGGER dac_models_guard" >/dev/null
before=$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped")
v8=$(q -c "SELECT version FROM dac_models WHERE name = 'mlf_fast2d'")
check "0.8.0's mlf_fast2d stands in with a raw input" "$(q -c "SELECT coalesce(config->>'input', 'raw') FROM dac_models WHERE name = 'mlf_fast2d'")" raw
q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "0.8.0 updates to $default" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
check "the six shipped 2-D models take any units after the update" \
	"$(q -c "SELECT string_agg(name || ':' || (config->>'input') || ':' || (config->>'unit_width'), ' ' ORDER BY name) FROM dac_models WHERE shipped AND config->>'dim_input' = '2'")" \
	"af_mog2d:scaled:0.25 mlf64_mog2d:scaled:0.25 mlf_fast2d:scaled:0.25 mlf_mog2d:scaled:0.25 mlf_small2d:scaled:0.25 mlf_warped2d:scaled:$(q -c "SELECT config->>'unit_width' FROM dac_models WHERE name = 'mlf_warped2d'")"
check "the replaced model's version goes up by one, and one more for its own settings (0.32.0): cached copies are read again" \
	"$(q -c "SELECT version FROM dac_models WHERE name = 'mlf_fast2d'")" "$((v8 + 2))"
check "the user's raw 2-D model keeps its bytes, version and raw input" \
	"$(q -c "SELECT string_agg(name || ':' || version || ':' || md5(weights), ' ' ORDER BY name) FROM dac_models WHERE NOT shipped"):$(q -c "SELECT coalesce(config->>'input', 'raw') FROM dac_models WHERE name = 'raw8'")" \
	"$before:raw"
check "the update adds the DROP EXTENSION guard (an event trigger of the extension)" \
	"$(q -c "SELECT count(*) FROM pg_event_trigger e JOIN pg_depend d ON d.objid = e.oid AND d.deptype = 'e' WHERE e.evtname = 'dac_guard_drop'")" 1
check "the updated default clusters points in kilometres as in metres" \
	"$(q -c "SELECT count(*) FROM (SELECT dac_cluster(x) OVER (PARTITION BY set_id ORDER BY ord) AS a, dac_cluster(ARRAY[x[1] * 1000 + 5e5, x[2] * 1000 + 5e6]) OVER (PARTITION BY set_id ORDER BY ord) AS b FROM dac_generate('mog', 3, 500, 4, 8)) s WHERE a IS DISTINCT FROM b")" 0
dropdb $db

# From 0.9.0: the graph stage is in the module (no new object); the
# clustering forms get costs that reflect the work; a user's embedding model,
# run and checkpoint trained under 0.9.0 are kept byte for byte and cluster
# with the graph stage after the update.
emb_user_db 0.9.0 emb9 \
	-c "CREATE VIEW emb_ids AS SELECT label, dac_cluster(x) OVER () AS c, dac_cluster(x, 'emb9', NULL) OVER () AS c2 FROM emb" \
	-c "CREATE VIEW emb_sets AS SELECT * FROM dac_cluster_set((SELECT array_agg(x) FROM emb LIMIT 1))"
before=$(user_rows)
check "0.9.0's window function has cost 1" "$(q -c "SELECT procost FROM pg_proc WHERE oid = 'dac_cluster(real[])'::regprocedure")" 1
q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "0.9.0 updates to $default" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
after=$(user_rows)
check "the user's embedding model, run and checkpoint are kept byte for byte" "$after" "$before"
check "the clustering forms' costs: the window function 1000 a row, the one-call forms 100000, the aggregate 1 (pushed down to shards)" \
	"$(q -c "SELECT string_agg(DISTINCT proname || ':' || procost, ' ' ORDER BY proname || ':' || procost) FROM pg_proc WHERE proname IN ('dac_cluster', 'dac_cluster_agg_final', 'dac_cluster_set', 'dac_cluster_summary', 'dac_clustering') AND pronargs >= 4 OR proname = 'dac_cluster_agg_final'")" \
	"dac_cluster:1000 dac_cluster_agg_final:1 dac_cluster_set:100000 dac_cluster_summary:100000 dac_clustering:100000"
check "a view made under 0.9.0 on dac_cluster(x), (x, model, previous) and dac_cluster_set still runs" \
	"$(q -c "SELECT count(c) = count(*) AND count(c2) = count(*) FROM emb_ids")$(q -c "SELECT count(*) > 0 FROM emb_sets")" tt
check "it calls 0.9.0's signatures, kept as _0_9" \
	"$(q -c "SELECT pg_get_viewdef('emb_ids') ~ 'dac_cluster_0_9' AND pg_get_viewdef('emb_sets') ~ 'dac_cluster_set_0_9'")" t
check "new calls take k => (and the other arguments named alone)" \
	"$(q -c "SELECT count(DISTINCT c) FROM (SELECT dac_cluster(x, k => 3) OVER () AS c FROM emb) s")$(q -c "SELECT count(*) > 0 FROM (SELECT dac_cluster(x, previous => 1) OVER () FROM emb) s")" 3t
check "the kept model clusters after the update, the graph stage on" \
	"$(q -c "SELECT count(DISTINCT c) > 0 FROM (SELECT dac_cluster(x, 'emb9') OVER () AS c FROM emb) s")" t
dropdb $db

# From 0.10.0: numeric[] and integer[] forms; kept clusterings carry a
# temperature and each cluster a stability (one kept under 0.10.0 has
# neither, made here by removing them, and keeps its probabilities);
# a user's model, run and checkpoint are kept byte for byte.
emb_user_db 0.10.0 emb10 \
	-c "CREATE TABLE kept AS SELECT jsonb_set(c, '{clusters}', (SELECT jsonb_agg(v - 'stability') FROM jsonb_array_elements(c->'clusters') u(v))) - 'temperature' AS c FROM (SELECT dac_clustering(array_agg(x)) AS c FROM emb) s" \
	-c "CREATE TABLE probs AS SELECT x, dac_assign_prob(x, c) AS p FROM emb, kept"
before=$(user_rows)
check "0.10.0 has no numeric[] form" "$(q -c "SELECT count(*) FROM pg_proc WHERE proargtypes[0] = 'numeric[]'::regtype AND proname LIKE 'dac%'")" 0
opts_before=$(q -c "SELECT dac_train_options('mog', '{}')" -c "SELECT dac_train_options('items_none', '{\"vector_column\": \"v\", \"label_column\": \"l\"}')" 2>&1)
q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "0.10.0 updates to $default" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
after=$(user_rows)
check "the user's model, run and checkpoint are kept byte for byte" "$after" "$before"
check "every vector form takes numeric[] and integer[], each commented" \
	"$(q -c "SELECT count(*) || ':' || count(obj_description(oid, 'pg_proc')) FROM pg_proc WHERE proargtypes[0] IN ('numeric[]'::regtype, 'integer[]'::regtype) AND prosrc <> 'dac_cluster_misused' AND pronamespace <> 'dac_internal'::regnamespace AND proname IN ('dac_cluster', 'dac_cluster_agg', 'dac_cluster_set', 'dac_cluster_summary', 'dac_cluster_ids', 'dac_clustering', 'dac_assign', 'dac_assign_prob', 'dac_filter')")" 24:24
check "the model clusters numeric[] rows after the update" \
	"$(q -c "SELECT count(c) = count(*) FROM (SELECT dac_cluster(x::numeric[], 'emb10') OVER () AS c FROM emb) s")" t
check "a clustering kept under 0.10.0 (no temperature, no stability) gives the same probabilities" \
	"$(q -c "SELECT bool_and(dac_assign_prob(x, c) = p) AND bool_and(NOT c ? 'temperature' AND NOT c->'clusters'->0 ? 'stability') FROM probs, kept")" t
check "dac_train_options gives the same options from the core's option table as 0.10.0 gave from its own (0.21.0's \"validate\" and 0.22.0's \"whiten\" aside)" \
	"$(q -c "SELECT dac_train_options('mog', '{}') - ARRAY['validate', 'whiten']" -c "SELECT dac_train_options('items_none', '{\"vector_column\": \"v\", \"label_column\": \"l\"}') - ARRAY['validate', 'whiten']" 2>&1)" "$opts_before"
check "a new one carries its temperature" \
	"$(q -c "SELECT (dac_clustering(array_agg(x)) ->> 'temperature')::float8 >= 1 FROM emb")" t
dropdb $db

# From 0.11.0: the image model (density "ns") and its training options; a
# user's model, run and checkpoint are kept byte for byte, a user's model
# named mlf_fmnist is renamed, and the options of every other kind of run are
# what 0.11.0 gave (the module's new image options aside, which a 0.11.0
# database sees from the newer module until it updates, 0.21.0's "validate"
# and 0.22.0's "whiten").
emb_user_db 0.11.0 emb11 \
	-c "SELECT dac_import('mlf_fmnist', dac_export('mlf_embed'))"
before=$(user_rows)
opts_q=(-c "SELECT dac_train_options('mog', '{}') - ARRAY['image_filters', 'image_latent', 'validate', 'whiten']"
	-c "SELECT dac_train_options('warped_mog', '{}') - ARRAY['image_filters', 'image_latent', 'validate', 'whiten']"
	-c "SELECT dac_train_options('items_none', '{\"vector_column\": \"v\", \"label_column\": \"l\"}') - ARRAY['image_filters', 'image_latent', 'validate', 'whiten']")
opts_before=$(q "${opts_q[@]}" 2>&1)
check "0.11.0 refuses the image model" \
	"$(q -c "SELECT dac_train_options('imgs', '{\"vector_column\": \"v\", \"label_column\": \"l\", \"density\": \"ns\"}')" 2>&1 | grep -o 'must be "gaussian_diag", "maf" or "none"')" 'must be "gaussian_diag", "maf" or "none"'
q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
check "0.11.0 updates to $default" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
after=$(user_rows)
check "the user's models, run and checkpoint are kept byte for byte, its mlf_fmnist renamed" "$after" \
	"$(echo "$before" | sed "s/mlf_fmnist/mlf_fmnist_$owner/")"
check "the shipped image model is installed beside it" \
	"$(q -c "SELECT string_agg(name || ':' || shipped || ':' || coalesce(config->>'model', config->>'density'), ' ' ORDER BY name) FROM dac_models WHERE name LIKE 'mlf_fmnist%'")" \
	"mlf_fmnist:true:neural_statistician_mixture mlf_fmnist_$owner:false:none"
check "the options of every other kind of run are unchanged" "$(q "${opts_q[@]}" 2>&1)" "$opts_before"
check "and carry no image option" \
	"$(q -c "SELECT count(*) FROM jsonb_object_keys(dac_train_options('mog', '{}')) k WHERE k LIKE 'image%'")" 0
check "an image model's options: raw pixels, the core's sizes" \
	"$(q -c "SELECT (o->>'input') || ' ' || (o->>'density') || ' ' || (o ? 'dim')::text FROM dac_train_options('imgs', '{\"vector_column\": \"v\", \"label_column\": \"l\", \"density\": \"ns\", \"image_latent\": 16}') o")" "raw ns false"
check "the model clusters after the update" \
	"$(q -c "SELECT count(c) = count(*) FROM (SELECT dac_cluster(x, 'emb11') OVER () AS c FROM emb) s")" t
dropdb $db

# From 0.12.0: the shipped image model's new weights.  A 0.12.0 database holds
# 0.12.0's bytes (stood for here by the shipped row with its bytes changed,
# since a fresh install reads today's file); the update takes the file's
# bytes and raises the row's version, and a user's model, run and checkpoint
# are kept byte for byte.
emb_user_db 0.12.0 emb12
old_shipped_bytes mlf_fmnist mlf_embed
before=$(user_rows)
v_before=$(q -c "SELECT version FROM dac_models WHERE name = 'mlf_fmnist'")
update_keeps_rows 0.12.0
check "the shipped image model has the file's bytes, its version one higher" \
	"$(q -c "SELECT weights = dac_internal.dac_shipped_weights('mlf_fmnist.safetensors') AND version = $v_before + 1 AND config->>'model' = 'neural_statistician_mixture' FROM dac_models WHERE name = 'mlf_fmnist'")" t
check "a shipped model the update does not refresh ends as a fresh install's (0.32.0 gives it its settings)" \
	"$(q -c "SELECT name || ':' || version || ':' || md5(weights) FROM dac_models WHERE name = 'mlf_mog2d'")" \
	"$(echo "$fresh_shipped" | tr ' ' '\n' | grep '^mlf_mog2d:')"
check "the image model clusters after the update" \
	"$(q -c "SELECT count(c) = 60 FROM (SELECT dac_cluster(array_fill(0.5::real, ARRAY[784]), 'mlf_fmnist') OVER () AS c FROM generate_series(1, 60)) s")" t
dropdb $db

# An update from version $1 that adds a setting of the module's ($3, default
# $4) and changes no SQL object: a user's model ($2), run and checkpoint are
# kept byte for byte; the shipped models end as a fresh install's (a fresh
# install of an old version reads today's files, and later updates change
# them alike).
setting_update() {
	local version=$1 model=$2 setting=$3 value=$4
	emb_user_db "$version" "$model"
	before=$(user_rows)
	update_keeps_rows "$version"
	check "$version: the shipped models' bytes and versions are a fresh install's" "$(q -c "$shipped_q")" "$fresh_shipped"
	check "$version: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
	check "$version: the new setting dac.$setting is there, at $value" \
		"$(q -c "SELECT dac_version() IS NOT NULL" -c "SHOW dac.$setting" | tail -1)" "$value"
	check "$version: the user's model clusters after the update" \
		"$(q -c "SELECT count(c) = count(*) FROM (SELECT dac_cluster(x, '$model') OVER () AS c FROM emb) s")" t
}

# From 0.12.1: the module's new setting dac.absorb_size (default 4) changes
# clusterings of models with a Gaussian or flow head, and SET
# dac.absorb_size = 1 gives 0.12.1's.
setting_update 0.12.1 emb13 absorb_size 4
dropdb $db

# An update from version $1 that refreshes shipped models (${@:3}, default
# mlf_warped2d): a database of that version holds their older bytes (stood for
# here by each shipped row with its bytes changed, since a fresh install reads
# today's files); the update takes each file's bytes and raises the row's
# version; the other shipped models end as a fresh install's; no SQL
# object is added or dropped; a user's model, run and checkpoint are kept byte
# for byte and the user's embedding model ($2) gives its group the same ids;
# each refreshed model still clusters.
shipped_refresh_update() {
	local version=$1 model=$2
	shift 2
	local names=("${@:-mlf_warped2d}")
	local list name
	list=$(printf "'%s'," "${names[@]}")
	list=${list%,}
	emb_user_db "$version" "$model"
	local -A v_before
	for name in "${names[@]}"; do
		case $name in
			mlf_fmnist) old_shipped_bytes mlf_fmnist mlf_embed ;;
			*) old_shipped_bytes "$name" mlf_mog2d ;;
		esac
		v_before[$name]=$(q -c "SELECT version FROM dac_models WHERE name = '$name'")
	done
	before=$(user_rows)
	local ids_q ids_before
	ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, '$model') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
	ids_before=$(q -c "$ids_q")
	update_keeps_rows "$version"
	local kind
	for name in "${names[@]}"; do
		# the kind of network the row must describe after the update
		case $name in
			mlf_fmnist) kind="config->>'model' = 'neural_statistician_mixture'" ;;
			*) kind="config->>'density' = 'maf'" ;;
		esac
		# the file's bytes, then (0.32.0) its own settings but for the image model's: one or two versions higher
		check "$version: the shipped $name has a fresh install's bytes, its version raised by each update that changed it" \
			"$(q -c "SELECT md5(weights) = split_part(substring('$fresh_shipped' FROM '$name:[^ ]*'), ':', 3) AND version = ${v_before[$name]} + 1 + ('$name' <> 'mlf_fmnist')::integer AND $kind FROM dac_models WHERE name = '$name'")" t
	done
	check "$version: the other shipped models' bytes and versions are a fresh install's" \
		"$(shipped_but "$list" "$(q -c "$shipped_q")")" "$(shipped_but "$list" "$fresh_shipped")"
	check "$version: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
	check "$version: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
	for name in "${names[@]}"; do
		case $name in
			mlf_fmnist)
				check "$version: the image model clusters after the update" \
					"$(q -c "SELECT count(c) = 60 FROM (SELECT dac_cluster(array_fill(0.5::real, ARRAY[784]), 'mlf_fmnist') OVER () AS c FROM generate_series(1, 60)) s")" t ;;
			*)
				check "$version: the warped model clusters after the update" \
					"$(q -c "SELECT count(c) = count(*) FROM (SELECT dac_cluster(x, '$name') OVER (PARTITION BY set_id) AS c FROM dac_generate('warped_mog', 2, 200, 3, 5)) s")" t ;;
		esac
	done
}

# From 0.13.0: no SQL object changes; the module's new setting dac.graph_merge
# (default 0.04) changes clusterings of embeddings, SET dac.graph_merge = 0
# gives 0.13.0's; the shipped warped model's new weights.
shipped_refresh_update 0.13.0 emb14
check "the new setting is there, at 0.04" "$(q -c "SELECT dac_version() IS NOT NULL" -c "SHOW dac.graph_merge" | tail -1)" 0.04
dropdb $db

# From 0.14.0: no SQL object changes; the shipped warped model's new weights.
shipped_refresh_update 0.14.0 emb15
dropdb $db

# From 0.15.0: no SQL object changes; the shipped warped model's new weights;
# the module's new setting dac.pair_merge (default 0.9) changes clusterings
# of flow models, SET dac.pair_merge = 0 gives 0.15.0's; the other new
# setting, dac.rotations, is off (1) by default.
shipped_refresh_update 0.15.0 emb16
for s in pair_merge:0.9 rotations:1; do
	check "0.15.0: the new setting dac.${s%%:*} is there, at ${s#*:}" \
		"$(q -c "SELECT dac_version() IS NOT NULL" -c "SHOW dac.${s%%:*}" | tail -1)" "${s#*:}"
done
dropdb $db

# From 0.16.0: no SQL object changes; the shipped warped model's new weights.
shipped_refresh_update 0.16.0 emb17
dropdb $db

# From 0.17.0: no SQL object changes; the shipped warped and image models' new weights.
shipped_refresh_update 0.17.0 emb18 mlf_warped2d mlf_fmnist
dropdb $db

# From 0.18.0: no SQL object or shipped model changes; the module's new
# setting dac.pair_split (default on) changes clusterings of flow models.
emb_user_db 0.18.0 emb19
before=$(user_rows)
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb19') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
ids_before=$(q -c "$ids_q")
update_keeps_rows 0.18.0
check "0.18.0: the shipped models' bytes and versions are a fresh install's" "$(q -c "$shipped_q")" "$fresh_shipped"
check "0.18.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.18.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
check "0.18.0: the new setting dac.pair_split is there, on" \
	"$(q -c "SELECT dac_version() IS NOT NULL" -c "SHOW dac.pair_split" | tail -1)" on
check "0.18.0: the warped model clusters after the update" \
	"$(q -c "SELECT count(c) = count(*) FROM (SELECT dac_cluster(x, 'mlf_warped2d') OVER (PARTITION BY set_id) AS c FROM dac_generate('warped_mog', 2, 200, 3, 5)) s")" t
dropdb $db

# From 0.19.0: no SQL object or setting changes; the shipped warped model's
# new weights.
shipped_refresh_update 0.19.0 emb20
dropdb $db

# From 0.20.0: training on a table validates itself ("validate"): the runs
# table gains the column "validation", dac_training_status shows it, one
# internal function is new.  A run paused under 0.20.0 resumes on every row
# (its checkpoint has no "validate") and is not validated; a new one is.
emb_user_db 0.20.0 emb21 \
	-c "CALL dac_train('emb21p', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"run_steps\": 2, \"batch\": 2, \"n_max\": 40, \"checkpoint_every\": 2, \"log_every\": 2}')"
before=$(user_rows)
objects_before=$(q -c "$objects_q")
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb21') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
ids_before=$(q -c "$ids_q")
update_keeps_rows 0.20.0
check "0.20.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.20.0: the new ones are dac_internal.dac_train_validate (0.21.0), dac_drop_model and dac_internal.dac_may_own (0.26.0), dac_pipeline (0.27.0), dac_internal.dac_models_owner_check and dac_set_readers in place of dac_require_owned (0.28.0), dac_cluster_lonlat (0.29.0; the clustering forms are checked with 0.35.0's width), the evaluation's zero_shot argument (0.30.0)" \
	"$(diff <(echo "$objects_before" | tr ';' '\n' | sed 's/^ //') <(echo "$fresh_objects" | tr ';' '\n' | sed 's/^ //') | grep '^[<>]' | grep -v "$objects_32" | grep -v "$objects_53" | grep -v "$forms_35" | grep -v "$vector_forms_27" | LC_ALL=C sort | tr '\n' '|')" \
	"$evaluate_30< function dac_internal.dac_require_owned(text)|> function dac_drop_model(text)|$evaluate_30_new> function dac_internal.dac_may_own(name)|> function dac_internal.dac_models_owner_check()|> function dac_internal.dac_set_readers(text,name,boolean)|> function dac_internal.dac_train_validate(text)|> function dac_pipeline(text,integer,integer,integer,integer)|"
check "0.20.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
check "0.20.0: the old runs have no validation, as the status view shows" \
	"$(q -c "SELECT count(*) || ':' || count(validation) FROM dac_training_status")" "2:0"
q -c "SET client_min_messages = warning" -c "CALL dac_train('emb21p', 'emb', '{\"resume\": true}')" >/dev/null
check "0.20.0: a paused run resumes to its end on every row, not validated" \
	"$(q -c "SELECT status || ':' || step || ':' || (validation IS NULL) || ':' || (options->>'validate') FROM dac_training_runs WHERE model = 'emb21p' ORDER BY run_id DESC LIMIT 1")" "finished:4:true:false"
q -c "SET client_min_messages = warning" \
	-c "CALL dac_train('emb21n', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 2, \"batch\": 2, \"n_max\": 40}')" >/dev/null
check "0.20.0: a new table run is validated against mlf_embed" \
	"$(q -c "SELECT (validation->>'held_out_rows')::int > 0 AND jsonb_typeof(validation->'start') = 'object' FROM dac_training_runs WHERE model = 'emb21n'")" t
dropdb $db

# From 0.21.0: a validated table run may whiten ("whiten"): dac_train_options
# and dac_train are replaced, no object is added or dropped.  A run paused
# under 0.21.0 resumes validated and not whitened (its checkpoint has no
# "whiten"); a new one whitens when the held-out sets say so.
emb_user_db 0.21.0 emb22 \
	-c "CALL dac_train('emb22p', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"run_steps\": 2, \"batch\": 2, \"n_max\": 40, \"checkpoint_every\": 2, \"log_every\": 2}')"
before=$(user_rows)
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb22') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
ids_before=$(q -c "$ids_q")
check "0.21.0: its runs were validated, not whitened" \
	"$(q -c "SELECT count(*) || ':' || count(validation) || ':' || count(*) FILTER (WHERE validation ? 'whiten' OR options ? 'whiten') FROM dac_training_runs")" "2:1:0"
update_keeps_rows 0.21.0
check "0.21.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.21.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
q -c "SET client_min_messages = warning" -c "CALL dac_train('emb22p', 'emb', '{\"resume\": true}')" >/dev/null
check "0.21.0: a paused run resumes to its end, validated and not whitened" \
	"$(q -c "SELECT status || ':' || step || ':' || (validation ? 'trained') || ':' || (validation ? 'whiten') || ':' || (options->>'whiten') FROM dac_training_runs WHERE model = 'emb22p' ORDER BY run_id DESC LIMIT 1")" \
	"finished:4:true:false:false"
q -c "SET client_min_messages = warning" \
	-c "CALL dac_train('emb22n', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 2, \"batch\": 2, \"n_max\": 40}')" >/dev/null
check "0.21.0: a new table run tries the whitening, and the model carries the map when it is kept" \
	"$(q -c "SELECT (options->>'whiten') || ':' || jsonb_array_length(validation->'whiten'->'scores') || ':' || ((validation->'whiten'->>'kept')::boolean = (m.config ? 'input_map')) FROM dac_training_runs r JOIN dac_models m ON m.name = r.model WHERE model = 'emb22n'")" \
	"true:3:true"
dropdb $db

# From 0.22.0: the whitening is scored on the held-out new rows of the trained
# labels, every held-out row guarding; dac_train is replaced for its NOTICE,
# no object is added or dropped.  A run paused under 0.22.0 resumes and its
# whitening is chosen by the new rule.
emb_user_db 0.22.0 emb23 \
	-c "CALL dac_train('emb23p', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"run_steps\": 2, \"batch\": 2, \"n_max\": 40, \"checkpoint_every\": 2, \"log_every\": 2}')"
before=$(user_rows)
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb23') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
ids_before=$(q -c "$ids_q")
update_keeps_rows 0.22.0
check "0.22.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.22.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
notices=$(q -c "CALL dac_train('emb23p', 'emb', '{\"resume\": true}')" 2>&1 | grep -c "against none on sets of new rows of the trained labels, .* on sets of every held-out row: ")
check "0.22.0: a paused run resumes to its end and says how its whitening was chosen" \
	"$(q -c "SELECT status || ':' || step || ':' || (validation->'whiten'->>'scored_on') || ':' || (validation->'whiten'->'every_held_out_row' ? 'map_minus_without') FROM dac_training_runs WHERE model = 'emb23p' ORDER BY run_id DESC LIMIT 1"):$notices" \
	"finished:4:new rows of the trained labels:true:1"
dropdb $db

# From 0.23.0: no SQL object changes; a projection kept from now on stores
# only its directions' rows ("input_map_rows").  A user's model with 0.23.0's
# square gated map (test/data/tiny_gated.safetensors, made by 0.23.0) keeps
# its bytes and clusters as before the update; a paused run resumes to its
# end; a new run that keeps a projection stores its rows only.
emb_user_db 0.23.0 emb24 \
	-c "CALL dac_train('emb24p', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"run_steps\": 2, \"batch\": 2, \"n_max\": 40, \"checkpoint_every\": 2, \"log_every\": 2}')"
printf '\\set w `base64 -w0 %s`\nSELECT dac_import(%s, decode(:%s, %s));\n' "$(dirname "$0")/data/tiny_gated.safetensors" \
	"'emb24sq'" "'w'" "'base64'" | q >/dev/null
check "0.23.0: the user's gated model holds a square map" \
	"$(q -c "SELECT (config->>'input_map') || ':' || (config->>'input_gate') || ':' || (config ? 'input_map_rows') FROM dac_models WHERE name = 'emb24sq'")" "4:3:false"
before=$(user_rows)
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb24') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
ids_before=$(q -c "$ids_q")
sq_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x[1:4], 'emb24sq') OVER (PARTITION BY label / 10) AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, label, x FROM emb) e) s"
sq_before=$(q -c "$sq_q")
update_keeps_rows 0.23.0
check "0.23.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.23.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
check "0.23.0: the user's square gated map gives the groups the same ids after the update" \
	"$(q -c "$sq_q")" "$sq_before"
q -c "SET client_min_messages = warning" -c "CALL dac_train('emb24p', 'emb', '{\"resume\": true}')" >/dev/null
check "0.23.0: a paused run resumes to its end" \
	"$(q -c "SELECT status || ':' || step FROM dac_training_runs WHERE model = 'emb24p' ORDER BY run_id DESC LIMIT 1")" "finished:4"
q -c "SELECT setseed(0.5)" \
	-c "CREATE TABLE six AS SELECT i AS id, l AS label, (SELECT array_agg(CASE k WHEN 1 THEN 3 * cos(l * 1.047) + 0.3 * (random() - 0.5) WHEN 2 THEN 3 * sin(l * 1.047) + 0.3 * (random() - 0.5) ELSE 6 * (random() - 0.5) END ORDER BY k)::real[] FROM generate_series(1, 16) k WHERE l >= 0) AS x FROM generate_series(0, 5) l, generate_series(1, 60) i" \
	-c "SET client_min_messages = warning" \
	-c "CALL dac_train('emb24new', 'six', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 2, \"batch\": 2, \"n_max\": 60}')" >/dev/null
check "0.23.0: a new run that keeps the projection stores its five rows" \
	"$(q -c "SELECT (config->>'input_map') || ':' || (config->>'input_map_rows') FROM dac_models WHERE name = 'emb24new'")" "16:5"
dropdb $db

# From 0.24.0: no SQL object changes; a new setting, dac.refine_rounds, in
# the module.  A user's table-trained model and a user's copy of the flow
# model keep their bytes and give the same ids after the update; a paused
# run resumes to its end; the user's flow model takes the new setting.
emb_user_db 0.24.0 emb25 \
	-c "CALL dac_train('emb25p', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"run_steps\": 2, \"batch\": 2, \"n_max\": 40, \"checkpoint_every\": 2, \"log_every\": 2}')" \
	-c "SELECT dac_import('warp25', dac_export('mlf_warped2d'))" \
	-c "CREATE TABLE wp AS SELECT set_id, ord, x FROM dac_generate('warped_mog', 3, 300, 4, 25, 2)"
before=$(user_rows)
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb25') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
ids_before=$(q -c "$ids_q")
wp_q="SELECT string_agg(c::text, ',' ORDER BY set_id, ord) FROM (SELECT set_id, ord, dac_cluster(x, 'warp25') OVER (PARTITION BY set_id) AS c FROM wp) s"
wp_before=$(q -c "$wp_q")
update_keeps_rows 0.24.0
check "0.24.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.24.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
check "0.24.0: the user's flow model gives the warped groups the same ids after the update" "$(q -c "$wp_q")" "$wp_before"
q -c "SET client_min_messages = warning" -c "CALL dac_train('emb25p', 'emb', '{\"resume\": true}')" >/dev/null
check "0.24.0: a paused run resumes to its end" \
	"$(q -c "SELECT status || ':' || step FROM dac_training_runs WHERE model = 'emb25p' ORDER BY run_id DESC LIMIT 1")" "finished:4"
check "0.24.0: the user's flow model takes dac.refine_rounds, every row clustered" \
	"$(q -c "SET dac.refine_rounds = 1" -c "SELECT count(c) = count(*) AND count(*) > 0 FROM (SELECT dac_cluster(x, 'warp25') OVER (PARTITION BY set_id) AS c FROM wp) s")" "t"
dropdb $db

# From 0.25.0: the hostile-role review.  A member of dac_user (upg_alice)
# trains a model and pauses a run under 0.25.0; after the update her rows
# are kept byte for byte, the tables' privileges and policies are a fresh
# install's (no UPDATE or DELETE on a whole table), her model gives the
# same ids, her paused run resumes, and she replaces and drops her model.
psql -X -q -d postgres -c "DROP ROLE IF EXISTS upg_alice" -c "CREATE ROLE upg_alice" >/dev/null 2>&1
createdb $db
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac VERSION '0.25.0'" -c "GRANT dac_user TO upg_alice" \
	-c "CREATE TABLE emb AS SELECT set_id * 10 + label AS label, x FROM dac_generate('embed', 4, 200, 3, 5, 16)" \
	-c "GRANT SELECT ON emb TO upg_alice" -c "SET ROLE upg_alice" \
	-c "CALL dac_train('emb26', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"batch\": 2, \"n_max\": 40, \"checkpoint_every\": 2, \"log_every\": 2}')" \
	-c "CALL dac_train('emb26p', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 4, \"run_steps\": 2, \"batch\": 2, \"n_max\": 40, \"checkpoint_every\": 2, \"log_every\": 2}')" \
	-c "SELECT dac_import('kept26', dac_export('af_mog2d'))" >/dev/null
before=$(user_rows)
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb26') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
ids_before=$(q -c "$ids_q")
check "0.25.0: dac_user holds UPDATE and DELETE on the whole of dac_models (what 0.26.0 takes back)" \
	"$(q -c "SELECT has_table_privilege('dac_user', 'dac_models', 'UPDATE') AND has_table_privilege('dac_user', 'dac_models', 'DELETE')")" t
update_keeps_rows 0.25.0
check "0.25.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.25.0: the tables' privileges and policies are a fresh install's" "$(q -c "$acl_q")" "$fresh_acls"
check "0.25.0: the user's model gives the group the same ids after the update" "$(q -c "SET ROLE upg_alice" -c "$ids_q")" "$ids_before"
q -c "SET client_min_messages = warning" -c "SET ROLE upg_alice" -c "CALL dac_train('emb26p', 'emb', '{\"resume\": true}')" >/dev/null
check "0.25.0: her paused run resumes to its end" \
	"$(q -c "SET ROLE upg_alice" -c "SELECT status || ':' || step FROM dac_training_runs WHERE model = 'emb26p' ORDER BY run_id DESC LIMIT 1")" "finished:4"
check "0.25.0: she replaces her model's weights and drops it with its runs and checkpoint" \
	"$(q -c "SET ROLE upg_alice" -c "UPDATE dac_models SET weights = (SELECT weights FROM dac_models WHERE name = 'kept26'), config = (SELECT config FROM dac_models WHERE name = 'kept26') WHERE name = 'emb26p'" \
		-c "SELECT dac_drop_model('emb26p')" -c "SELECT (SELECT count(*) FROM dac_models WHERE name = 'emb26p') + (SELECT count(*) FROM dac_training_runs WHERE model = 'emb26p') + (SELECT count(*) FROM dac_checkpoints WHERE model = 'emb26p')" | tail -1)" 0
dropdb $db

# From 0.26.0: the stages declared once.  A member's model, run and
# checkpoint are kept byte for byte; her model's clusterings (ids, and the
# kept clustering but for the stages it now names) are 0.26.0's; the one new
# function says which stages her model runs.
emb_user_db 0.26.0 emb27
before=$(user_rows)
objects_before=$(q -c "$objects_q")
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb27') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
kept_q="SELECT md5((dac_clustering(array_agg(x ORDER BY label, x), 'emb27') - 'stages')::text) FROM emb"
ids_before=$(q -c "$ids_q")
kept_before=$(q -c "$kept_q")
update_keeps_rows 0.26.0
check "0.26.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.26.0: the new objects are dac_pipeline, (0.28.0) dac_internal.dac_models_owner_check and dac_set_readers in place of dac_require_owned, (0.29.0) dac_cluster_lonlat (the clustering forms are checked with 0.35.0's width), and (0.30.0) the evaluation's zero_shot argument" \
	"$(diff <(echo "$objects_before" | tr ';' '\n' | sed 's/^ //') <(echo "$fresh_objects" | tr ';' '\n' | sed 's/^ //') | grep '^[<>]' | grep -v "$objects_32" | grep -v "$objects_53" | grep -v "$forms_35" | grep -v "$vector_forms_27" | LC_ALL=C sort | tr '\n' '|')" \
	"$evaluate_30< function dac_internal.dac_require_owned(text)|$evaluate_30_new> function dac_internal.dac_models_owner_check()|> function dac_internal.dac_set_readers(text,name,boolean)|> function dac_pipeline(text,integer,integer,integer,integer)|"
check "0.26.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
check "0.26.0: and the same kept clustering" "$(q -c "$kept_q")" "$kept_before"
check "0.26.0: dac_pipeline names the stages her model runs" \
	"$(q -c "SELECT string_agg(stage, ',' ORDER BY ord) FROM dac_pipeline('emb27', 200, 16) WHERE runs")" "distinct,passes,leftover,kmeans,k_search,graph,one_cluster"
dropdb $db
# From 0.27.0: ownership and sharing refuse with messages that name the
# fix.  A model, run and checkpoint are kept byte for byte; the SQL objects
# are a fresh install's (0.28.0 adds a trigger function and replaces one); the model's
# ids are 0.27.0's; a member handing her model to a role she is not a member
# of is told so by dac (it was row-level security's raw refusal), and
# sharing a shipped model is a NOTICE, for a superuser too.
emb_user_db 0.27.0 emb28 -c "GRANT dac_user TO upg_alice"
before=$(user_rows)
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb28') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
ids_before=$(q -c "$ids_q")
super=$(q -c "SELECT current_user")
hand_q="SELECT dac_import('alice28', dac_export('mlf_mog2d')) > 0; UPDATE dac_models SET owner = '$super' WHERE name = 'alice28'"
check "0.27.0: handing a model to a role one is not a member of was row-level security's raw refusal" \
	"$(q -c "SET ROLE upg_alice" -c "$hand_q" 2>&1 | grep -o 'violates row-level security' | head -1)" "violates row-level security"
q -c "DELETE FROM dac_models WHERE name = 'alice28'" >/dev/null
update_keeps_rows 0.27.0
check "0.27.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.27.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
check "0.27.0: handing a model to a role one is not a member of now says so, with a hint" \
	"$(q -c "SET ROLE upg_alice" -c "$hand_q" 2>&1 | grep -o "cannot be handed to role \"$super\"\\|HINT:  Let that role use it instead" | tr '\n' '|')" \
	"cannot be handed to role \"$super\"|HINT:  Let that role use it instead|"
check "0.27.0: sharing a shipped model is a NOTICE, not the guard's error" \
	"$(q -c "SELECT dac_share_model('mlf_mog2d', 'public')" 2>&1 | grep -o 'NOTICE:  model "mlf_mog2d" is shipped\|ERROR' | head -1)" 'NOTICE:  model "mlf_mog2d" is shipped'
dropdb $db
# From 0.28.0: equal rows are clustered once, and dac_cluster_lonlat is new.
# A model, run and checkpoint are kept byte for byte; the SQL objects are a
# fresh install's; a group without repeated rows gets 0.28.0's ids; in a
# group whose every row comes three times, each copy now gets the id its
# row gets alone.
emb_user_db 0.28.0 emb29
before=$(user_rows)
objects_before=$(q -c "$objects_q")
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb29') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
thrice_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, r, dac_cluster(x, 'emb29') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e, generate_series(1, 3) r) s WHERE r = 1"
ids_before=$(q -c "$ids_q")
update_keeps_rows 0.28.0
check "0.28.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.28.0: the new objects are dac_cluster_lonlat (the clustering forms are checked with 0.35.0's width) and (0.30.0) the evaluation's zero_shot argument" \
	"$(diff <(echo "$objects_before" | tr ';' '\n' | sed 's/^ //') <(echo "$fresh_objects" | tr ';' '\n' | sed 's/^ //') | grep '^[<>]' | grep -v "$objects_32" | grep -v "$objects_53" | grep -v "$forms_35" | LC_ALL=C sort | tr '\n' '|')" \
	"$evaluate_30$evaluate_30_new"
check "0.28.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
check "0.28.0: every row three times: each copy gets its row's id alone" "$(q -c "$thrice_q")" "$ids_before"
dropdb $db
# From 0.29.0: a validated run keeps the trained weights only when they are
# ahead of the start (a table of 10 groups or more holds groups out whole),
# and dac_evaluate scores a table's own groups by default, with the default
# model beside.  A model, run (its validation record as 0.29.0 wrote it)
# and checkpoint are kept byte for byte; the SQL objects are a fresh
# install's; the model's ids are 0.29.0's.
emb_user_db 0.29.0 emb30
before=$(user_rows)
objects_before=$(q -c "$objects_q")
validation_before=$(q -c "SELECT md5(validation::text) FROM dac_training_runs WHERE model = 'emb30'")
ids_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb30') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s"
ids_before=$(q -c "$ids_q")
update_keeps_rows 0.29.0
check "0.29.0: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
check "0.29.0: the changed objects are the evaluation's, with their zero_shot argument" \
	"$(diff <(echo "$objects_before" | tr ';' '\n' | sed 's/^ //') <(echo "$fresh_objects" | tr ';' '\n' | sed 's/^ //') | grep '^[<>]' | grep -v "$objects_32" | grep -v "$objects_53" | grep -v "$forms_35" | LC_ALL=C sort | tr '\n' '|')" \
	"$evaluate_30$evaluate_30_new"
check "0.29.0: the run's validation record is 0.29.0's" \
	"$(q -c "SELECT md5(validation::text) FROM dac_training_runs WHERE model = 'emb30'")" "$validation_before"
check "0.29.0: the user's model gives the group the same ids after the update" "$(q -c "$ids_q")" "$ids_before"
check "0.29.0: dac_evaluate scores the user's model and the default beside it" \
	"$(q -c "SELECT ari IS NOT NULL AND zero_shot_ari IS NOT NULL FROM dac_evaluate('emb30', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"sets\": 3, \"n_max\": 50}')")" t
dropdb $db
# From 0.30.0: the one-cluster test, a stage of the module; no SQL object
# changes.  A model, run and checkpoint are kept byte for byte; the SQL
# objects are 0.30.0's and a fresh install's; the model's ids are 0.30.0's.
emb_user_db 0.30.0 emb31
state_before() { user_rows; q -c "$(emb_ids_q "$1")"; }
# the SQL objects of this database against those of before ($1), as lines < (gone) and > (new),
# but 0.35.0's change ("width": that change alone)
objects_diff() {
	diff <(echo "$1" | tr ';' '\n' | sed 's/^ //') <(q -c "$objects_q" | tr ';' '\n' | sed 's/^ //') | grep '^[<>]' |
		if [ "${2:-}" = width ]; then grep "$forms_35"; else grep -v "$forms_35"; fi |
		if [ "${2:-}" = all ]; then cat; else grep -v "$objects_53"; fi | LC_ALL=C sort | tr '\n' '|'
}
# ALTER EXTENSION dac UPDATE from version $1, whose user's model is $2: the
# user's rows and the model's ids are as before ($before), the SQL objects
# a fresh install's, and the new ones (against $objects_before) 0.32.0's,
# or none where $3 is "none" (0.53.0's aside), or those of $4 (as objects_diff lists them; $3 names them)
update_keeps_state() {
	q -c "SET client_min_messages = warning" -c "ALTER EXTENSION dac UPDATE" >/dev/null
	check "$1 updates to $default" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dac'")" "$default"
	check "$1: the user's model, run and checkpoint byte for byte and the model's ids are as before" \
		"$(state_before "$2")" "$before"
	check "$1: the SQL objects are a fresh install's" "$(q -c "$objects_q")" "$fresh_objects"
	if [ "${3:-}" = none ]; then
		check "$1: no SQL object is new (0.35.0's clustering forms aside, checked from 0.34.0)" "$(objects_diff "$objects_before")" ""
	elif [ -n "${4:-}" ]; then
		check "$1: the new ones are $3" "$(objects_diff "$objects_before" all)" "$4"
	else
		check "$1: the new ones are (0.32.0) dac_model_settings, dac_weights_with_settings and dac_tune" \
			"$(objects_diff "$objects_before")" "$new_objects_32"
	fi
}
before=$(state_before emb31)
objects_before=$(q -c "$objects_q")
update_keeps_state 0.30.0 emb31
check "0.30.0: dac_pipeline lists the one-cluster test for the user's model" \
	"$(q -c "SELECT runs FROM dac_pipeline('emb31', 200) WHERE stage = 'one_cluster'")" t
dropdb $db
# From 0.31.0: a model carries its own settings.  The shipped models now do,
# at 0.31.0's defaults; a user's model, run and checkpoint are kept byte for
# byte, carry none, and give the same ids; three functions are new; a model trained from a shipped one after the
# update carries its settings.
emb_user_db 0.31.0 emb32
before=$(state_before emb32)
objects_before=$(q -c "$objects_q")
shipped_ids_q="SELECT string_agg(c::text, ',' ORDER BY set_id, ord) FROM (SELECT set_id, ord, dac_cluster(x, 'mlf_embed') OVER (PARTITION BY set_id) AS c FROM dac_generate('embed', 3, 200, 6, 42, 16)) s"
shipped_ids_before=$(q -c "$shipped_ids_q")
update_keeps_state 0.31.0 emb32
check "0.31.0: the shipped models' bytes and versions are a fresh install's" "$(q -c "$shipped_q")" "$fresh_shipped"
check "0.31.0: mlf_embed carries its six settings, the user's model none" \
	"$(q -c "SELECT (SELECT count(*) FROM dac_model_settings('mlf_embed') WHERE source = 'model') || ',' || (SELECT count(*) FROM dac_model_settings('emb32') WHERE source = 'model')")" "6,0"
check "0.31.0: mlf_embed gives the same ids as under 0.31.0" "$(q -c "$shipped_ids_q")" "$shipped_ids_before"
q -c "SET client_min_messages = warning" \
	-c "CALL dac_train('emb32b', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"steps\": 2, \"batch\": 2, \"n_max\": 40}')" >/dev/null
check "0.31.0: dac_tune makes a model of the user's whose resolution is one of the ten pairs it tried" \
	"$(q -c "SELECT count(*) || ':' || count(*) FILTER (WHERE chosen) FROM dac_tune('emb32t', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"group_column\": \"label\"}')"):$(q -c "SELECT source FROM dac_model_settings('emb32t') WHERE setting = 'graph_resolution'")" "10:1:model"
check "0.31.0: a model trained after the update carries mlf_embed's settings" \
	"$(q -c "SELECT string_agg(setting || '=' || value, ',' ORDER BY setting) FROM dac_model_settings('emb32b') WHERE source = 'model'")" \
	"graph_merge=0.04,graph_neighbors=5,graph_resolution=0.05,k_search=2,kmeans_steps=10,sample_size=1000"
dropdb $db
# An update that changes the module alone, from version $1 with the user's
# model $2: the user's model, run and checkpoint are kept byte for byte and
# give the same ids; no SQL object changes; the shipped rows are a fresh
# install's.
module_only_update() {
	emb_user_db "$1" "$2"
	before=$(state_before "$2")
	objects_before=$(q -c "$objects_q")
	update_keeps_state "$1" "$2" none
	check "$1: the shipped models' bytes and versions are a fresh install's" "$(q -c "$shipped_q")" "$fresh_shipped"
	dropdb $db
}
# From 0.32.0: the 2-D frame reads the width where every row counts.
module_only_update 0.32.0 emb33
# From 0.33.0: dac.cluster_width, and dac.noise's test (a cluster's tail read
# with its members' correlation, and isolation).
module_only_update 0.33.0 emb34
# From 0.34.0: width => in every clustering form.  Each 0.34.0 signature
# moves to dac_internal, where a view made before the update keeps calling
# it; the new one takes its privileges.
psql -X -q -d postgres -c "DROP ROLE IF EXISTS upg_bob" -c "CREATE ROLE upg_bob" >/dev/null 2>&1
lonlat_34='dac_cluster_lonlat(double precision, double precision, text, integer, integer, integer)'
emb_user_db 0.34.0 emb35 \
	-c "CREATE VIEW emb_ids AS SELECT ord, dac_cluster(x, 'emb35') OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e" \
	-c "REVOKE EXECUTE ON FUNCTION $lonlat_34 FROM PUBLIC" -c "GRANT EXECUTE ON FUNCTION $lonlat_34 TO upg_bob"
before=$(state_before emb35)
objects_before=$(q -c "$objects_q")
view_q="SELECT string_agg(c::text, ',' ORDER BY ord) FROM emb_ids"
view_before=$(q -c "$view_q")
acl_before=$(q -c "SELECT proacl FROM pg_proc WHERE oid = '$lonlat_34'::regprocedure")
update_keeps_state 0.34.0 emb35 none
# each 0.34.0 signature (< name(args)) is now > dac_internal.name(args) and > name(args,double precision)
forms_gone=$(echo "$objects_before" | tr ';' '\n' | sed 's/^ //' | grep "^function dac_cluster\(_lonlat\|_ids\|_set\|_summary\|ing\)\?(.*max_k\|^function dac_cluster\(_lonlat\|_ids\|_set\|_summary\|ing\)\?(.*integer,integer)$")
width_expected=$( (echo "$forms_gone" | sed 's/^/< /'; echo "$forms_gone" | sed 's/^function /> function dac_internal./'; echo "$forms_gone" | sed 's/^/> /; s/)$/,double precision)/') | LC_ALL=C sort | tr '\n' '|')
check "0.34.0: 27 clustering forms, each moved to dac_internal with a width signature in its place" \
	"$(echo "$forms_gone" | wc -l):$(objects_diff "$objects_before" width)" "27:$width_expected"
check "0.34.0: the view made before the update gives the same ids, through dac_internal" \
	"$(q -c "$view_q"):$(q -c "SELECT pg_get_viewdef('emb_ids') LIKE '%dac_internal.dac_cluster(%'")" "$view_before:t"
check "0.34.0: the width signature of dac_cluster_lonlat has the privileges its 0.34.0 one had" \
	"$(q -c "SELECT proacl FROM pg_proc WHERE oid = 'dac_cluster_lonlat(double precision, double precision, text, integer, integer, integer, double precision)'::regprocedure"):$(q -c "SELECT has_function_privilege('upg_bob', 'dac_cluster_lonlat(float8, float8, text, integer, integer, integer, float8)', 'EXECUTE')::text || has_function_privilege('public', 'dac_cluster_lonlat(float8, float8, text, integer, integer, integer, float8)', 'EXECUTE')::text")" \
	"$acl_before:truefalse"
check "0.34.0: a call without width gives the ids the 0.34.0 signature gives; width => 0 too" \
	"$(q -c "$(emb_ids_q emb35)"):$(q -c "SELECT string_agg(c::text, ',' ORDER BY ord) FROM (SELECT ord, dac_cluster(x, 'emb35', width => 0) OVER () AS c FROM (SELECT row_number() OVER (ORDER BY label, x) AS ord, x FROM emb) e) s")" \
	"$view_before:$view_before"
check "0.34.0: the database's dump, its view on dac_internal among it, restores into a fresh install and gives the same ids" \
	"$(pg_dump $db >/tmp/dac_upgrade.sql && dropdb ${db}2 2>/dev/null; createdb ${db}2 && psql -X -q -d ${db}2 -f /tmp/dac_upgrade.sql >/dev/null 2>&1 && psql -X -At -d ${db}2 -c "$view_q")" "$view_before"
rm -f /tmp/dac_upgrade.sql
dropdb ${db}2 >/dev/null 2>&1
dropdb $db
# From 0.35.0: the one-cluster test also reads a group's normal scores.
module_only_update 0.35.0 emb36
# From 0.36.0: dac.seed is gone.  A database that set it (before the module
# loads, as a 0.36.0 one holds it) keeps working: the module drops the
# setting with a warning that names it.
emb_user_db 0.36.0 emb37
q -c "ALTER DATABASE $db SET dac.seed = 5" >/dev/null
before=$(state_before emb37 2>/dev/null)
objects_before=$(q -c "$objects_q")
update_keeps_state 0.36.0 emb37 none
check "0.36.0: a database that set dac.seed still clusters, with a warning that names the setting" \
	"$(q -c "SELECT count(DISTINCT c) > 1 FROM (SELECT dac_cluster(x) OVER () AS c FROM emb) s" 2>&1 | grep -c 'dac.seed\|^t$')" 2
check "0.36.0: SET dac.seed is refused once the module is loaded" \
	"$(q -c "SELECT dac_version() IS NOT NULL" -c "SET dac.seed = 5" 2>&1 | grep -c '^ERROR: .*invalid configuration parameter name "dac.seed"')" 1
dropdb $db
# From 0.37.0: the one-cluster test also reads a group's neighbour graph.
module_only_update 0.37.0 emb38
# From 0.38.0: a count asked for is reached by ridgelines (2-D) or modularity.
module_only_update 0.38.0 emb39
# From 0.39.0: the one-cluster test reads a sample and cheaper references.
module_only_update 0.39.0 emb40
# From 0.40.0: the same labels from vector kernels; OpenBLAS starts no worker.
module_only_update 0.40.0 emb41
# From 0.41.0: the graph stage counts at two scales.
module_only_update 0.41.0 emb42
# From 0.42.0: every mistake's error names the fix, the PL/pgSQL ones too.
emb_user_db 0.42.0 emb43
before=$(state_before emb43)
objects_before=$(q -c "$objects_q")
check "0.42.0: before the update, a training option of the wrong type has no hint" \
	"$(q -c "SELECT dac_train_options('mog', '{\"steps\": \"many\"}')" 2>&1 | grep -c '^HINT:')" 0
update_keeps_state 0.42.0 emb43 none
check "0.42.0: the shipped models' bytes and versions are a fresh install's" "$(q -c "$shipped_q")" "$fresh_shipped"
check "0.42.0: after it, the error names the fix" \
	"$(q -c "SELECT dac_train_options('mog', '{\"steps\": \"many\"}')" 2>&1 | grep -c '^HINT:  Write it as a JSON number')" 1
dropdb $db
# From 0.43.0: the normal scores' one-cluster test reads structure and the sample's size.
module_only_update 0.43.0 emb44
# From 0.44.0: 2-D groups left as one cluster are tested; rows a pass leaves are framed again.
module_only_update 0.44.0 emb45
# From 0.45.0: with a 2-D model, every cluster the passes found is tested.
module_only_update 0.45.0 emb46
# From 0.46.0: with a 2-D model, a pass's halves of one Gaussian are joined.
module_only_update 0.46.0 emb47
# From 0.47.0: given k, the graph's referee reads modularity and silhouette together.
module_only_update 0.47.0 emb48
# From 0.48.0: a clean split of one cluster beats each of 20 Gaussians, not their mean.
module_only_update 0.48.0 emb49
# From 0.49.0: the graph's communities are Leiden's runs until the modularity stops rising.
module_only_update 0.49.0 emb50
# From 0.50.0: the one-cluster test's Gaussians read normals a backend keeps (the same labels).
module_only_update 0.50.0 emb51
# From 0.51.0: dac.graph_merge 0 is one scale, and dac_tune (its result
# type changed: dropped and created again) tries each resolution at both.
emb_user_db 0.51.0 emb52
before=$(state_before emb52)
objects_before=$(q -c "$objects_q")
update_keeps_state 0.51.0 emb52 none
check "0.51.0: the shipped models' bytes and versions are a fresh install's" "$(q -c "$shipped_q")" "$fresh_shipped"
check "0.51.0: dac_tune tries ten pairs, five at one scale, and the tuned model carries the chosen pair" \
	"$(q -c "SELECT count(*) || ':' || count(*) FILTER (WHERE graph_merge = 0) || ':' || count(*) FILTER (WHERE chosen) FROM dac_tune('emb52t', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"group_column\": \"label\"}')"):$(q -c "SELECT count(*) FROM dac_model_settings('emb52t') WHERE source = 'model' AND setting IN ('graph_resolution', 'graph_merge')")" \
	"10:5:1:2"
dropdb $db
# From 0.52.0: dac_tune keeps its choice only where each group, scored by the
# pair the other groups choose, leads the start's (two internal functions are new).
emb_user_db 0.52.0 emb53
before=$(state_before emb53)
objects_before=$(q -c "$objects_q")
update_keeps_state 0.52.0 emb53 "dac_internal's dac_choice_check and dac_evaluate_group_aris" "$new_objects_53"
check "0.52.0: the shipped models' bytes and versions are a fresh install's" "$(q -c "$shipped_q")" "$fresh_shipped"
check "0.52.0: dac_tune still tries ten pairs, the model carries the chosen one and records its check" \
	"$(q -c "SELECT count(*) || ':' || count(*) FILTER (WHERE chosen) FROM dac_tune('emb53t', 'emb', '{\"vector_column\": \"x\", \"label_column\": \"label\", \"group_column\": \"label\"}')"):$(q -c "SELECT metrics->'check' ?& ARRAY['start_ari', 'left_out_ari', 'lead', 'se', 'kept'] FROM dac_models WHERE name = 'emb53t'")" \
	"10:1:t"
dropdb $db
psql -X -q -d postgres -c "DROP ROLE IF EXISTS upg_alice" -c "DROP ROLE IF EXISTS upg_bob" >/dev/null 2>&1
exit $fail
