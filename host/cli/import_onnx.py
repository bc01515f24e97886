"""The ONNX branch of `burn import`: `model.onnx -o model.py` writes a Python module that
defines the model with burn.nn (and `model.npz`, its weights); `-o model.bst` (the default)
writes the float32 graph traced from that model, or, for a quantized model (QDQ or QLinear
ops), its int8 graph (burn.host.importers.onnx_qdq)."""

import sys
import time
from pathlib import Path

from burn.host.cli.labels_arg import class_labels


def run_onnx(args):
    """Import `args.model` (ONNX) to `args.output`; exit status 1 with the reason on error."""
    import burn
    from burn.host.bst_writer import write_bst
    from burn.host.importers.onnx_import import Imported, read
    from burn.host.importers.onnx_lower import lower
    from burn.host.importers.onnx_qdq import int8_graph, is_quantized

    src = Path(args.model)
    out = Path(args.output) if args.output else src.with_suffix(".bst")
    start = time.perf_counter()
    try:
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
        else:
            imported = Imported(lower(onnx_graph), src.name)
            print("  imported %d ONNX nodes in %.2f s" % (
                len(onnx_graph.nodes), time.perf_counter() - start), file=sys.stderr)
            if out.suffix == ".py":
                code, weights = imported.write_python(out)
                print("wrote %s and %s: %d layers, %d forward operations" % (
                    code, weights, sum(1 for _, s in imported.builder.layers if s),
                    len(imported.builder.lines)))
                return 0
            graph = imported.float_graph(tests=args.tests, labels=labels)
        written = write_bst(graph, out)
    except (OSError, ValueError) as e:
        print("burn import: %s: %s" % (src, " ".join(str(e).split())), file=sys.stderr)
        return 1
    model = burn.load(written)
    print("wrote %s: %d bytes, %d ops, arena %d bytes, %d reference tests" % (
        out, len(written), len(graph.ops), model.arena_bytes, len(graph.tests)))
    return 0
