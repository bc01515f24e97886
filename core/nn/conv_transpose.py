"""ConvTranspose2d: the transpose of a 2-D convolution over NCHW input."""

import math

from burn.nn.conv import conv_head
from burn.nn.init import default_weight_and_bias, fan_in_and_fan_out, uniform_tensor
from burn.nn.module import Module, Parameter
from burn.ops.conv_transpose import conv_transpose2d
from burn.ops.window import pair


class ConvTranspose2d(Module):
    """Transposed 2-D convolution with PyTorch's arguments, init and state_dict keys; weight
    is [in_channels, out_channels // groups, kh, kw]."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros"):
        super().__init__()
        conv_head(self, "ConvTranspose2d", pair, in_channels, out_channels, kernel_size, stride,
                  groups, padding_mode)
        self.padding = pair("ConvTranspose2d", "padding", padding)
        self.output_padding = pair("ConvTranspose2d", "output_padding", output_padding)
        self.dilation = pair("ConvTranspose2d", "dilation", dilation)
        shape = (in_channels, out_channels // groups) + self.kernel_size
        w = default_weight_and_bias(shape, False)[0]
        self.register_parameter("weight", Parameter(w))
        b = None
        if bias:
            fan_in = fan_in_and_fan_out(shape)[0]
            bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            b = Parameter(uniform_tensor((out_channels,), -bound, bound))
        self.register_parameter("bias", b)

    def forward(self, x):
        """Transpose-convolve `x` of shape [N, in_channels, H, W]."""
        return conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding,
                                self.output_padding, self.groups, self.dilation)

    def extra_repr(self):
        s = (str(self.in_channels) + ", " + str(self.out_channels) + ", kernel_size=" +
             str(self.kernel_size) + ", stride=" + str(self.stride))
        for name, default in (("padding", (0, 0)), ("output_padding", (0, 0)),
                              ("dilation", (1, 1))):
            if getattr(self, name) != default:
                s += ", " + name + "=" + str(getattr(self, name))
        if self.groups != 1:
            s += ", groups=" + str(self.groups)
        if self.bias is None:
            s += ", bias=False"
        return s
