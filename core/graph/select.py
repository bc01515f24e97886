"""The prepare step of the optional op `select`, which burn.bst_ops finds by the kind's
name: burn.graph.logic's, shared with compare."""

from .logic import prepare  # noqa: F401
