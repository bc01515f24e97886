"""The int16x8 kernel cases (burn.graph.s16_*: int16 activations, int8 weights), those of
int32 data (burn.graph.s32_arith) and those of the casts (burn.graph.cast), for
kernel_cases.KERNELS."""

import numpy as np
from case_args import ACTS, _broadcast, _f32, _int, _pool_geometry, buf, conv_shape, f32, out, s8

from burn.graph import quant_params as qp


# -- int16x8 (burn.graph.s16_*): int16 activations, int8 weights ---------------------------
def s16(rng, count):
    return buf("h", rng.integers(-32768, 32768, size=count))


def _range16(rng, out_scale):
    return qp.quant_activation_range(int(rng.choice(ACTS)), out_scale, 0, -32768, 32767)


def _s32(rng, count):  # int32 values within 2**24, which TFLM's scales keep in range
    return buf("i", rng.integers(-(1 << 24), 1 << 24, size=count))


def _requant16(rng, src, dst):
    size = _int(rng, 1, 48)
    bits = {"b": (s8, 127), "h": (s16, 32767), "i": (_s32, 1 << 24)}
    mult, shift = qp.requantize_params(1.0, rng.uniform(0.3, 3) * bits[dst][1] / bits[src][1])
    return [bits[src][0](rng, size), out(dst, size), size, _int(rng, -99, 99),
            _int(rng, -99, 99), mult, shift]


def _tables16(rng, k, oc, wide):
    in_scale, w_scales = _f32(rng.uniform(1e-4, 1e-3)), [_f32(rng.uniform(1e-3, 0.05))
                                                         for _ in range(oc)]
    out_scale = _f32(in_scale * np.mean(w_scales) * rng.uniform(60, 300) * np.sqrt(k))
    mult, shift = qp.conv_output_multipliers(in_scale, w_scales, out_scale)
    lo, hi = _range16(rng, out_scale)
    tables = [buf("i", rng.integers(-200000, 200000, size=oc)), buf("i", list(mult)),
              buf("i", list(shift))]
    return tables, [wide] if wide is not None else [], [lo, hi]


def fully_connected_s16(rng):
    batches, fin, fout = _int(rng, 1, 3), _int(rng, 1, 40), _int(rng, 1, 12)
    tables, wide, clamp = _tables16(rng, fin, fout, _int(rng, 0, 1))
    return [s16(rng, batches * fin), buf("b", rng.integers(-127, 128, size=fout * fin))] + \
        tables + [out("h", batches * fout), batches, fin, fout] + wide + [0, 0] + clamp


