"""Quantized ONNX import: import time and agreement with onnxruntime's int8 outputs.

usage: python benchmarks/onnx_qdq.py [--inputs 100]
The models are those of the tests (tests/onnx_models.py), exported by PyTorch (CPU) and
quantized by onnxruntime's quantize_static (int8 activations and weights, per channel; QDQ
and the QLinear operator form). For each: the import time (median of 5, lazy imports
warmed), and over `--inputs` seeded normal inputs the share of output elements where burn
(flex) equals onnxruntime, is 1 LSB of the output scale away, or more.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import numpy as np
from onnx_models import MODELS, QLINEAR, exact_int8_session, export, quantize

import burn
from burn.host.bst_writer import encode_bst
from burn.host.export import nhwc
from burn.host.flex.runtime import use_flex
from burn.host.importers.onnx_import import read
from burn.host.importers.onnx_qdq import int8_graph

NAMES = ("small_cnn", "ds_cnn", "resnet8", "autoencoder", "qlinear")


def _import_ms(path):
    times = []
    for _ in range(5):
        start = time.perf_counter()
        graph = int8_graph(read(path), tests=0)
        times.append(time.perf_counter() - start)
    return graph, 1000 * statistics.median(times)


def _lsb(path, graph, shape, count):
    session = exact_int8_session(path)
    model = use_flex(burn.load(encode_bst(graph)))
    dq = [op for op in graph.ops if op.op == "dequantize"][-1]
    scale = graph.tensors[dq.inputs[0]].scale
    rng = np.random.default_rng(5)
    diffs = []
    for _ in range(count):
        x = rng.standard_normal(shape).astype(np.float32)
        ref = nhwc(session.run(None, {"x": x})[0]).reshape(-1)
        out = np.asarray(model.run(nhwc(x).reshape(graph.inputs[0][1])), np.float32)
        diffs.append(np.rint(np.abs(out.reshape(-1) - ref) / scale).astype(int))
    return np.concatenate(diffs)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--inputs", type=int, default=100)
    args = p.parse_args()
    print("%-12s %-9s %5s %4s %10s %8s %8s %8s" % ("model", "format", "nodes", "ops",
                                                   "import ms", "exact", "1 LSB", "more"))
    with tempfile.TemporaryDirectory() as folder:
        for name in NAMES:
            f32 = Path(folder) / (name + ".onnx")
            export(name, f32)
            shape = (MODELS[name] if name in MODELS else QLINEAR[name])[1]
            for operator_form in ((True,) if name == "qlinear" else (False, True)):
                path = Path(folder) / ("%s_%d.onnx" % (name, operator_form))
                quantize(f32, path, per_channel=True, operator_form=operator_form)
                int8_graph(read(path), tests=0)  # lazy imports
                graph, ms = _import_ms(path)
                d = _lsb(path, graph, shape, args.inputs)
                print("%-12s %-9s %5d %4d %10.1f %7.1f%% %7.1f%% %7.1f%%" % (
                    name, "QLinear" if operator_form else "QDQ", len(read(path).nodes),
                    len(graph.ops), ms, 100 * (d == 0).mean(), 100 * (d == 1).mean(),
                    100 * (d > 1).mean()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
