"""Hardsigmoid: the layer of burn.ops.hard_sigmoid."""

from burn.nn.module import Module
from burn.ops.hard_sigmoid import hard_sigmoid


class Hardsigmoid(Module):
    """min(max(alpha * x + beta, 0), 1); PyTorch's nn.Hardsigmoid (relu6(x + 3) / 6) with
    the defaults. `inplace` is accepted for PyTorch's signature and ignored."""

    def __init__(self, inplace=False, alpha=1.0 / 6.0, beta=0.5):
        super().__init__()
        self.alpha = alpha
        self.beta = beta

    def forward(self, x):
        """Apply the activation."""
        return hard_sigmoid(x, self.alpha, self.beta)

    def extra_repr(self):
        if (self.alpha, self.beta) == (1.0 / 6.0, 0.5):
            return ""
        return "alpha=" + repr(self.alpha) + ", beta=" + repr(self.beta)
