"""`burn import model.tflite -o model.bst`: convert a TFLite model to a `.bst` file."""

import sys
from pathlib import Path


def register(subparsers):
    p = subparsers.add_parser("import", help="convert a TFLite model to a .bst file")
    p.add_argument("model", help="the .tflite file")
    p.add_argument("-o", "--output", help="the .bst file (default: the model's name .bst)")
    p.add_argument("--tests", type=int, default=4,
                   help="reference tests computed with TFLM and stored (default 4)")
    p.add_argument("--labels", help="a text file with one class label per line")
    p.set_defaults(run=run)


def run(args):
    """Import, write atomically, report the sizes; exit status 1 with the reason on error."""
    from burn.host.bst_writer import write_bst
    from burn.host.importers.tflite_import import import_tflite

    src = Path(args.model)
    out = Path(args.output) if args.output else src.with_suffix(".bst")
    try:
        data = src.read_bytes()
        labels = Path(args.labels).read_text().splitlines() if args.labels else ()
        graph = import_tflite(data, tests=max(0, args.tests), labels=labels,
                              metadata={"source": src.name},
                              progress=lambda m: print("  " + m, file=sys.stderr))
        written = write_bst(graph, out)
    except (OSError, ValueError) as e:
        print("burn import: %s: %s" % (src, e), file=sys.stderr)
        return 1
    import burn
    model = burn.load(written)
    print("wrote %s: %d bytes, %d ops, arena %d bytes, %d reference tests" % (
        out, len(written), len(graph.ops), model.arena_bytes, len(graph.tests)))
    return 0
