"""AdaptiveAvgPool1d: mean pooling of [N, C, L] input to a fixed length, run as the 2-D
adaptive pool with H = 1."""

import burn
from burn.nn.module import Module
from burn.ops.window1d import as_rows, from_rows, single


class AdaptiveAvgPool1d(Module):
    """Mean pooling to `output_size` cells (PyTorch's rule) whatever the input length."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = single("AdaptiveAvgPool1d", "output_size", output_size)

    def forward(self, x):
        """Pool `x` of shape [N, C, L] (or [C, L]) to [N, C, output_size]."""
        rows, unbatched = as_rows("AdaptiveAvgPool1d", x)
        return from_rows(burn.adaptive_avg_pool2d(rows, (1, self.output_size)), unbatched)

    def extra_repr(self):
        return "output_size=" + str(self.output_size)
