"""Time per training epoch of the digits CNN: burn (numpy or other backend + Autodiff)
against PyTorch CPU eager, same model, batch size, optimizer and data, in one run.

usage: python benchmarks/train_epoch.py [--backend numpy|pure|flex|cuda] [--epochs 3]
       [--batch 32] [--torch-device cpu|cuda] [--threads N] [--gpu-adam] [--capture]
       [--launches] [--im2col] [--torch-compile MODES] [--torch-tf32]
On CUDA, PyTorch also runs compiled by torch.compile in each --torch-compile mode (default
reduce-overhead), TF32 off unless --torch-tf32. The epochs alternate (one of burn, one of
each PyTorch column, ...), so a change in the machine's load hits all alike; PyTorch's
idle OpenMP threads wait passively (unless OMP_WAIT_POLICY says otherwise) instead of
spinning on the cores burn's epoch needs. Prints the median epoch time of each and the
ratio burn / PyTorch (goals: <= 1.5 for numpy, <= 1.0 for flex).
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch loads: see above
import numpy as np
import torch
from training_args import (
    add_torch_options,
    add_training_options,
    apply_training_options,
    burn_label,
    burn_optimizer,
    torch_modes,
    torch_train_step,
)

import burn
from burn import nn
from burn.host.autodiff import autodiff_device
from burn.host.cuda.graph import training_step
from burn.host.data import DataLoader, load_digits
from burn.host.train.losses import cross_entropy


def burn_model():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(32 * 16, 10))


def torch_model():
    t = torch.nn
    return t.Sequential(
        t.Conv2d(1, 16, 3, padding=1), t.BatchNorm2d(16), t.ReLU(), t.MaxPool2d(2),
        t.Conv2d(16, 32, 3, padding=1), t.ReLU(), t.Flatten(), t.Linear(32 * 16, 10))


def burn_epochs(backend, data, batch, gpu_adam=False, capture=False):
    """Generator: trains burn on `backend` one epoch per step, yielding its seconds. On the
    GPU, `gpu_adam` updates there (burn.host.cuda.optim.Adam) and `capture` replays each
    step as a CUDA graph (which needs gpu_adam)."""
    dev = autodiff_device(backend)
    burn.seed(0)
    model = burn_model().to(dev)
    opt = burn_optimizer(model, gpu_adam, capture)
    loader = DataLoader(data, batch, shuffle=True, device=dev)

    step = training_step(model, opt, cross_entropy, capture)
    while True:
        t0 = time.perf_counter()
        for x, y in loader:
            step(x, y)
        sync()
        yield time.perf_counter() - t0


def sync():
    """Wait for the GPU, where there is one."""
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def torch_epochs(data, batch, device="cpu", mode="eager"):
    """Generator: trains the PyTorch twin one epoch per step, eager or compiled by
    torch.compile in `mode`, yielding its seconds."""
    torch.manual_seed(0)
    model = torch_model().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    step = torch_train_step(model, opt, mode)
    x_all = torch.tensor(data.x, device=device)
    y_all = torch.tensor(data.y, device=device)
    epoch = 0
    while True:
        order = torch.tensor(np.random.default_rng(epoch).permutation(len(data)),
                             device=device)
        t0 = time.perf_counter()
        for b in range(0, len(data), batch):
            idx = order[b:b + batch]
            step(x_all[idx], y_all[idx])
        if device != "cpu":
            torch.cuda.synchronize()
        epoch += 1
        yield time.perf_counter() - t0


def time_both(backend, data, epochs, batch, device="cpu", modes=("eager",), **gpu):
    """(burn seconds, {PyTorch mode: seconds}) per epoch, alternating burn and each PyTorch
    mode, after two warm-up epochs each (a captured step records its graph on the second
    sight of a batch shape). `gpu`: burn_epochs' GPU options."""
    runs = {"burn": burn_epochs(backend, data, batch, **gpu)}
    runs.update((m, torch_epochs(data, batch, device, m)) for m in modes)
    for _ in range(2):
        for run in runs.values():
            next(run)
    times = {name: [] for name in runs}
    for _ in range(epochs):
        for name, run in runs.items():
            times[name].append(next(run))
    ours = times.pop("burn")
    return ours, times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="numpy")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    add_training_options(ap, "cpu",
                         "also count GPU kernels, copies and fills per step (CUDA only)")
    ap.add_argument("--threads", type=int, default=0,
                    help="torch intra-op threads (0: leave torch's default)")
    add_torch_options(ap)
    args = ap.parse_args()
    apply_training_options(args)
    modes = torch_modes(args)
    if args.threads:
        torch.set_num_threads(args.threads)
    data = load_digits()
    load = os.getloadavg()
    gpu = {"gpu_adam": args.gpu_adam, "capture": args.capture}
    ours, theirs = time_both(args.backend, data, args.epochs, args.batch, args.torch_device,
                             modes, **gpu)
    ours = statistics.median(ours)
    theirs = {m: statistics.median(t) for m, t in theirs.items()}
    print("digits CNN, %d samples, batch %d, median of %d epochs (alternating)" % (
        len(data), args.batch, args.epochs))
    print("  load average before %.2f %.2f %.2f, after %.2f %.2f %.2f" % (
        load + os.getloadavg()))
    print("  burn autodiff<%s>%s  %8.3f s/epoch" % (
        args.backend, burn_label(args), ours))
    for m, t in theirs.items():
        print("  pytorch %s %-16s %8.3f s/epoch  burn/this %5.2fx  (threads=%d)" % (
            args.torch_device, m, t, ours / t, torch.get_num_threads()))
    best = min(theirs, key=theirs.get)
    print("  ratio burn/pytorch's fastest (%s) %5.2fx" % (best, ours / theirs[best]))
    if args.launches:
        print_launches(args.backend, data, args.batch, args.torch_device, gpu)


def print_launches(backend, data, batch, device, gpu):
    """Kernels, copies and fills per training step of each, counted over one epoch."""
    from burn.host.cuda.launches import count_gpu_work

    steps = -(-len(data) // batch)
    for name, epochs in (("burn", burn_epochs(backend, data, batch, **gpu)),
                         ("pytorch", torch_epochs(data, batch, device))):
        next(epochs)
        next(epochs)
        counts = count_gpu_work(lambda e=epochs: next(e))
        print("  %-8s per step: %s" % (name, {k: round(v / steps, 1)
                                               for k, v in counts.items()}))


if __name__ == "__main__":
    main()
