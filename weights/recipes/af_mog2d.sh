#!/bin/bash
# af_mog2d, anchored filtering.  16,083 CPU s in all (the Intel Xeon VM,
# AVX-512 kernels); 18,400 steps.  Stages 3-6 ran with the trainer of commits
# e2f1194, d2bea16 and bddd2e9.
. "$(dirname "$0")/common.sh"
t --out $(w af_s1) --strategy af --steps 6000 --batch 16 --n-max 300 --k-max 4 --lr 5e-4 --seed 12                     # 1,480 CPU s
t --init $(w af_s1) --out $(w af_s2) --steps 1500 --batch 10 --n-max 1000 --k-max 4 --lr 2e-4 --seed 22                 # 964
t --init $(w af_s2) --out $(w af_s3) --steps 3000 --batch 10 --n-max 1000 --k-max 4 --mix 3000:12 --lr 2e-4 --seed 42   # 2,350
t --init $(w af_s3) --out $(w af_s4) --steps 2500 --batch 10 --n-max 1000 --k-max 4 --mix 3000:12 --lr 1e-4 --seed 44   # 1,887
t --init $(w af_s4) --out $(w af_s5) --steps 2600 --batch 20 --n-max 1000 --k-max 4 --mix 3000:12 --lr 1.5e-4 --seed 46 # 4,122
t --init $(w af_s5) --out $(w af_s6) --steps 2800 --batch 20 --n-max 1000 --k-max 4 --mix 3000:12 --lr 1e-4 --seed 47   # 5,280
"$CLI" scale --model $(w af_s6) --out weights/af_mog2d.safetensors --unit-width 0.25
