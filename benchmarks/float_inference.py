"""Host float32 batch-1 inference of the MLPerf Tiny models' float versions (the burn.nn
twins of benchmarks/float_models.py): burn on the flex and numpy backends against PyTorch CPU
eager and onnxruntime (the same weights, exported with torch.onnx.export), each with one
thread and with its default threads, side by side in one run.

    python benchmarks/float_inference.py [--rounds 30] [--calls 10] [--models kws_dscnn,resnet8]

The contenders are timed in interleaved rounds (every round times `--calls` single
inferences of each), so a change in the machine's load hits them all alike; the table shows
each one's median time per inference, flex's time as a ratio of it, and the largest absolute
difference of its output from PyTorch's. Idle threads do not spin (onnxruntime's sessions
have allow_spinning off, PyTorch's OpenMP threads wait passively unless OMP_WAIT_POLICY
says otherwise), so that they do not take the cores from the contender timed next.

Goals: flex <= 0.3x PyTorch eager and <= 1.0x onnxruntime (each at its faster setting).
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch loads: see above
import numpy as np
import onnxruntime as ort
import torch
from float_models import MODELS, burn_model, onnx_bytes, sample_input, torch_model

import burn.host  # noqa: F401  (teaches burn.device() the host backends)
from burn.host.convert import to_numpy, to_tensor


def burn_runner(name, twin, x, device):
    """(run, output) of the burn model `name` with `twin`'s weights on `device`."""
    m = burn_model(name, twin).to(device)
    xt = to_tensor(x, device)
    return (lambda: m(xt)), (lambda: to_numpy(m(xt)))


def torch_runner(model, x, threads):
    """(run, output) of PyTorch eager with `threads` intra-op threads."""
    xt = torch.from_numpy(x)

    def run():
        torch.set_num_threads(threads)
        with torch.inference_mode():
            return model(xt)

    return run, (lambda: run().numpy())


def ort_runner(data, x, threads):
    """(run, output) of an onnxruntime CPU session; threads 0 is its default."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
    feed = {"x": x}
    return (lambda: sess.run(None, feed)), (lambda: sess.run(None, feed)[0])


def contenders(name):
    """[(label, run, output)] for model `name`, flex first."""
    theirs = torch_model(name)
    x = sample_input(name)
    data = onnx_bytes(theirs, x)
    default = torch.get_num_threads()
    rows = [("burn flex", *burn_runner(name, theirs, x, "flex")),
            ("burn numpy", *burn_runner(name, theirs, x, "numpy")),
            ("torch eager, 1 thread", *torch_runner(theirs, x, 1)),
            ("torch eager, %d threads" % default, *torch_runner(theirs, x, default)),
            ("onnxruntime, 1 thread", *ort_runner(data, x, 1)),
            ("onnxruntime, default threads", *ort_runner(data, x, 0))]
    torch.set_num_threads(default)
    return rows


def time_interleaved(runs, rounds, calls):
    """Median seconds per call of each function in `runs`, timed in interleaved rounds."""
    for run in runs:  # warm-up: caches, lazy imports, thread pools
        for _ in range(5):
            run()
    samples = [[] for _ in runs]
    for _ in range(rounds):
        for run, out in zip(runs, samples):
            for _ in range(calls):
                t = time.perf_counter()
                run()
                out.append(time.perf_counter() - t)
    return [statistics.median(s) for s in samples]


def report(name, rows, times):
    """Print one model's table; returns flex / (fastest torch, fastest onnxruntime)."""
    ref = rows[2][2]()  # PyTorch, one thread
    flex = times[0]
    print("\n%s  input %s" % (name, MODELS[name]))
    print("  %-30s %12s %10s %12s" % ("engine", "median us", "flex/this", "max|diff|"))
    for (label, _run, output), t in zip(rows, times):
        diff = float(np.max(np.abs(np.asarray(output()).reshape(ref.shape) - ref)))
        print("  %-30s %12.1f %9.2fx %12.2e" % (label, t * 1e6, flex / t, diff))
    best_torch = min(times[2], times[3])
    best_ort = min(times[4], times[5])
    print("  goal flex <= 0.3x torch eager: %.2fx (%s); <= 1.0x onnxruntime: %.2fx (%s)" % (
        flex / best_torch, "met" if flex <= 0.3 * best_torch else "not met",
        flex / best_ort, "met" if flex <= best_ort else "not met"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--calls", type=int, default=10, help="inferences per round each")
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args()
    print("float32 batch-1 inference; load average before: %.2f %.2f %.2f" % os.getloadavg())
    print("torch %s, onnxruntime %s, %d cores" % (torch.__version__, ort.__version__,
                                                 os.cpu_count()))
    for name in args.models.split(","):
        rows = contenders(name)
        times = time_interleaved([r[1] for r in rows], args.rounds, args.calls)
        report(name, rows, times)
    print("\nload average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
