"""`burn import --check model.tflite|model.onnx` and `burn import --list-ops`: what burn can
import, printed; nothing is written."""

import sys
import textwrap
from pathlib import Path

_BOARD_HEADER = "%-10s %-9s %17s %21s  %s" % ("board", "placement", "heap need/free",
                                               "flash need/free", "fits")
_PLACEMENTS = {"stock": "stock", "rom": "ROMFS"}


def _count(n, word):
    """'1 node', '2 nodes'."""
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def _nodes(indices):
    return "node%s %s" % ("" if len(indices) == 1 else "s", ", ".join(map(str, indices)))


def _tensors(items):
    names = ", ".join("%d (%s)" % (t, name[:40]) for t, name in items[:8])
    more = " and %d more" % (len(items) - 8) if len(items) > 8 else ""
    return "%s: %s%s" % (_count(len(items), "tensor"), names, more)


def _wrapped(text):
    """`text` wrapped to 99 columns, continuation lines indented."""
    return textwrap.wrap(text, 99, subsequent_indent="    ", break_on_hyphens=False)


def _fit_line(fit):
    flash = "unknown" if fit.flash_needed is None else "%d/%d" % (fit.flash_needed,
                                                                 fit.flash_free)
    verdict = {True: "yes", False: "no", None: "heap only (no mpy-cross)"}[fit.fits]
    return "%-10s %-9s %17s %21s  %s" % (fit.board, _PLACEMENTS[fit.placement],
                                         "%d/%d" % (fit.heap_needed, fit.heap_free), flash,
                                         verdict)


def format_check(name, report):
    """The lines `burn import --check` prints for a CheckReport; the last is the summary."""
    lines = []
    if report.ops:
        lines.append("unsupported ops (%s, %s):" % (
            _count(len(report.ops), "kind"),
            _count(sum(len(v) for v in report.ops.values()), "node")))
        lines += ["  %-28s %s" % (op, _nodes(idx)) for op, idx in report.ops.items()]
    if report.types:
        lines.append("unsupported tensor types:")
        lines += ["  %-10s %s" % (t, _tensors(items)) for t, items in report.types.items()]
    if report.problems:
        lines.append("cannot convert:")
        lines += ["  " + " ".join(p.split()) for p in report.problems]
    if not report.importable:
        why = ["%s (%s)" % (_count(len(report.ops), "unsupported op"),
                            ", ".join(report.ops))] if report.ops else []
        if report.types:
            why.append("unsupported tensor types (%s)" % ", ".join(report.types))
        if report.problems:
            why.append("%s the importer refuses" % _count(len(report.problems), "node"))
        lines.append("%s: not importable: %s" % (name, "; ".join(why)))
        return lines
    lines += ["MACs         %d" % report.macs,
              "arena        %d bytes (burn's arena planner)" % report.arena_bytes,
              "flash        %d bytes (the .bst: weights and graph, no reference tests)"
              % len(report.bst),
              "heap         %d bytes to load it from a file, %d read in place from ROMFS"
              % (report.facts.heap_needed(False), report.facts.heap_needed(True)),
              "boards: heap = what loading the model takes / the board's heap less burn's "
              "runtime;",
              "        flash = the model and the core's .mpy files / the filesystem (stock "
              "MicroPython),",
              "        or the ROMFS image / its partition (burn's firmware, core frozen)",
              "  " + _BOARD_HEADER]
    lines += ["  " + _fit_line(f) for f in report.fits]
    left_out = (["the kernels of " + ", ".join(report.optional)] if report.optional else []) + (
        ["control flow and variables (%s)" % ", ".join(report.control)] if report.control
        else [])
    if left_out:
        lines.append("ROMFS placement: a default burn firmware leaves out %s; build one with "
                     "`burn firmware build --ops-from MODEL.bst`" % " and ".join(left_out))
    fitting = sorted({f.board for f in report.fits if f.fits})
    lines.append("%s: importable: %d ops, %d MACs, arena %d bytes, flash %d bytes; fits %s"
                 % (name, report.nodes, report.macs, report.arena_bytes, len(report.bst),
                    ", ".join(fitting) if fitting else "no board"))
    return lines


def run_check(args):
    """Check `args.model` and print the report: exit status 0 when it imports, 1 when not or
    when the file is unreadable or malformed (one line)."""
    from burn.host.importers.model_check import check_onnx, check_tflite

    src = Path(args.model)
    try:
        if src.suffix.lower() == ".onnx":
            report = check_onnx(src)
        else:
            report = check_tflite(src.read_bytes())
    except (OSError, ValueError) as e:
        print("burn import: %s: %s" % (src, " ".join(str(e).split())), file=sys.stderr)
        return 1
    print("\n".join(format_check(src.name, report)))
    return 0 if report.importable else 1


