"""flex_c behind the signatures of `burn.graph`'s kernels (see burn/graph/__init__.py), so the
.bst runtime, the tests and the benchmarks can swap the pure kernels for C ones.

`GraphKernels(lib)` binds the kernels to one library: the host build (`binding.host()`) or an
emulated Cortex-M build (`burn.host.flex.emulator`). Buffers may be numpy arrays, array.array,
bytes or memoryviews; only their leading elements are used, as in burn.graph.

The kernels come in groups, as micropython/burnflex_*.c binds them on the board: int8
(kernels_s8), float32 (kernels_f32), layout (kernels_layout), int16x8 (kernels_s16) and the
optional ops (kernels_extra_elementwise, kernels_extra); their arguments are built from
burn.host.flex.params.
"""

from burn.host.flex.binding import host, run
from burn.host.flex.kernels_extra import ExtraKernels
from burn.host.flex.kernels_extra_elementwise import ElementwiseKernels
from burn.host.flex.kernels_f32 import F32Kernels
from burn.host.flex.kernels_generated import GeneratedKernels
from burn.host.flex.kernels_layout import LayoutKernels
from burn.host.flex.kernels_s8 import S8Kernels
from burn.host.flex.kernels_s16 import S16Kernels
from burn.host.flex.params import dims, window


class GraphKernels(S8Kernels, F32Kernels, LayoutKernels, S16Kernels, ElementwiseKernels,
                   ExtraKernels, GeneratedKernels):
    """burn.graph's int8 and float32 kernels (and the layout kernels) running in one flex_c
    build."""

    def __init__(self, lib=None):
        self.lib = lib or host()

    def _run(self, name, args, context):
        run(self.lib, name, args, context)

    def _pool(self, name, view, inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w,
              pad_top, pad_left, *act):
        """Pool `name` over elements read through `view` (as_i8, as_i16 or as_f32); `act`:
        the kernel's activation arguments (act_min, act_max, or a float32 act code)."""
        x, y = view(inp, n * ih * iw * c), view(out, n * oh * ow * c)
        self._run(name, [dims(n, ih, iw, c), x, x.size,
                         window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, 1, 1, pad_top,
                                pad_left),
                         *act, dims(n, oh, ow, c), y, y.size],
                  "input %s, output %s, window %dx%d" % ((n, ih, iw, c), (n, oh, ow, c), kh, kw))
