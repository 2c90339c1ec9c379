#!/bin/bash
# mlf_small2d, small groups: mlf64_mog2d (its recipe first) with 8 of each
# ISAB's 32 inducing points, fine-tuned on small sets.  328 CPU s of its own,
# 5,290 with mlf64_mog2d's.
. "$(dirname "$0")/common.sh"
[ -f $(w mlf64_s4) ] || bash "$RECIPES/mlf64_mog2d.sh"
t --init $(w mlf64_s4) --inds 8 --out $(w mlf_small) --steps 20000 --batch 32 --n-max 100 --k-max 4 --mix 30:4 --lr 2e-4 --seed 61
"$CLI" scale --model $(w mlf_small) --out weights/mlf_small2d.safetensors --unit-width 0.25
