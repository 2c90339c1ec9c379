#!/bin/bash
# The manual's shape, against a running server with dac installable: every
# dac.* setting, every function, view and table a user calls and every
# training option of the installed extension has its entry (a "### " heading
# naming it) in docs/reference.md; README.md stays within 300 lines and docs/
# with weights/README.md within 3,000; every relative link and anchor in the
# manual resolves; no file names a session or an issue number.
# Usage: bash test/docs.sh
set -uo pipefail
. "$(dirname "$0")/check.sh"
cd "$(dirname "$0")/.."
db=dac_docs
dropdb --if-exists $db >/dev/null 2>&1
createdb $db
q() { psql -X -q -At -d $db "$@"; }
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dac" >/dev/null
ref=docs/reference.md
headings=$(grep '^### ' $ref)
# an entry names the object in backticks on a heading line
missing() {   # section label, names (one per line)
	local name out=""
	while read -r name; do
		[ -n "$name" ] && ! grep -qF "\`$name\`" <<<"$headings" && out="$out $name"
	done
	echo "${out# }"
}
check "every dac.* setting has a reference entry" \
	"$(q -c "LOAD 'dac'" -c "SELECT name FROM pg_settings WHERE name LIKE 'dac.%' ORDER BY 1" | missing)" ""
check "every function, view and table a user calls has a reference entry" \
	"$(q -c "SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
	         JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dac'
	         WHERE p.pronamespace <> 'dac_internal'::regnamespace AND p.proname !~ '(_0_9|_trans|_final)\$'
	         UNION SELECT c.relname FROM pg_class c JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
	         JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dac'
	         WHERE c.relkind IN ('r', 'v') AND c.relnamespace = 'public'::regnamespace
	         ORDER BY 1" | missing)" ""
check "every training option has a reference entry" \
	"$(q -c "SELECT k FROM jsonb_object_keys(dac_train_options('mog', '{}')) k
	         UNION SELECT name FROM dac_internal.dac_train_option_table()
	         UNION SELECT unnest('{init,vector_column,label_column,group_column}'::text[]) ORDER BY 1" | missing)" ""
# every entry shows a call, and the settings' examples run as written
entries_without_example() {
	/usr/bin/python3 - "$ref" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
parts = re.split(r"\n(?=### )", text)
def lacks(p):
    name = p.split("\n")[0][4:].strip("`")
    if name.startswith("dac.") and "SET " + name + " " not in p:
        return True   # a setting's example sets that setting
    return not re.search(r"```sql|`(SET|SELECT|CALL|ALTER|CREATE) ", p)
print(" ".join(p.split("\n")[0][4:] for p in parts if p.startswith("### ") and lacks(p)))
PY
}
check "every reference entry has an example" "$(entries_without_example)" ""
set_examples=$(grep -o '`SET dac\.[a-z_]* = [^`]*;`' $ref | tr -d '`')
check "the reference's SET examples run as written ($(echo "$set_examples" | grep -c .) of them)" \
	"$([ -n "$set_examples" ] || echo "none found"; { echo "LOAD 'dac';"; echo "$set_examples"; } | q -v ON_ERROR_STOP=1 2>&1 | head -3)" ""
dropdb $db
check "README.md is at most 300 lines" "$(($(wc -l <README.md) <= 300))" 1
check "docs/ and weights/README.md are at most 3,000 lines" "$(($(cat docs/*.md weights/README.md | wc -l) <= 3000))" 1
check "the manual's relative links and anchors resolve" "$(/usr/bin/python3 - <<'PY'
import glob, os, re
files = ["README.md", "CHANGELOG.md", "weights/README.md"] + sorted(glob.glob("docs/*.md"))
def anchors(path):
    found = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^#+\s+(.*)", line)
        if m:
            found.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return found
bad = []
for f in files:
    for m in re.finditer(r"\]\(([^)#\s]*)(#[^)\s]*)?\)", open(f, encoding="utf-8").read()):
        target, anchor = m.group(1), m.group(2)
        if target.startswith(("http://", "https://")):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(f), target)) if target else f
        if not os.path.exists(path):
            bad.append(f + ": " + target)
        elif anchor and path.endswith(".md") and anchor[1:] not in anchors(path):
            bad.append(f + ": " + target + anchor)
print(" ".join(bad))
PY
)" ""
check "no file names a session or an issue by number" \
	"$(grep -rlE --exclude-dir=.git --exclude-dir=build --exclude='*.safetensors' --exclude='*.npz' '[Ss]ession [0-9]+\b|[Ii]ssue #?[0-9]+\b' . | grep -v '^./test/docs.sh$' | tr '\n' ' ')" ""
exit $fail
