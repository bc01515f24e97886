"""Train a zoo model (`burn.host.zoo`) on data of its shape (`burn.host.data.zoo_data`)
with the Learner and its dashboard, then, on request, export it as int8 after post-training
quantization or quantization-aware fine-tuning, with the float, PTQ int8 and QAT int8 scores
on the validation set recorded as the run's closing metrics record (`log.final_row`)."""

import os

import numpy as np

import burn

from .. import zoo
from ..autodiff import autodiff_device
from ..data import DataLoader
from ..data.zoo_data import zoo_data
from . import checkpoint as ckpt
from . import log
from .learner import Learner
from .losses import cross_entropy, mse_loss
from .optim import Adam
from .schedule import CosineLR

FORMATS = {".bst": "bst", ".tflite": "tflite"}


class TrainOptions:
    """What `train_zoo` does; the defaults are `burn train`'s."""

    def __init__(self, name, data="digits", epochs=5, batch=32, lr=2e-3, width=1.0,
                 limit=None, run_dir=None, dashboard="auto", backend="numpy", export=None,
                 qat=False, qat_epochs=2, qat_lr=5e-4, samples=256, resume=False, seed=0):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def check(self):
        """ValueError naming the first bad option, before any work starts."""
        if self.name not in zoo.BUILDERS:
            raise ValueError("no zoo model %r; choose from %s"
                             % (self.name, ", ".join(zoo.BUILDERS)))
        for key in ("epochs", "batch", "qat_epochs", "samples"):
            if getattr(self, key) < 1:
                raise ValueError("--%s must be >= 1, got %r"
                                 % (key.replace("_", "-"), getattr(self, key)))
        for key in ("lr", "qat_lr", "width"):
            if not getattr(self, key) > 0:
                raise ValueError("--%s must be positive, got %r"
                                 % (key.replace("_", "-"), getattr(self, key)))
        if self.name == "autoencoder" and self.width != 1.0:
            raise ValueError("--width scales the convolutional models; the autoencoder has "
                             "the reference's fixed layer sizes")
        if self.export is not None and \
                os.path.splitext(self.export)[1].lower() not in FORMATS:
            raise ValueError("--export %s: the file name must end in .bst or .tflite"
                             % self.export)
        try:
            burn.device(self.backend)
        except ValueError:
            raise ValueError("--backend %r: no such backend (numpy, flex, cupy or pure)"
                             % self.backend) from None
        if self.qat and self.export is None:
            raise ValueError("--qat fine-tunes for the int8 export: give --export FILE")
        if self.export is not None:
            folder = os.path.dirname(os.path.abspath(self.export))
            if not os.path.isdir(folder):
                raise ValueError("--export %s: no folder %s" % (self.export, folder))


def build(name, width=1.0):
    """The zoo model `name` for 10 classes, channels scaled by `width` (MobileNetV1's alpha
    is 0.25 * width); the autoencoder as the reference has it."""
    if name == "autoencoder":
        return zoo.autoencoder()
    if name == "mobilenet_v1":
        return zoo.mobilenet_v1(num_classes=10, alpha=0.25 * width)
    return zoo.BUILDERS[name](num_classes=10, width=width)


def _export(opts, model, train, valid, metric, say):
    """Score float and PTQ (and fine-tune and score QAT) on the `valid` arrays, write the
    file; returns the scores."""
    from ..export import export_bst
    from ..export.qat_finetune import finetune_qat, ptq_scores
    from ..export.tflite import export_tflite

    (x_train, y_train), (x_valid, y_valid) = train, valid
    calibration = x_train[:opts.samples]
    say("int8: calibrating on %d training samples, scoring on %d validation samples"
        % (len(calibration), len(x_valid)))
    if opts.qat:
        say("quantization-aware fine-tuning: %d epochs" % opts.qat_epochs)
        model, scores = finetune_qat(model, x_train, y_train, calibration, x_valid, y_valid,
                                     opts.qat_epochs, opts.qat_lr, opts.batch,
                                     backend=opts.backend, dashboard=opts.dashboard,
                                     metric=metric)
    else:
        scores = ptq_scores(model, calibration, x_valid, y_valid, metric)
    meta = {"name": opts.name, "trained_on": opts.data, "float_" + metric: scores["float"]}
    if FORMATS[os.path.splitext(opts.export)[1].lower()] == "tflite":
        export_tflite(model, opts.export, calibration, metadata=meta)
    else:
        labels = [str(d) for d in range(10)] if metric == "accuracy" else ()
        export_bst(model, opts.export, calibration, labels=labels, metadata=meta)
    say("wrote %s (%s int8)" % (opts.export, "QAT" if opts.qat else "PTQ"))
    return scores


def train_zoo(opts, say=print):
    """Train (and export) as `opts` (a TrainOptions) says; returns (FitResult, scores):
    scores {"float", "ptq"[, "qat"]} on the validation set when exporting, else {}."""
    opts.check()
    if opts.run_dir:
        os.makedirs(opts.run_dir, exist_ok=True)
    metric = "mse" if opts.name == "autoencoder" else "accuracy"
    train_set, valid_set = zoo_data(opts.name, opts.data, opts.limit)
    say("%s on %s: %d training, %d validation samples of shape %s"
        % (opts.name, opts.data, len(train_set), len(valid_set), train_set.x.shape[1:]))
    burn.seed(opts.seed)
    dev = autodiff_device(opts.backend)
    model = build(opts.name, opts.width).to(dev)
    opt = Adam(model.parameters(), lr=opts.lr)
    classify = metric == "accuracy"
    learner = Learner(model, opt, loss_fn=cross_entropy if classify else mse_loss,
                      schedule=CosineLR(opt, total=opts.epochs), run_dir=opts.run_dir,
                      monitor="valid_accuracy" if classify else "valid_loss",
                      mode="max" if classify else "min", dashboard=opts.dashboard,
                      classification=classify)
    result = learner.fit(DataLoader(train_set, opts.batch, shuffle=True, seed=opts.seed,
                                    device=dev),
                         DataLoader(valid_set, 256, device=dev), opts.epochs,
                         resume=opts.resume)
    if opts.export is None or not result.history:
        return result, {}
    if opts.run_dir and os.path.isfile(os.path.join(opts.run_dir, ckpt.BEST)):
        ckpt.load_model_state(model, ckpt.read(os.path.join(opts.run_dir, ckpt.BEST))["model"])
        say("best epoch's weights loaded from %s" % os.path.join(opts.run_dir, ckpt.BEST))
    arrays = [d.batch(np.arange(len(d))) for d in (train_set, valid_set)]
    model = model.to(burn.device(opts.backend)).eval()
    scores = _export(opts, model, arrays[0], arrays[1], metric, say)
    if opts.run_dir:
        log.append(opts.run_dir, log.final_row(result.history[-1]["epoch"], metric, scores,
                                               export=os.path.basename(opts.export),
                                               data=opts.data))
    return result, scores
