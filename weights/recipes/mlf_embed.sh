#!/bin/bash
# mlf_embed, vectors of any width, trained on synthetic sets only.  1,818 CPU s
# (the AMD EPYC VM); 8,000 steps.  Stage 1 ran with the generator of commit
# a6bee0d without its lumpy clusters, stages 2-3 with that generator; the
# checkpoint (stage 3's step 1,000) was chosen on Fashion-MNIST training images
# of classes 0-5, never on test images.
. "$(dirname "$0")/common.sh"
t --out $(w z2) --input setnorm --dim 32 --density none --data embed --data-dim 32 \
  --steps 8000 --stop-after 3000 --batch 16 --n-max 300 --k-max 4 --lr 5e-4 --seed 102   # 599 CPU s
t --init $(w z2) --out $(w z3) --data embed --data-dim 32 --steps 4000 --batch 16 --n-max 300 --k-max 4 --lr 3e-4 --seed 103  # 793
t --init $(w z3) --out weights/mlf_embed.safetensors --data embed --data-dim 32 \
  --steps 2000 --stop-after 1000 --batch 16 --n-max 300 --k-max 4 --mix 1000:12 --lr 2e-4 --seed 104  # 426
