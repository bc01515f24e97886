"""MaxPool1d: maximum over windows of [N, C, L] input, run as a 2-D pool with H = 1."""

import burn
from burn.nn.module import Module
from burn.ops.window1d import as_rows, from_rows, single


class MaxPool1d(Module):
    """Maximum over each window, PyTorch's arguments; `stride` defaults to `kernel_size`.
    `return_indices=True` is not supported."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        if return_indices:
            raise ValueError("MaxPool1d: return_indices=True is not supported")
        self.kernel_size = single("MaxPool1d", "kernel_size", kernel_size)
        self.stride = self.kernel_size if stride is None else \
            single("MaxPool1d", "stride", stride)
        self.padding = single("MaxPool1d", "padding", padding)
        self.dilation = single("MaxPool1d", "dilation", dilation)
        self.ceil_mode = ceil_mode

    def forward(self, x):
        """Pool `x` of shape [N, C, L] (or [C, L])."""
        rows, unbatched = as_rows("MaxPool1d", x)
        y = burn.max_pool2d(rows, (1, self.kernel_size), (1, self.stride), (0, self.padding),
                            (1, self.dilation), self.ceil_mode)
        return from_rows(y, unbatched)

    def extra_repr(self):
        return ("kernel_size=" + str(self.kernel_size) + ", stride=" + str(self.stride) +
                ", padding=" + str(self.padding) + ", dilation=" + str(self.dilation) +
                ", ceil_mode=" + str(self.ceil_mode))
