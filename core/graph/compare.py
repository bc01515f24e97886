"""The prepare step of the optional op `compare`, which burn.bst_ops finds by the kind's
name: burn.graph.logic's, shared with select."""

from .logic import prepare  # noqa: F401
