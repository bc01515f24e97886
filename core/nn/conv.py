"""Conv2d: 2-D convolution over NCHW input."""

import burn
from burn.nn.init import default_weight_and_bias
from burn.nn.module import Module, Parameter
from burn.ops.window import pair


def check_channels(name, in_channels, out_channels, groups, padding_mode):
    """Raise ValueError, naming the layer `name`, unless `groups` divides both channel
    counts and `padding_mode` is 'zeros' (the checks of every convolution layer)."""
    if groups < 1 or in_channels % groups or out_channels % groups:
        raise ValueError(name + ": in_channels (" + str(in_channels) + ") and " +
                         "out_channels (" + str(out_channels) +
                         ") must be divisible by groups (" + str(groups) + ")")
    if padding_mode != "zeros":
        raise ValueError(name + ": only padding_mode='zeros' is supported, got " +
                         repr(padding_mode))


def conv_padding(name, padding, stride, parse, forms):
    """The padding of convolution layer `name`: 'same' (stride 1 only, as in PyTorch) or
    'valid' as given, else parse(name, "padding", padding); `forms` ends the list of the
    accepted forms in the error message."""
    if not isinstance(padding, str):
        return parse(name, "padding", padding)
    if padding not in ("same", "valid"):
        raise ValueError(name + ": padding must be 'same', 'valid'" + forms + ", got " +
                         repr(padding))
    if padding == "same" and stride != (1,) * len(stride):
        raise ValueError(name + ": padding='same' needs stride 1, got stride " + str(stride))
    return padding


class Conv2d(Module):
    """2-D convolution; weight is [out_channels, in_channels // groups, kh, kw].

    `padding` is an int, a pair, 'valid' or 'same' (stride 1 only, as in PyTorch)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros"):
        super().__init__()
        check_channels("Conv2d", in_channels, out_channels, groups, padding_mode)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = pair("Conv2d", "kernel_size", kernel_size)
        self.stride = pair("Conv2d", "stride", stride)
        self.dilation = pair("Conv2d", "dilation", dilation)
        self.padding = conv_padding("Conv2d", padding, self.stride, pair, ", an int or a pair")
        self.groups = groups
        w, b = default_weight_and_bias(
            (out_channels, in_channels // groups) + self.kernel_size, bias)
        self.register_parameter("weight", Parameter(w))
        self.register_parameter("bias", Parameter(b) if bias else None)

    def forward(self, x):
        """Convolve `x` of shape [N, in_channels, H, W]."""
        return burn.conv2d(x, self.weight, self.bias, self.stride, self.padding,
                           self.dilation, self.groups)

    def extra_repr(self):
        s = (str(self.in_channels) + ", " + str(self.out_channels) + ", kernel_size=" +
             str(self.kernel_size) + ", stride=" + str(self.stride))
        if self.padding != (0, 0):
            s += ", padding=" + str(self.padding)
        if self.dilation != (1, 1):
            s += ", dilation=" + str(self.dilation)
        if self.groups != 1:
            s += ", groups=" + str(self.groups)
        if self.bias is None:
            s += ", bias=False"
        return s
