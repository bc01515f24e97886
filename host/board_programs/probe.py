"""Board program: what the board is, printed as one literal."""


def _probe():
    """Print (MicroPython version, sys.implementation._mpy, platform, machine, heap free,
    heap allocated, filesystem bytes, filesystem bytes free)."""
    import gc
    import os
    import sys

    gc.collect()
    v = sys.implementation.version
    s = os.statvfs("/")
    print(repr((".".join([str(x) for x in v[:3]]) + ("-" + v[3] if len(v) > 3 and v[3] else ""),
                getattr(sys.implementation, "_mpy", 0), sys.platform,
                getattr(sys.implementation, "_machine", ""), gc.mem_free(), gc.mem_alloc(),
                s[0] * s[2], s[0] * s[3])))
