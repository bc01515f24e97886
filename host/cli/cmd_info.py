"""`burn info model.bst`: the op table, parameters, MACs, arena and flash bytes."""

import sys


def register(subparsers):
    p = subparsers.add_parser("info", help="describe a .bst model")
    p.add_argument("model", help="the .bst file")
    p.set_defaults(run=run)


def _shape(s):
    return "x".join(str(d) for d in s)


def format_info(info):
    """The text `burn info` prints for a Model.info() dict."""
    lines = ["%-4s %-18s %-7s %-24s %-14s %9s %11s" % (
        "#", "op", "dtype", "inputs", "output", "params", "MACs")]
    for op in info["ops"]:
        lines.append("%-4d %-18s %-7s %-24s %-14s %9d %11d" % (
            op["index"], op["op"], op["dtype"], ",".join(_shape(s) for s in op["inputs"]),
            ",".join(_shape(s) for s in op["outputs"]), op["params"], op["macs"]))
    lines.append("parameters  %d" % info["params"])
    lines.append("MACs        %d" % info["macs"])
    lines.append("arena       %d bytes" % info["arena_bytes"])
    lines.append("flash       %d bytes" % info["flash_bytes"])
    for kind in ("inputs", "outputs"):
        for io in info[kind]:
            q = "" if io["scale"] is None else "  scale %g zero point %d" % (
                io["scale"], io["zero_point"])
            lines.append("%-11s %s %s%s" % (kind[:-1], _shape(io["shape"]), io["dtype"], q))
    if info["labels"]:
        lines.append("labels      " + ", ".join(info["labels"]))
    for key, value in sorted(info["metadata"].items()):
        lines.append("%-11s %s" % (key, value))
    lines.append("self-tests  %d" % info["tests"])
    return "\n".join(lines)


def run(args):
    """Print the description; exit status 1 with the reason for an unreadable file."""
    import burn
    try:
        model = burn.load(args.model)
    except (OSError, ValueError) as e:
        print("burn info: %s: %s" % (args.model, e), file=sys.stderr)
        return 1
    print(format_info(model.info()))
    model.close()
    return 0
