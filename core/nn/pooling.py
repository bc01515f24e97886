"""Pooling layers over NCHW input: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d."""

import burn
from burn.nn.module import Module


class MaxPool2d(Module):
    """Maximum over each window; `stride` defaults to `kernel_size`."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.dilation = dilation
        self.ceil_mode = ceil_mode

    def forward(self, x):
        """Pool `x` of shape [N, C, H, W]."""
        return burn.max_pool2d(x, self.kernel_size, self.stride, self.padding,
                               self.dilation, self.ceil_mode)

    def extra_repr(self):
        return ("kernel_size=" + str(self.kernel_size) + ", stride=" + str(self.stride) +
                ", padding=" + str(self.padding) + ", dilation=" + str(self.dilation) +
                ", ceil_mode=" + str(self.ceil_mode))


class AvgPool2d(Module):
    """Mean over each window; `stride` defaults to `kernel_size`."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, x):
        """Pool `x` of shape [N, C, H, W]."""
        return burn.avg_pool2d(x, self.kernel_size, self.stride, self.padding,
                               self.ceil_mode, self.count_include_pad)

    def extra_repr(self):
        return ("kernel_size=" + str(self.kernel_size) + ", stride=" + str(self.stride) +
                ", padding=" + str(self.padding))


class AdaptiveAvgPool2d(Module):
    """Mean pooling to a fixed output size (an int or (oh, ow)) whatever the input size."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        """Pool `x` of shape [N, C, H, W] to [N, C, *output_size]."""
        return burn.adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self):
        return "output_size=" + str(self.output_size)
