"""Quantization-aware training on the digits: float, PTQ int8 and QAT int8 accuracy, the
time of a QAT epoch against a plain training epoch, and the export time.

usage: python benchmarks/qat.py [--model cnn|resnet8] [--epochs N] [--qat-epochs 3]
       [--lr 5e-4] [--timing N] [--data digits|synthetic]

--model cnn (default): the demo CNN on the 8x8 digits, trained as `burn demo` trains it
(autodiff<numpy>, Adam, cosine schedule, 6 epochs). --model resnet8: the MLPerf Tiny
ResNet-8 at full width (burn.host.zoo) on 32x32x3 inputs built from the digits (each pixel
repeated 4x4, the gray level in all three channels), 4 epochs. PTQ quantizes the float model
with 256 training images; QAT starts from the same float model and the same 256 images,
observes during its first epoch and fine-tunes for --qat-epochs (finetune_qat). The int8
accuracies are those of the exported graphs (run in numpy, the runtime's arithmetic bit for
bit) over the validation split. The timing alternates one plain epoch and one QAT epoch
(same data, batch 32) --timing times and prints the medians and their ratio (goal:
<= 1.5); the export time is that of export_bst on the QAT model (trace, lowering, three
self-test vectors, the file), and that of export_tflite.

Arena: burn's is the planned activation arena of the exported .bst (`burn info`'s arena;
a model loaded from a file also holds one buffer of the largest layer's constants, shown
as "layer"). TFLM's is the smallest `arena_size` with which the tflite-micro interpreter
still allocates the exported .tflite and runs it, found by bisection to 16 bytes; it holds
the activations plus TFLM's own per-tensor and per-op records (quantization multipliers,
scratch buffers).

--data synthetic (resnet8 only) trains on 32x32x3 images made of one fixed random pattern
per class under strong noise instead of upscaled digits (burn.host.data.zoo_data, as
`burn train`).
"""

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import burn
from burn.host import zoo
from burn.host.autodiff import autodiff_device
from burn.host.data import DataLoader
from burn.host.data.zoo_data import zoo_data
from burn.host.demo import build_model, train
from burn.host.export import export_bst, graph_input
from burn.host.export.qat_finetune import finetune_qat
from burn.host.export.tflite import export_tflite
from burn.host.train.learner import Learner
from burn.host.train.losses import cross_entropy
from burn.host.train.optim import Adam
from burn.host.train.schedule import CosineLR


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


def tflm_min_arena(data, inputs, lo=256, hi=64 << 20):
    """The smallest arena (to 16 bytes) with which TFLM allocates the model `data` and
    runs it on `inputs`; TFLM's complaints about the smaller ones are silenced."""
    from tflite_micro.python.tflite_micro import runtime

    def runs(size):
        try:
            interp = runtime.Interpreter.from_bytes(data, arena_size=size)
            for i, x in enumerate(inputs):
                interp.set_input(x, i)
            interp.invoke()
        except RuntimeError:
            return False
        return True

    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            if not runs(hi):
                raise RuntimeError("TFLM cannot run the model in %d bytes" % hi)
            while hi - lo > 16:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if runs(mid) else (mid, hi)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    return hi


def float_model(name, epochs, data="digits"):
    """(trained float model, its builder, train set, validation set)."""
    if name == "cnn":
        return train(epochs, lambda s: None) + (build_model,)
    dev = autodiff_device("numpy")
    burn.seed(0)
    train_set, valid_set = zoo_data("resnet8", data)
    model = zoo.resnet8().to(dev)
    opt = Adam(model.parameters(), lr=2e-3)
    Learner(model, opt, schedule=CosineLR(opt, total=epochs), dashboard="plain").fit(
        DataLoader(train_set, 32, shuffle=True, device=dev), epochs=epochs)
    return model, train_set, valid_set, zoo.resnet8


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=("cnn", "resnet8"), default="cnn")
    ap.add_argument("--epochs", type=int, help="float training epochs (6 cnn, 4 resnet8)")
    ap.add_argument("--qat-epochs", type=int, default=3, help="QAT fine-tuning epochs")
    ap.add_argument("--lr", type=float, default=5e-4, help="QAT learning rate")
    ap.add_argument("--timing", type=int, help="timed epochs of each kind (5 cnn, 1 resnet8)")
    ap.add_argument("--data", choices=("digits", "synthetic"), default="digits",
                    help="resnet8's images: upscaled digits (default) or synthetic")
    args = ap.parse_args()
    cnn = args.model == "cnn"

    model, train_set, valid_set, builder = float_model(
        args.model, args.epochs or (6 if cnn else 4), args.data)
    dev = next(iter(model.parameters())).device
    x_train, y_train = train_set.batch(np.arange(len(train_set)))
    x_valid, y_valid = valid_set.batch(np.arange(len(valid_set)))
    plain = builder().to(dev)
    plain.load_state_dict(model.state_dict())
    qat, scores = finetune_qat(model, x_train, y_train, x_train[:256], x_valid, y_valid,
                               args.qat_epochs, args.lr)
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        graph = export_bst(qat, os.path.join(folder, "qat.bst"), calibration=x_train[:256])
        export_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        export_tflite(qat, os.path.join(folder, "qat.tflite"), calibration=x_train[:256])
        tflite_s = time.perf_counter() - t0
        info = burn.load(os.path.join(folder, "qat.bst")).info()
        with open(os.path.join(folder, "qat.tflite"), "rb") as f:
            tflm_arena = tflm_min_arena(f.read(), [graph_input(graph, x_valid[0])])

    burn.seed(1)
    loader = DataLoader(train_set, 32, shuffle=True, device=dev)
    plain_opt, qat_opt = Adam(plain.parameters(), lr=1e-5), Adam(qat.parameters(), lr=1e-5)
    plain_s, qat_s = [], []
    for _ in range(args.timing or (5 if cnn else 1)):
        plain_s.append(epoch_seconds(plain, loader, plain_opt))
        qat_s.append(epoch_seconds(qat, loader, qat_opt))
    p, q = statistics.median(plain_s), statistics.median(qat_s)
    print("%s on %s, validation images: %d" % (
        args.model, args.data if not cnn else "digits", len(y_valid)))
    print("accuracy  float %.2f%%  PTQ int8 %.2f%%  QAT int8 %.2f%%"
          % (100 * scores["float"], 100 * scores["ptq"], 100 * scores["qat"]))
    print("epoch time  plain %.3f s  QAT %.3f s  ratio %.2f (goal <= 1.5)" % (p, q, q / p))
    print("gap float - int8  PTQ %.2f points  QAT %.2f points" % (
        100 * (scores["float"] - scores["ptq"]), 100 * (scores["float"] - scores["qat"])))
    print("export of the QAT model: .bst %.2f s  .tflite %.2f s" % (export_s, tflite_s))
    print("arena  burn .bst %d bytes (+ layer buffer %d)  TFLM on the .tflite %d bytes"
          % (info["arena_bytes"], info["layer_bytes"], tflm_arena))


if __name__ == "__main__":
    main()
