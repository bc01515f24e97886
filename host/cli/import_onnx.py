"""The ONNX branch of `burn import`: `model.onnx -o model.py` writes a Python module that
defines the model with burn.nn (and `model.npz`, its weights); `-o model.bst` (the default)
writes the float32 graph traced from that model, or, for a quantized model (QDQ or QLinear
ops), its int8 graph (burn.host.importers.onnx_qdq)."""

import sys
import time
from pathlib import Path

from burn.host.cli.import_write import write_graph
from burn.host.cli.labels_arg import class_labels


def run_onnx(args):
    """Import `args.model` (ONNX) to `args.output`; exit status 1 with the reason on error."""
    src = Path(args.model)
    out = Path(args.output) if args.output else src.with_suffix(".bst")
    return write_graph(src, out, lambda: _graph(args, src, out))


def _graph(args, src, out):
    """The .bst Graph of the ONNX model `src`, or None once the Python module is written."""
    from burn.host.importers.onnx_import import Imported, read
    from burn.host.importers.onnx_lower import lower
    from burn.host.importers.onnx_qdq import int8_graph, is_quantized

    start = time.perf_counter()
    if out.suffix not in (".py", ".bst"):
        raise ValueError("the output must end in .py or .bst, got %s" % out.name)
    labels = class_labels(args.labels) if args.labels is not None else ()
    onnx_graph = read(src)
    if is_quantized(onnx_graph):
        if out.suffix == ".py":
            raise ValueError("a quantized (QDQ) model imports only to an int8 .bst")
        graph = int8_graph(onnx_graph, tests=args.tests, labels=labels,
                           metadata={"source": src.name})
        print("  imported %d quantized ONNX nodes in %.2f s" % (
            len(onnx_graph.nodes), time.perf_counter() - start), file=sys.stderr)
        return graph
    imported = Imported(lower(onnx_graph), src.name)
    print("  imported %d ONNX nodes in %.2f s" % (
        len(onnx_graph.nodes), time.perf_counter() - start), file=sys.stderr)
    if out.suffix == ".py":
        code, weights = imported.write_python(out)
        print("wrote %s and %s: %d layers, %d forward operations" % (
            code, weights, sum(1 for _, s in imported.builder.layers if s),
            len(imported.builder.lines)))
        return None
    return imported.float_graph(tests=args.tests, labels=labels)
