"""Fused activation of the float32 kernels (TFLite codes: 0 NONE, 1 RELU, 2 RELU_N1_TO_1,
3 RELU6)."""


def apply_act(v, act):
    """Clamp one float to the fused activation's range; NaN passes through, as in flex_c's
    clamp (every comparison with NaN is false), so the runtimes agree on it."""
    if act == 1:
        return 0.0 if v < 0.0 else v
    if act == 3:
        return 0.0 if v < 0.0 else (6.0 if v > 6.0 else v)
    if act == 2:
        return -1.0 if v < -1.0 else (1.0 if v > 1.0 else v)
    return v
