#!/usr/bin/python3
"""A training step of the same MLF network in PyTorch (the authors' framework),
for test/bench/torch_bench.sh: the architecture of ../shared/spec/model.md
(MAB without LayerNorm, scale by the full width, residual on the projected
query; ISAB with 32 inducing points; 4 blocks of which 3 share weights; a
diagonal-Gaussian head), the MLF loss, Adam and global-norm clipping.  One
thread.  Benchmark tool only (Debian's python3-torch), never a dependency.

Usage: torch_step.py B N STEPS   prints one line per step: seconds"""
import math
import sys
import time

import torch
from torch import nn

torch.set_num_threads(1)
torch.manual_seed(0)
D, H, M, d = 128, 4, 32, 2


class MAB(nn.Module):
    def __init__(self, dq, dk):
        super().__init__()
        self.fc_q, self.fc_k, self.fc_v = nn.Linear(dq, D), nn.Linear(dk, D), nn.Linear(dk, D)
        self.fc_o = nn.Linear(D, D)

    def forward(self, X, Y):
        Q, K, V = self.fc_q(X), self.fc_k(Y), self.fc_v(Y)
        Q_, K_, V_ = (torch.cat(t.split(D // H, 2), 0) for t in (Q, K, V))
        A = torch.softmax(Q_.bmm(K_.transpose(1, 2)) / math.sqrt(D), 2)
        O = torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
        return O + torch.relu(self.fc_o(O))


class PMA(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.I = nn.Parameter(torch.empty(1, k, D))
        nn.init.xavier_uniform_(self.I)
        self.mab = MAB(D, D)

    def forward(self, X):
        return self.mab(self.I.repeat(X.size(0), 1, 1), X)


class ISAB(nn.Module):
    def __init__(self, din):
        super().__init__()
        self.pma = PMA(M)
        self.mab = MAB(din, D)
        # the PMA attends over the set: its keys take din columns
        self.pma.mab = MAB(D, din)

    def forward(self, X):
        return self.mab(X, self.pma(X))


class Stack(nn.Module):
    def __init__(self, din):
        super().__init__()
        self.first, self.shared = ISAB(din), ISAB(D)

    def forward(self, X):
        X = self.first(X)
        for _ in range(3):
            X = self.shared(X)
        return X


class MLF(nn.Module):
    def __init__(self):
        super().__init__()
        self.isab1, self.pma, self.fc1 = Stack(d), PMA(1), nn.Linear(D, 2 * d)
        self.mab, self.isab2, self.fc2 = MAB(D, D), Stack(D), nn.Linear(D, 1)

    def forward(self, X):
        H_X = self.isab1(X)
        H_t = self.pma(H_X)
        raw = self.fc1(H_t)
        mu, sigma = raw[..., :d], nn.functional.softplus(raw[..., d:])
        ll = (-0.5 * math.log(2 * math.pi) - sigma.log() - 0.5 * ((X - mu) / sigma) ** 2).sum(-1)
        logits = self.fc2(self.isab2(self.mab(H_X, H_t))).squeeze(-1)
        return logits, ll


def mlf_loss(logits, ll, labels, k):
    losses = []
    for j in range(k):
        t = (labels == j).float()
        cnt = t.sum(1)
        bce = nn.functional.binary_cross_entropy_with_logits(logits, t, reduction="none").mean(1)
        lj = bce - (ll * t).sum(1) / cnt.clamp(min=1)
        losses.append(torch.where(cnt > 0, lj, torch.full_like(lj, float("inf"))))
    return torch.stack(losses, 1).min(1).values.mean()


def main():
    B, N, steps = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    net = MLF()
    opt = torch.optim.Adam(net.parameters(), lr=5e-4)
    g = torch.Generator().manual_seed(1)
    for _ in range(steps + 1):
        k = 4
        labels = torch.randint(0, k, (B, N), generator=g)
        X = torch.randn(B, N, d, generator=g) * 0.25 + labels.unsqueeze(-1).float() * 3
        t0 = time.perf_counter()
        opt.zero_grad()
        logits, ll = net(X)
        loss = mlf_loss(logits, ll, labels, k)
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 10.0)
        opt.step()
        print("%.5f" % (time.perf_counter() - t0), flush=True)


if __name__ == "__main__":
    main()
