"""MicroPython twin of `burn.kernels.matmul`: viper for int8/uint8, native for float.

Imported only on MicroPython. Results equal `matmul_plain` exactly for integers (int32
wraparound happens in the 32-bit store) and to float rounding for floats.
"""

from array import array

import micropython

from burn.kernels.common import typecode
from burn.kernels.matmul import matmul_plain


@micropython.viper
def _matmul_bytes(a, b, out, dims):
    # dims: batch, m, k, n, a_batch_stride, b_batch_stride, sign bit (128 for int8, 0 for
    # uint8). Viper reads bytes unsigned; (v ^ s) - s sign-extends when s == 128.
    d = ptr32(dims)  # noqa: F821
    batch = int(d[0])
    m = int(d[1])
    k = int(d[2])
    n = int(d[3])
    sx = int(d[6])
    pa = ptr8(a)  # noqa: F821
    pb = ptr8(b)  # noqa: F821
    po = ptr32(out)  # noqa: F821
    o = 0
    for t in range(batch):
        ar = t * int(d[4])
        bo = t * int(d[5])
        for _i in range(m):
            for j in range(n):
                acc = 0
                q = bo + j
                for p in range(ar, ar + k):
                    acc += ((pa[p] ^ sx) - sx) * ((pb[q] ^ sx) - sx)
                    q += n
                po[o] = acc
                o += 1
            ar += k


@micropython.native
def _matmul_float(a, b, out, batch, m, k, n, a_batch_stride, b_batch_stride):
    o = 0
    for t in range(batch):
        ar = t * a_batch_stride
        bo = t * b_batch_stride
        for _i in range(m):
            # The row as a list: its float objects are made once, not once per column.
            row = list(a[ar:ar + k])
            for j in range(n):
                acc = 0.0
                q = bo + j
                for p in range(k):
                    acc += row[p] * b[q]
                    q += n
                out[o] = acc
                o += 1
            ar += k


def matmul_fast(a, b, out, batch, m, k, n, a_batch_stride, b_batch_stride):
    """Same contract as `matmul_plain`; int8/uint8 and float arrays take compiled loops."""
    tc = typecode(a)
    if tc == "f":
        _matmul_float(a, b, out, batch, m, k, n, a_batch_stride, b_batch_stride)
    elif tc in "bB" and typecode(out) == "i":
        dims = array("i", [batch, m, k, n, a_batch_stride, b_batch_stride,
                           128 if tc == "b" else 0])
        _matmul_bytes(a, b, out, dims)
    else:
        matmul_plain(a, b, out, batch, m, k, n, a_batch_stride, b_batch_stride)
