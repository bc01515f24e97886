"""burn.nn: layers with PyTorch's names, arguments, default init and state_dict keys.

Each layer lives in its own small module that is imported on first use (`nn.Linear` loads
only module.py, init.py and linear.py), which keeps the heap small on a microcontroller.
"""

_HOME = {
    "Module": "module", "Parameter": "module",
    "Linear": "linear", "Conv2d": "conv", "ConvTranspose2d": "conv_transpose",
    "BatchNorm2d": "norm", "LayerNorm": "norm",
    "Embedding": "embedding", "Dropout": "dropout", "Flatten": "flatten",
    "ReLU": "activation", "ReLU6": "activation", "LeakyReLU": "activation",
    "Sigmoid": "activation", "Tanh": "activation", "SiLU": "activation",
    "GELU": "activation", "Softmax": "activation", "Identity": "activation",
    "MaxPool2d": "pooling", "AvgPool2d": "pooling", "AdaptiveAvgPool2d": "pooling",
    "Sequential": "container",
}
_SUBMODULES = ("init", "functional")


def __getattr__(name):
    home = _HOME.get(name)
    if home is None and name not in _SUBMODULES:
        raise AttributeError("module 'burn.nn' has no attribute '" + name + "'")
    mod = __import__("burn.nn." + (home or name), None, None, (name,), 0)
    value = mod if home is None else getattr(mod, name)
    globals()[name] = value
    return value
