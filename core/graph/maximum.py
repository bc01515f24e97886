"""The prepare step of the optional op `maximum`, which burn.bst_ops finds by the kind's
name: burn.graph.s8_arith's, shared by the elementwise arithmetic ops."""

from .s8_arith import prepare  # noqa: F401
