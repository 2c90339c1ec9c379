#!/bin/bash
# mlf_fast2d, large groups: mlf_small2d (its recipe first) fine-tuned on the
# (1000, 4) / (3000, 12) mix.  1,377 CPU s of its own, 6,667 in all.
. "$(dirname "$0")/common.sh"
[ -f $(w mlf_small) ] || bash "$RECIPES/mlf_small2d.sh"
t --init $(w mlf_small) --out $(w mlf_fast_s2) --steps 4000 --batch 10 --n-max 1000 --k-max 4 --mix 3000:12 --lr 2e-4 --seed 71    # 600
t --init $(w mlf_fast_s2) --out $(w mlf_fast_s3) --steps 4000 --batch 10 --n-max 1000 --k-max 4 --mix 3000:12:2 --lr 1e-4 --seed 73 # 777
"$CLI" scale --model $(w mlf_fast_s3) --out weights/mlf_fast2d.safetensors --unit-width 0.25
