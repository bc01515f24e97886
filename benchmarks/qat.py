"""Quantization-aware training on the 8x8 digits: float, PTQ int8 and QAT int8 accuracy of
the demo CNN, and the time of a QAT epoch against a plain training epoch.

usage: python benchmarks/qat.py [--epochs 6] [--qat-epochs 3] [--lr 5e-4] [--timing 5]

The float model trains as `burn demo` trains it (autodiff<numpy>, Adam, cosine schedule);
PTQ quantizes it with 256 training images; QAT starts from the same float model, takes its
starting ranges from the same 256 images, observes during its first epoch and fine-tunes
for --qat-epochs. The int8 accuracies are those of the exported graph (run in numpy, the
runtime's arithmetic bit for bit) over the validation split. The timing alternates one
plain epoch and one QAT epoch (same data, batch 32) --timing times and prints the medians
and their ratio (goal: <= 1.5).
"""

import argparse
import statistics
import time

import numpy as np

import burn
from burn.host.data import DataLoader
from burn.host.demo import build_model, train
from burn.host.export.qat_finetune import finetune_qat
from burn.host.train.losses import cross_entropy
from burn.host.train.optim import Adam


def epoch_seconds(model, loader, opt):
    """Seconds of one training epoch (forward, loss, backward, step per batch)."""
    model.train()
    t0 = time.perf_counter()
    for x, y in loader:
        loss = cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=6, help="float training epochs")
    ap.add_argument("--qat-epochs", type=int, default=3, help="QAT fine-tuning epochs")
    ap.add_argument("--lr", type=float, default=5e-4, help="QAT learning rate")
    ap.add_argument("--timing", type=int, default=5, help="timed epochs of each kind")
    args = ap.parse_args()

    model, train_set, valid_set = train(args.epochs, lambda s: None)
    dev = next(iter(model.parameters())).device
    x_train, y_train = train_set.batch(np.arange(len(train_set)))
    x_valid, y_valid = valid_set.batch(np.arange(len(valid_set)))
    plain = build_model().to(dev)
    plain.load_state_dict(model.state_dict())
    qat, scores = finetune_qat(model, x_train, y_train, x_train[:256], x_valid, y_valid,
                               args.qat_epochs, args.lr)

    burn.seed(1)
    loader = DataLoader(train_set, 32, shuffle=True, device=dev)
    plain_opt, qat_opt = Adam(plain.parameters(), lr=1e-5), Adam(qat.parameters(), lr=1e-5)
    plain_s, qat_s = [], []
    for _ in range(args.timing):
        plain_s.append(epoch_seconds(plain, loader, plain_opt))
        qat_s.append(epoch_seconds(qat, loader, qat_opt))
    p, q = statistics.median(plain_s), statistics.median(qat_s)
    print("validation images: %d" % len(y_valid))
    print("accuracy  float %.2f%%  PTQ int8 %.2f%%  QAT int8 %.2f%%"
          % (100 * scores["float"], 100 * scores["ptq"], 100 * scores["qat"]))
    print("epoch time  plain %.3f s  QAT %.3f s  ratio %.2f (goal <= 1.5)" % (p, q, q / p))


if __name__ == "__main__":
    main()
