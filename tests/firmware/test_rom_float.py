"""The RP2040's float kernels' dot products (flex_c/src/opt/cortex_m0plus/f32_rom_dot.c)
call the bootrom's fmul straight through its soft-float table and add the products
themselves (the ROM's fadd for what that add leaves), where C's `acc += x * w` goes through
the pico-sdk's and MicroPython's checked wrappers of the ROM routines. The ROM routines
exist only in the real RP2040 image, so this runs on the emulated RP2040 (rp2040js with the
B1 bootrom) with the firmware of the float benchmark's kernels: the fully connected,
depthwise and convolution kernels give the bits of the same sums written in MicroPython on
that board, whose float `*` and `+` are the checked path, finite operands and the corner
cases alike (a NaN operand, infinity times zero, infinity minus infinity, overflow,
products below the smallest normal float, which the ROM flushes to zero, ties to even,
cancellations)."""

import ast
import sys
from pathlib import Path

import numpy as np

from burn.host.bst_writer import encode_bst
from burn.host.firmware import ops_select
from burn.host.importers.tflite import import_tflite

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_ops_from import _build_tools_or_skip
from tflite_models import float_cnn

NAN_PAYLOAD = np.array([0x7FC00123], np.uint32).view(np.float32)[0]


def float_kernels(folder):
    """The float benchmark's kernels (benchmarks/rp2040_float.py: its MLP, CNN and KWS):
    the float CNN's and the depthwise convolution, so both share one cached firmware."""
    model = folder / "cnn_f32.bst"
    model.write_bytes(encode_bst(import_tflite(float_cnn(), tests=0)))
    return tuple(sorted(set(ops_select.kernels_of([model])) | {"depthwise_conv_f32"}))


def _operands(rng, n, specials):
    """n float32 values of mixed magnitudes, with `specials` {index: value} put in."""
    v = (rng.standard_normal(n) * np.exp2(rng.integers(-6, 7, n))).astype(np.float32)
    for i, s in specials.items():
        v[i] = s
    return v


def cases():
    """(fc, depthwise, conv, sums) operands: x, w, bias of each, with the corner cases in
    some outputs and plain values in the others."""
    rng = np.random.default_rng(7)
    inf = np.float32(np.inf)
    # fully connected, 2 batches x 13 -> 9: rows 4-8 hold the corner cases for batch 1,
    # whose inputs 0-3 are 4, 1.5, 2.5 and 0
    x = _operands(rng, 26, {13: 4.0, 14: 1.5, 15: 2.5, 16: 0.0, 20: 1e-20, 21: -3e-21})
    w = _operands(rng, 117, {4 * 13 + 3: inf,                  # inf * 0 in batch 1
                             5 * 13 + 1: inf, 5 * 13 + 2: -inf,  # inf - inf
                             6 * 13 + 5: NAN_PAYLOAD,            # a NaN operand
                             7 * 13 + 0: 3e38, 7 * 13 + 1: 3e38,  # overflow
                             8 * 13 + 7: 1e-19, 8 * 13 + 8: 2e-19})  # products below normal
    fc = (x, w, _operands(rng, 9, {}))
    # depthwise 5x6x3, 3x3, multiplier 2, padding 1: an infinity and a NaN among the inputs
    dw = (_operands(rng, 90, {20: inf, 61: NAN_PAYLOAD}), _operands(rng, 54, {}),
          _operands(rng, 6, {}))
    # convolution 5x5x8 -> 5x5x4, 3x3, padding 1: 72 taps, two blocks of them on the M0+ (the
    # second adds the first's partial sums); an infinite weight also meets the padding
    conv = (_operands(rng, 200, {40: 1e30}), _operands(rng, 288, {58: inf}),
            _operands(rng, 4, {}))
    return fc, dw, conv, sums(rng)


def _f32(bits):
    """float32 values of the given bits."""
    return np.asarray(bits, np.uint32).view(np.float32)


def sums(rng, n=600):
    """A fully connected layer of two inputs, both 1: output o is the float32 sum of
    weights 2o and 2o + 1, the loop's own add, then of bias o (a tail). Pairs of every
    exponent distance and sign, ties to even, cancellations, the edges of the exponent
    range; biases of mixed magnitudes, zeros and denormals among them."""
    e = rng.integers(1, 254, n)
    a = _f32((rng.integers(0, 2, n) << 31) | (e << 23) | rng.integers(0, 1 << 23, n))
    d = rng.integers(0, 40, n)
    b = _f32((rng.integers(0, 2, n) << 31) | (np.clip(e - d, 1, 254) << 23)
             | rng.integers(0, 1 << 23, n))
    q = n // 6
    ulp = np.spacing(np.abs(a[:q]))
    b[:q] = np.copysign(ulp * rng.choice([0.5, 1.5, 0.25, 0.75], q), rng.standard_normal(q))
    b[q:2 * q] = -a[q:2 * q] * (1 + rng.integers(-3, 4, q) * 2.0 ** -23).astype(np.float32)
    b[2 * q:3 * q] = -np.nextafter(a[2 * q:3 * q], np.float32(0))
    w = np.stack([a, b], 1).reshape(-1).astype(np.float32)
    bias = _operands(rng, n, {})
    bias[::5] = 0.0
    bias[1::7] = _f32(rng.integers(1, 1 << 23, len(bias[1::7])))  # denormals
    bias[2::9] = -a[2::9]
    return np.ones(2, np.float32), w, bias


