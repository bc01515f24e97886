"""Train a small model on digits with the Learner; used by the learner tests as a child
process (so it can be killed, driven through a pseudo-terminal, or made to diverge).

usage: train_digits.py RUN_DIR EPOCHS DASHBOARD [--lr LR] [--model mlp|dropout|cnn]
                       [--patience N] [--sgd] [--noise]

--noise adds noise drawn from numpy's global generator (seeded 0) to every input read, as
an augmentation would.
"""

import argparse

import numpy as np

import burn
from burn import nn
from burn.host.autodiff import autodiff_device
from burn.host.data import DataLoader, load_digits, random_split
from burn.host.train.learner import Learner
from burn.host.train.optim import SGD, Adam


def build(kind):
    if kind == "cnn":
        return nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(32 * 16, 10))
    if kind == "dropout":  # its masks come from burn's random stream
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.25),
                             nn.Linear(32, 10))
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def _noisy(x):
    return x + np.random.normal(0.0, 0.05, x.shape).astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("epochs", type=int)
    ap.add_argument("dashboard")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--model", default="mlp")
    ap.add_argument("--patience", type=int, default=None)
    ap.add_argument("--sgd", action="store_true")
    ap.add_argument("--noise", action="store_true")
    args = ap.parse_args()
    dev = autodiff_device("numpy")
    burn.seed(0)
    model = build(args.model).to(dev)
    digits = load_digits()
    if args.noise:
        np.random.seed(0)
        digits.transform = _noisy
    train, valid = random_split(digits, [0.8, 0.2])
    opt = (SGD if args.sgd else Adam)(model.parameters(), lr=args.lr)
    learner = Learner(model, opt, run_dir=args.run_dir, dashboard=args.dashboard,
                      monitor="valid_accuracy", mode="max", patience=args.patience)
    result = learner.fit(DataLoader(train, 32, shuffle=True, device=dev),
                         DataLoader(valid, 512, device=dev), args.epochs, resume=True)
    best = result.best("valid_accuracy")
    print("RESULT", result.stop_reason, len(result.history),
          best["valid_accuracy"] if best else None)


if __name__ == "__main__":
    main()