def _pairs_text(pairs):
    """'int16, int8->int16|int32': the (input, output) pairs, grouped by input type; a type
    alone is that type in and out."""
    outs = {}
    for a, b in pairs:
        outs.setdefault(a, []).append(b)
    return ", ".join(a if bs == [a] else "%s->%s" % (a, "|".join(bs)) for a, bs in outs.items())


def _pair_lines():
    """The coverage of TFLM's (op, input type, output type) pairs: the totals, then each op
    that misses some, with the pairs it misses."""
    from burn.host.importers.op_coverage import pair_coverage
    from burn.host.importers.tflm_types import COMMIT

    rows = pair_coverage()
    covered = sum(len(r.covered) for r in rows)
    total = covered + sum(len(r.missing) for r in rows)
    lines = _wrapped("TFLM type pairs covered: %d of %d (op, input type, output type) that "
                     "tflite-micro's reference kernels accept (commit %s, "
                     "burn.host.importers.tflm_types); %d of %d ops fully covered, %d not at "
                     "all" % (covered, total, COMMIT[:12], sum(not r.missing for r in rows),
                              len(rows), sum(not r.covered for r in rows)))
    lines += _wrapped("  the ops that miss pairs: covered/accepted, then the missing pairs "
                      "(a type alone: that type in and out; none: no tensor):")
    for r in rows:
        if r.missing:
            head = "  %-28s %2d/%-2d  " % (r.name, len(r.covered), len(r.covered) +
                                           len(r.missing))
            lines += textwrap.wrap(head + _pairs_text(r.missing), 99,
                                   subsequent_indent=" " * len(head), break_on_hyphens=False)
    return lines


def format_ops():
    """The lines `burn import --list-ops` prints."""
    from burn.host.importers.onnx_lower import supported_ops
    from burn.host.importers.op_coverage import TYPES, kernel_runtimes, tflite_ops, tflm_ops

    rows = tflite_ops()
    lines = _wrapped("TFLite ops burn imports (%d); for QUANTIZE and DEQUANTIZE the type is "
                     "the quantized side, for the LOGICAL ops and REDUCE_ALL int8 is BOOL "
                     "(int8 0/1), hybrid is float32 with int8 weights:" % len(rows))
    lines.append("  %-28s %s  %-6s  %s" % ("op", "  ".join("%-7s" % t for t in TYPES),
                                           "hybrid", "burn op"))
    for r in rows:
        cells = "  ".join("%-7s" % ("yes" if t in r.types else "-") for t in TYPES)
        lines.append("  %-28s %s  %-6s  %s" % (r.name, cells, "yes" if r.hybrid else "-",
                                              " ".join(r.kinds)))
    lines += _wrapped("Kernels and the runtimes that have them (plain Python has every one; "
                      "optional: left out of a default firmware):")
    lines.append("  %-22s %-18s %-8s %-6s %-10s %-11s %s" % (
        "kernel", "burn op", "type", "viper", "flex host", "flex M0+", "optional"))
    for k in kernel_runtimes():
        marks = ["yes" if v else "-" for v in (k.viper, k.flex_host, k.flex_m0plus, k.optional)]
        lines.append("  %-22s %-18s %-8s %-6s %-10s %-11s %s" % ((k.name, k.kind, k.type) +
                                                               tuple(marks)))
    tflm, source = tflm_ops()
    ours = {r.name for r in rows}
    lines += _wrapped("TFLM builtin ops covered: %d of %d (%s)" % (len(ours & set(tflm)),
                                                                  len(tflm), source))
    lines += _wrapped("  not covered: " + (", ".join(sorted(set(tflm) - ours)) or "none"))
    extra = sorted(ours - set(tflm))
    if extra:
        lines += _wrapped("  imported but not in that list: " + ", ".join(extra))
    lines += _pair_lines()
    onnx = supported_ops()
    lines += _wrapped("ONNX ops burn imports (%d; float32, and int8 for QuantizeLinear, "
                      "DequantizeLinear, QLinearConv, QLinearMatMul): %s"
                      % (len(onnx), ", ".join(onnx)))
    return lines


def run_list_ops(_args):
    """Print the supported ops; exit status 0."""
    print("\n".join(format_ops()))
    return 0
