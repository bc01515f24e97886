"""Time of one ResNet-8 training step (batch 256, 32x32x3 random data, Adam) on the GPU:
burn (autodiff over the cupy backend, optionally through Fusion) against PyTorch CUDA
eager, same model, optimizer and batch, in one run.

usage: python benchmarks/resnet8_step.py [--backend cuda|fusion<cupy>|numpy] [--batch 256]
       [--steps 30] [--torch-device cuda] [--gpu-adam] [--capture] [--direct-blas]
       [--launches] [--profile] [--im2col] [--torch-compile MODES] [--torch-tf32]
PyTorch runs eager and, on CUDA, compiled by torch.compile in each --torch-compile mode
(default reduce-overhead: CUDA graphs), TF32 off unless --torch-tf32. Prints the median step
time of each, the ratio burn / each PyTorch column and burn / the fastest (goal: <= 1.0),
the GPU memory each used, and with --launches the kernels, copies and fills of one step.
"""

import argparse
import statistics
import time

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
from burn.host.convert import to_tensor
from burn.host.cuda.graph import training_step
from burn.host.train.losses import cross_entropy


class Block(nn.Module):
    """Two 3x3 convolutions with batch norm, plus the (1x1 when the shape changes)
    shortcut."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                       nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + (x if self.short is None else self.short(x)))


def burn_model():
    """ResNet-8: a stem convolution, three residual blocks (16, 32, 64 channels), global
    average pooling and a linear classifier."""
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


class TorchBlock(torch.nn.Module):
    """PyTorch twin of Block."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        t = torch.nn
        self.conv1 = t.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = t.BatchNorm2d(cout)
        self.conv2 = t.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = t.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = t.Sequential(t.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                      t.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.short is None else self.short(x)))


def torch_model():
    """PyTorch twin of burn_model."""
    t = torch.nn
    return t.Sequential(
        t.Conv2d(3, 16, 3, padding=1, bias=False), t.BatchNorm2d(16), t.ReLU(),
        TorchBlock(16, 16, 1), TorchBlock(16, 32, 2), TorchBlock(32, 64, 2),
        t.AdaptiveAvgPool2d(1), t.Flatten(), t.Linear(64, 10))


def random_batch(batch):
    """Inputs [batch, 3, 32, 32] and class labels [batch], the same on every run."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 3, 32, 32), dtype=np.float32)
    return x, rng.integers(0, 10, batch).astype(np.int32)


def burn_step(backend, x, y, gpu_adam=False, capture=False):
    """A function running one training step of burn on autodiff<backend>; `gpu_adam`
    updates on the GPU, `capture` replays the step as a CUDA graph (with the GPU Adam)."""
    dev = autodiff_device(backend)
    burn.seed(0)
    model = burn_model().to(dev)
    opt = burn_optimizer(model, gpu_adam, capture)
    xb, yb = to_tensor(x, dev), to_tensor(y, dev)

    step = training_step(model, opt, cross_entropy, capture)
    recorded = step if capture else None

    def run():
        return step(xb, yb)

    run.graph = recorded
    return run


def torch_step(x, y, device, mode="eager"):
    """A function running one training step of the PyTorch twin, eager or compiled by
    torch.compile in `mode`."""
    torch.manual_seed(0)
    model = torch_model().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xb = torch.tensor(x, device=device)
    yb = torch.tensor(y, device=device).long()
    step = torch_train_step(model, opt, mode)
    return lambda: step(xb, yb)


def sync():
    """Wait for the GPU (both frameworks share the device)."""
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def median_time(step, steps):
    """Median seconds of one step over `steps` timed steps, after three warm-up steps."""
    for _ in range(3):
        step()
    sync()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def gpu_memory_mib(graph=None):
    """CuPy's pool, the recorded graphs' pools and PyTorch's peak allocation, in MiB, where
    each is present."""
    out = {}
    try:
        import cupy
        out["cupy pool"] = cupy.get_default_memory_pool().total_bytes() / 2 ** 20
    except ImportError:
        pass
    if graph is not None:
        out["graph pools"] = graph.memory_bytes() / 2 ** 20
    if torch.cuda.is_available():
        out["torch peak"] = torch.cuda.max_memory_allocated() / 2 ** 20
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cuda", help="inner backend of autodiff")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=30)
    add_training_options(ap, "cuda", "also count kernels, copies and fills of one step")
    ap.add_argument("--direct-blas", action="store_true",
                    help="float32 products through burn.host.cuda.cublas also uncaptured")
    ap.add_argument("--profile", action="store_true",
                    help="also list burn's kernels by GPU time per step")
    add_torch_options(ap)
    args = ap.parse_args()
    apply_training_options(args)
    modes = torch_modes(args)
    if args.direct_blas:
        from burn.host.cuda import cublas

        cublas.ALWAYS[0] = True
    x, y = random_batch(args.batch)
    ours = burn_step(args.backend, x, y, args.gpu_adam, args.capture)
    t_ours = median_time(ours, args.steps)
    theirs = {m: torch_step(x, y, args.torch_device, m) for m in modes}
    t_theirs = {m: median_time(step, args.steps) for m, step in theirs.items()}
    print("ResNet-8, batch %d, 32x32x3 random data, median of %d steps" % (
        args.batch, args.steps))
    print("  burn autodiff<%s>%s  %8.2f ms/step" % (
        args.backend, burn_label(args), t_ours * 1e3))
    for m, t in t_theirs.items():
        print("  pytorch %s %-16s %8.2f ms/step   burn/this %5.2fx" % (
            args.torch_device, m, t * 1e3, t_ours / t))
    best = min(t_theirs, key=t_theirs.get)
    print("  ratio burn/pytorch's fastest (%s) %5.2fx" % (best, t_ours / t_theirs[best]))
    print("  GPU memory: " + ", ".join("%s %.1f MiB" % kv
                                       for kv in gpu_memory_mib(ours.graph).items()))
    if args.launches:
        from burn.host.cuda.launches import count_gpu_work

        for name, step in (("burn", ours), ("pytorch", theirs["eager"])):
            print("  %-8s per step: %s" % (name, count_gpu_work(step, 3)))
    if args.profile:
        from burn.host.cuda.launches import gpu_time_by_kernel

        for name, count, us in gpu_time_by_kernel(ours, 3):
            print("  %8.1f us %5.1fx  %s" % (us, count, name))


if __name__ == "__main__":
    main()