_ON_BOARD = """
import array, binascii, burnflex
def f(h):
    return array.array('f', binascii.unhexlify(h))
fx, fw, fb, dx, dw, db, cx, cw, cb, sx, sw, sb = [f(h) for h in %r]
out = []
y = array.array('f', bytes(4 * 18))
burnflex.fully_connected_f32(fx, fw, fb, y, 2, 13, 9, 0)
r = array.array('f', bytes(4 * 18))
for b in range(2):
    for o in range(9):
        t = 0.0
        for k in range(13):
            t = t + fx[b * 13 + k] * fw[o * 13 + k]
        r[b * 9 + o] = t + fb[o]
out.append((y, r))
y = array.array('f', bytes(4 * 180))
burnflex.depthwise_conv_f32(dx, dw, db, y, 1, 5, 6, 3, 5, 6, 2, 3, 3, 1, 1, 1, 1, 1, 1, 0)
r = array.array('f', bytes(4 * 180))
for oy in range(5):
    for ox in range(6):
        for c in range(6):
            t = db[c]
            for ky in range(3):
                for kx in range(3):
                    iy, ix = oy + ky - 1, ox + kx - 1
                    if 0 <= iy < 5 and 0 <= ix < 6:
                        t = t + dx[(iy * 6 + ix) * 3 + c // 2] * dw[(ky * 3 + kx) * 6 + c]
            r[(oy * 6 + ox) * 6 + c] = t
out.append((y, r))
y = array.array('f', bytes(4 * 100))
burnflex.conv_f32(cx, cw, cb, y, 1, 5, 5, 8, 5, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0)
r = array.array('f', bytes(4 * 100))
for oy in range(5):
    for ox in range(5):
        for o in range(4):
            t = [0.0, 0.0]  # taps 0-35, then 36-71, each summed from 0
            for k in range(72):
                ky, kx, c = k // 24, k // 8 %% 3, k %% 8
                iy, ix = oy + ky - 1, ox + kx - 1
                v = cx[(iy * 5 + ix) * 8 + c] if 0 <= iy < 5 and 0 <= ix < 5 else 0.0
                t[k // 36] = t[k // 36] + v * cw[o * 72 + k]
            r[(oy * 5 + ox) * 4 + o] = t[1] + (t[0] + cb[o])
out.append((y, r))
n = len(sw) // 2
y = array.array('f', bytes(4 * n))
burnflex.fully_connected_f32(sx, sw, sb, y, 1, 2, n, 0)
r = array.array('f', bytes(4 * n))
for o in range(n):
    r[o] = 0.0 + sx[0] * sw[2 * o] + sx[1] * sw[2 * o + 1] + sb[o]
out.append((y, r))
print(repr([(binascii.hexlify(a), binascii.hexlify(b)) for a, b in out]))
"""


def test_the_rom_dot_products_give_the_checked_bits(tmp_path):
    """Each kernel's outputs on the board are, bit for bit, its sums written out in
    MicroPython there, and those hold NaNs, infinities and finite values."""
    from burn.host.board_session import Emulated, open_board
    from burn.host.firmware.build import build_firmware

    _build_tools_or_skip()
    built = build_firmware("rp2040", ops=float_kernels(tmp_path))
    hexes = [a.tobytes().hex() for case in cases() for a in case]
    with open_board(emulated=Emulated(built.uf2)) as session:
        got = ast.literal_eval(session.link.exec(_ON_BOARD % (hexes,), timeout=120)
                               .strip().splitlines()[-1])
    for name, (kernel, written) in zip(("fully connected", "depthwise", "conv", "sums"), got):
        assert kernel == written, name
    fc = np.frombuffer(bytes.fromhex(got[0][0].decode()), np.uint32)
    # batch 1: inf * 0 (row 4), inf - inf (5) and the NaN operand (6, its payload) are
    # NaNs, the overflow (7) an infinity; the ROM would make all four infinities
    assert list(fc[9 + 4:9 + 8]) == [0x7FC00000, 0x7FC00000, 0x7FC00123, 0x7F800000]
    values = np.concatenate([np.frombuffer(bytes.fromhex(k.decode()), np.float32)
                             for k, _ in got])
    assert np.isnan(values).sum() >= 8 and np.isinf(values).sum() >= 4
    assert np.isfinite(values).sum() > 200
