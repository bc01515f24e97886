"""Float versions of the MLPerf Tiny models, written once over an `nn` namespace so that the
same code builds the burn.nn model and its PyTorch twin (both have Conv2d, BatchNorm2d,
ReLU, AvgPool2d, Flatten, Linear, Sequential and Module with the same arguments and
state_dict keys).

- KWS DS-CNN: input [1, 1, 49, 10]; conv 10x4 stride 2 -> 64 channels + BN + ReLU, four
  times (depthwise 3x3 + BN + ReLU, pointwise 1x1 -> 64 + BN + ReLU), average pool, fc 12.
- ResNet-8 (CIFAR-10): input [1, 3, 32, 32]; conv 3x3 16 + BN + ReLU, three residual
  stacks (16, 32 and 64 channels, the last two with stride 2 and a 1x1 shortcut), average
  pool, fc 10.
"""

import numpy as np

MODELS = {"kws_dscnn": (1, 1, 49, 10), "resnet8": (1, 3, 32, 32)}


def kws_dscnn(nn):
    """The DS-CNN keyword-spotting model as an `nn.Sequential` of `nn`'s layers."""
    layers = [nn.Conv2d(1, 64, (10, 4), stride=2, padding=(5, 1)), nn.BatchNorm2d(64),
              nn.ReLU()]
    for _ in range(4):
        layers += [nn.Conv2d(64, 64, 3, padding=1, groups=64), nn.BatchNorm2d(64), nn.ReLU(),
                   nn.Conv2d(64, 64, 1), nn.BatchNorm2d(64), nn.ReLU()]
    layers += [nn.AvgPool2d((25, 5)), nn.Flatten(), nn.Linear(64, 12)]
    return nn.Sequential(*layers)


def resnet8(nn):
    """The ResNet-8 image classifier as a module of `nn`'s layers."""

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU()
            self.shortcut = nn.Conv2d(cin, cout, 1, stride=stride) if stride != 1 else None

        def forward(self, x):
            y = self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x)))))
            skip = x if self.shortcut is None else self.shortcut(x)
            return self.relu(y + skip)

    class ResNet8(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16),
                                      nn.ReLU())
            self.stacks = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
            self.head = nn.Sequential(nn.AvgPool2d(8), nn.Flatten(), nn.Linear(64, 10))

        def forward(self, x):
            return self.head(self.stacks(self.stem(x)))

    return ResNet8()


def torch_model(name, seed=0):
    """The PyTorch model MODELS[name] in eval mode: torch's initialisation, random batch-norm
    scales and shifts, and running statistics measured on random inputs (as a trained model
    has them), so that every layer passes on a signal that depends on the input."""
    import torch

    torch.manual_seed(seed)
    model = globals()[name](torch.nn)
    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for m in norms:
            m.weight.copy_(torch.from_numpy(rng.uniform(0.5, 1.5, m.num_features)))
            m.bias.copy_(torch.from_numpy(rng.normal(0, 0.2, m.num_features)))
            m.momentum = None  # running statistics: the plain average over the batches
        model.train()
        for _ in range(4):
            model(torch.from_numpy(rng.standard_normal((8,) + MODELS[name][1:])
                                   .astype(np.float32)))
    return model.eval()


def burn_model(name, twin):
    """The burn model MODELS[name] in eval mode with the weights of its PyTorch `twin`."""
    from burn import nn

    model = globals()[name](nn).eval()
    model.load_state_dict({k: v.numpy() for k, v in twin.state_dict().items()})
    return model


def twins(name, seed=0):
    """(burn model, PyTorch model) of MODELS[name] with the same weights (torch_model)."""
    theirs = torch_model(name, seed)
    return burn_model(name, theirs), theirs


def onnx_bytes(model, x):
    """A PyTorch model exported to ONNX (the TorchScript exporter) for input `x`, as bytes;
    its input is named "x"."""
    import io
    import warnings

    import torch

    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporter's deprecation notices
        torch.onnx.export(model, (torch.from_numpy(x),), buf, dynamo=False,
                          input_names=["x"], output_names=["y"])
    return buf.getvalue()


def sample_input(name, seed=1):
    """A float32 numpy input of MODELS[name]'s shape."""
    return np.random.default_rng(seed).standard_normal(MODELS[name]).astype(np.float32)
