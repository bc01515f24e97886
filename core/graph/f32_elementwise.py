"""float32 elementwise ops: add, mul (b broadcast as b[i % b_size]), clamp, logistic, tanh."""

import math

from .f32_activation import apply_act


def add_f32(a, b, out, size, b_size, act):
    """out[i] = act(a[i] + b[i % b_size])."""
    for i in range(size):
        out[i] = apply_act(a[i] + b[i % b_size], act)


def mul_f32(a, b, out, size, b_size, act):
    """out[i] = act(a[i] * b[i % b_size])."""
    for i in range(size):
        out[i] = apply_act(a[i] * b[i % b_size], act)


def clamp_f32(inp, out, size, act):
    """A lone RELU / RELU6 / RELU_N1_TO_1 on float32."""
    for i in range(size):
        out[i] = apply_act(inp[i], act)


def logistic_f32(inp, out, size):
    """out[i] = 1 / (1 + exp(-x)), without overflow for large |x|."""
    for i in range(size):
        x = inp[i]
        if x >= 0:
            out[i] = 1.0 / (1.0 + math.exp(-x))
        else:
            e = math.exp(x)
            out[i] = e / (1.0 + e)


def tanh_f32(inp, out, size):
    """out[i] = tanh(x)."""
    for i in range(size):
        out[i] = math.tanh(inp[i])
