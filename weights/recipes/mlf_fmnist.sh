#!/bin/bash
# mlf_fmnist, the paper's image model, on the 36,000 Fashion-MNIST training
# images of classes 0-5 (Debian's dataset-fashion-mnist; classes 6-9 and every
# test image kept out).  10,890 CPU s in all (the AMD EPYC and Intel Xeon VMs,
# AVX-512 kernels); 16,500 steps.  Stage 3's checkpoint (step 5,500) was the
# highest validation ARI among steps 4,000-6,000, on every sixth training image.
. "$(dirname "$0")/common.sh"
f=$WORK/fmnist_train_0to5.txt
[ -f $f ] || /usr/bin/python3 - $f <<'PY'
import gzip, sys
import numpy as np
D = "/usr/share/datasets/fashion-mnist/"
X = np.frombuffer(gzip.open(D + "train-images-idx3-ubyte.gz").read(), np.uint8, offset=16).reshape(-1, 784)
y = np.frombuffer(gzip.open(D + "train-labels-idx1-ubyte.gz").read(), np.uint8, offset=8)
with open(sys.argv[1], "w") as out:
    for xi, yi in zip(X, y):
        if yi < 6:
            out.write("%d %s\n" % (yi, " ".join("%.7g" % v for v in xi / 255.0)))
PY
i="--density ns --labelled $f --batch 10 --n-max 100 --k-max 4 --clip 10"
t --out $(w fm1) $i --steps 5000 --lr 2e-4 --seed 61                              # 3,397 CPU s
t --init $(w fm1) --out $(w fm2) $i --steps 6000 --lr 1e-4 --seed 62               # 4,187
t --init $(w fm2) --out weights/mlf_fmnist.safetensors $i --steps 6000 --stop-after 5500 --lr 5e-5 --seed 63  # 3,306
