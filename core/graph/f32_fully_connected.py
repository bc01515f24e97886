"""float32 fully connected (weights [out, in]) with a fused activation."""

from .f32_activation import apply_act


def fully_connected_f32(inp, w, bias, out, batches, in_features, out_features, act):
    """out[b, c] = act(sum_k inp[b, k] * w[c, k] + bias[c]); bias may be None."""
    o = 0
    for b in range(batches):
        ib = b * in_features
        for c in range(out_features):
            wb = c * in_features
            acc = 0.0 if bias is None else bias[c]
            for k in range(in_features):
                acc += inp[ib + k] * w[wb + k]
            out[o] = apply_act(acc, act)
            o += 1
