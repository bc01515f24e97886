"""`burn run model.bst [--input x.npy] [--backend NAME]`: one inference, output printed."""

import sys

BACKENDS = {"pure": "plain", "viper": "fast", "auto": None}


def register(subparsers):
    p = subparsers.add_parser("run", help="run a .bst model once and print its output")
    p.add_argument("model", help="the .bst file")
    p.add_argument("--input", help="a .npy file with the input (default: the first "
                                   "reference test's input, else zeros)")
    p.add_argument("--backend", default="auto", choices=sorted(BACKENDS),
                   help="kernels: pure (plain Python), viper (MicroPython only) or auto")
    p.add_argument("--self-test", action="store_true",
                   help="also run the file's reference tests")
    p.set_defaults(run=run)


def _input(model, path):
    import numpy as np
    spec = model.info()["inputs"][0]
    dtype = np.int8 if spec["dtype"] == "int8" else np.float32
    if path is None:
        return np.zeros(spec["shape"], dtype)
    x = np.load(path)
    if x.size != int(np.prod(spec["shape"])):
        raise ValueError("input %s has shape %s; the model takes %s" % (
            path, x.shape, spec["shape"]))
    if x.dtype != dtype:
        raise ValueError("input %s is %s; the model takes %s" % (path, x.dtype, spec["dtype"]))
    return x


def run(args):
    """Load, optionally self-test, run once, print the output (and labels, if any)."""
    import burn
    try:
        model = burn.load(args.model, variant=BACKENDS[args.backend])
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
