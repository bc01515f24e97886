"""Cortex-M0+ cost of the int8 flex_c kernels on MLPerf-Tiny-sized layers, in the unicorn
emulator: instructions and estimated cycles per multiply-accumulate, and the code size of
the int8 kernels for thumbv6m; then the MLPerf Tiny int8 models end to end (cycles per
inference and per MAC, milliseconds at the RP2040's 133 MHz), read from $BURN_MODELS_DIR
(benchmarks/model_files.py; the run stops with status 2 when they are absent, unless
--kernels-only).

The layers run with every output channel's requantization shift at -7; the KWS pointwise
and depthwise layers run again with per-channel shifts drawn from [-16, -8] and from
[-20, 0] (as converted models have), side by side with -7.

Cycle model (burn.host.flex.m0_timing): loads/stores 2, taken branches 2, MULS 1, RP2040's
single-cycle multiplier; flash wait states and the XIP cache are ignored.

    python benchmarks/flex_cortex_m.py [--opt -O2] [--kernels-only]
"""

import argparse

import numpy as np
from model_files import require

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.m0_timing import Counter
from burn.host.flex.runtime import use_flex
from burn.host.flex.targets import build
from burn.host.importers.tflite import import_tflite

MODELS = ["kws_ref_model.tflite", "pretrainedResnet_quant.tflite"]
CLOCK_HZ = 133e6

# (name, kind, shape parameters) - layers of the KWS DS-CNN, ResNet-8 and the AD autoencoder
LAYERS = [
    ("kws conv 10x4/2 49x10x1->64", "conv", (49, 10, 1, 64, 10, 4, 2)),
    ("kws pointwise 25x5x64->64", "conv", (25, 5, 64, 64, 1, 1, 1)),
    ("resnet conv 3x3 16x16x32->32", "conv", (16, 16, 32, 32, 3, 3, 1)),
    ("kws depthwise 3x3 25x5x64", "depthwise", (25, 5, 64, 64, 3, 3, 1)),
    ("resnet fc 64->10", "fc", (64, 10)),
    ("ad fc 640->128", "fc", (640, 128)),
]

# per-channel shifts: name -> draw(rng, channels); the fixed -7 of LAYERS first
SHIFTS = [
    ("-7", lambda rng, n: np.full(n, -7, np.int32)),
    ("[-16,-8]", lambda rng, n: rng.integers(-16, -7, n).astype(np.int32)),
    ("[-20,0]", lambda rng, n: rng.integers(-20, 1, n).astype(np.int32)),
]
WIDE_LAYERS = ["kws pointwise 25x5x64->64", "kws depthwise 3x3 25x5x64"]
CMSIS_NN = {"kws depthwise 3x3 25x5x64": 29.7}  # cycles per MAC, measured earlier


class Recording:
    """A library wrapper that counts the emulated cost of every call."""

    def __init__(self, lib):
        self.lib = lib
        self.counter = Counter(lib)

    def call(self, name, args):
        return self.lib.trace_blocks(name, args, self.counter.on_block)


