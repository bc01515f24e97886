"""flex against a peer layer by layer on an emulated core (benchmarks/chips.py prints the
table): the same random data and quantization through flex's kernels for the core and
through the peer built with the same compiler and flags (CMSIS-NN on a Cortex-M,
benchmarks/cmsis_nn.py; esp-nn on RISC-V, benchmarks/esp_nn.py), both in unicorn (in QEMU
on the Cortex-M55, burn.host.flex.qemu_lib); per layer the instructions and, where the core
has a timing model, estimated cycles per multiply-accumulate
(burn.host.flex.emulated_arch.cost_model) and whether the outputs agree bit for bit.
"""

import numpy as np

import burn
from burn.host.flex.emulated_arch import cost_model
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.m0_timing import Counter
from burn.host.flex.qemu_lib import MACHINES as QEMU_MACHINES
from burn.host.flex.qemu_lib import QemuLib
from burn.host.flex.runtime import use_flex

# (name, kind, geometry): conv/depthwise (in_h, in_w, in_c, out_c, kernel_h, kernel_w,
# stride), "same" padding; fc (in_features, out_features). Layers of KWS (DS-CNN), ResNet-8,
# MobileNetV1-0.25 (person detection's shape) and the AD autoencoder.
LAYERS = [
    ("kws conv 10x4/2 49x10x1->64", "conv", (49, 10, 1, 64, 10, 4, 2)),
    ("kws pointwise 25x5x64->64", "conv", (25, 5, 64, 64, 1, 1, 1)),
    ("kws depthwise 3x3 25x5x64", "depthwise", (25, 5, 64, 64, 3, 3, 1)),
    ("resnet conv 3x3 32x32x3->16", "conv", (32, 32, 3, 16, 3, 3, 1)),
    ("resnet conv 3x3 16x16x32->32", "conv", (16, 16, 32, 32, 3, 3, 1)),
    ("resnet conv 3x3 8x8x64->64", "conv", (8, 8, 64, 64, 3, 3, 1)),
    ("mobilenet pointwise 24x24x32->64", "conv", (24, 24, 32, 64, 1, 1, 1)),
    ("mobilenet depthwise 3x3/2 48x48x16", "depthwise", (48, 48, 16, 16, 3, 3, 2)),
    ("resnet fc 64->10", "fc", (64, 10)),
    ("ad fc 640->128", "fc", (640, 128)),
]


