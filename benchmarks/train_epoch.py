"""Time per training epoch of the digits CNN: burn (numpy or other backend + Autodiff)
against PyTorch CPU eager, same model, batch size, optimizer and data, in one run.

usage: python benchmarks/train_epoch.py [--backend numpy|pure|flex|cuda] [--epochs 3]
       [--batch 32] [--torch-device cpu|cuda] [--threads N]
Prints the median epoch time of each and the ratio burn / PyTorch (goal <= 1.5 for numpy).
"""

import argparse
import statistics
import time

import numpy as np
import torch

import burn
from burn import nn
from burn.host.autodiff import autodiff_device
from burn.host.data import DataLoader, load_digits
from burn.host.train.losses import cross_entropy
from burn.host.train.optim import Adam


def burn_model():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(32 * 16, 10))


def torch_model():
    t = torch.nn
    return t.Sequential(
        t.Conv2d(1, 16, 3, padding=1), t.BatchNorm2d(16), t.ReLU(), t.MaxPool2d(2),
        t.Conv2d(16, 32, 3, padding=1), t.ReLU(), t.Flatten(), t.Linear(32 * 16, 10))


def time_burn(backend, data, epochs, batch):
    dev = autodiff_device(backend)
    burn.seed(0)
    model = burn_model().to(dev)
    opt = Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(data, batch, shuffle=True, device=dev)
    times = []
    for _ in range(epochs):
        t0 = time.perf_counter()
        for x, y in loader:
            loss = cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        times.append(time.perf_counter() - t0)
    return times


def time_torch(data, epochs, batch, device="cpu"):
    torch.manual_seed(0)
    model = torch_model().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x_all = torch.tensor(data.x, device=device)
    y_all = torch.tensor(data.y, device=device)
    times = []
    for epoch in range(epochs):
        order = torch.tensor(np.random.default_rng(epoch).permutation(len(data)),
                             device=device)
        t0 = time.perf_counter()
        for b in range(0, len(data), batch):
            idx = order[b:b + batch]
            loss = torch.nn.functional.cross_entropy(model(x_all[idx]), y_all[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if device != "cpu":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="numpy")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--torch-device", default="cpu", help="cpu or cuda")
    ap.add_argument("--threads", type=int, default=0,
                    help="torch intra-op threads (0: leave torch's default)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    data = load_digits()
    ours = statistics.median(time_burn(args.backend, data, args.epochs, args.batch))
    theirs = statistics.median(time_torch(data, args.epochs, args.batch, args.torch_device))
    print("digits CNN, %d samples, batch %d, median of %d epochs" % (
        len(data), args.batch, args.epochs))
    print("  burn autodiff<%s>  %8.3f s/epoch" % (args.backend, ours))
    print("  pytorch %-12s %8.3f s/epoch  (threads=%d)" % (
        args.torch_device, theirs, torch.get_num_threads()))
    print("  ratio burn/pytorch   %8.2fx" % (ours / theirs))


if __name__ == "__main__":
    main()
