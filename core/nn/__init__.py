"""burn.nn: layers with PyTorch's names, arguments, default init and state_dict keys.

Each layer lives in its own small module that is imported on first use (`nn.Linear` loads
only module.py, init.py and linear.py), which keeps the heap small on a microcontroller.
A name that `_HOME` does not list lives in the module of its lower-case name (`nn.Linear`
in linear.py, `nn.Conv1d` in conv1d.py; `nn.init` is that module itself).
"""

_HOME = {
    "Parameter": "module", "Conv2d": "conv", "ConvTranspose2d": "conv_transpose",
    "BatchNorm2d": "norm", "LayerNorm": "norm",
    "ReLU": "activation", "ReLU6": "activation", "LeakyReLU": "activation",
    "Sigmoid": "activation", "Tanh": "activation", "SiLU": "activation",
    "GELU": "activation", "Softmax": "activation", "Identity": "activation",
    "MaxPool2d": "pooling", "AvgPool2d": "pooling", "AdaptiveAvgPool2d": "pooling",
    "Sequential": "container",
}


def __getattr__(name):
    try:
        mod = __import__("burn.nn." + _HOME.get(name, name.lower()), None, None, (name,), 0)
    except ImportError:
        raise AttributeError("module 'burn.nn' has no attribute '" + name + "'") from None
    value = getattr(mod, name, mod)
    globals()[name] = value
    return value
