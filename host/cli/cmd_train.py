"""`burn train MODEL`: train a zoo model on the host with the live dashboard, then optionally
export it as int8 (PTQ or QAT) with float, PTQ and QAT scores side by side."""

import argparse
import sys

from burn.host.cli.number_args import nonnegative_int, positive_float, positive_int

_DESCRIPTION = """\
Train one of the reference models of burn.host.zoo (docs/zoo.md) with the Learner: Adam
with a cosine schedule, checkpoints and metrics.jsonl in --run-dir, and the live dashboard
on a terminal (left/right arrows switch the metric, q stops after a checkpoint) or plain
progress lines in a pipe.

Data (--data) comes in each model's input shape, 10 classes, split 0.8/0.2 with seed 0:
  digits     the 8x8 digits reshaped: resnet8 32x32x3 and mobilenet_v1 96x96x3 (each pixel
             repeated, gray in all channels), ds_cnn 49x10x1 (rows and columns stretched
             like an MFCC map), autoencoder 640 features (the 64 pixels tiled ten times;
             it learns to reproduce them)
  synthetic  one fixed random pattern per class under strong Gaussian noise: the right
             shape and a learnable task, nothing more
--limit N keeps N training samples (and N/4 validation samples) for a quick run.

--export FILE.bst or FILE.tflite ends the run with an int8 export of the best epoch:
post-training quantization (--ptq, the default) calibrated on --samples training samples,
or --qat, quantization-aware fine-tuning for --qat-epochs first. The float, PTQ int8 and
(with --qat) QAT int8 accuracy on the validation set (reconstruction MSE for the
autoencoder) are printed and recorded as the last line of metrics.jsonl; `burn plot
RUN_DIR` draws them side by side in quantization.png."""


def register(sub):
    """Add the `train` subcommand."""
    from burn.host.data.zoo_data import SOURCES
    from burn.host.zoo import BUILDERS

    p = sub.add_parser("train", help="train a zoo model (resnet8, ds_cnn, mobilenet_v1, "
                                     "autoencoder), optionally export it as int8",
                       description=_DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", choices=sorted(BUILDERS), help="the zoo model to train")
    p.add_argument("--data", choices=SOURCES, default="digits",
                   help="training data in the model's shape (default digits)")
    p.add_argument("--epochs", type=positive_int, default=5, help="training epochs (default 5)")
    p.add_argument("--batch", type=positive_int, default=32, help="batch size (default 32)")
    p.add_argument("--lr", type=positive_float, default=2e-3,
                   help="Adam learning rate (default 2e-3)")
    p.add_argument("--width", type=positive_float, default=1.0,
                   help="channel multiplier of the convolutional models (default 1; 0.25 "
                        "trains fast)")
    p.add_argument("--limit", type=positive_int, metavar="N",
                   help="use only N training samples (and N/4 validation samples)")
    p.add_argument("--run-dir", metavar="DIR",
                   help="checkpoints and metrics (default runs/MODEL-DATA)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in --run-dir from its newest checkpoint")
    p.add_argument("--dashboard", choices=("auto", "live", "plain"), default="auto",
                   help="live terminal dashboard or plain lines (default: live on a tty)")
    p.add_argument("--backend", default="numpy",
                   help="backend under autodiff (default numpy; flex, cupy)")
    p.add_argument("--seed", type=nonnegative_int, default=0,
                   help="initialisation and shuffling seed")
    p.add_argument("--export", metavar="FILE.bst|FILE.tflite",
                   help="export the trained model as int8 and compare float/PTQ/QAT")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--ptq", action="store_true",
                     help="post-training quantization for --export (the default)")
    how.add_argument("--qat", action="store_true",
                     help="quantization-aware fine-tuning before --export")
    p.add_argument("--qat-epochs", type=positive_int, default=2, help="QAT epochs (default 2)")
    p.add_argument("--qat-lr", type=positive_float, default=5e-4, help="QAT learning rate "
                                                              "(default 5e-4)")
    p.add_argument("--samples", type=positive_int, default=256,
                   help="calibration samples from the training set (default 256)")
    p.set_defaults(run=run)


def _print_scores(scores, metric):
    names = (("float", "float"), ("ptq", "PTQ int8"), ("qat", "QAT int8"))
    parts = []
    for key, label in names:
        if key in scores:
            value = scores[key]
            parts.append("%s %s" % (label, "%.2f%%" % (100 * value) if metric == "accuracy"
                                    else "%.5f" % value))
    print("burn train: validation %s  %s" % (metric, "  ".join(parts)), flush=True)


def run(args):
    """Train (and export); returns 0, or 1 with a message on stderr."""
    from burn.host.train.zoo_train import TrainOptions, train_zoo

    def say(message):
        print("burn train: " + message, flush=True)

    opts = TrainOptions(args.model, args.data, args.epochs, args.batch, args.lr, args.width,
                        args.limit, args.run_dir or "runs/%s-%s" % (args.model, args.data),
                        args.dashboard, args.backend, args.export, args.qat, args.qat_epochs,
                        args.qat_lr, args.samples, args.resume, args.seed)
    try:
        result, scores = train_zoo(opts, say)
    except (ValueError, TypeError, OSError) as e:
        print("burn train: error: " + str(e), file=sys.stderr)
        return 1
    say("%s after %d epochs; metrics in %s" % (result.stop_reason, len(result.history),
                                              opts.run_dir))
    if scores:
        _print_scores(scores, "mse" if args.model == "autoencoder" else "accuracy")
    return 0
