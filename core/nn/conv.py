"""Conv2d: 2-D convolution over NCHW input, and what every convolution layer shares
(conv_head; ConvNd, the base of Conv1d and Conv2d)."""

import burn
from burn.nn.init import default_weight_and_bias
from burn.nn.module import Module, Parameter
from burn.ops.window import pair


def conv_head(layer, name, parse, in_channels, out_channels, kernel_size, stride, groups,
              padding_mode):
    """Check and set what every convolution layer holds: channel counts, kernel_size, stride
    and groups (`parse(name, arg, value)` reads a size as a tuple). ValueError, naming the
    layer `name`, unless `groups` divides both channel counts and `padding_mode` is
    'zeros'."""
    if groups < 1 or in_channels % groups or out_channels % groups:
        raise ValueError(name + ": in_channels (" + str(in_channels) + ") and " +
                         "out_channels (" + str(out_channels) +
                         ") must be divisible by groups (" + str(groups) + ")")
    if padding_mode != "zeros":
        raise ValueError(name + ": only padding_mode='zeros' is supported, got " +
                         repr(padding_mode))
    layer.in_channels = in_channels
    layer.out_channels = out_channels
    layer.kernel_size = parse(name, "kernel_size", kernel_size)
    layer.stride = parse(name, "stride", stride)
    layer.groups = groups


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


class ConvNd(Module):
    """What Conv1d and Conv2d share: arguments (`parse` reads a size as a tuple of the
    layer's dims; `forms` ends the list of the accepted paddings in an error), PyTorch's
    parameters and init, and the repr."""

    def __init__(self, name, parse, forms, in_channels, out_channels, kernel_size, stride,
                 padding, dilation, groups, bias, padding_mode):
        super().__init__()
        conv_head(self, name, parse, in_channels, out_channels, kernel_size, stride, groups,
                  padding_mode)
        self.dilation = parse(name, "dilation", dilation)
        self.padding = conv_padding(name, padding, self.stride, parse, forms)
        w, b = default_weight_and_bias(
            (out_channels, in_channels // groups) + self.kernel_size, bias)
        self.register_parameter("weight", Parameter(w))
        self.register_parameter("bias", Parameter(b) if bias else None)

    def extra_repr(self):
        """The arguments, those at their default left out, as PyTorch shows them."""
        s = (str(self.in_channels) + ", " + str(self.out_channels) + ", kernel_size=" +
             str(self.kernel_size) + ", stride=" + str(self.stride))
        if self.padding != (0,) * len(self.kernel_size):
            s += ", padding=" + str(self.padding)
        if self.dilation != (1,) * len(self.kernel_size):
            s += ", dilation=" + str(self.dilation)
        if self.groups != 1:
            s += ", groups=" + str(self.groups)
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv2d(ConvNd):
    """2-D convolution; weight is [out_channels, in_channels // groups, kh, kw].

    `padding` is an int, a pair, 'valid' or 'same' (stride 1 only, as in PyTorch)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros"):
        super().__init__("Conv2d", pair, ", an int or a pair", in_channels, out_channels,
                         kernel_size, stride, padding, dilation, groups, bias, padding_mode)

    def forward(self, x):
        """Convolve `x` of shape [N, in_channels, H, W]."""
        return burn.conv2d(x, self.weight, self.bias, self.stride, self.padding,
                           self.dilation, self.groups)
