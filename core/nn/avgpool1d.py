"""AvgPool1d: mean over windows of [N, C, L] input, run as a 2-D pool with H = 1."""

import burn
from burn.nn.module import Module
from burn.ops.window1d import as_rows, from_rows, single


class AvgPool1d(Module):
    """Mean over each window, PyTorch's arguments; `stride` defaults to `kernel_size`."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = single("AvgPool1d", "kernel_size", kernel_size)
        self.stride = self.kernel_size if stride is None else \
            single("AvgPool1d", "stride", stride)
        self.padding = single("AvgPool1d", "padding", padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, x):
        """Pool `x` of shape [N, C, L] (or [C, L])."""
        rows, unbatched = as_rows("AvgPool1d", x)
        y = burn.avg_pool2d(rows, (1, self.kernel_size), (1, self.stride), (0, self.padding),
                            self.ceil_mode, self.count_include_pad)
        return from_rows(y, unbatched)

    def extra_repr(self):
        return ("kernel_size=" + str(self.kernel_size) + ", stride=" + str(self.stride) +
                ", padding=" + str(self.padding))
