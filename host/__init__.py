"""burn.host: the workstation side (backends, training, export, devices, CLIs).

Importing it teaches `burn.device()` the host backends' names: "numpy", "cupy"/"cuda",
"flex", "autodiff<NAME>" and "fusion<NAME>" for any of them (or "pure").
`from_dlpack(obj)` makes a burn tensor that shares the memory of a PyTorch, numpy or CuPy
array (burn.host.backends.dlpack).
"""

import importlib

from burn.device import FINDERS

_MODULES = {
    "numpy": "burn.host.backends.numpy_backend",
    "cupy": "burn.host.backends.cupy_backend",
    "cuda": "burn.host.backends.cupy_backend",
    "flex": "burn.host.backends.flex_backend",
}


def _find_backend(name):
    """Import the module that registers the backend called `name`, if it is a host one."""
    if name.startswith("autodiff<") and name.endswith(">"):
        from burn.host.autodiff import autodiff_device

        autodiff_device(name[len("autodiff<"):-1])
        return
    if name.startswith("fusion<") and name.endswith(">"):
        from burn.host.backends.fusion import fusion_device

        fusion_device(name[len("fusion<"):-1])
        return
    module = _MODULES.get(name.split(":")[0])
    if module is not None:
        try:
            importlib.import_module(module)
        except ImportError as e:
            raise ValueError("device " + repr(name) + " is not available: " + str(e)) from e


if _find_backend not in FINDERS:
    FINDERS.append(_find_backend)


def from_dlpack(obj, device=None, copy=None):
    """A burn tensor sharing the memory of `obj`; see burn.host.backends.dlpack."""
    from burn.host.backends.dlpack import from_dlpack as share

    return share(obj, device, copy)
