"""PyTorch models for the ONNX importer tests, exported with `torch.onnx.export` (CPU):
a small CNN, a DS-CNN (depthwise-separable), a ResNet-8 style network with residual adds,
an MLP autoencoder, an op-coverage network that uses the other supported ops, a 1-D CNN
(time series / keyword spotting style) and a net for the quantized operator form;
`quantize` makes int8 models of them with onnxruntime."""

import logging
import warnings

import torch
from torch import nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.bn(self.c1(x))), 2)
        x = torch.clamp(self.c2(x), 0, 6)
        return torch.softmax(self.fc(x.view(x.size(0), -1)), dim=1)


def _ds_block(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
        nn.ReLU(), nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class DSCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, (5, 3), (2, 1), (2, 1)),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.blocks = nn.Sequential(_ds_block(16, 16, 1), _ds_block(16, 24, 1))
        self.head = nn.Linear(24, 12)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(nn.functional.adaptive_avg_pool2d(x, 1).flatten(1))


class Residual(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential() if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.b2(self.c2(torch.relu(self.b1(self.c1(x)))))
        return torch.relu(y + self.short(x))


class ResNet8(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8),
                                  nn.ReLU())
        self.stages = nn.Sequential(Residual(8, 8, 1), Residual(8, 16, 2), Residual(16, 32, 2))
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class Autoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 8), nn.ReLU())
        self.dec = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64), nn.Sigmoid())

    def forward(self, x):
        return self.dec(self.enc(x))


class OpMix(nn.Module):
    """Sub, Div, Mul/Add by constants, HardSwish, HardSigmoid, LeakyRelu, Tanh, Pad,
    AveragePool, Concat, Slice, Gather, Transpose, ReduceMean, Squeeze/Unsqueeze, MatMul."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(4, 6, 3, padding=1)
        self.w = nn.Parameter(torch.randn(12, 5))
        self.register_buffer("offset", torch.randn(1, 6, 1, 1))

    def forward(self, x):
        y = nn.functional.hardswish(self.c(x)) - self.offset
        z = nn.functional.hardsigmoid(y) / 2.0 + torch.tanh(y) * 0.5
        z = nn.functional.leaky_relu(nn.functional.pad(z, (1, 0, 0, 1)), 0.1)
        z = nn.functional.avg_pool2d(z, 3, 2, 1, count_include_pad=False)
        z = torch.cat([z, z[:, 1:3] * 2.0], dim=1)[:, :, 1:, :]
        g = z[:, 4]                                   # Gather on the channels
        m = z.mean(dim=(2, 3)) + g.mean(dim=(1, 2)).unsqueeze(1)
        t = z.permute(0, 2, 3, 1).mean(dim=(1, 2), keepdim=True).squeeze(1).squeeze(1)
        return torch.sigmoid(torch.cat([m + t, (m - t)[:, :4]], dim=1) @ self.w)


class Decoder(nn.Module):
    """An encoder-decoder whose decoder is ConvTranspose2d (stride, output_padding, groups,
    dilation)."""

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(2, 8, 3, stride=2, padding=1)
        self.up1 = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1)
        self.up2 = nn.ConvTranspose2d(6, 4, (3, 2), groups=2, dilation=(1, 2))

    def forward(self, x):
        return self.up2(torch.relu(self.up1(torch.relu(self.down(x)))))


class KWS1D(nn.Module):
    """Conv1d-BatchNorm1d-ReLU-MaxPool1d twice, a global average pool and a Linear over 10
    feature channels of 32 frames."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(10, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(16, 24, 3, stride=1, padding=1), nn.BatchNorm1d(24), nn.ReLU(),
            nn.MaxPool1d(2), nn.AdaptiveAvgPool1d(1))
        self.head = nn.Linear(24, 6)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


MODELS = {  # name -> (constructor, input shape with batch 1)
    "small_cnn": (SmallCNN, (1, 1, 16, 16)),
    "ds_cnn": (DSCNN, (1, 1, 20, 10)),
    "resnet8": (ResNet8, (1, 3, 16, 16)),
    "autoencoder": (Autoencoder, (1, 64)),
    "op_mix": (OpMix, (1, 4, 9, 9)),
    "decoder": (Decoder, (1, 2, 8, 6)),
    "kws_1d": (KWS1D, (1, 10, 32)),
}


def _randomise_batchnorm(model):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.3, 0.3)


def export(name, path, opset=17, fold=True):
    """Build the model `name` (seeded), export it to `path`; returns the torch model.
    `fold=False` keeps BatchNormalization nodes in the file."""
    ctor, shape = MODELS[name] if name in MODELS else QLINEAR[name]
    torch.manual_seed(0)
    model = ctor()
    _randomise_batchnorm(model)
    model.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, torch.randn(shape), str(path), opset_version=opset,
                          input_names=["x"], output_names=["y"], dynamo=False,
                          dynamic_axes={"x": {0: "n"}, "y": {0: "n"}},
                          do_constant_folding=fold)
    return model


class QLinearNet(nn.Module):
    """Conv, MaxPool, Flatten and a MatMul by a constant: onnxruntime's QOperator format
    writes it with QLinearConv, an int8 MaxPool and QLinearMatMul."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(2, 4, 3, padding=1)
        self.w = nn.Parameter(torch.randn(4 * 4 * 4, 5) * 0.1)

    def forward(self, x):
        return nn.functional.max_pool2d(self.c(x), 2).flatten(1) @ self.w


QLINEAR = {"qlinear": (QLinearNet, (1, 2, 8, 8))}  # not in MODELS: only quantized tests use it


def quantize(src, dst, per_channel=False, operator_form=False, samples=8, uint8=False):
    """onnxruntime's `quantize_static` of the model `src` into `dst`: QDQ (or the QLinear
    operator form), int8 activations and weights (uint8 with `uint8`), per tensor or per
    channel, calibrated on `samples` seeded normal inputs."""
    import numpy as np
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    shape = [d.dim_value or 1 for d in
             onnx.load(str(src)).graph.input[0].type.tensor_type.shape.dim]
    rng = np.random.default_rng(0)
    batches = iter([{"x": rng.standard_normal(shape).astype(np.float32)}
                    for _ in range(samples)])

    class Reader(CalibrationDataReader):
        def get_next(self):
            return next(batches, None)

    kind = QuantType.QUInt8 if uint8 else QuantType.QInt8
    logging.getLogger().setLevel(logging.ERROR)  # the quantizer's advice on preprocessing
    quantize_static(str(src), str(dst), Reader(), activation_type=kind, weight_type=kind,
                    quant_format=QuantFormat.QOperator if operator_form else QuantFormat.QDQ,
                    per_channel=per_channel)


def exact_int8_session(path):
    """An onnxruntime CPU session that computes a quantized model as ONNX defines it: the
    reference for burn's int8 imports. Graph optimizations stop at the basic level, so each
    QDQ node runs by itself (QuantizeLinear, DequantizeLinear, the float op between them) and
    QLinear ops run their own kernels. At its default level onnxruntime fuses QDQ groups
    into int8 kernels, shifting int8 activations to uint8; on x86-64 CPUs with AVX2 but no
    VNNI those kernels add u8 x s8 product pairs into saturating int16 (vpmaddubsw), so their
    results depend on the CPU and are tens of LSB off once values use their whole range."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
