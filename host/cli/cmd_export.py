"""`burn export CHECKPOINT_OR_RUN_DIR --model MODULE:FACTORY -o model.bst`: a trained
model as an int8 (default) or float32 `.bst` file, or `.tflite` with --format tflite."""

import argparse
import os
import sys

from burn.host.cli import add_check
from burn.host.cli.labels_arg import HELP as LABELS_HELP
from burn.host.cli.labels_arg import class_labels
from burn.host.cli.number_args import float_above_up_to, positive_float, positive_int

_DESCRIPTION = """\
Build the model with a factory function, load a Learner checkpoint into it, and write it
as a .bst file: int8 after post-training quantization with a calibration set (default),
or float32 with --float. BatchNorm is folded into the convolution before it and
ReLU/ReLU6 are fused. --format tflite writes the same graph as a TFLite flatbuffer
instead, which TFLite Micro runs with the .bst file's outputs, bit for bit (labels and
self-test vectors are .bst features and are left out).

The architecture comes from MODULE:FACTORY, a function taking no arguments that returns
the burn.nn model, named as package.module:function (importable from the current folder)
or path/to/file.py:function. The weights come from CHECKPOINT_OR_RUN_DIR: a checkpoint file,
or a run folder of the Learner, whose best.ckpt is used.

Calibration samples are in the model's input layout ([N, C, H, W] or [N, features]):
'digits' takes the training part of the built-in digits set (random_split 0.8/0.2, seed 0),
FILE.npy a float array saved with numpy.save.

--qat fine-tunes the model with quantization-aware training before the export (--ptq,
post-training quantization alone, is the default): --qat-epochs epochs of Adam at --qat-lr
on labeled samples, 'digits' (its training part; the validation part then scores float,
PTQ int8 and QAT int8 side by side) or FILE.npz with arrays x and y (x_valid and y_valid
optional, for the scores); the first --samples of x calibrate. The file written gives
exactly the fine-tuned model's int8 outputs (docs/quantization.md).

Class labels (--labels) are either a comma-separated list of at least two names
(--labels cat,dog,bird) or, for a value without a comma, a UTF-8 text file with one name
per line (--labels labels.txt). A value without a comma that is not an existing file is an
error, and so is a value with a comma that is also an existing file's name."""


def register(sub):
    """Add the `export` subcommand."""
    p = sub.add_parser("export", help="quantize and export a trained model to .bst or .tflite",
                       description=_DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", metavar="CHECKPOINT_OR_RUN_DIR",
                   help="a checkpoint file or a Learner run folder (best.ckpt)")
    p.add_argument("--model", required=True, metavar="MODULE:FACTORY",
                   help="function that builds the model, e.g. mypkg.models:build_cnn")
    p.add_argument("-o", "--output", required=True, help="the .bst (or .tflite) file to write")
    p.add_argument("--format", choices=("bst", "tflite"), default="bst",
                   help="file format: burn's .bst (default) or a TFLite flatbuffer")
    p.add_argument("--float", action="store_true", help="export float32 instead of int8")
    p.add_argument("--calibration", metavar="digits|FILE.npy",
                   help="calibration samples (required for int8; with --qat, digits or "
                        "FILE.npz)")
    p.add_argument("--samples", type=positive_int, default=256,
                   help="calibration samples to use (default 256)")
    p.add_argument("--percentile", type=float_above_up_to(50, 100), metavar="P",
                   help="activation ranges from the P-th percentile (e.g. 99.99) "
                        "instead of min/max")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--ptq", action="store_true",
                     help="post-training quantization of the checkpoint (the default)")
    how.add_argument("--qat", action="store_true",
                     help="quantization-aware fine-tuning first (--calibration: digits or "
                          "FILE.npz with x, y)")
    p.add_argument("--qat-epochs", type=positive_int, default=2, help="QAT epochs (default 2)")
    p.add_argument("--qat-lr", type=positive_float, default=5e-4,
                   help="QAT learning rate (default 5e-4)")
    p.add_argument("--io", choices=("int8", "float32"), default="int8",
                   help="int8 model's input/output dtype (default int8)")
    p.add_argument("--input-shape", metavar="C,H,W",
                   help="one sample's shape (C,H,W, C,L or FEATURES), for a float export "
                        "without calibration")
    p.add_argument("--labels", metavar="A,B,...|FILE",
                   help=LABELS_HELP + " (digits: 0..9 by default)")
    p.add_argument("--name", help="model name stored in the metadata (default: the "
                                  "factory's name)")
    p.set_defaults(run=run)
    add_check(p, check_args)


