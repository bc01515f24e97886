"""A small CNN and an MLP, each defined twice: with torch.nn (the checkpoints' source, built
in the tests) and with burn.nn (what the checkpoints load into). The burn CNN leaves out the
torch CNN's Dropout, so its layers are numbered without the gap; the torch MLP names its
layers fc1/fc2 where the burn one is a Sequential."""

from burn import nn


def burn_cnn():
    """Conv-BN-ReLU-pool, conv-ReLU, flatten, linear, for 1x8x8 input."""
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(),
                         nn.Flatten(), nn.Linear(6 * 4 * 4, 5))


def burn_mlp():
    """Linear-ReLU-linear, 10 features to 3."""
    return nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3))


def torch_cnn():
    """The torch twin of burn_cnn, with a Dropout after the first ReLU."""
    import torch

    t = torch.nn
    return t.Sequential(t.Conv2d(1, 4, 3, padding=1), t.BatchNorm2d(4), t.ReLU(),
                        t.Dropout(0.2), t.MaxPool2d(2), t.Conv2d(4, 6, 3, padding=1),
                        t.ReLU(), t.Flatten(), t.Linear(6 * 4 * 4, 5))


def torch_mlp():
    """The torch twin of burn_mlp, with named layers."""
    import torch

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(10, 16)
            self.fc2 = torch.nn.Linear(16, 3)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    return MLP()
