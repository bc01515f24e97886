"""Batched matrix multiply over flat row-major arrays.

`matmul(a, b, out, batch, m, k, n, a_batch_stride, b_batch_stride)` computes
out[t] = a[t] @ b[t] for t < batch, where a[t] is the [m, k] block starting at
t * a_batch_stride and b[t] the [k, n] block at t * b_batch_stride (a stride of 0 reuses
one operand for every batch). Float arrays give float sums; int arrays give exact sums
stored into an 'i' `out`, wrapped to int32 like C.
"""

from array import array

from burn.kernels.common import ON_MICROPYTHON, put, typecode


def matmul_plain(a, b, out, batch, m, k, n, a_batch_stride, b_batch_stride):
    """Reference matmul: each output is the dot product of a row of a and a column of b."""
    tc = typecode(out)
    btc = typecode(b)
    cols = None
    for t in range(batch):
        if cols is None or b_batch_stride:
            bo = t * b_batch_stride
            # Columns gathered once per batch into compact arrays: k * n reads, not m * k * n.
            cols = [array(btc, [b[p] for p in range(bo + j, bo + k * n, n)])
                    for j in range(n)]
        ao = t * a_batch_stride
        for i in range(m):
            row = a[ao + i * k:ao + i * k + k]
            put(out, tc, (t * m + i) * n,
                [sum([x * y for x, y in zip(row, col)]) for col in cols])


matmul = matmul_plain

if ON_MICROPYTHON:
    try:  # a port without native code (webassembly) cannot compile the twin
        from burn.kernels.matmul_viper import matmul_fast

        matmul = matmul_fast
    except SyntaxError:
        pass
