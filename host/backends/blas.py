"""Run small matrix products on one BLAS thread.

OpenBLAS splits even tiny products across its threads; when the cores are busy (a laptop
running other work, a 2-core CI machine) the threads wait on each other and a product that
takes 0.1 ms alone takes tens of milliseconds. Products below SMALL multiply-adds run on one
thread; larger ones use BLAS's own threading.
"""

import numpy as np

SMALL = 1 << 24

try:
    from threadpoolctl import ThreadpoolController

    _BLAS = [c for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]
except ImportError:  # threadpoolctl missing: leave BLAS as it is
    _BLAS = []


class small_gemm:
    """Context manager: one BLAS thread while a product of `macs` multiply-adds runs on
    numpy (`xp`), when that product is small."""

    def __init__(self, xp, macs):
        self.active = xp is np and macs < SMALL and bool(_BLAS)
        self.saved = None

    def __enter__(self):
        if self.active:
            self.saved = [c.get_num_threads() for c in _BLAS]
            for c in _BLAS:
                c.set_num_threads(1)
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            for c, n in zip(_BLAS, self.saved):
                c.set_num_threads(n)
        return False
