"""float32 SUB, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM (optional ops; their prepare step is
burn.graph.s8_arith's), b broadcast as b[i % b_size], as TFLM's reference kernels."""

from .f32_activation import apply_act


def sub_f32(a, b, out, size, b_size, act, swap):
    """out[i] = act(a[i] - b[i % b_size]), or act(b[i % b_size] - a[i]) when swap is 1."""
    for i in range(size):
        x, y = a[i], b[i % b_size]
        out[i] = apply_act(y - x if swap else x - y, act)


def squared_difference_f32(a, b, out, size, b_size):
    """out[i] = (a[i] - b[i % b_size])**2."""
    for i in range(size):
        d = a[i] - b[i % b_size]
        out[i] = d * d


def maximum_f32(a, b, out, size, b_size):
    """out[i] = a[i] if a[i] > b[i % b_size] else b[i % b_size]."""
    for i in range(size):
        x, y = a[i], b[i % b_size]
        out[i] = x if x > y else y


def minimum_f32(a, b, out, size, b_size):
    """out[i] = a[i] if a[i] < b[i % b_size] else b[i % b_size]."""
    for i in range(size):
        x, y = a[i], b[i % b_size]
        out[i] = x if x < y else y
