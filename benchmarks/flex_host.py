"""Host int8 inference time of the MLPerf Tiny models: flex_c (through cffi, via the .bst
runtime) against the tflite-micro interpreter and the pure-Python kernels.

    python benchmarks/flex_host.py [--runs 20]

Goal: flex <= 0.3x TFLM's time per inference. Models come from $BURN_MODELS_DIR
(benchmarks/model_files.py); the run stops with status 2 when they are absent.
"""

import argparse
import time

import numpy as np
from model_files import require
from tflite_micro.python.tflite_micro import runtime

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite_import import import_tflite

CASES = [("kws_ref_model.tflite", (1, 49, 10, 1)),
         ("pretrainedResnet_quant.tflite", (1, 32, 32, 3))]


def best_time(fn, runs):
    """Median seconds of `runs` calls of fn() after one warm-up call."""
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def measure(data, shape, runs):
    """(tflm s, flex s, pure s, flex output equals TFLM's) for one model."""
    x = np.random.default_rng(0).integers(-128, 128, size=shape, dtype=np.int8)
    interp = runtime.Interpreter.from_bytes(data)

    def tflm_run():
        interp.set_input(x, 0)  # TFLM's arena reuses the input tensor: set it each time
        interp.invoke()

    tflm = best_time(tflm_run, runs)
    bst = encode_bst(import_tflite(data, tests=0))
    flat = x.reshape(-1)
    flex_model = use_flex(burn.load(bst))
    flex = best_time(lambda: flex_model(flat), runs)
    pure_model = burn.load(bst)
    pure = best_time(lambda: pure_model(flat), 2)
    tflm_run()
    same = np.array_equal(np.array(flex_model(flat).tolist()).reshape(-1),
                          np.asarray(interp.get_output(0)).reshape(-1))
    return tflm, flex, pure, same


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    paths = require([name for name, _shape in CASES])
    print("%-32s %10s %10s %10s %8s" % ("model", "tflm ms", "flex ms", "pure ms", "flex/tflm"))
    for (name, shape), path in zip(CASES, paths):
        tflm, flex, pure, same = measure(path.read_bytes(), shape, args.runs)
        print("%-32s %10.3f %10.3f %10.1f %8.2f%s" % (
            name, tflm * 1e3, flex * 1e3, pure * 1e3, flex / tflm,
            "" if same else "  OUTPUTS DIFFER"))


if __name__ == "__main__":
    main()
