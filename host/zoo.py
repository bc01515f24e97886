"""Reference architectures of tinyML in `burn.nn`, with the layer shapes of the MLPerf Tiny
reference models, ready to train on the host and export to `.bst`.

    from burn.host import zoo
    model = zoo.resnet8()                  # image classification, [N, 3, 32, 32] -> 10
    model = zoo.ds_cnn()                   # keyword spotting, [N, 1, 49, 10] -> 12
    model = zoo.mobilenet_v1()             # visual wake words, [N, 3, 96, 96] -> 2
    model = zoo.autoencoder()              # anomaly detection, [N, 640] -> 640

Strided convolutions pad as TensorFlow's SAME does (the extra row and column after the
image), so an exported model has the reference's shapes and padding op for op: the
padding is folded into the convolution on export. `width` scales every channel count
(`width=0.25` makes a quick test model); `softmax=True` ends with the softmax the
reference files have (train without it: the losses take logits).
"""

import itertools

import burn
from burn import nn

INPUT_SHAPES = {"resnet8": (3, 32, 32), "ds_cnn": (1, 49, 10), "mobilenet_v1": (3, 96, 96),
                "autoencoder": (640,)}


def same_pads(size, kernel, stride):
    """(before, after) padding of TensorFlow's SAME for one axis."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def _channels(n, width):
    return max(1, round(n * width))


class SamePad(nn.Module):
    """Zero padding as TensorFlow's SAME pads a `kernel` window moved by `stride`, for
    inputs of `size` (h, w)."""

    def __init__(self, size, kernel, stride):
        super().__init__()
        (kh, kw), (sh, sw) = kernel, stride
        top, bottom = same_pads(size[0], kh, sh)
        left, right = same_pads(size[1], kw, sw)
        self.pads = (left, right, top, bottom)

    def forward(self, x):
        """`x` [N, C, H, W] padded."""
        return burn.pad(x, self.pads)


def conv_bn(cin, cout, kernel, stride, size, groups=1, act=nn.ReLU):
    """Convolution (SAME padding for `size` inputs), BatchNorm and the activation `act`
    (None for none), as one Sequential."""
    k = kernel if isinstance(kernel, tuple) else (kernel, kernel)
    s = stride if isinstance(stride, tuple) else (stride, stride)
    pad = SamePad(size, k, s)
    layers = [pad] if any(pad.pads) else []
    layers += [nn.Conv2d(cin, cout, k, s, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    return nn.Sequential(*(layers + ([act()] if act else [])))


class ResidualBlock(nn.Module):
    """ResNet-8's block: two 3x3 convolutions, the shortcut (a strided 1x1 convolution
    where the shape changes), their sum and a ReLU."""

    def __init__(self, cin, cout, stride, size):
        super().__init__()
        half = (-(-size[0] // stride), -(-size[1] // stride))
        self.conv1 = conv_bn(cin, cout, 3, stride, size)
        self.conv2 = conv_bn(cout, cout, 3, 1, half, act=None)
        self.shortcut = nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout \
            else None

    def forward(self, x):
        """relu(conv2(conv1(x)) + shortcut(x))."""
        y = self.conv2(self.conv1(x))
        return (y + (x if self.shortcut is None else self.shortcut(x))).relu()


class ResNet8(nn.Module):
    """MLPerf Tiny's ResNet-8 for 32x32 RGB images: a 3x3 stem, three residual stacks of
    16, 32 and 64 channels (times `width`), an 8x8 average pool and a dense layer."""

    def __init__(self, num_classes=10, width=1.0, softmax=False):
        super().__init__()
        c1, c2, c3 = (_channels(c, width) for c in (16, 32, 64))
        self.stem = conv_bn(3, c1, 3, 1, (32, 32))
        self.stack1 = ResidualBlock(c1, c1, 1, (32, 32))
        self.stack2 = ResidualBlock(c1, c2, 2, (32, 32))
        self.stack3 = ResidualBlock(c2, c3, 2, (16, 16))
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(c3, num_classes)
        self.softmax = nn.Softmax(dim=1) if softmax else None

    def forward(self, x):
        """Class scores (or probabilities) of `x` [N, 3, 32, 32]."""
        x = self.stack3(self.stack2(self.stack1(self.stem(x))))
        y = self.fc(self.pool(x).flatten(1))
        return y if self.softmax is None else self.softmax(y)


def resnet8(num_classes=10, width=1.0, softmax=False):
    """MLPerf Tiny ResNet-8 (image classification, CIFAR-10 sized inputs)."""
    return ResNet8(num_classes, width, softmax)


def ds_cnn(num_classes=12, width=1.0, softmax=False):
    """MLPerf Tiny DS-CNN for keyword spotting on [N, 1, 49, 10] MFCCs: a 10x4 stride-2
    convolution to 64 channels (times `width`), four depthwise-separable blocks, a 25x5
    average pool and a dense layer; dropout as in training the reference."""
    c = _channels(64, width)
    size = (25, 5)
    layers = [conv_bn(1, c, (10, 4), 2, (49, 10)), nn.Dropout(0.2)]
    for _ in range(4):
        layers += [conv_bn(c, c, 3, 1, size, groups=c), conv_bn(c, c, 1, 1, size)]
    layers += [nn.Dropout(0.4), nn.AvgPool2d(size), nn.Flatten(), nn.Linear(c, num_classes)]
    return nn.Sequential(*(layers + ([nn.Softmax(dim=1)] if softmax else [])))


MOBILENET_BLOCKS = ((1, 64), (2, 128), (1, 128), (2, 256), (1, 256), (2, 512), (1, 512),
                    (1, 512), (1, 512), (1, 512), (1, 512), (2, 1024), (1, 1024))


def mobilenet_v1(num_classes=2, alpha=0.25, softmax=False):
    """MobileNetV1 at 96x96 (MLPerf Tiny's visual wake words): a 3x3 stride-2 stem of
    32 * `alpha` channels, 13 depthwise-separable blocks (ReLU6 after each convolution),
    a 3x3 average pool and a dense layer."""
    cin = _channels(32, alpha)
    size = 48
    layers = [conv_bn(3, cin, 3, 2, (96, 96), act=nn.ReLU6)]
    for stride, cout in MOBILENET_BLOCKS:
        cout = _channels(cout, alpha)
        layers.append(conv_bn(cin, cin, 3, stride, (size, size), groups=cin, act=nn.ReLU6))
        size = -(-size // stride)
        layers.append(conv_bn(cin, cout, 1, 1, (size, size), act=nn.ReLU6))
        cin = cout
    layers += [nn.AvgPool2d(size), nn.Flatten(), nn.Linear(cin, num_classes)]
    return nn.Sequential(*(layers + ([nn.Softmax(dim=1)] if softmax else [])))


class DenseBN(nn.Module):
    """Dense layer, BatchNorm over its features and ReLU (BatchNorm2d on [N, F, 1, 1])."""

    def __init__(self, fin, fout):
        super().__init__()
        self.fc = nn.Linear(fin, fout)
        self.bn = nn.BatchNorm2d(fout)

    def forward(self, x):
        """relu(bn(fc(x))) of `x` [N, fin]."""
        y = self.fc(x)
        return self.bn(y.reshape((y.shape[0], y.shape[1], 1, 1))).reshape(y.shape).relu()


AUTOENCODER_LAYERS = (640, 128, 128, 128, 128, 8, 128, 128, 128, 128, 640)


def autoencoder(layers=AUTOENCODER_LAYERS):
    """MLPerf Tiny's anomaly-detection autoencoder: dense layers 640-128-128-128-128-8-
    128-128-128-128-640, each hidden one with BatchNorm and ReLU, the last one linear."""
    blocks = [DenseBN(a, b) for a, b in itertools.pairwise(layers[:-1])]
    return nn.Sequential(*(blocks + [nn.Linear(layers[-2], layers[-1])]))


BUILDERS = {"resnet8": resnet8, "ds_cnn": ds_cnn, "mobilenet_v1": mobilenet_v1,
            "autoencoder": autoencoder}
