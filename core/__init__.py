"""burn: a tensor core and nn modules that run unchanged on CPython and MicroPython.

`import burn` loads only the Tensor class and the basic creation functions; `burn.nn`, the
random stream, ranges and the composite op families (activations, conv/pool, norms, joins)
load on first use.
"""

__version__ = "0.1.0"

import sys

from burn.creation import from_bytes, full, ones, tensor, zeros  # noqa: F401
from burn.device import Device, device, set_default_device  # noqa: F401
from burn.dtype import bool_, float32, int8, int32, uint8  # noqa: F401
from burn.tensor import Tensor  # noqa: F401

bool = bool_  # torch spells it burn.bool too

# Functions of burn.ops.<module>, imported on first access as burn.<name>.
_LAZY = {
    "relu": "activation", "relu6": "activation", "leaky_relu": "activation",
    "sigmoid": "activation", "tanh": "activation", "gelu": "activation",
    "silu": "activation", "softmax": "activation", "log_softmax": "activation",
    "var": "stats", "std": "stats",
    "conv2d": "conv", "max_pool2d": "pool", "avg_pool2d": "pool",
    "adaptive_avg_pool2d": "pool",
    "layer_norm": "norm", "batch_norm": "norm",
    "linear": "layers", "embedding": "layers", "dropout": "layers",
    "matmul": "linalg",
    "where": "select", "maximum": "select", "minimum": "select", "clamp": "select",
    "arange": "factory", "eye": "factory", "zeros_like": "factory", "ones_like": "factory",
    "full_like": "factory", "rand": "factory", "randn": "factory", "randint": "factory",
    "rand_like": "factory", "randn_like": "factory", "seed": "factory",
    "cat": "join", "stack": "join", "split": "join", "chunk": "join", "pad": "join",
}


def load(source, variant=None, max_arena=None):
    """Load a `.bst` model (a path, an open binary file or the file's bytes); see
    burn.model.load. The runtime is imported on first use."""
    from burn.model import load as _load
    return _load(source, variant, max_arena)


def __getattr__(name):
    # burn.<op> loads its op module; anything else is tried as a submodule (burn.nn,
    # burn.random, ...), which MicroPython's `from burn import x` needs.
    from burn.tensor import ops_module
    mod = _LAZY.get(name)
    if mod is not None:
        fn = getattr(ops_module(mod), name)
        globals()[name] = fn
        return fn
    path = "burn." + name
    try:
        __import__(path)
    except ImportError:
        raise AttributeError("module 'burn' has no attribute " + repr(name)) from None
    return sys.modules[path]
