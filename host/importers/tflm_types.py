"""The tensor types tflite-micro's reference kernels accept, op by op: what burn's import
coverage is measured against (burn.host.importers.op_coverage.pair_coverage).

Read from the type checks of the Prepare and Eval functions (and their *_common.cc helpers)
of the reference kernels in tensorflow/lite/micro/kernels/ of github.com/tensorflow/tflite-micro
at commit 90b983c2b3f1480642e040bbd2ddb37b998f3424; the optimized kernel folders are left
out. The ops are those MicroMutableOpResolver registers as builtin operators.

ROWS: (op, input types, output type, note), read from tflm_types.csv beside this module.
The input types, space-separated, are those of the op's data input (the one the kernel
switches on); each makes a pair with the output type, or with itself where the output is
SAME. Operands that only give a shape, an axis or indices, and the weights of the ops that
have them, are in the note: for those ops a pair is the activation types (CONV_2D int16 ->
int16 runs with int8 weights, "int16x8"). No reference kernel runs float32 activations with
int8 weights ("hybrid"), but for EMBEDDING_LOOKUP's int8 table read into float32.

Type words are TFLite's type names, lower case, and three more: "any" (the kernel moves
bytes and takes any type; pair_types() spells it out as each type the other rows name),
"none" (no tensor on that side) and "resource" (a resource variable's handle).
"""

import csv
from pathlib import Path

SAME = "same"  # the output has the input's type
COMMIT = "90b983c2b3f1480642e040bbd2ddb37b998f3424"


def _read_rows():
    with open(Path(__file__).with_name("tflm_types.csv"), newline="") as f:
        return tuple(tuple(row) for row in list(csv.reader(f))[1:])


ROWS = _read_rows()


def _type_order(name):
    """Sort key: bool, float32, then the integer types by kind and width."""
    kind = name.rstrip("0123456789")
    return kind, int(name[len(kind):] or 0)


def named_types():
    """The tensor types the rows name (bool, float32, int8 ...): what "any" stands for."""
    words = {w for _op, ins, out, _note in ROWS for w in ins.split() + [out]}
    return tuple(sorted(words - {"any", "none", "resource", SAME}, key=_type_order))


def pair_types():
    """{op: ((input type, output type), ...)}: every pair TFLM accepts, "any" spelled out,
    in table order."""
    anys = named_types()
    found = {}
    for op, ins, out, _note in ROWS:
        pairs = found.setdefault(op, [])
        for a in ins.split():
            for x in anys if a == "any" else (a,):
                for y in (x,) if out == SAME else anys if out == "any" else (out,):
                    if (x, y) not in pairs:
                        pairs.append((x, y))
    return {op: tuple(pairs) for op, pairs in found.items()}
