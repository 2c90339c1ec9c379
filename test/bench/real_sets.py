#!/usr/bin/python3
"""Labelled sets of real tables for fine-tuning mlf_embed's prior (dac-cli train
--labelled FILE --grouped): one line a row, "group label v1 ... vD", each
source a group, every source padded with zeros to the widest one's width.
Sources: R's mlbench and mclust tables that no benchmark of this repository
clusters (the kinds, embeddings and stability benchmarks use other sources),
each z-scored per feature over its table; Satellite and LetterRecognition
also as they are (integer features).  Classes with fewer than 20 rows are
left out.  Benchmark tool only (R, numpy), never a runtime dependency.

  real_sets.py OUT.txt
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

R = r'''
out <- commandArgs(TRUE)[1]
suppressMessages(library(mlbench))
w <- function(x, lab, name) {
  x <- as.matrix(x); storage.mode(x) <- "double"
  ok <- stats::complete.cases(x) & !is.na(lab)
  write.table(data.frame(label = as.integer(factor(lab[ok])), x[ok, , drop = FALSE]),
              file.path(out, paste0(name, ".csv")), sep = ",", row.names = FALSE, col.names = FALSE)
}
num <- function(d) as.data.frame(lapply(d, function(c) as.numeric(as.character(c))))
data(LetterRecognition); w(LetterRecognition[, -1], LetterRecognition$lettr, "letters")
data(Satellite); w(Satellite[, 1:36], Satellite$classes, "satellite")
data(Vehicle); w(Vehicle[, 1:18], Vehicle$Class, "vehicle")
data(Vowel); w(Vowel[, 2:10], Vowel$Class, "vowel")
data(Sonar); w(Sonar[, 1:60], Sonar$Class, "sonar")
data(Ionosphere); w(Ionosphere[, 3:34], Ionosphere$Class, "ionosphere")
data(PimaIndiansDiabetes); w(PimaIndiansDiabetes[, 1:8], PimaIndiansDiabetes$diabetes, "pima")
data(Shuttle); w(Shuttle[, 1:9], Shuttle$Class, "shuttle")
data(DNA); w(num(DNA[, 1:180]), DNA$Class, "dna")
data(thyroid, package = "mclust"); w(thyroid[, -1], thyroid$Diagnosis, "thyroid")
data(diabetes, package = "mclust"); w(diabetes[, -1], diabetes$class, "mclust_diabetes")
'''

RAW_TOO = ("letters", "satellite")
MIN_ROWS = 20


def main(out):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["Rscript", "-e", R, d], check=True)
        tables = {}
        for f in sorted(os.listdir(d)):
            a = np.loadtxt(os.path.join(d, f), delimiter=",", ndmin=2)
            tables[f[:-4]] = (a[:, 1:], a[:, 0].astype(int))
    width = max(X.shape[1] for X, _ in tables.values())
    group = 0
    with open(out, "w") as o:
        for name, (X, y) in tables.items():
            for raw in ((False, True) if name in RAW_TOO else (False,)):
                Z = X.copy()
                if not raw:
                    sd = Z.std(axis=0)
                    sd[sd == 0] = 1
                    Z = (Z - Z.mean(axis=0)) / sd
                labs, counts = np.unique(y, return_counts=True)
                keep = set(labs[counts >= MIN_ROWS])
                n = 0
                for i in range(len(y)):
                    if y[i] not in keep:
                        continue
                    v = np.zeros(width)
                    v[:Z.shape[1]] = Z[i]
                    o.write("%d %d %s\n" % (group, y[i], " ".join("%.6g" % x for x in v)))
                    n += 1
                print("group %d: %s%s, %d rows, %d columns, %d classes" %
                      (group, name, " (raw)" if raw else "", n, X.shape[1], len(keep)))
                group += 1


if __name__ == "__main__":
    main(sys.argv[1])
