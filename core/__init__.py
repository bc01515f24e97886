"""burn: a tensor core and nn modules that run unchanged on CPython and MicroPython.

`import burn` loads only the Tensor class and the basic creation functions; `burn.nn`, the
random stream, ranges and the composite op families (activations, conv/pool, norms, joins)
load on first use.
"""

__version__ = "0.1.0"

import sys

from burn.creation import full, ones, tensor, zeros  # noqa: F401
from burn.device import Device, device, set_default_device  # noqa: F401
from burn.dtype import bool_, float32, int8, int32, uint8  # noqa: F401
from burn.tensor import Tensor  # noqa: F401

bool = bool_  # torch spells it burn.bool too

# Functions of burn.ops.<module>, imported on first access as burn.<name> (a table as in
# burn.tensor.ops_attr: one line per module).
_LAZY = (
    "activation: relu relu6 leaky_relu sigmoid tanh gelu silu softmax log_softmax \n"
    "stats: var std \n"
    "conv: conv2d \n"
    "pool: max_pool2d avg_pool2d adaptive_avg_pool2d \n"
    "norm: layer_norm batch_norm \n"
    "layers: linear embedding dropout \n"
    "linalg: matmul \n"
    "select: where maximum minimum clamp \n"
    "factory: from_bytes arange eye zeros_like ones_like full_like rand randn randint rand_like "
    "randn_like seed \n"
    "join: cat stack split chunk pad \n"
)


def load(source, variant=None, max_arena=None):
    """Load a `.bst` model (a path, an open binary file or the file's bytes); see
    burn.model.load. The runtime is imported on first use."""
    from burn.model import load as _load
    return _load(source, variant, max_arena)


def __getattr__(name):
    # burn.<op> loads its op module; anything else is tried as a submodule (burn.nn,
    # burn.random, ...), which MicroPython's `from burn import x` needs.
    from burn.tensor import ops_attr
    fn = ops_attr(_LAZY, name)
    if fn is not None:
        globals()[name] = fn
        return fn
    path = "burn." + name
    try:
        __import__(path)
    except ImportError:
        raise AttributeError("module 'burn' has no attribute " + repr(name)) from None
    return sys.modules[path]
