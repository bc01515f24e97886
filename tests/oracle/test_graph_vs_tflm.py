"""Every int8 graph kernel against the tflite-micro interpreter, bit for bit.

Each case builds a one-op .tflite model with random shapes, parameters and data (seeded),
runs it in TFLM, runs our kernel with parameters derived from the same float32 scales the
way TFLM's Prepare derives them, and asserts exact equality.
"""

import os
import sys
from array import array

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tflite_builder import ModelBuilder, run_tflm  # noqa: E402

from burn.graph import fixedpoint as fp  # noqa: E402
from burn.graph.geometry import out_size, pad_before  # noqa: E402

ACTS = (fp.ACT_NONE, fp.ACT_RELU, fp.ACT_RELU6)


def f32(v):
    """A random draw rounded to float32, as the .tflite file stores it."""
    return float(np.float32(v))


def s8(rng, shape):
    return rng.integers(-128, 128, size=shape, dtype=np.int8)


def out_buf(shape):
    return array("b", bytes(int(np.prod(shape))))


def check(ours, theirs, what):
    got = np.frombuffer(bytes(ours), dtype=np.int8) if isinstance(ours, array) else ours
    want = np.asarray(theirs).reshape(-1)
    if not np.array_equal(np.asarray(got).reshape(-1), want):
        diff = np.nonzero(np.asarray(got).reshape(-1) != want)[0]
        raise AssertionError(what + ": %d of %d differ, first at %d: ours %r tflm %r" % (
            len(diff), want.size, diff[0], np.asarray(got).reshape(-1)[diff[0]],
            want[diff[0]]))


def _window(rng, size_max=7):
    ih, iw = int(rng.integers(1, size_max + 1)), int(rng.integers(1, size_max + 1))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    sh, sw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    same = bool(rng.integers(0, 2))
    return ih, iw, kh, kw, sh, sw, same


def _geometry(ih, iw, kh, kw, sh, sw, dh, dw, same):
    oh = out_size(ih, kh, sh, dh, same)
    ow = out_size(iw, kw, sw, dw, same)
    return oh, ow, pad_before(ih, kh, sh, dh, oh), pad_before(iw, kw, sw, dw, ow)


def _conv_case(rng, depthwise):
    from burn.graph.s8_conv import conv_s8
    from burn.graph.s8_depthwise_conv import depthwise_conv_s8

    while True:
        ih, iw, kh, kw, sh, sw, same = _window(rng)
        dh, dw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        if (kh - 1) * dh + 1 <= ih and (kw - 1) * dw + 1 <= iw:
            break
    n = int(rng.integers(1, 3))
    if depthwise:
        ic, groups, mult_d = int(rng.integers(1, 5)), 1, int(rng.integers(1, 3))
        oc = ic * mult_d
        wshape = (1, kh, kw, oc)
    else:
        groups = int(rng.choice([1, 1, 2, 3]))
        ic = groups * int(rng.integers(1, 4))
        oc = groups * int(rng.integers(1, 4))
        wshape = (oc, kh, kw, ic // groups)
    oh, ow, pt, pl = _geometry(ih, iw, kh, kw, sh, sw, dh, dw, same)
    in_scale, in_zp = f32(rng.uniform(0.005, 0.1)), int(rng.integers(-128, 128))
    w_scales = [f32(rng.uniform(0.001, 0.05)) for _ in range(oc)]
    k = kh * kw * (ic // groups if not depthwise else 1)
    out_scale = f32(in_scale * np.mean(w_scales) * rng.uniform(10, 60) * np.sqrt(k))
    out_zp = int(rng.integers(-128, 128))
    act = int(rng.choice(ACTS))
    x = s8(rng, (n, ih, iw, ic))
    w = rng.integers(-127, 128, size=wshape, dtype=np.int8)
    bias = rng.integers(-3000, 3000, size=oc, dtype=np.int32)
    mb = ModelBuilder()
    tx = mb.tensor("x", x.shape, "int8", scale=in_scale, zero_point=in_zp)
    tw = mb.tensor("w", wshape, "int8", data=w, scale=w_scales, zero_point=[0] * oc,
                   quantized_dimension=3 if depthwise else 0)
    tb = mb.tensor("b", (oc,), "int32", data=bias, scale=[in_scale * s for s in w_scales],
                   zero_point=[0] * oc)
    ty = mb.tensor("y", (n, oh, ow, oc), "int8", scale=out_scale, zero_point=out_zp)
    common = dict(Padding=0 if same else 1, StrideH=sh, StrideW=sw, DilationHFactor=dh,
                  DilationWFactor=dw, FusedActivationFunction=act)
    if depthwise:
        mb.op("DEPTHWISE_CONV_2D", [tx, tw, tb], [ty], "DepthwiseConv2DOptions",
              DepthMultiplier=mult_d, **common)
    else:
        mb.op("CONV_2D", [tx, tw, tb], [ty], "Conv2DOptions", **common)
    (want,) = run_tflm(mb.finish([tx], [ty]), [x])
    mult, shift = fp.conv_output_multipliers(in_scale, w_scales, out_scale)
    lo, hi = fp.quant_activation_range(act, out_scale, out_zp)
    out = out_buf((n, oh, ow, oc))
    xb, wb, bb = array("b", x.tobytes()), w.tobytes(), array("i", bias.tolist())
    if depthwise:
        depthwise_conv_s8(xb, wb, bb, mult, shift, out, n, ih, iw, ic, oh, ow, mult_d, kh, kw,
                          sh, sw, dh, dw, pt, pl, in_zp, out_zp, lo, hi)
    else:
        conv_s8(xb, wb, bb, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups,
                sh, sw, dh, dw, pt, pl, in_zp, out_zp, lo, hi)
    check(out, want, "conv" if not depthwise else "depthwise_conv")


def test_conv_matches_tflm():
    rng = np.random.default_rng(11)
    for _ in range(40):
        _conv_case(rng, depthwise=False)


def test_depthwise_conv_matches_tflm():
    rng = np.random.default_rng(12)
    for _ in range(40):
        _conv_case(rng, depthwise=True)
