"""`burn import model.tflite -o model.bst`: convert a TFLite model to a `.bst` file;
`burn import model.onnx -o model.py|model.bst`: see import_onnx.py;
`burn import model.pth|model.safetensors -o weights.safetensors`: see import_weights.py;
`burn import --check model.tflite|model.onnx` and `burn import --list-ops`: import_check.py."""

import sys
from pathlib import Path

from burn.host.cli import import_weights
from burn.host.cli.labels_arg import HELP as LABELS_HELP
from burn.host.cli.labels_arg import class_labels
from burn.host.cli.number_args import int_from_to
from burn.host.importers import MAX_TESTS


def register(subparsers):
    p = subparsers.add_parser(
        "import", help="convert a TFLite or ONNX model to a .bst file (or ONNX to Python), "
        "PyTorch or safetensors weights to a burn.nn state dict",
        description="Convert a TFLite model (int8 or float32) to a .bst file, or an ONNX "
        "model (opsets 13-21) to a Python module using burn.nn (-o model.py, with "
        "model.npz) or to a float32 .bst file (-o model.bst); a quantized ONNX model "
        "(QDQ or QLinearConv/QLinearMatMul, int8) becomes an int8 .bst file. The file is "
        "written under a temporary name, checked with burn.load, then renamed; on any "
        "error nothing is written. A TFLite model's reference tests come from the TFLM "
        "interpreter, run in a child process with a time and a memory limit; an ONNX "
        "model's from burn's own runtime. --check writes nothing and says what stops a "
        "model from importing, or what an importable one needs on each board; --list-ops "
        "prints what burn imports.")
    p.add_argument("model", nargs="?",
                   help="the .tflite, .onnx, .pt, .pth or .safetensors file")
    p.add_argument("--check", action="store_true",
                   help="write nothing: list every unsupported op and tensor type of the "
                   ".tflite or .onnx model at once, or for an importable model its MACs, "
                   "arena and flash bytes and whether it fits each board of boards/*.json "
                   "(heap and flash); exit status 0 when it imports, 1 when not")
    p.add_argument("--list-ops", action="store_true",
                   help="print the TFLite ops burn imports with their types (int8, int16, "
                   "float32, hybrid), the kernels and their runtimes, how many of TFLM's "
                   "builtin ops that covers and how many of the (op, input type, output "
                   "type) pairs that TFLM's reference kernels accept, with the pairs each "
                   "op misses, and the ONNX ops")
    p.add_argument("-o", "--output", help="the .bst file (default: the model's name .bst; "
                   ".safetensors for weights)")
    p.add_argument("--tests", type=int_from_to(0, MAX_TESTS), default=4, metavar="N",
                   help="reference tests stored in the file, 0 to %d (default 4); TFLite: "
                   "computed with TFLM (0 skips it)" % MAX_TESTS)
    p.add_argument("--labels", metavar="A,B,...|FILE", help=LABELS_HELP)
    import_weights.add_arguments(p)
    p.set_defaults(run=run)


def run(args):
    """Import, write atomically, report the sizes; exit status 1 with the reason on error.
    --check and --list-ops print what burn can import instead (import_check.py)."""
    from burn.host.cli import import_check
    if args.list_ops:
        return import_check.run_list_ops(args)
    if args.model is None:
        print("burn import: give a model file (or --list-ops)", file=sys.stderr)
        return 2
    if args.check:
        return import_check.run_check(args)
    if Path(args.model).suffix.lower() == ".onnx":
        from burn.host.cli.import_onnx import run_onnx
        return run_onnx(args)
    if Path(args.model).suffix.lower() in import_weights.SUFFIXES:
        return import_weights.run_weights(args)
    from burn.host.cli.import_write import write_graph
    from burn.host.importers.tflite import import_tflite

    src = Path(args.model)
    out = Path(args.output) if args.output else src.with_suffix(".bst")

    def graph():
        data = src.read_bytes()
        labels = class_labels(args.labels) if args.labels is not None else ()
        return import_tflite(data, tests=args.tests, labels=labels,
                             metadata={"source": src.name},
                             progress=lambda m: print("  " + m, file=sys.stderr))

    return write_graph(src, out, graph)
