"""Conv1d: 1-D convolution over [N, C, L] input, run as a 2-D one with H = 1
(burn.ops.window1d.conv1d)."""

from burn.nn.conv import ConvNd
from burn.ops.window1d import conv1d, single


def _single(layer, name, value):
    return (single(layer, name, value),)


class Conv1d(ConvNd):
    """1-D convolution with PyTorch's arguments, init and state_dict keys; weight is
    [out_channels, in_channels // groups, kernel_size]. `padding` is an int, 'valid' or
    'same' (stride 1 only, as in PyTorch)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros"):
        super().__init__("Conv1d", _single, " or an int", in_channels, out_channels,
                         kernel_size, stride, padding, dilation, groups, bias, padding_mode)

    def forward(self, x):
        """Convolve `x` of shape [N, in_channels, L] (or [in_channels, L])."""
        return conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                      self.groups)
