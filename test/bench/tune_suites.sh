#!/usr/bin/env bash
# dac_tune on the embeddings benchmark's suites, chosen as the tuned baselines
# are (docs/embeddings.md): for each suite, a model tuned from mlf_embed on the
# 40 sets of training rows the tuned Leiden, Ward and DBSCAN were chosen on
# (the split's training classes: classes 0-5 for the unseen suites), then
# every test set of the suite clustered by it and by mlf_embed (zero-shot).
# Prints each suite's chosen pair (graph_resolution, graph_merge) and both
# models' ARI, NMI and k-MAE (also appended to DIR/dac.jsonl), beside the
# tuned Leiden's (embeddings.sh's record).  DIR: a directory embeddings.sh made.
#   pg_virtualenv -t -v 15 bash test/bench/tune_suites.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
d=$(cd "$1" && pwd)
py=/usr/bin/python3
$py test/bench/embeddings.py tune_sets "$d"
chmod 644 "$d"/tune_*.csv
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS dac" \
	-c "DROP TABLE IF EXISTS fm_sets" \
	-c "CREATE TABLE fm_sets (cfg text, split text, set_id int, ord int, label int, v real[])" \
	-c "\copy fm_sets FROM '$d/sets.csv' CSV"
rm -f "$d/tuned.txt"
for cfg in small large; do
	for split in all unseen; do
		t=tune_${cfg}_$split
		q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $t" \
			-c "CREATE TABLE $t (grp int, ord int, label int, v real[])" -c "\copy $t FROM '$d/$t.csv' CSV" \
			-c "SELECT dac_drop_model(name) FROM dac_models WHERE name = 'm_$t'" >/dev/null
		pair=$(q -c "SET client_min_messages = warning" \
			-c "SELECT graph_resolution || ', ' || graph_merge FROM dac_tune('m_$t', '$t',
			        '{\"vector_column\": \"v\", \"label_column\": \"label\", \"group_column\": \"grp\"}') WHERE chosen")
		echo "$cfg $split: chosen graph_resolution, graph_merge = $pair"
		q -F'|' -c "SELECT 'dac_tune ($pair)', cfg, split, set_id, dac_cluster_agg(v, 'm_$t' ORDER BY ord)
		            FROM fm_sets WHERE cfg = '$cfg' AND split = '$split' GROUP BY cfg, split, set_id" >> "$d/tuned.txt"
		q -F'|' -c "SELECT 'mlf_embed', cfg, split, set_id, dac_cluster_agg(v, 'mlf_embed' ORDER BY ord)
		            FROM fm_sets WHERE cfg = '$cfg' AND split = '$split' GROUP BY cfg, split, set_id" >> "$d/tuned.txt"
	done
done
$py test/bench/embeddings.py score "$d" "$d/tuned.txt" > /dev/null
$py - "$d" <<'PY'
import json, os, sys
d = sys.argv[1]
recs = [json.loads(l) for name in ("dac.jsonl", "baselines.jsonl") if os.path.exists(os.path.join(d, name))
        for l in open(os.path.join(d, name))]
print("| suite | dac_tune | ARI / NMI / k-MAE | zero-shot | tuned Leiden |")
print("|---|---|---|---|---|")
fmt = lambda r: "%.3f / %.3f / %.2f" % (r["ari"], r["nmi"], r["k_mae"]) if r else "-"
for cfg in ("small", "large"):
    for split in ("all", "unseen"):
        pick = lambda f: ([r for r in recs if r["cfg"] == cfg and r["split"] == split and f(r["method"])] or [None])[-1]
        t = pick(lambda m: m.startswith("dac_tune"))
        z = pick(lambda m: m == "mlf_embed")
        l = pick(lambda m: m.startswith("Leiden (tuned"))
        print("| %s %s | %s | %s | %s | %s |" % (cfg, split, t["method"][10:-1] if t else "-", fmt(t), fmt(z), fmt(l)))
PY
