"""Reverse-mode automatic differentiation over any backend: `Autodiff(backend)`."""

from .backend import Autodiff
from .graph import grad_enabled, no_grad

__all__ = ["Autodiff", "grad_enabled", "no_grad"]
