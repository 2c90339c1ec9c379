#!/bin/bash
# mlf64_mog2d, 64 wide.  4,962 CPU s in all (the Intel Xeon VM, AVX-512
# kernels); 14,000 steps.  Stages 3 and 4: trainer of commits ac62760, 43552ad.
. "$(dirname "$0")/common.sh"
t --out $(w mlf64_s1) --strategy mlf --hidden 64 --steps 6000 --batch 16 --n-max 300 --k-max 4 --lr 5e-4 --seed 13
t --init $(w mlf64_s1) --out $(w mlf64_s2) --steps 1000 --batch 10 --n-max 1000 --k-max 4 --lr 2e-4 --seed 23
t --init $(w mlf64_s2) --out $(w mlf64_s3) --steps 3000 --batch 10 --n-max 1000 --k-max 4 --mix 3000:12 --lr 2e-4 --seed 51  # 963
t --init $(w mlf64_s3) --out $(w mlf64_s4) --steps 4000 --batch 20 --n-max 1000 --k-max 4 --mix 3000:12 --lr 2e-4 --seed 53  # 3,295
"$CLI" scale --model $(w mlf64_s4) --out weights/mlf64_mog2d.safetensors --unit-width 0.25
