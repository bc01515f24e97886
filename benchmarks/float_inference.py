"""Host float32 batch-1 inference of the MLPerf Tiny models' float versions (the burn.nn
twins of benchmarks/float_models.py): burn's compiled path (the float `.bst` export run by
burn.load + use_flex on flex_c's NHWC graph kernels), burn.nn eager on the flex and numpy
backends, PyTorch CPU eager, onnxruntime (the same weights, exported with
torch.onnx.export), each with one thread and with its default threads, and LiteRT with its
XNNPACK delegate on one thread (optional: pip install ai-edge-litert; it runs the MLPerf Tiny
float .tflite, other weights than the twin's, so its time compares and its output does
not), side by side in one run. A twin the `.bst` exporter cannot trace (ResNet-8's residual
blocks) is compiled from the MLPerf Tiny float TFLite model of the same architecture instead,
when
$BURN_MODELS_DIR (default ../shared/models) holds it: its time compares, its output does not.

    python benchmarks/float_inference.py [--rounds 30] [--calls 10] [--models kws_dscnn,resnet8]
                                         [--flex-width 8] [--per-op]

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
import tempfile
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch loads: see above
import numpy as np
import onnxruntime as ort
import torch
from float_models import MODELS, burn_model, onnx_bytes, sample_input, torch_model
from model_files import MODELS_DIR, missing

import burn
import burn.host  # (teaches burn.device() the host backends)
from burn.host.bst_writer import encode_bst
from burn.host.convert import to_numpy, to_tensor
from burn.host.export import ExportError, export_bst
from burn.host.flex.binding import host
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

# the MLPerf Tiny float TFLite model of each twin's architecture
TFLITE = {"kws_dscnn": "kws_ref_model_float32.tflite", "resnet8": "pretrainedResnet.tflite"}


def bst_runner(name, twin, x):
    """(label, run, output) of the float .bst of model `name` on flex_c (burn.load +
    use_flex): the export of the burn twin, else the imported float TFLite model (output
    None: other weights); None when neither is at hand."""
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).reshape(-1)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, name + ".bst")
            export_bst(burn_model(name, twin), path, dtype="float32", sample_shape=x.shape[1:],
                       tests=0)
            with open(path, "rb") as f:
                data = f.read()
        label, same_weights = "flex .bst", True
    except ExportError:
        path = os.path.join(MODELS_DIR, TFLITE[name])
        if not os.path.isfile(path):
            print("%s: %s" % (name, missing([TFLITE[name]])))
            return None
        with open(path, "rb") as f:
            data = encode_bst(import_tflite(f.read(), tests=0))
        label, same_weights = "flex .bst (%s)" % TFLITE[name], False
    model = use_flex(burn.load(data))

    def output():
        return np.array(model.run(nhwc)) if same_weights else None

    def run():
        return model.run(nhwc)

    run.model, run.input = model, nhwc  # for --per-op
    return label, run, output


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


def litert_runner(name, x):
    """(label, run, output None) of LiteRT with its XNNPACK delegate on one thread running
    the MLPerf Tiny float .tflite of model `name` (other weights than the twin's: timed, not
    compared), or None with the reason printed when it or the file is missing."""
    path = os.path.join(MODELS_DIR, TFLITE[name])
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        print("%s: no LiteRT row (pip install ai-edge-litert)" % name)
        return None
    if not os.path.isfile(path):
        print("%s: no LiteRT row: %s" % (name, missing([TFLITE[name]])))
        return None
    with open(path, "rb") as f:
        interp = Interpreter(model_content=f.read(), num_threads=1)
    interp.allocate_tensors()
    i, o = interp.get_input_details()[0]["index"], interp.get_output_details()[0]["index"]
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).astype(np.float32)

    def run():
        interp.set_tensor(i, nhwc)
        interp.invoke()
        return interp.get_tensor(o)

    return "litert xnnpack, 1 thread (MLPerf .tflite)", run, (lambda: None)


def contenders(name):
    """[(label, run, output)] for model `name`: the flex .bst first (when there is one),
    then burn eager, PyTorch, onnxruntime."""
    theirs = torch_model(name)
    x = sample_input(name)
    data = onnx_bytes(theirs, x)
    default = torch.get_num_threads()
    compiled = bst_runner(name, theirs, x)
    rows = [compiled] if compiled else []
    rows += [("burn flex", *burn_runner(name, theirs, x, "flex")),
            ("burn numpy", *burn_runner(name, theirs, x, "numpy")),
            ("torch eager, 1 thread", *torch_runner(theirs, x, 1)),
            ("torch eager, %d threads" % default, *torch_runner(theirs, x, default)),
            ("onnxruntime, 1 thread", *ort_runner(data, x, 1)),
            ("onnxruntime, default threads", *ort_runner(data, x, 0))]
    litert = litert_runner(name, x)
    rows += [litert] if litert else []
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


def per_op(model, x, repeats=200):
    """Print each op of a `use_flex` model timed alone (median of `repeats` calls, each on
    the inputs the ops before it just wrote) and its share of their sum."""
    steps, ops = model._steps, model.info()["ops"]
    times = []
    for i, step in enumerate(steps):
        samples = []
        for _ in range(repeats):
            model._set_input(0, x)
            for s in steps[:i]:
                s.k(*s.a)
            t = time.perf_counter()
            step.k(*step.a)
            samples.append(time.perf_counter() - t)
        times.append(statistics.median(samples))
    total = sum(times)
    print("  per op, each timed alone (sum %.1f us):" % (total * 1e6))
    for op, t in zip(ops, times):
        print("  %4d %-16s %-18s -> %-18s %9.1f us %5.1f%%" % (
            op["index"], op["op"], op["inputs"][0] if op["inputs"] else "", op["outputs"][0],
            t * 1e6, 100 * t / total))


def report(name, rows, times):
    """Print one model's table: times as a ratio of the first row's (flex), and the goals."""
    labels = [r[0] for r in rows]
    at = {label: i for i, label in enumerate(labels)}
    ref = rows[at["torch eager, 1 thread"]][2]()
    flex = times[0]
    print("\n%s  input %s" % (name, MODELS[name]))
    print("  %-44s %12s %10s %12s" % ("engine", "median us", "flex/this", "max|diff|"))
    for (label, _run, output), t in zip(rows, times):
        out = output()
        diff = "-" if out is None else "%.2e" % float(
            np.max(np.abs(np.asarray(out).reshape(ref.shape) - ref)))
        print("  %-44s %12.1f %9.2fx %12s" % (label, t * 1e6, flex / t, diff))
    best_torch = min(t for label, t in zip(labels, times) if label.startswith("torch"))
    best_ort = min(t for label, t in zip(labels, times) if label.startswith("onnxruntime"))
    print("  goal %s <= 0.3x torch eager: %.2fx (%s); <= 1.0x onnxruntime: %.2fx (%s)" % (
        labels[0], flex / best_torch, "met" if flex <= 0.3 * best_torch else "not met",
        flex / best_ort, "met" if flex <= best_ort else "not met"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--calls", type=int, default=10, help="inferences per round each")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--flex-width", type=int, default=0,
                    help="cap flex_c's float vectors at this many floats (8: an AVX-512 host "
                         "takes the AVX2 path)")
    ap.add_argument("--per-op", action="store_true",
                    help="also time each op of the flex .bst model alone")
    args = ap.parse_args()
    if args.flex_width:
        host().lib.flex_f32_vector_width(args.flex_width)
    print("float32 batch-1 inference; load average before: %.2f %.2f %.2f" % os.getloadavg())
    print("torch %s, onnxruntime %s, %d cores; flex float vectors: %d floats" % (
        torch.__version__, ort.__version__, os.cpu_count(),
        host().lib.flex_f32_vector_width(0)))
    for name in args.models.split(","):
        rows = contenders(name)
        times = time_interleaved([r[1] for r in rows], args.rounds, args.calls)
        report(name, rows, times)
        if args.per_op and rows and hasattr(rows[0][1], "model"):
            per_op(rows[0][1].model, rows[0][1].input)
    print("\nload average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
