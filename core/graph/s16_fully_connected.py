"""int16x8 fully connected (int16 activations, int8 weights), as TFLM's reference
FullyConnected / FullyConnectedPerChannel for int16 input: per-output-channel multipliers,
an int32 sum requantized by the int32 multiply (int32 bias) or an int64 sum by the int64
one (`wide`: an int64 bias in the TFLite file)."""

from .s16_arith import clamp, requantize_acc, s8


def fully_connected_s16(inp, w, bias, mult, shift, out, batches, in_features, out_features,
                        wide, in_zp, out_zp, act_min, act_max):
    """out[b, c] = clamp(requantize(sum_d w[c, d] * (x[b, d] - in_zp) + bias[c]) + out_zp)."""
    for b in range(batches):
        xo = b * in_features
        for c in range(out_features):
            wo = c * in_features
            acc = bias[c]
            for d in range(in_features):
                acc += s8(w[wo + d]) * (inp[xo + d] - in_zp)
            v = requantize_acc(acc, mult[c], shift[c], wide) + out_zp
            out[b * out_features + c] = clamp(v, act_min, act_max)
