"""Time the pure backend's kernels, plain vs fast (viper/native), on MicroPython.

Run on the MicroPython unix port (or a board) with `burn` importable, for example
    MICROPYPATH=/tmp/mp micropython benchmarks/micropython_kernels.py
where /tmp/mp/burn links to core/. To time cross-compiled modules instead of source, put
`mpy-cross -march=<arch>` outputs of core/ in that folder (x64 for the unix port, armv6m
for an RP2040). Under CPython only the plain kernels exist, so only they are timed.
"""

import gc
from array import array

from mp_clock import elapsed_us, now_us

from burn.kernels import conv, matmul, pool


def _buf(tc, n, seed):
    # Filled in place: a list of n boxed floats, or a growing array, would not fit a
    # small heap.
    a = _zeros(tc, n)
    scale = 64 if tc == "f" else 1
    for i in range(n):
        a[i] = (((i * 37 + seed) % 251) - 125) / scale if scale > 1 else \
            ((i * 37 + seed) % 251) - 125
    return a


def _zeros(tc, n):
    return array(tc, bytes(n * (1 if tc in "bB" else 4)))


def _type_name(tc):
    return "float32" if tc == "f" else "int8"


def cases():
    """Yield (name, kernel name, arguments) for each benchmarked call, built one at a time."""
    for tc in ("f", "b"):
        otc = "f" if tc == "f" else "i"
        yield ("matmul 64x64x64 " + _type_name(tc), "matmul",
               (_buf(tc, 4096, 1), _buf(tc, 4096, 2), _zeros(otc, 4096), 1, 64, 64, 64, 0, 0))
    for tc in ("f", "b"):
        otc = "f" if tc == "f" else "i"
        yield ("conv 1x8x16x16, 8 3x3 pad 1 " + _type_name(tc), "conv2d",
               (_buf(tc, 8 * 16 * 16, 3), _buf(tc, 8 * 8 * 9, 4), None,
                _zeros(otc, 8 * 16 * 16), 1, 8, 16, 16, 8, 3, 3, 16, 16, 1, 1, 1, 1, 1, 1, 1))
    for tc in ("f", "b"):
        yield ("maxpool 1x8x16x16 2x2 " + _type_name(tc), "pool2d",
               (True, _buf(tc, 8 * 16 * 16, 5), _zeros(tc, 8 * 8 * 8), 1, 8, 16, 16, 2, 2, 8,
                8, 2, 2, 0, 0, 1, 1, True))


def _time(fn, args, repeat):
    best = None
    for _ in range(repeat):
        t0 = now_us()
        fn(*args)
        dt = elapsed_us(t0)
        best = dt if best is None or dt < best else best
    return best


def main():
    """Print plain and fast times (best of 3, in ms) and their ratio for every case."""
    mods = {"matmul": matmul, "conv2d": conv, "pool2d": pool}
    print("%-40s %10s %10s %8s" % ("kernel", "plain ms", "fast ms", "ratio"))
    for name, kind, args in cases():
        mod = mods[kind]
        plain = _time(getattr(mod, kind + "_plain"), args, 3)
        fast_fn = getattr(mod, kind + "_fast", None)
        if fast_fn is None:
            print("%-40s %10.2f %10s %8s" % (name, plain / 1000, "-", "-"))
        else:
            fast = _time(fast_fn, args, 3)
            print("%-40s %10.2f %10.2f %7.1fx" % (name, plain / 1000, fast / 1000,
                                                  plain / max(fast, 1)))
        args = None  # free this case's buffers before the next one is built
        gc.collect()


main()
