"""Linear: y = x @ weight.T + bias."""

import burn
from burn.nn.init import default_weight_and_bias
from burn.nn.module import Module, Parameter


class Linear(Module):
    """Fully connected layer; weight is [out_features, in_features] as in PyTorch."""

    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        w, b = default_weight_and_bias((out_features, in_features), bias)
        self.register_parameter("weight", Parameter(w))
        self.register_parameter("bias", Parameter(b) if bias else None)

    def forward(self, x):
        """Apply the layer to `x` of shape [..., in_features]."""
        return burn.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return ("in_features=" + str(self.in_features) + ", out_features=" +
                str(self.out_features) + ", bias=" + str(self.bias is not None))
