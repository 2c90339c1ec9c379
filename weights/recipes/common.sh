# Sourced by the recipes: run from the repository root after `make cli`; the
# stages write their files under $WORK (default build/recipes), the last step
# writes weights/NAME.safetensors.  `t ARGS` is one training stage.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
CLI=${CLI:-build/dac-cli}
WORK=${WORK:-build/recipes}
mkdir -p "$WORK"
t() { "$CLI" train "$@"; }
w() { echo "$WORK/$1.safetensors"; }