def run_layer(kernels, kind, p, rng, shift=None):
    """Run one layer with random data (every channel's shift -7 unless `shift` gives them);
    returns its MAC count."""
    mult = np.full(256, 1 << 30, np.int32)
    shift = np.full(256, -7, np.int32) if shift is None else shift
    if kind == "fc":
        fin, fout = p
        x = rng.integers(-128, 128, fin, dtype=np.int8)
        w = rng.integers(-127, 128, fin * fout, dtype=np.int8)
        out = np.zeros(fout, np.int8)
        kernels.fully_connected_s8(x, w, np.zeros(fout, np.int32), mult, shift, out, 1, fin,
                                   fout, 3, -5, -128, 127)
        return fin * fout
    ih, iw, ic, oc, kh, kw, s = p
    oh, ow = (ih + s - 1) // s, (iw + s - 1) // s
    pt = max(0, ((oh - 1) * s + kh - ih) // 2)
    pl = max(0, ((ow - 1) * s + kw - iw) // 2)
    x = rng.integers(-128, 128, ih * iw * ic, dtype=np.int8)
    out = np.zeros(oh * ow * oc, np.int8)
    bias = np.zeros(oc, np.int32)
    if kind == "depthwise":
        w = rng.integers(-127, 128, kh * kw * oc, dtype=np.int8)
        kernels.depthwise_conv_s8(x, w, bias, mult, shift, out, 1, ih, iw, ic, oh, ow, 1, kh,
                                  kw, s, s, 1, 1, pt, pl, 3, -5, -128, 127)
        return oh * ow * oc * kh * kw
    w = rng.integers(-127, 128, oc * kh * kw * ic, dtype=np.int8)
    kernels.conv_s8(x, w, bias, mult, shift, out, 1, ih, iw, ic, oh, ow, oc, kh, kw, 1, s, s,
                    1, 1, pt, pl, 3, -5, -128, 127)
    return oh * ow * oc * kh * kw * ic


def model_estimate(bst_data, opt="-Os", lib=None, seed=0):
    """(estimated Cortex-M0+ cycles of one inference of the `.bst` bytes through the flex
    kernels in unicorn, its MACs): kernel cost only, no Python or dispatch."""
    lib = lib or Recording(EmulatedLib("cortex-m0plus", opt))
    model = use_flex(burn.load(bst_data), lib)
    x = np.random.default_rng(seed).integers(
        -128, 128, int(np.prod(model.info()["inputs"][0]["shape"])), dtype=np.int8)
    model.run(x)  # the first run prepares each call
    lib.counter = Counter(lib.lib)
    model.run(x)
    return lib.counter.cycles, model.info()["macs"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opt", default="-Os")
    parser.add_argument("--kernels-only", action="store_true",
                        help="measure the layers only, not the MLPerf Tiny models")
    args = parser.parse_args()
    paths = [] if args.kernels_only else require(MODELS)
    rng = np.random.default_rng(0)
    lib = Recording(EmulatedLib("cortex-m0plus", args.opt))
    kernels = GraphKernels(lib)
    print("Cortex-M0+ (%s), estimated cycles exclude flash wait states / XIP cache" % args.opt)
    print("%-32s %10s %10s %10s" % ("layer", "MACs", "instr/MAC", "cycles/MAC"))
    for name, kind, p in LAYERS:
        lib.counter = Counter(lib.lib)
        macs = run_layer(kernels, kind, p, rng)
        print("%-32s %10d %10.2f %10.2f" % (name, macs, lib.counter.instructions / macs,
                                             lib.counter.cycles / macs))
    print("cycles/MAC by per-channel requantization shifts")
    print("%-32s" % "layer" + "".join("%10s" % n for n, _draw in SHIFTS) + "  worst/-7")
    for name, kind, p in LAYERS:
        if name not in WIDE_LAYERS:
            continue
        cycles = []
        for _n, draw in SHIFTS:
            lib.counter = Counter(lib.lib)
            macs = run_layer(kernels, kind, p, rng, draw(rng, 256))
            cycles.append(lib.counter.cycles / macs)
        print("%-32s" % name + "".join("%10.2f" % c for c in cycles) +
              "  %8.3f" % (max(cycles) / cycles[0]))
        if name in CMSIS_NN:
            print("  CMSIS-NN (measured earlier): %.1f" % CMSIS_NN[name])
    result = build("cortex-m0plus", args.opt)
    print("int8 kernels code size, thumbv6m %s: %d bytes (goal <= 24576)" % (
        args.opt, result.int8_size()))
    for path in paths:
        cycles, macs = model_estimate(encode_bst(import_tflite(path.read_bytes(), tests=0)),
                                      lib=lib)
        print("%-32s %10d cycles, %.2f cycles/MAC, %.0f ms at 133 MHz" % (
            path.name, cycles, cycles / macs, 1e3 * cycles / CLOCK_HZ))


if __name__ == "__main__":
    main()
