"""int8 fully connected (weights [out, in]), bit-exact with TFLM FullyConnected(PerChannel)."""

import sys

from .fixedpoint import multiplier_offsets, requantize_channel


def fully_connected_s8_plain(inp, w, bias, mult, shift, out, batches, in_features,
                             out_features, in_zp, out_zp, act_min, act_max, mult_off=None):
    """Reference int8 fully connected; see burn.graph for the argument table.
    mult_off: multiplier_offsets(mult), made once by the runtime (here when None)."""
    if mult_off is None:
        mult_off = multiplier_offsets(mult)
    o = 0
    for b in range(batches):
        ib = b * in_features
        for c in range(out_features):
            wb = c * in_features
            acc = 0
            for k in range(in_features):
                v = ((inp[ib + k] + 128) & 255) - 128
                q = ((w[wb + k] + 128) & 255) - 128
                acc += (v - in_zp) * q
            out[o] = requantize_channel(acc, bias, mult_off, shift, c, out_zp, act_min, act_max)
            o += 1


fully_connected_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_fully_connected_viper import fully_connected_s8_fast
    except SyntaxError:
        pass

fully_connected_s8 = fully_connected_s8_fast or fully_connected_s8_plain