def conv_s16(rng, depthwise=False):
    n, ic, oc, wn, (ih, iw, oh, ow), middle, window_args = conv_shape(rng, depthwise)
    tables, wide, clamp = _tables16(rng, wn // oc, oc, None if depthwise else _int(rng, 0, 1))
    return [s16(rng, n * ih * iw * ic), buf("b", rng.integers(-127, 128, size=wn))] + \
        tables + [out("h", n * oh * ow * oc), n, ih, iw, ic, oh, ow] + middle + \
        window_args + wide + clamp


def add_s16(rng):
    size, b_size = _broadcast(rng)
    scales = [_f32(rng.uniform(1e-4, 1e-3)) for _ in range(3)]
    params = list(qp.add_params(*scales, 15))
    zps = [_int(rng, -99, 99) for _ in range(3)]
    return [s16(rng, size), s16(rng, b_size), out("h", size), size, b_size, zps[0]] + \
        params[1:3] + [zps[1]] + params[3:5] + [zps[2]] + params[5:] + [params[0]] + \
        list(_range16(rng, scales[2]))


def sub_s16(rng):
    """add_s16's arguments and a random swap (sub_s16 scales its inputs alike)."""
    return add_s16(rng) + [_int(rng, 0, 1)]


def squared_difference_s16(rng):
    """TFLM's int16 SQUARED_DIFFERENCE parameters (left shift 0, zero points 0)."""
    from burn.host.importers.arith_params import squared_difference16_params

    size, b_size = _broadcast(rng)
    s = [_f32(rng.uniform(1e-4, 1e-3)) for _ in range(2)]
    ls, am, ash, bm, bsh, om, osh = squared_difference16_params(
        *s, _f32(max(s) ** 2 * 131072 * rng.uniform(0.02, 2)))
    return [s16(rng, size), s16(rng, b_size), out("h", size), size, b_size, 0, am, ash, 0, bm,
            bsh, 0, om, osh, ls, -32768, 32767]


def mul_s16(rng):
    size, b_size = _broadcast(rng)
    scales = [_f32(rng.uniform(1e-4, 1e-3)) for _ in range(2)]
    out_scale = _f32(scales[0] * scales[1] * 32768 * rng.uniform(0.3, 3))
    return [s16(rng, size), s16(rng, b_size), out("h", size), size, b_size, 0, 0, 0] + \
        list(qp.mul_params(scales[0], scales[1], out_scale)) + list(_range16(rng, out_scale))


def _extreme16(rng):
    size, b_size = _broadcast(rng)
    return [s16(rng, size), s16(rng, b_size), out("h", size), size, b_size]


def pool_s16(rng):
    n, ih, iw, c, oh, ow, kh, kw, sh, sw, pt, pl = _pool_geometry(rng)
    return [s16(rng, n * ih * iw * c), out("h", n * oh * ow * c), n, ih, iw, c, oh, ow, kh,
            kw, sh, sw, pt, pl] + list(_range16(rng, 1e-3))


def softmax_s16(rng):
    from burn.host.importers.tflite_luts import softmax_luts

    rows, depth = _int(rng, 1, 4), _int(rng, 1, 20)
    mult, shift = qp.quantize_multiplier(rng.uniform(1e-4, 2e-3) / (10.0 / 65535.0))
    exp_lut, inv_lut = softmax_luts()
    return [s16(rng, rows * depth), out("h", rows * depth), rows, depth, mult, shift,
            buf("h", exp_lut), buf("h", inv_lut)]


def sigmoid_s16(rng, kind):
    from burn.host.importers import sigmoid16

    size = _int(rng, 1, 60)
    scale = float(rng.choice([2.0 ** -12, 2.0 ** -11, rng.uniform(1e-5, 0.05)]))
    return [s16(rng, size), out("h", size), size] + list(sigmoid16.input_scaling(
        kind, scale)) + [buf("h", sigmoid16.sigmoid_table())]


S16 = {
    "quantize_s16": ("s16_quantize", "quantize_s16", lambda rng: [
        f32(rng, 24, 5.0), out("h", 24), 24, _f32(rng.uniform(1e-4, 1e-3)), _int(rng, -9, 9)]),
    "dequantize_s16": ("s16_quantize", "dequantize_s16", lambda rng: [
        s16(rng, 24), out("f", 24), 24, _f32(rng.uniform(1e-4, 1e-3)), _int(rng, -9, 9)]),
    "requantize_s16": ("s16_quantize", "requantize_s16", lambda rng: _requant16(rng, "h", "h")),
    "requantize_s8_s16": ("s16_quantize", "requantize_s8_s16",
                          lambda rng: _requant16(rng, "b", "h")),
    "requantize_s16_s8": ("s16_quantize", "requantize_s16_s8",
                          lambda rng: _requant16(rng, "h", "b")),
    "requantize_s8_s32": ("s16_quantize", "requantize_s8_s32",
                          lambda rng: _requant16(rng, "b", "i")),
    "requantize_s16_s32": ("s16_quantize", "requantize_s16_s32",
                           lambda rng: _requant16(rng, "h", "i")),
    "requantize_s32_s8": ("s16_quantize", "requantize_s32_s8",
                          lambda rng: _requant16(rng, "i", "b")),
    "requantize_s32_s16": ("s16_quantize", "requantize_s32_s16",
                           lambda rng: _requant16(rng, "i", "h")),
    "fully_connected_s16": ("s16_fully_connected", "fully_connected_s16", fully_connected_s16),
    "conv_s16": ("s16_conv", "conv_s16", conv_s16),
    "depthwise_conv_s16": ("s16_depthwise_conv", "depthwise_conv_s16",
                           lambda rng: conv_s16(rng, True)),
    "add_s16": ("s16_elementwise", "add_s16", add_s16),
    "sub_s16": ("s16_elementwise", "sub_s16", sub_s16),
    "squared_difference_s16": ("s16_elementwise", "squared_difference_s16",
                               squared_difference_s16),
    "mul_s16": ("s16_elementwise", "mul_s16", mul_s16),
    "softmax_s8_s16": ("s16_softmax", "softmax_s8_s16", lambda rng: [
        s8(rng, 30), out("h", 30), 3, 10] + list(qp.softmax_params(1.0, rng.uniform(0.01, 0.3)))),
    "clamp_s16": ("s16_quantize", "clamp_s16", lambda rng: [
        s16(rng, 40), out("h", 40), 40, _int(rng, -32768, 0), _int(rng, 0, 32767)]),
    "reduce_s16": ("s16_reduce", "reduce_s16", lambda rng: [
        s16(rng, 2 * 3 * 4 * 5 * 2), out("h", 2 * 4 * 2), 2, 3, 4, 5, 2, _int(rng, -99, 99),
        _int(rng, -99, 99)] + list(qp.mean_params(1e-3, rng.uniform(5e-4, 2e-3), 15))),
    "maximum_s16": ("s16_elementwise", "maximum_s16", lambda rng: _extreme16(rng)),
    "minimum_s16": ("s16_elementwise", "minimum_s16", lambda rng: _extreme16(rng)),
    "avg_pool_s16": ("s16_pool", "avg_pool_s16", pool_s16),
    "max_pool_s16": ("s16_pool", "max_pool_s16", pool_s16),
    "softmax_s16": ("s16_softmax", "softmax_s16", softmax_s16),
    "logistic_s16": ("s16_sigmoid", "logistic_s16", lambda rng: sigmoid_s16(rng, "logistic")),
    "tanh_s16": ("s16_sigmoid", "tanh_s16", lambda rng: sigmoid_s16(rng, "tanh")),
    "leaky_relu_s16": ("s16_unary", "leaky_relu_s16", lambda rng: [
        s16(rng, 40), out("h", 40), 40, _int(rng, -99, 99), _int(rng, -99, 99)] +
        list(qp.quantize_multiplier(rng.uniform(0.3, 3))) +
        list(qp.quantize_multiplier(rng.uniform(-2, 2)))),
}


# -- int32 data (burn.graph.s32_arith): not quantized ---------------------------------------
def _ab32(rng, bound=1 << 15, nonzero=False):
    """(a, b, out, size, b_size) of int32 operands within `bound`."""
    size, b_size = _broadcast(rng)
    a, b = (rng.integers(-bound, bound, size=n) for n in (size, b_size))
    if nonzero:
        a[a == 0], b[b == 0] = 1, 1
    return [buf("i", a), buf("i", b), out("i", size), size, b_size]


def _clamp32(rng):
    return [_int(rng, -(1 << 20), 0), _int(rng, 0, 1 << 20)]


S32 = {
    "add_s32": ("s32_arith", "add_s32", lambda rng: _ab32(rng) + _clamp32(rng)),
    "mul_s32": ("s32_arith", "mul_s32", lambda rng: _ab32(rng) + _clamp32(rng)),
    "sub_s32": ("s32_arith", "sub_s32", lambda rng: _ab32(rng) + _clamp32(rng) +
                [_int(rng, 0, 1)]),
    "div_s32": ("s32_arith", "div_s32", lambda rng: _ab32(rng, nonzero=True) +
                _clamp32(rng) + [_int(rng, 0, 1)]),
    "maximum_s32": ("s32_arith", "maximum_s32", _ab32),
    "minimum_s32": ("s32_arith", "minimum_s32", _ab32),
    "squared_difference_s32": ("s32_arith", "squared_difference_s32",
                               lambda rng: _ab32(rng, 1 << 14)),
    "compare_s32": ("s32_arith", "compare_s32", lambda rng: _compare32(rng)),
}


def _compare32(rng):
    """Operands from a few values (some equal), the output int8 0/1, a random op."""
    a, b, _y, size, b_size = _ab32(rng, 3)
    return [a, b, out("b", size), size, b_size, _int(rng, 0, 5)]


# -- casts (burn.graph.cast): raw values ----------------------------------------------------
def _cast(src, dst):
    """A generator of (inp, out, size) cases from typecode `src` to `dst`: integers over the
    whole of int32 or int16, floats over the target's range and beyond (both saturate alike
    there) with NaN and the infinities, int32 ties between two float32s."""
    def make(rng):
        size = _int(rng, 1, 48)
        if src == "f":
            top = {"b": 1 << 7, "h": 1 << 15, "i": 1 << 31}[dst]
            x = rng.uniform(-1.2 * top, 1.2 * top, size=size)
            x[rng.random(size) < 0.3] = rng.uniform(-3, 3)
            x[:3] = [np.nan, np.inf, -np.inf][:size]
        else:
            bits = 31 if src == "i" else 15
            x = rng.integers(-(1 << bits), 1 << bits, size=size)
            if dst == "f":
                x[rng.random(size) < 0.3] = (x[0] & ~127) | 64
        return [buf(src, x), out(dst, size), size]
    return make


CASTS = {"cast_%s_%s" % (a, b): ("cast", "cast_%s_%s" % (a, b),
                                 _cast(*("bhif"["s8 s16 s32 f32".split().index(t)]
                                         for t in (a, b))))
         for a, b in (("s32", "s8"), ("s32", "s16"), ("s16", "s8"), ("f32", "s8"),
                      ("f32", "s16"), ("f32", "s32"), ("s32", "f32"))}
