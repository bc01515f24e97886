"""Activation layers: thin Modules over burn's activation functions."""

import burn
from burn.nn.module import Module


class _Elementwise(Module):
    """An activation without settings: `forward` is the burn function named `fn`."""

    fn = ""

    def forward(self, x):
        """Apply the activation."""
        return getattr(burn, self.fn)(x)


class ReLU(_Elementwise):
    """max(x, 0)."""

    fn = "relu"


class ReLU6(_Elementwise):
    """min(max(x, 0), 6)."""

    fn = "relu6"


class LeakyReLU(Module):
    """x if x >= 0 else negative_slope * x."""

    def __init__(self, negative_slope=0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        """Apply the activation."""
        return burn.leaky_relu(x, self.negative_slope)

    def extra_repr(self):
        return "negative_slope=" + repr(self.negative_slope)


class Sigmoid(_Elementwise):
    """1 / (1 + exp(-x))."""

    fn = "sigmoid"


class Tanh(_Elementwise):
    """Hyperbolic tangent."""

    fn = "tanh"


class SiLU(_Elementwise):
    """x * sigmoid(x)."""

    fn = "silu"


class GELU(Module):
    """Gaussian error linear unit; approximate is 'none' (erf) or 'tanh'."""

    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError("GELU: approximate must be 'none' or 'tanh', got " +
                             repr(approximate))
        self.approximate = approximate

    def forward(self, x):
        """Apply the activation."""
        return burn.gelu(x, self.approximate)

    def extra_repr(self):
        return "approximate=" + repr(self.approximate)


class Softmax(Module):
    """Softmax along `dim` (None picks PyTorch's legacy choice: 0 for 0-, 1- and 3-D
    input, else 1)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        """Apply softmax along the layer's dim."""
        dim = self.dim
        if dim is None:
            dim = 0 if x.ndim in (0, 1, 3) else 1
        return burn.softmax(x, dim)

    def extra_repr(self):
        return "dim=" + str(self.dim)


class Identity(Module):
    """Returns its input unchanged (a placeholder that keeps state_dict keys aligned)."""

    def forward(self, x):
        """Return `x`."""
        return x
