"""burn.nn.functional: the functional forms of the layers, as in torch.nn.functional.

These are burn's own functions (`F.relu is burn.relu`), looked up on first use so that
importing this module costs almost nothing.
"""

import burn

NAMES = (
    "relu", "relu6", "leaky_relu", "sigmoid", "tanh", "gelu", "silu", "softmax",
    "log_softmax", "linear", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
    "batch_norm", "layer_norm", "embedding", "dropout", "pad",
)


def __getattr__(name):
    if name not in NAMES:
        raise AttributeError("module 'burn.nn.functional' has no attribute '" + name + "'")
    return getattr(burn, name)