def check_args(args):
    """What is wrong with the combination of options, or None (add_check)."""
    if args.qat and args.float:
        return "--qat makes an int8 model; leave out --float"
    if not args.float and args.calibration is None:
        return "an int8 export needs --calibration (digits or FILE.npy)"
    if args.calibration is None and args.input_shape is None:
        return "a float export needs --calibration or --input-shape"
    extension = os.path.splitext(args.output)[1].lower()
    if extension in (".bst", ".tflite") and extension != "." + args.format:
        return ("-o %s with --format %s: give the file the .%s extension (or --format %s)"
                % (args.output, args.format, args.format, extension[1:]))
    return None


def _calibration(spec, count):
    import numpy as np

    if spec == "digits":
        from burn.host.data import load_digits, random_split

        train, _valid = random_split(load_digits(), [0.8, 0.2])
        x, _y = train.batch(np.arange(min(count, len(train))))
        return x
    if not os.path.isfile(spec):
        raise ValueError("calibration %r: expected 'digits' or an existing .npy file" % spec)
    try:
        x = np.load(spec, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise ValueError("calibration %s: not a numpy .npy array (%s)" % (spec, e)) from e
    if x.ndim not in (2, 3, 4) or not np.issubdtype(x.dtype, np.number):
        raise ValueError("calibration %s: expected numbers of shape [N, C, H, W], [N, C, L] "
                         "or [N, features], got %s %s" % (spec, x.dtype, x.shape))
    return x[:count].astype(np.float32)


def _labels(spec, calibration):
    """The class names --labels gives (labels_arg's rule); 0..9 for the digits set."""
    if spec is None:
        return [str(d) for d in range(10)] if calibration == "digits" else []
    return class_labels(spec)


def _shape(spec):
    try:
        shape = tuple(int(d) for d in spec.split(","))
    except ValueError:
        shape = ()
    if len(shape) not in (1, 2, 3) or min(shape) < 1:
        raise ValueError("--input-shape %r: expected C,H,W, C,L or FEATURES" % spec)
    return shape


def _qat(args, model, meta, say):
    """(QAT model, calibration samples): the model fine-tuned with --qat; the accuracies
    go to `meta` and are shown side by side."""
    from burn.host.export.qat_finetune import finetune_qat, labeled_data

    x, y, x_valid, y_valid = labeled_data(args.calibration)
    calibration = x[:args.samples]
    say("quantization-aware training: %d epochs on %d samples" % (args.qat_epochs, len(x)))
    qat, scores = finetune_qat(model, x, y, calibration, x_valid, y_valid, args.qat_epochs,
                               args.qat_lr)
    if scores:
        say("accuracy on %d validation samples: float %.2f%%  PTQ int8 %.2f%%  QAT int8 "
            "%.2f%%" % (len(y_valid), 100 * scores["float"], 100 * scores["ptq"],
                        100 * scores["qat"]))
        meta.update({"ptq_accuracy": scores["ptq"], "qat_accuracy": scores["qat"]})
    return qat, calibration


def _export(args, say):
    from burn.host.export import export_bst
    from burn.host.export.source import checkpoint_accuracy, load_trained

    labels = _labels(args.labels, args.calibration)
    model, payload, path = load_trained(args.source, args.model)
    say("loaded %s (epoch %s) into %s" % (path, payload.get("epoch"), args.model))
    meta = {"name": args.name or args.model.rpartition(":")[2],
            "checkpoint": os.path.basename(path)}
    accuracy = checkpoint_accuracy(payload)
    if accuracy is not None:
        meta["float_accuracy"] = accuracy
    calibration = None
    if args.qat:
        model, calibration = _qat(args, model, meta, say)
    elif args.calibration is not None:
        calibration = _calibration(args.calibration, args.samples)
        say("calibration: %d samples of shape %s" % (len(calibration), calibration.shape[1:]))
    method = "minmax" if args.percentile is None else "percentile"
    dtype = "float32" if args.float else "int8"
    sample_shape = _shape(args.input_shape) if args.input_shape else None
    if args.format == "tflite":
        from burn.host.export.tflite import export_tflite

        graph = export_tflite(model, args.output, calibration, dtype, method,
                              args.percentile or 99.99, args.io, sample_shape=sample_shape,
                              metadata=meta, progress=say)
        tests = "no self-test vectors (.tflite)"
    else:
        graph = export_bst(model, args.output, calibration, dtype, method,
                           args.percentile or 99.99, args.io, labels, meta,
                           sample_shape=sample_shape, progress=say)
        tests = "%d self-test vectors" % len(graph.tests)
    say("%d ops, %s, input %s %s, output %s" % (
        len(graph.ops), tests, graph.tensors[graph.inputs[0][0]].dtype,
        list(graph.inputs[0][1]), list(graph.outputs[0][1])))


def run(args):
    """Export; returns 0, or 1 with a message on stderr."""
    def say(message):
        print("burn export: " + message, flush=True)

    try:
        _export(args, say)
    except (ValueError, TypeError, OSError) as e:
        print("burn export: error: " + str(e), file=sys.stderr)
        return 1
    return 0
