"""`burn run model.bst [--input x.npy] [--backend NAME]`: one inference, output printed."""

import sys

from burn.host.bst_runtime import RUNTIME_HELP, RUNTIMES


def register(subparsers):
    """Add `burn run`."""
    p = subparsers.add_parser("run", help="run a .bst model once and print its output")
    p.add_argument("model", help="the .bst file")
    p.add_argument("--input", help="a .npy file with the input, of the model's shape and "
                                   "dtype (`burn info` shows them; default: zeros)")
    p.add_argument("--backend", default="auto", choices=RUNTIMES, help=RUNTIME_HELP)
    p.add_argument("--self-test", action="store_true",
                   help="also run the file's reference tests")
    p.set_defaults(run=run)


def _input(model, path):
    import numpy as np
    spec = model.info()["inputs"][0]
    dtype = np.int8 if spec["dtype"] == "int8" else np.float32
    shape = tuple(spec["shape"])
    if path is None:
        return np.zeros(shape, dtype)
    try:
        x = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ValueError("cannot read the input %s as a .npy array: %s" % (path, exc)) from None
    if x.shape != shape:
        raise ValueError("input %s has shape %s; the model takes %s (NHWC)" % (
            path, x.shape, shape))
    if x.dtype != dtype:
        raise ValueError("input %s is %s; the model takes %s" % (path, x.dtype, spec["dtype"]))
    return x


def run(args):
    """Load, optionally self-test, run once, print the output (and labels, if any)."""
    from burn.host.bst_runtime import load
    try:
        model = load(args.model, args.backend)
        if args.self_test:
            print("self-test: %d reference tests passed" % model.self_test())
        y = model(_input(model, args.input))
    except (OSError, ValueError) as e:
        print("burn run: %s: %s" % (args.model, e), file=sys.stderr)
        return 1
    values = y.tolist()
    print(values)
    labels = model.info()["labels"]
    flat = y.reshape((-1,)).tolist()
    if labels and len(labels) == len(flat):
        print("top: %s" % labels[max(range(len(flat)), key=flat.__getitem__)])
    return 0
