#!/bin/bash
# mlf_mog2d, the default 2-D model.  13,407 CPU s in all (one core of the
# Intel Xeon VM, AVX-512 kernels, one OpenBLAS thread); 19,700 steps.
# Stages 3-5 ran with the trainer of commits e2f1194 and d2bea16: today's
# trainer gives other bytes, the same recipe.
. "$(dirname "$0")/common.sh"
t --out $(w mlf_s1) --strategy mlf --steps 12000 --stop-after 9000 --batch 16 --n-max 300 --k-max 4 --lr 5e-4 --seed 11   # 4,160 CPU s
t --init $(w mlf_s1) --out $(w mlf_s2) --steps 1200 --batch 10 --n-max 1000 --k-max 4 --lr 2e-4 --seed 21                # 390
t --init $(w mlf_s2) --out $(w mlf_s3) --steps 3500 --batch 10 --n-max 1000 --k-max 4 --mix 3000:12 --lr 2e-4 --seed 41 # 2,340
t --init $(w mlf_s3) --out $(w mlf_s4) --steps 3000 --batch 10 --n-max 1000 --k-max 4 --mix 3000:12 --lr 1e-4 --seed 43 # 2,093
t --init $(w mlf_s4) --out $(w mlf_s5) --steps 3000 --batch 20 --n-max 1000 --k-max 4 --mix 3000:12 --lr 1e-4 --seed 45 # 4,424
"$CLI" scale --model $(w mlf_s5) --out weights/mlf_mog2d.safetensors --unit-width 0.25
