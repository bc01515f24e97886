"""int8 `.bst` inference on flex_c: rebind a loaded model's kernels to the C ones.

    model = use_flex(burn.load("kws.bst"))                      # host build, through cffi
    model = use_flex(burn.load(data), EmulatedLib("cortex-m0plus"))   # emulated Cortex-M0+

Only the int8 kernels (and int8 pad / concat) move to C; the rest stay as they were.
"""

from burn.host.flex.graph_kernels import GraphKernels

# burn.graph kernel name -> GraphKernels method
_FLEX_KERNELS = {
    "conv_s8": "conv_s8", "depthwise_conv_s8": "depthwise_conv_s8",
    "fully_connected_s8": "fully_connected_s8", "add_s8": "add_s8", "mul_s8": "mul_s8",
    "avg_pool_s8": "avg_pool_s8", "max_pool_s8": "max_pool_s8", "mean_s8": "mean_s8",
    "softmax_s8": "softmax_s8", "logistic_s8": "logistic_s8", "tanh_s8": "tanh_s8",
    "quantize_s8": "quantize_s8", "dequantize_s8": "dequantize_s8",
    "requantize_s8": "requantize_s8", "pad_s8": "pad", "concat_s8": "concat",
}


def _base_name(fn):
    name = getattr(fn, "__name__", "")
    for suffix in ("_plain", "_fast"):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def use_flex(model, lib=None):
    """Make the int8 ops of `model` (a burn.load() result) run in flex_c library `lib` (the
    host build by default); returns the model. Returns how many ops moved as
    `model.flex_ops`."""
    kernels = GraphKernels(lib)
    moved = 0
    for step in model._steps:
        name = _FLEX_KERNELS.get(_base_name(step.k))
        if name is not None:
            step.k = getattr(kernels, name)
            moved += 1
    model.flex_ops = moved
    return model
