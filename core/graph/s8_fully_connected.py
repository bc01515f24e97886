"""int8 fully connected (weights [out, in]), bit-exact with TFLM FullyConnected(PerChannel)."""
# ruff: noqa: F821  (ptr8 / ptr32 are viper builtins)

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
    import micropython

    from .fixedpoint import load_s32_fast, mbqm_fast

    @micropython.viper
    def fully_connected_s8_fast(inp, w, bias, mult, shift, out, batches: int,
                                in_features: int, out_features: int, in_zp: int,
                                out_zp: int, act_min: int, act_max: int):
        """Viper twin of fully_connected_s8_plain."""
        pi = ptr8(inp)
        pw = ptr8(w)
        pm = ptr32(mult)
        po = ptr8(out)
        o = 0
        b = 0
        while b < batches:
            ib = b * in_features
            c = 0
            while c < out_features:
                wb = c * in_features
                acc = 0
                k = 0
                while k < in_features:
                    v = ((int(pi[ib + k]) ^ 0x80) - 0x80) - in_zp
                    acc += v * ((int(pw[wb + k]) ^ 0x80) - 0x80)
                    k += 1
                acc += int(load_s32_fast(bias, c))
                acc = int(mbqm_fast(acc, int(pm[c]) - 0x3FFFFFFF - 1,
                                    load_s32_fast(shift, c))) + out_zp
                if acc < act_min:
                    acc = act_min
                elif acc > act_max:
                    acc = act_max
                po[o] = acc
                o += 1
                c += 1
            b += 1

fully_connected_s8 = fully_connected_s8_fast or fully_connected_s8_plain
