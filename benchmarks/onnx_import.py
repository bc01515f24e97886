"""ONNX import: import time, operator coverage, and batch-1 time of the imported float
models on flex against onnxruntime, in one run.

usage: python benchmarks/onnx_import.py [--repeat 200] [--opset 17] [--threads 1]
The models are those of the tests (tests/onnx_models.py), exported by PyTorch (CPU).
Each model's burn and onnxruntime calls alternate, so the machine's load hits both alike;
the median per call is printed. onnxruntime runs with `--threads` intra-op threads
(default 1: flex runs on one core).
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import numpy as np
import onnx
import onnxruntime as ort
from onnx_models import MODELS, export

import burn.host  # noqa: F401
from burn.host.convert import to_tensor
from burn.host.importers.onnx_fold import FOLDS
from burn.host.importers.onnx_import import import_onnx
from burn.host.importers.onnx_lower import supported_ops
from burn.host.importers.onnx_registry import LOWERED


def coverage(opset):
    """(supported, total): ops of the default ONNX domain defined at `opset`."""
    names = {s.name for s in onnx.defs.get_all_schemas_with_history()
             if s.domain == "" and s.since_version <= opset and not s.deprecated}
    return sorted(names & set(supported_ops())), sorted(names)


def _median_pair(fa, fb, repeat):
    ta, tb = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        fa()
        ta.append(time.perf_counter() - t)
        t = time.perf_counter()
        fb()
        tb.append(time.perf_counter() - t)
    return statistics.median(ta), statistics.median(tb)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=200)
    p.add_argument("--opset", type=int, default=17)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    for opset in (13, 17, 21):
        ok, total = coverage(opset)
        print("opset %d: %d of %d ONNX ops supported" % (opset, len(ok), len(total)))
    print("supported: %s" % ", ".join(supported_ops()))
    print("on constants only (folded): %s" % ", ".join(sorted(set(FOLDS) - set(LOWERED)
                                                              - {"Shape"})))
    print("%-12s %6s %10s %12s %12s %7s" % ("model", "nodes", "import ms", "flex ms",
                                          "ort ms", "ratio"))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    with tempfile.TemporaryDirectory() as folder:
        for name, (_, shape) in MODELS.items():
            path = Path(folder) / (name + ".onnx")
            export(name, path, args.opset)
            print("%-12s %6d %10.1f %12.3f %12.3f %7.1f" % _measure(name, path, shape, opts,
                                                                    args.repeat))


def _measure(name, path, shape, opts, repeat):
    t = time.perf_counter()
    imported = import_onnx(path)
    import_ms = (time.perf_counter() - t) * 1e3
    model = imported.model("flex")
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    xt = to_tensor(x, "flex")
    flex_s, ort_s = _median_pair(lambda: model(xt).tolist(),
                                 lambda: sess.run(None, {"x": x}), repeat)
    return (name, len(imported.builder.graph.nodes), import_ms, flex_s * 1e3, ort_s * 1e3,
            flex_s / ort_s)

if __name__ == "__main__":
    main()
