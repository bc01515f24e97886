"""hard_sigmoid: min(max(alpha * x + beta, 0), 1), PyTorch's hardsigmoid (relu6(x + 3) / 6)
with the defaults and ONNX's HardSigmoid with its alpha and beta. Made of a scale, a shift
and a clamp, so every backend and autodiff run it. Left out of the frozen firmware; its
layer is burn.nn.Hardsigmoid."""

from burn.ops import need_float, need_tensor, override


def hard_sigmoid(x, alpha=1.0 / 6.0, beta=0.5):
    """min(max(alpha * x + beta, 0), 1) elementwise."""
    need_tensor("hard_sigmoid", "x", x)
    need_float("hard_sigmoid", x)
    f = override(x, "hard_sigmoid")
    if f is not None:
        return f(x, alpha, beta)
    return (x * alpha + beta).clamp(0.0, 1.0)
