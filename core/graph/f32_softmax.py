"""float32 softmax over the last axis, max-subtracted as TFLM does."""

import math


def softmax_f32(inp, out, rows, depth, beta):
    """out[r, c] = exp(beta * (x - max)) / sum over the row."""
    for r in range(rows):
        base = r * depth
        top = inp[base]
        for c in range(1, depth):
            if inp[base + c] > top:
                top = inp[base + c]
        total = 0.0
        for c in range(depth):
            e = math.exp((inp[base + c] - top) * beta)
            out[base + c] = e
            total += e
        for c in range(depth):
            out[base + c] = out[base + c] / total
