"""Seeded mutation fuzz of `burn import model.onnx`: bit flips, byte overwrites and
truncations of an ONNX protobuf (mostly outside the weights' raw bytes), each imported to
a `.bst` (even cases) or a `.py` module (odd cases).

Every case must end with exit status 0 and a `.bst` that `burn.load` accepts (or a `.py`
that compiles, with its `.npz`), or exit status 1 with one clean `burn import: ...` line and
nothing left on disk. The child loop and the watching parent are those of
tests/importer_fuzz.py (`fuzz(..., script=this file)`).

    python tests/onnx_fuzz.py --model model.onnx --cases 500 --seed 1
"""

import argparse
import io
import json
import os
import sys
import tempfile
from contextlib import redirect_stderr
from pathlib import Path

from importer_fuzz import fuzz, mutate


def structure_positions(data):
    """Byte positions outside the initializers' raw data."""
    import onnx

    inside = bytearray(len(data))
    for t in onnx.load_from_string(data).graph.initializer:
        start = data.find(t.raw_data) if len(t.raw_data) > 16 else -1
        if start >= 0:
            inside[start:start + len(t.raw_data)] = b"\x01" * len(t.raw_data)
    return [p for p in range(len(data)) if not inside[p]]


def _run_case(parser, data, case, folder):
    """(outcome, detail) of importing `data` through the `burn import` command."""
    import burn

    src = Path(folder) / "m.onnx"
    out = Path(folder) / ("m.py" if case % 2 else "m.bst")
    src.write_bytes(data)
    err = io.StringIO()
    try:
        with redirect_stderr(err):
            args = parser.parse_args(["import", str(src), "-o", str(out), "--tests", "0"])
            rc = args.run(args)
    except BaseException as e:  # any escape is what this fuzz counts
        return "traceback", "%s: %s" % (type(e).__name__, str(e)[:200])
    left = sorted(p.name for p in Path(folder).iterdir() if p.name != "m.onnx")
    lines = [ln for ln in err.getvalue().splitlines() if not ln.startswith("  ")]
    if "Traceback" in err.getvalue():
        return "traceback", err.getvalue()[-300:]
    if rc == 0:
        try:
            if out.suffix == ".bst":
                burn.load(str(out))
            else:
                compile(out.read_text(), str(out), "exec")
        except Exception as e:  # the check reports every failure
            return "traceback", "written file rejected: %s: %s" % (type(e).__name__, e)
        want = ["m.bst"] if out.suffix == ".bst" else ["m.npz", "m.py"]
        return ("bst", "") if left == want else ("traceback", "files left: %s" % left)
    if rc != 1 or left or len(lines) != 1 or not lines[0].startswith("burn import: "):
        return "traceback", "rc %r, files %s, stderr %r" % (rc, left, err.getvalue()[-300:])
    return "error", lines[0][:300]


def child(args):
    """Loop over cases [first, cases), printing BEGIN/END lines for the watching parent."""
    from burn.host.cli import build_parser

    proto = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    data = Path(args.model).read_bytes()
    structure = structure_positions(data)
    parser = build_parser()
    with tempfile.TemporaryDirectory() as folder:
        for case in range(args.first, args.cases):
            print("BEGIN %d" % case, file=proto, flush=True)
            outcome, detail = _run_case(parser, mutate(data, structure, args.seed, case),
                                        case, folder)
            for p in Path(folder).iterdir():
                p.unlink()
            print("END %d %s" % (case, json.dumps([outcome, detail])), file=proto, flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="the .onnx file to mutate")
    p.add_argument("--cases", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--case-timeout", type=float, default=20.0)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--tflm-every", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args)
        return 0
    counts, bad = fuzz(args.model, args.cases, args.seed, 0, args.case_timeout,
                       script=__file__)
    for case, outcome, detail in bad:
        print("case %d: %s: %s" % (case, outcome, detail))
    print(" ".join("%s=%d" % kv for kv in counts.items()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
