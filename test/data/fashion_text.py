#!/usr/bin/python3
"""Fashion-MNIST test images as a labelled file for dac-cli (--labelled):
one line per image, "label v1 ... v784", the pixels L2-normalised.  Reads
Debian's dataset-fashion-mnist with the standard library only.
Usage: fashion_text.py PER_CLASS CLASSES [REPEAT_EVERY] > FILE
(e.g. 400 6,7,8,9 20: every 20th image written 10 times, as a table with
repeated rows has them)"""
import gzip
import math
import struct
import sys

DATA = "/usr/share/datasets/fashion-mnist/"


def idx(name):
    with gzip.open(DATA + name) as f:
        b = f.read()
    nd = b[3]
    dims = struct.unpack(">%dI" % nd, b[4:4 + 4 * nd])
    return b[4 + 4 * nd:], dims


def main():
    per, classes = int(sys.argv[1]), {int(c) for c in sys.argv[2].split(",")}
    every = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    img, (n, h, w) = idx("t10k-images-idx3-ubyte.gz")
    lab, _ = idx("t10k-labels-idx1-ubyte.gz")
    taken = dict.fromkeys(classes, 0)
    for i in range(n):
        c = lab[i]
        if c in taken and taken[c] < per:
            taken[c] += 1
            px = img[i * h * w:(i + 1) * h * w]
            norm = math.sqrt(sum(p * p for p in px)) or 1.0
            line = "%d %s" % (c, " ".join("%.4g" % (p / norm) for p in px))
            for _ in range(10 if every and taken[c] % every == 0 else 1):
                print(line)


if __name__ == "__main__":
    main()