class Layer:
    """One layer's random data and quantization (TFLM-like: multipliers in [2^30, 2^31),
    shifts in [-10, -6], zero points anywhere)."""

    def __init__(self, kind, geometry, rng):
        self.kind = kind
        self.in_zp, self.out_zp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
        if kind == "fc":
            fin, fout = geometry
            self.shape = (fin, fout)
            self.x = rng.integers(-128, 128, fin, dtype=np.int8)
            self.w = rng.integers(-127, 128, fin * fout, dtype=np.int8)
            self.bias = rng.integers(-3000, 3000, fout).astype(np.int32)
            self.mult = np.array([rng.integers(1 << 30, 1 << 31)], np.int32)
            self.shift = np.array([rng.integers(-10, -5)], np.int32)
            self.out_size, self.macs = fout, fin * fout
            return
        ih, iw, ic, oc, kh, kw, s = geometry
        oh, ow = (ih + s - 1) // s, (iw + s - 1) // s
        pt = max(0, ((oh - 1) * s + kh - ih) // 2)
        pl = max(0, ((ow - 1) * s + kw - iw) // 2)
        self.geometry = (ih, iw, ic, oh, ow, oc, kh, kw, s, pt, pl)
        taps = kh * kw * (1 if kind == "depthwise" else ic)
        self.x = rng.integers(-128, 128, ih * iw * ic, dtype=np.int8)
        self.w = rng.integers(-127, 128, oc * taps, dtype=np.int8)
        self.bias = rng.integers(-3000, 3000, oc).astype(np.int32)
        self.mult = rng.integers(1 << 30, 1 << 31, oc).astype(np.int32)
        self.shift = rng.integers(-10, -5, oc).astype(np.int32)
        self.out_size, self.macs = oh * ow * oc, oh * ow * oc * taps

    def run_flex(self, lib):
        """The output through flex's kernels on `lib` (an EmulatedLib or a wrapper)."""
        k, out = GraphKernels(lib), np.zeros(self.out_size, np.int8)
        if self.kind == "fc":
            fin, fout = self.shape
            k.fully_connected_s8(self.x, self.w, self.bias, np.repeat(self.mult, fout),
                                 np.repeat(self.shift, fout), out, 1, fin, fout, self.in_zp,
                                 self.out_zp, -128, 127)
            return out
        ih, iw, ic, oh, ow, oc, kh, kw, s, pt, pl = self.geometry
        if self.kind == "depthwise":
            k.depthwise_conv_s8(self.x, self.w, self.bias, self.mult, self.shift, out, 1, ih,
                                iw, ic, oh, ow, 1, kh, kw, s, s, 1, 1, pt, pl, self.in_zp,
                                self.out_zp, -128, 127)
        else:
            k.conv_s8(self.x, self.w, self.bias, self.mult, self.shift, out, 1, ih, iw, ic, oh,
                      ow, oc, kh, kw, 1, s, s, 1, 1, pt, pl, self.in_zp, self.out_zp, -128,
                      127)
        return out

    def peer_call(self, out):
        """(function name, arguments) of the same layer through the peer's harness
        (benchmarks/cmsis_nn_peer.c, esp_nn_peer.c)."""
        if self.kind == "fc":
            fin, fout = self.shape
            p = np.array([1, fin, fout, -self.in_zp, self.out_zp, -128, 127], np.int32)
            return "peer_fully_connected_s8", [self.x, self.w, self.bias, int(self.mult[0]),
                                               int(self.shift[0]), out, p]
        ih, iw, ic, oh, ow, oc, kh, kw, s, pt, pl = self.geometry
        p = np.array([1, ih, iw, ic, oh, ow, oc, kh, kw, s, s, pt, pl, 1, 1, -self.in_zp,
                      self.out_zp, -128, 127, 1], np.int32)
        name = "peer_depthwise_s8" if self.kind == "depthwise" else "peer_conv_s8"
        return name, [self.x, self.w, self.bias, self.mult, self.shift, out, p]


def emulated(target):
    """flex's build for `target` in its emulator: QEMU for the cores unicorn lacks (the
    Cortex-M55's MVE), else unicorn."""
    return QemuLib(target) if target in QEMU_MACHINES else EmulatedLib(target)


class Tally:
    """The instructions of the calls run on a QemuLib, which counts whole calls (no
    blocks, no cycle model): `cycles` stays 0."""

    def __init__(self):
        self.instructions = self.cycles = 0


def new_counter(lib):
    """A fresh cost counter for `lib`'s calls: a Tally on QEMU, else a Counter of the
    target's blocks."""
    return Tally() if isinstance(lib, QemuLib) else Counter(lib, cost_model(lib.target)[0])


def run_counted(lib, counter, name, args):
    """Call `name` on `lib`, adding its cost to `counter` (new_counter's); the status."""
    if isinstance(counter, Tally):
        status, count = lib.count(name, args)
        counter.instructions += count
        return status
    return lib.trace_blocks(name, args, counter.on_block)


class Counted:
    """A library whose every call is costed (instructions, estimated cycles)."""

    def __init__(self, lib):
        self.lib = lib
        self.reset()

    def call(self, name, args):
        return run_counted(self.lib, self.counter, name, args)

    def reset(self):
        self.counter = new_counter(self.lib)


def compare(flex_lib, peer_lib, seed=0):
    """[(name, MACs, flex (instr/MAC, cycles/MAC), peer (instr/MAC, cycles/MAC), equal)]
    for every layer of LAYERS."""
    rng = np.random.default_rng(seed)
    flex, peer = Counted(flex_lib), Counted(peer_lib)
    rows = []
    for name, kind, geometry in LAYERS:
        layer = Layer(kind, geometry, rng)
        flex.reset()
        ours = layer.run_flex(flex)
        theirs = np.zeros(layer.out_size, np.int8)
        fn, args = layer.peer_call(theirs)
        if kind == "fc":
            status = peer_lib.call("peer_fully_connected_prepare_s8", [layer.w, layer.bias,
                                                                       args[-1]])
            assert status == 0, status
        peer.reset()
        status = peer.call(fn, args)
        if status != 0:
            raise RuntimeError("the peer's %s returned %d on %s" % (fn, status, name))
        per = [(c.instructions / layer.macs, c.cycles / layer.macs)
               for c in (flex.counter, peer.counter)]
        rows.append((name, layer.macs, per[0], per[1], bool(np.array_equal(ours, theirs))))
    return rows



def _peer_args(name, args):
    """(peer function, arguments, output) of flex call `name` with `args` (flex.h's order),
    inputs copied so that the peer runs before flex may overwrite them; None for a call the
    peer does not take."""
    if name in ("flex_s8_conv2d", "flex_s8_depthwise_conv2d"):
        ind, x, _xl, w, _wl, bias, _bl, mult, shift, _ql, win, groups, q, outd, out, _ol = args
        n, ih, iw, ic = ind.values
        kh, kw, sh, sw, dh, dw, pt, _pb, pl, _pr = win.values
        _n, oh, ow, oc = outd.values
        if name == "flex_s8_conv2d" and groups != 1:
            return None
        p = np.array([n, ih, iw, ic, oh, ow, oc, kh, kw, sh, sw, pt, pl, dh, dw]
                     + list(q.values) + [groups], np.int32)
        bias = np.zeros(oc, np.int32) if bias is None else np.copy(bias)
        theirs = np.zeros(out.size, np.int8)
        fn = "peer_conv_s8" if name == "flex_s8_conv2d" else "peer_depthwise_s8"
        return fn, [np.copy(x), np.copy(w), bias, np.copy(mult), np.copy(shift), theirs,
                    p], theirs
    if name == "flex_s8_fully_connected":
        batches, fin, fout, x, _xl, w, _wl, f_off, bias, _bl, mult, shift, _ql, q, out, _ = args
        if f_off != 0 or len(set(np.asarray(mult).tolist())) > 1 or \
                len(set(np.asarray(shift).tolist())) > 1:
            return None
        p = np.array([batches, fin, fout] + list(q.values), np.int32)
        bias = np.zeros(fout, np.int32) if bias is None else np.copy(bias)
        theirs = np.zeros(out.size, np.int8)
        return "peer_fully_connected_s8", [np.copy(x), np.copy(w), bias, int(mult[0]),
                                           int(shift[0]), theirs, p], theirs
    return None


class SideBySide:
    """A library for burn's runtime (use_flex) that runs every call on flex's kernels and,
    first, every int8 conv, depthwise and fully connected call on the peer too, costing
    both: `flex` and `peer` are the costs of the calls both ran, `rest` flex's other calls;
    `equal` stays True while every output agrees."""

    def __init__(self, flex_lib, peer_lib):
        self.flex_lib, self.peer_lib = flex_lib, peer_lib
        self.reset()

    def reset(self):
        self.flex = new_counter(self.flex_lib)
        self.rest = new_counter(self.flex_lib)
        self.peer = new_counter(self.peer_lib)
        self.equal = True
        self.unmatched = 0

    def call(self, name, args):
        side = _peer_args(name, args)
        if side is None:
            if name in ("flex_s8_conv2d", "flex_s8_depthwise_conv2d",
                        "flex_s8_fully_connected"):
                self.unmatched += 1
            return run_counted(self.flex_lib, self.rest, name, args)
        fn, peer_args, theirs = side
        if fn == "peer_fully_connected_s8":
            assert self.peer_lib.call("peer_fully_connected_prepare_s8",
                                      [peer_args[1], peer_args[2], peer_args[6]]) == 0
        status = run_counted(self.peer_lib, self.peer, fn, peer_args)
        if status != 0:
            raise RuntimeError("the peer's %s returned %d" % (fn, status))
        result = run_counted(self.flex_lib, self.flex, name, args)
        out = args[14]
        self.equal = self.equal and np.array_equal(np.asarray(out).reshape(-1), theirs)
        return result


def compare_model(bst_data, flex_lib, peer_lib, seed=0):
    """One inference of the `.bst` bytes on flex's kernels in the emulator with the peer
    beside it (SideBySide, after a first run that prepares every call); returns it."""
    side = SideBySide(flex_lib, peer_lib)
    model = use_flex(burn.load(bst_data), side)
    x = np.random.default_rng(seed).integers(
        -128, 128, int(np.prod(model.info()["inputs"][0]["shape"])), dtype=np.int8)
    model.run(x)
    side.reset()
    model.run(x)
    return side
