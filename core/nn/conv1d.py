"""Conv1d: 1-D convolution over [N, C, L] input, run as a 2-D one with H = 1
(burn.ops.window1d.conv1d)."""

from burn.nn.conv import check_channels, conv_padding
from burn.nn.init import default_weight_and_bias
from burn.nn.module import Module, Parameter
from burn.ops.window1d import conv1d, single


def _single(layer, name, value):
    return (single(layer, name, value),)


class Conv1d(Module):
    """1-D convolution with PyTorch's arguments, init and state_dict keys; weight is
    [out_channels, in_channels // groups, kernel_size]. `padding` is an int, 'valid' or
    'same' (stride 1 only, as in PyTorch)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros"):
        super().__init__()
        check_channels("Conv1d", in_channels, out_channels, groups, padding_mode)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = (single("Conv1d", "kernel_size", kernel_size),)
        self.stride = (single("Conv1d", "stride", stride),)
        self.dilation = (single("Conv1d", "dilation", dilation),)
        self.padding = conv_padding("Conv1d", padding, self.stride, _single, " or an int")
        self.groups = groups
        w, b = default_weight_and_bias(
            (out_channels, in_channels // groups) + self.kernel_size, bias)
        self.register_parameter("weight", Parameter(w))
        self.register_parameter("bias", Parameter(b) if bias else None)

    def forward(self, x):
        """Convolve `x` of shape [N, in_channels, L] (or [in_channels, L])."""
        return conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                      self.groups)

    def extra_repr(self):
        s = (str(self.in_channels) + ", " + str(self.out_channels) + ", kernel_size=" +
             str(self.kernel_size) + ", stride=" + str(self.stride))
        if self.padding != (0,):
            s += ", padding=" + str(self.padding)
        if self.dilation != (1,):
            s += ", dilation=" + str(self.dilation)
        if self.groups != 1:
            s += ", groups=" + str(self.groups)
        if self.bias is None:
            s += ", bias=False"
        return s
