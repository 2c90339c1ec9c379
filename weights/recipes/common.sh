# Sourced by the recipes: run after `make cli`, from any folder; the
# stages write their files under $WORK (default build/recipes), the last step
# writes weights/NAME.safetensors.  `t ARGS` is one training stage; $RECIPES
# is this folder, wherever the recipe was started from.
set -euo pipefail
RECIPES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$RECIPES/../.."
CLI=${CLI:-build/dac-cli}
WORK=${WORK:-build/recipes}
mkdir -p "$WORK"
t() { "$CLI" train "$@"; }
w() { echo "$WORK/$1.safetensors"; }
