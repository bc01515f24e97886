"""flex_c's host build (cffi) under the name of the `burnflex` MicroPython module, so that
the `.bst` runtime's flex variant runs on CPython: put this folder on sys.path."""

from burn.host.flex.graph_kernels import GraphKernels

_KERNELS = GraphKernels()


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    return getattr(_KERNELS, name)


def aligned(buf):
    """True when `buf`'s data is word aligned (always, for host buffers the runtime uses)."""
    return True
