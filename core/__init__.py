"""burn: a tensor core and nn modules that run unchanged on CPython and MicroPython.

`import burn` loads only the Tensor class and the basic creation functions; `burn.nn`, the
random stream, ranges and the composite op families (activations, conv/pool, norms, joins)
load on first use.
"""

__version__ = "0.1.0"

from burn.creation import full, ones, tensor, zeros  # noqa: F401
from burn.device import Device, device, set_default_device  # noqa: F401
from burn.dtype import bool_, float32, int8, int16, int32, uint8  # noqa: F401
from burn.shape import const
from burn.shape import error as _error
from burn.tensor import Tensor  # noqa: F401

_E_MODULE_ATTR = const(1)  # the number of its message in burn.errors.MESSAGES

bool = bool_  # torch spells it burn.bool too

# Functions of burn.<module>, imported on first access as burn.<name> (a table as in
# burn.tensor.lazy_attr: one line per module). burn.load(source, variant=None,
# max_arena=None) is burn.model.load, the `.bst` runtime.
_LAZY = (
    "ops.activation: relu relu6 leaky_relu sigmoid tanh gelu silu softmax log_softmax \n"
    "ops.stats: var std \n"
    "ops.conv: conv2d \n"
    "ops.pool: max_pool2d avg_pool2d adaptive_avg_pool2d \n"
    "ops.norm: layer_norm batch_norm \n"
    "ops.layers: linear embedding dropout \n"
    "ops.linalg: matmul \n"
    "ops.select: where maximum minimum clamp \n"
    "ops.factory: from_bytes arange eye zeros_like ones_like full_like rand randn randint "
    "rand_like randn_like seed \n"
    "ops.join: cat stack split chunk pad \n"
    "ops.index: index_select gather \n"
    "ops.assign: scatter masked_fill \n"
    "model: load \n"
)


def __getattr__(name):
    # burn.<op> loads its op module; anything else is tried as a submodule (burn.nn,
    # burn.random, ...), which MicroPython's `from burn import x` needs.
    from burn.tensor import lazy_attr, submodule
    fn = lazy_attr(_LAZY, name)
    if fn is not None:
        globals()[name] = fn
        return fn
    try:
        return submodule(name)
    except ImportError:
        raise _error(_E_MODULE_ATTR, "burn", name) from None
