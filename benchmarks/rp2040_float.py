"""Float models on the emulated RP2040: the plain Python float kernels of burn's default
firmware against the flex C float kernels of a firmware built for the models (`burn firmware
build --ops-from`: soft-float on the Cortex-M0+, through the pico-sdk's ROM float routines),
side by side in one run. One row per (model, firmware): cycles per inference and per
multiply-accumulate, bytes allocated per inference (gc.mem_alloc() around a third
inference, after two to warm up: on flex the first makes the model's plan), and how far
the outputs lie from the host's flex outputs,
in float32 units in the last place (ulps).

Models: a float MLP of TensorFlow's hello_world shape (1 -> 16 -> 16 -> 1, ReLU), a small
float CNN (conv 3x3 1->8, max pool, conv 3x3 8->16, average pool, fully connected 16->10,
softmax), both with seeded random weights (tests/tflite_models.py), TFLM's own
hello_world_float.tflite from the checkout that $BURN_TFLM names, when set, and the MLPerf
Tiny KWS float32 model from $BURN_MODELS_DIR when it is there (C kernels only: the plain
kernels take minutes of emulation on it). Goal printed beside the figures: cycles per MAC
<= 150 on the C kernels, 0 bytes allocated per inference.

Run: python benchmarks/rp2040_float.py [--timeout 900] [--c-only]

`--c-only` measures the float firmware alone (the C kernels' rows), without building or
running burn's default firmware for the plain kernels' rows.
"""

import argparse
import ast
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from model_files import MODELS_DIR, tflm_model  # noqa: E402
from rp2040_models import CLOCK_HZ, Case, firmware, place_models, say  # noqa: E402
from tflite_models import float_cnn, float_mlp  # noqa: E402

import burn  # noqa: E402
from burn.host.bst_writer import encode_bst  # noqa: E402
from burn.host.cache import cache_dir  # noqa: E402
from burn.host.firmware.build import build_firmware  # noqa: E402
from burn.host.firmware.ops_select import kernels_of  # noqa: E402
from burn.host.importers.tflite import import_tflite  # noqa: E402
from burn.host.link import LinkError, LinkTimeout  # noqa: E402

CYCLES_PER_MAC_GOAL = 150
HELLO_WORLD = "tensorflow/lite/micro/examples/hello_world/models/hello_world_float.tflite"

_RUN = """
import gc, time, burn
_m = burn.load(%(path)r, %(variant)r)
_x = _m.input_buffer()


def _fill():  # the input again: the arena's later tensors may reuse its bytes
    for _i in range(len(_x)):
        _x[_i] = ((_i * 37) %% 19 - 9) / 7.0


_fill()
_m.invoke()  # with flex: makes the model's plan
_fill()
_m.invoke()  # its first run
_fill()
_t = _us = _a = 0  # the globals this measures with exist first: a new one grows the dict
gc.collect()
_a = gc.mem_alloc()
_t = time.ticks_us()
_m.invoke()
_us = time.ticks_diff(time.ticks_us(), _t)
_a = gc.mem_alloc() - _a
import binascii
print(repr((_m.backend, _us, _a, binascii.hexlify(bytes(_m.outputs())))))
"""


def cases():
    """[(Case, whether the plain kernels run it)]."""
    out = [(Case("mlp", encode_bst(import_tflite(float_mlp(), tests=0))), True),
           (Case("cnn", encode_bst(import_tflite(float_cnn(), tests=0))), True)]
    hello, why = tflm_model(HELLO_WORLD)
    if hello:
        out.append((Case("hello", encode_bst(import_tflite(hello.read_bytes(), tests=0))),
                    True))
    else:
        print("hello: not measured: %s" % why)
    kws = Path(MODELS_DIR, "kws_ref_model_float32.tflite")
    if kws.is_file():
        out.append((Case("kws_f32", encode_bst(import_tflite(kws.read_bytes(), tests=0))),
                    False))
    else:
        print("kws_f32: %s is absent: not measured" % kws)
    return out


def host_outputs(case):
    """The host's outputs on flex for the input the board builds, as the int32 bits of
    their float32 values."""
    from burn.host.flex.runtime import use_flex

    model = use_flex(burn.load(case.data))
    x = model.input_buffer()
    for i in range(len(x)):
        x[i] = ((i * 37) % 19 - 9) / 7.0
    model.invoke()
    return np.asarray(model.outputs(), np.float32).view(np.int32)


def run(flavour, uf2, items, timeout):
    """Rows of (model, firmware, backend, cycles, bytes allocated, equal) on one board."""
    from burn.host.emulator.board import EmulatedBoard
    from burn.host.link.link import Link

    image = cache_dir("bench") / ("rp2040-float-%s.img" % flavour)
    rows = []
    with EmulatedBoard("rp2040", firmware=uf2, flash_image=image) as board:
        link = Link(board.port)
        try:
            place_models(link, [c for c, _plain in items])
            for case, plain_too in items:
                if flavour == "default" and not plain_too:
                    continue
                say("%s on the %s firmware ..." % (case.name, flavour))
                link.soft_reset()
                try:
                    backend, us, alloc, out = ast.literal_eval(link.exec(
                        _RUN % {"path": case.where, "variant": "plain" if flavour ==
                                "default" else "flex"}, timeout=timeout).strip().splitlines()[-1])
                except (LinkTimeout, LinkError) as exc:
                    print("%s on %s: %s" % (case.name, flavour, str(exc).strip()[-200:]))
                    continue
                got = np.frombuffer(bytes.fromhex(out.decode()), np.int32)
                ulps = int(np.abs(got - case.host).max())
                rows.append((case, flavour, backend, us * CLOCK_HZ / 1e6, alloc, ulps))
        finally:
            link.close()
    return rows


def main(argv=None):
    """Command line: build the float firmware, measure both firmwares, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds of wall time one board run may take (default 900)")
    parser.add_argument("--c-only", action="store_true",
                        help="only the float firmware's C kernels, not the plain kernels")
    args = parser.parse_args(argv)
    items = cases()
    paths = []
    for case, _plain in items:
        case.host = host_outputs(case)
        case.macs = burn.load(case.data).info()["macs"]
        path = cache_dir("bench") / ("%s.bst" % case.name)
        path.write_bytes(case.data)
        paths.append(path)
    ops = kernels_of(paths)
    say("float firmware: the kernels %s" % ", ".join(ops))
    floats = build_firmware("rp2040", ops=ops).uf2
    rows = [] if args.c_only else run("default", firmware("burn"), items, args.timeout)
    rows += run("float", floats, items, args.timeout)
    print("%-8s %-8s %-7s %14s %8s %12s %10s %8s  %s" % (
        "model", "firmware", "backend", "cycles", "MACs", "cycles/MAC", "alloc B", "max ulps",
        "goal"))
    for case, flavour, backend, cycles, alloc, ulps in rows:
        macs = case.macs
        goal = ""
        if flavour == "float":
            met = cycles / macs <= CYCLES_PER_MAC_GOAL and alloc == 0
            goal = "%s (<= %d cycles/MAC, 0 B)" % ("met" if met else "NOT met",
                                                   CYCLES_PER_MAC_GOAL)
        print("%-8s %-8s %-7s %14s %8d %12.1f %10d %8d  %s" % (
            case.name, flavour, backend, "{:,.0f}".format(cycles), macs, cycles / macs,
            alloc, ulps, goal))
    return 0


if __name__ == "__main__":
    sys.exit(main())
