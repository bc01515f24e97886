"""`burn run model.bst [--input x.npy|x.npz] [--input-layout NCHW] [--backend NAME]`: one
inference, output printed."""

import sys

from burn.host.bst_runtime import RUNTIME_HELP, RUNTIMES

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK"  # a zip: a local file header, or an empty archive's end record


def register(subparsers):
    """Add `burn run`."""
    p = subparsers.add_parser("run", help="run a .bst model once and print its output")
    p.add_argument("model", help="the .bst file")
    p.add_argument("--input", help="a .npy file with the input, of the model's shape and "
                                   "dtype (`burn info` shows them; default: zeros), or an "
                                   ".npz file holding one array, or one named after the "
                                   "model's input")
    p.add_argument("--input-layout", choices=("NCHW", "NHWC"),
                   help="the layout of --input: NCHW (PyTorch's and ONNX's) is transposed "
                        "to the model's NHWC input; for a model that records its input "
                        "layout (`burn info`: input_layout)")
    p.add_argument("--backend", default="auto", choices=RUNTIMES, help=RUNTIME_HELP)
    p.add_argument("--self-test", action="store_true",
                   help="also run the file's reference tests")
    p.set_defaults(run=run)


def _read(path, name):
    """The array of the .npy file `path`, or of the .npz file `path` holding one array or
    one called `name`."""
    from burn.host import npy_file
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic.startswith(_ZIP_MAGIC):
        arrays = npy_file.read_npz_file(path)
        if name in arrays:
            return arrays[name]
        if len(arrays) == 1:
            return next(iter(arrays.values()))
        names = " ".join(", ".join(sorted(arrays)).split())[:200]  # one line, whatever they hold
        raise ValueError("%s holds %d arrays (%s), none named after the model's input %r: "
                         "keep one, or name it %s" % (path, len(arrays), names or "none",
                                                      name, name))
    if magic != _NPY_MAGIC:
        raise ValueError("%s is neither a .npy nor an .npz file" % path)
    return npy_file.read_npy_file(path)


def _input(model, args):
    import numpy as np
    spec = model.info()["inputs"][0]
    dtype = np.int8 if spec["dtype"] == "int8" else np.float32
    shape = tuple(model.input_shape(0))
    path = args.input
    if path is None:
        return np.zeros(shape, dtype)
    try:
        x = _read(path, spec["name"])
    except OSError as exc:
        raise ValueError("cannot read the input %s: %s" % (path, exc.strerror or exc)) \
            from None
    except ValueError as exc:
        raise ValueError("cannot read the input: %s" % exc) from None
    if x.shape != shape:
        layout = ""
        if len(shape) == 4 and model.info()["metadata"].get("input_layout") == "NHWC":
            layout = " (NCHW)" if args.input_layout == "NCHW" else \
                " (NHWC; --input-layout NCHW takes NCHW)"
        raise ValueError("input %s has shape %s; the model takes %s%s" % (
            path, x.shape, shape, layout))
    if x.dtype != dtype:
        raise ValueError("input %s is %s; the model takes %s" % (path, x.dtype, spec["dtype"]))
    return x


def run(args):
    """Load, optionally self-test, run once, print the output (and labels, if any)."""
    from burn.host.bst_runtime import load
    try:
        model = load(args.model, args.backend, args.input_layout)
        if args.self_test:
            print("self-test: %d reference tests passed" % model.self_test())
        y = model(_input(model, args))
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
