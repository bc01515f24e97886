"""Reverse-mode automatic differentiation over any backend: `Autodiff(backend)`."""

import burn
from burn import backend as _backend

from .backend import Autodiff
from .graph import grad_enabled, no_grad


def autodiff_device(inner="numpy"):
    """The Device `autodiff<inner>` (registered on first use), e.g. for training."""
    name = "autodiff<" + inner + ">"
    if name not in _backend.names():
        _backend.register(Autodiff(burn.device(inner).backend))
    return burn.device(name)


__all__ = ["Autodiff", "autodiff_device", "grad_enabled", "no_grad"]
