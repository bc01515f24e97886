"""The kernels that move elements without arithmetic, for any element type, on flex_c: pad
and concat (burn.graph.layout; micropython/burnflex_layout.c), strided
(burnflex_extra_move.c) and gather (burnflex_extra_gather.c).
"""

import numpy as np

from burn.host.flex.binding import PtrList
from burn.host.flex.params import dims, element_dtype, view


class LayoutKernels:
    """GraphKernels' layout kernels; the composed class gives them `_run`."""

    def pad(self, inp, out, d0, d1, d2, d3, b0, b1, b2, b3, a0, a1, a2, a3, value):
        """Constant pad of a 4-D tensor (burn.graph.layout.pad), of `inp`'s element type."""
        dtype = element_dtype(inp)
        x = view(inp, dtype, d0 * d1 * d2 * d3)
        count = (d0 + b0 + a0) * (d1 + b1 + a1) * (d2 + b2 + a2) * (d3 + b3 + a3)
        y = view(out, dtype, count)
        self._run("flex_pad", [x.itemsize, dims(d0, d1, d2, d3), x, x.size,
                               np.array([b0, a0, b1, a1, b2, a2, b3, a3], np.int32),
                               np.array([value], dtype), y, y.size],
                  "input %s" % ((d0, d1, d2, d3),))

    def concat(self, inputs, inner_sizes, out, outer):
        """Concatenate [outer, inner_k] buffers along the inner axis (burn.graph.layout)."""
        dtype = element_dtype(out)
        sizes = [int(s) for s in inner_sizes]
        xs = [view(b, dtype, outer * s) for b, s in zip(inputs, sizes)]
        y = view(out, dtype, outer * sum(sizes))
        self._run("flex_concat", [y.itemsize, len(xs), PtrList(xs), np.array(sizes, np.int32),
                                  outer, 1, y, y.size], "inner sizes %s" % (sizes,))

    def strided(self, inp, out, offset, d0, d1, d2, d3, d4, d5, s0, s1, s2, s3, s4, s5):
        """Strided copy over the box [d0, ..., d5] (burn.graph.strided), of `out`'s element
        type; the C kernel checks every read against the whole input buffer."""
        dtype = element_dtype(out)
        dims = np.array([d0, d1, d2, d3, d4, d5], np.int32)
        x, y = view(inp, dtype), view(out, dtype, int(np.prod(dims, dtype=np.int64)))
        self._run("flex_strided", [y.itemsize, x, x.size, offset, dims,
                                   np.array([s0, s1, s2, s3, s4, s5], np.int32), y, y.size],
                  "box %s, strides %s" % (dims.tolist(), [s0, s1, s2, s3, s4, s5]))

    strided_s8 = strided
