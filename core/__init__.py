"""burn: a tensor core and nn modules that run unchanged on CPython and MicroPython.

`import burn` loads only the Tensor class and the creation functions; `burn.nn`, the random
stream and the composite op families (activations, conv/pool, norms, joins) load on first
use.
"""

__version__ = "0.1.0"

import sys  # noqa: E402

from burn.dtype import bool_, float32, int8, int32, uint8  # noqa: E402
from burn.device import Device, device, set_default_device  # noqa: E402
from burn.tensor import Tensor, matmul, maximum, minimum, where  # noqa: E402
from burn.creation import (  # noqa: E402
    arange, eye, from_bytes, full, full_like, ones, ones_like, rand, rand_like, randint,
    randn, randn_like, seed, tensor, zeros, zeros_like,
)

bool = bool_  # noqa: A001  (torch spells it burn.bool too)

# Functions of burn.ops.<module>, imported on first access as burn.<name>.
_LAZY = {
    "relu": "activation", "relu6": "activation", "leaky_relu": "activation",
    "sigmoid": "activation", "tanh": "activation", "gelu": "activation",
    "silu": "activation", "softmax": "activation", "log_softmax": "activation",
    "var": "stats", "std": "stats",
    "conv2d": "conv", "max_pool2d": "conv", "avg_pool2d": "conv",
    "adaptive_avg_pool2d": "conv",
    "layer_norm": "norm", "batch_norm": "norm",
    "linear": "layers", "embedding": "layers", "dropout": "layers",
    "cat": "join", "stack": "join", "split": "join", "chunk": "join", "pad": "join",
}


def __getattr__(name):
    # burn.<op> loads its op module; anything else is tried as a submodule (burn.nn,
    # burn.random, ...), which MicroPython's `from burn import x` needs.
    from burn.tensor import ops_module
    mod = _LAZY.get(name)
    if mod is not None:
        fn = getattr(ops_module(mod), name)
        globals()[name] = fn
        return fn
    full = "burn." + name
    try:
        __import__(full)
    except ImportError:
        raise AttributeError("module 'burn' has no attribute " + repr(name))
    return sys.modules[full]
