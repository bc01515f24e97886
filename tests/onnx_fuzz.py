"""Seeded mutation fuzz of `burn import model.onnx`: bit flips, byte overwrites and
truncations of an ONNX protobuf (mostly outside the weights' raw bytes), each imported to
a `.bst` (even cases) or a `.py` module (odd cases); every case of a quantized (QDQ) model
goes to an int8 `.bst`.

Every case must end with exit status 0 and a `.bst` that `burn.load` accepts (or a `.py`
that compiles, with its `.npz`), or exit status 1 with one clean `burn import: ...` line and
nothing left on disk. The child loop and the watching parent are those of
tests/importer_fuzz.py (`fuzz(..., script=this file)`).

    python tests/onnx_fuzz.py --model model.onnx --cases 500 --seed 1
"""

import argparse
import sys

from importer_fuzz import check_bst, child, fuzz, run_import


def structure_positions(data):
    """Byte positions outside the initializers' raw data."""
    import onnx

    inside = bytearray(len(data))
    for t in onnx.load_from_string(data).graph.initializer:
        start = data.find(t.raw_data) if len(t.raw_data) > 16 else -1
        if start >= 0:
            inside[start:start + len(t.raw_data)] = b"\x01" * len(t.raw_data)
    return [p for p in range(len(data)) if not inside[p]]


def _case_runner(quantized):
    """run_case(parser, data, case, folder) -> (outcome, detail): `data` imported to a .bst
    (even cases, and every case of a quantized model, which imports only to .bst) or to a
    .py (odd cases)."""
    def run_case(parser, data, case, folder):
        to_bst = quantized or case % 2 == 0
        return run_import(parser, data, folder, "m.onnx", "m.bst" if to_bst else "m.py",
                          ["--tests", "0"], check_bst if to_bst else _check_module)
    return run_case


def _check_module(out):
    """A written module must compile, with its weights beside it."""
    compile(out.read_text(), str(out), "exec")
    return [out.stem + ".npz", out.name]


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
        with open(args.model, "rb") as f:
            quantized = b"QuantizeLinear" in f.read()
        child(args, structure_positions, _case_runner(quantized))
        return 0
    counts, bad = fuzz(args.model, args.cases, args.seed, 0, args.case_timeout,
                       script=__file__)
    for case, outcome, detail in bad:
        print("case %d: %s: %s" % (case, outcome, detail))
    print(" ".join("%s=%d" % kv for kv in counts.items()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
