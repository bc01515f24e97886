"""Arena size and inference time of the MLPerf Tiny int8 models: burn's .bst runtime vs TFLM.

    python benchmarks/bst_models.py [--runs N]

Arena: burn's planned activation arena vs the activation part ("head") of TFLM's arena as
its print_allocations reports it. Time per inference: TFLM on the host, the core's plain
kernels on CPython, and the plain and the active kernels (viper where a kernel has a viper
twin) on the MicroPython unix port (core compiled to .mpy, heap 192 KB, weights read from
the open file layer by layer).
Models come from $BURN_MODELS_DIR (benchmarks/model_files.py); the run stops with status 2
when they are absent.
"""

import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from model_files import require

import burn
from burn.host import mpy
from burn.host.bst_writer import encode_bst
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import unix as mp_unix

REPO = Path(__file__).resolve().parents[1]
NAMES = ("kws_ref_model.tflite", "pretrainedResnet_quant.tflite")

_MP_SCRIPT = """
import sys, time
sys.path.insert(0, %(core)r)
import burn
m = burn.load(open(%(model)r, 'rb'), %(variant)r)
m.invoke()
t = time.ticks_us()
for _ in range(%(runs)d):
    m.invoke()
print('US', time.ticks_diff(time.ticks_us(), t) // %(runs)d)
"""


def tflm_head_bytes(data):
    """The activation ("head") bytes of TFLM's arena, read from print_allocations."""
    from tflite_micro.python.tflite_micro import runtime
    interp = runtime.Interpreter.from_bytes(data)
    with tempfile.TemporaryFile() as out:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(out.fileno(), 2)
        try:
            interp.print_allocations()  # TFLM prints through C's stdio, to stderr
            ctypes.CDLL(None).fflush(None)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read().decode()
    return int(re.search(r"allocation head (\d+) bytes", text).group(1)), interp


def time_tflm(interp, x, runs):
    interp.set_input(x, 0)
    interp.invoke()
    t = time.perf_counter()
    for _ in range(runs):
        interp.invoke()
    return (time.perf_counter() - t) / runs * 1e6


def time_cpython(bst, x, runs):
    model = burn.load(bst, variant="plain")
    model.run(x)
    t = time.perf_counter()
    for _ in range(runs):
        model.run(x)
    return (time.perf_counter() - t) / runs * 1e6


def time_micropython(path, variant, runs):
    binary = mp_unix.find_micropython()
    if binary is None:
        return None
    core = mpy.compile_core(mp_unix.port_info(binary)[2] or "host")
    script = _MP_SCRIPT % {"core": str(core.root), "model": str(path), "variant": variant,
                           "runs": runs}
    proc = subprocess.run([binary, *mp_unix.heap_args("192k"), "-c", script],
                          capture_output=True, text=True, timeout=1800)
    found = re.search(r"US (\d+)", proc.stdout)
    if not found:
        print("  micropython %s failed: %s" % (variant, (proc.stdout + proc.stderr)[-300:]))
        return None
    return int(found.group(1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="inferences timed per setup")
    args = parser.parse_args(argv)
    sources = require(NAMES)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, src in zip(NAMES, sources):
            data = src.read_bytes()
            bst = encode_bst(import_tflite(data, tests=0))
            path = Path(tmp) / (src.stem + ".bst")
            path.write_bytes(bst)
            model = burn.load(bst)
            head, interp = tflm_head_bytes(data)
            x = np.random.default_rng(0).integers(
                -128, 128, model.info()["inputs"][0]["shape"], dtype=np.int8)
            print("timing %s ..." % name, flush=True)
            times = (time_tflm(interp, x, args.runs * 20), time_cpython(bst, x, args.runs),
                     time_micropython(path, "plain", args.runs),
                     time_micropython(path, None, args.runs))
            rows.append((src.stem, model.arena_bytes, head, times))
    print("\n%-24s %8s %8s %6s  %12s %12s %12s %12s" % (
        "model", "arena", "TFLM", "ratio", "TFLM us", "CPython us", "MP plain us",
        "MP viper us"))
    for stem, arena, head, times in rows:
        cells = ["%12s" % ("-" if t is None else "%.0f" % t) for t in times]
        print("%-24s %8d %8d %6.2f  %s" % (stem, arena, head, arena / head, " ".join(cells)))


if __name__ == "__main__":
    main()
