#!/usr/bin/env bash
# A table's trained model against zero-shot, the way a user meets it: a
# table of groups of scikit-learn's 8x8 digits 0-5 (64 pixel values a row,
# label the digit, 40 groups of 50-300 rows of 2-6 digits), trained with
# dac_train given only its three columns (the README's defaults: mlf_embed
# fine-tuned for 2,000 steps, "validate" on); then the run's own record (what
# it held out, both scores, what it kept) beside dac_evaluate on groups of
# the digits 6-9 it never saw (40 groups of 50-300 rows of 2-4 digits), each
# clustered whole, the default model beside; and the same run with
# "validate": false (trained on every row, nothing checked), scored there
# too: what keeping trained weights unchecked gives.  Prints one table:
# model's ARI, zero-shot's (the start's), the difference, its standard
# error and what the run kept.
#   pg_virtualenv -t -v 15 bash test/bench/honest.sh DIR [SEED (1)]
# About 20 minutes on one core (two trainings).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p "$1"
dir=$(cd "$1" && pwd)
seed=${2:-1}
/usr/bin/python3 - "$dir" "$seed" <<'PY'
import sys
import numpy as np
from sklearn.datasets import load_digits
d, seed = sys.argv[1], int(sys.argv[2])
X, y = load_digits(return_X_y=True)
rng = np.random.default_rng(seed)
for name, classes, kmax in (("train", range(6), 6), ("unseen", range(6, 10), 4)):
    with open("%s/%s.csv" % (d, name), "w") as f:
        for g in range(40):
            k = rng.integers(2, kmax + 1)
            cl = rng.choice(list(classes), k, replace=False)
            n = rng.integers(50, 301)
            rows = rng.choice(np.flatnonzero(np.isin(y, cl)), min(n, int(np.isin(y, cl).sum())), replace=False)
            for r in rows:
                f.write('%d,%d,"{%s}"\n' % (g, y[r], ",".join("%g" % v for v in X[r])))
PY
chmod -R a+rX "$dir" 2>/dev/null || true
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS dac" \
	-c "DROP TABLE IF EXISTS dig_train, dig_unseen" \
	-c "CREATE TABLE dig_train (grp int, digit int, px real[])" -c "\copy dig_train FROM '$dir/train.csv' CSV" \
	-c "CREATE TABLE dig_unseen (grp int, digit int, px real[])" -c "\copy dig_unseen FROM '$dir/unseen.csv' CSV" \
	-c "SELECT dac_drop_model(name) FROM dac_models WHERE name IN ('honest_digits', 'honest_unchecked')" > /dev/null
t0=$(date +%s)
q -c "SET client_min_messages = warning" \
	-c "CALL dac_train('honest_digits', 'dig_train', '{\"vector_column\": \"px\", \"label_column\": \"digit\", \"group_column\": \"grp\", \"seed\": $seed}')"
t1=$(date +%s)
echo "training: $((t1 - t0)) s"
q -F ' | ' -c "SELECT 'the run''s check (' || (v->>'scored_on') || ', ' || (v->>'held_out_groups') || ' groups and '
                      || (v->>'held_out_labels') || ' digit held out; ' || (v->>'sets') || ' sets)',
                      v->'trained'->>'ari', v->'start'->>'ari', v->'trained_minus_start'->>'ari', v->'trained_minus_start'->>'se', v->>'kept'
               FROM (SELECT validation AS v FROM dac_training_runs WHERE model = 'honest_digits') r"
q -F ' | ' -c "SELECT 'dac_evaluate, whole groups of the unseen digits 6-9 (' || sets || ')', round(ari::numeric, 4),
                      round(zero_shot_ari::numeric, 4), round((ari - zero_shot_ari)::numeric, 4), '', ''
               FROM dac_evaluate('honest_digits', 'dig_unseen', '{\"vector_column\": \"px\", \"label_column\": \"digit\", \"group_column\": \"grp\"}')"
q -c "SET client_min_messages = warning" \
	-c "CALL dac_train('honest_unchecked', 'dig_train', '{\"vector_column\": \"px\", \"label_column\": \"digit\", \"group_column\": \"grp\", \"seed\": $seed, \"validate\": false}')"
q -F ' | ' -c "SELECT 'unchecked (\"validate\": false), whole groups of the unseen digits 6-9 (' || sets || ')', round(ari::numeric, 4),
                      round(zero_shot_ari::numeric, 4), round((ari - zero_shot_ari)::numeric, 4), '', 'trained'
               FROM dac_evaluate('honest_unchecked', 'dig_unseen', '{\"vector_column\": \"px\", \"label_column\": \"digit\", \"group_column\": \"grp\"}')"
