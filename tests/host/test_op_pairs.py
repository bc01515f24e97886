"""Import coverage by (op, input type, output type): the table of the pairs tflite-micro's
reference kernels accept (burn.host.importers.tflm_types) against TFLM's own op list and
TFLite's type names, burn's pairs (derived from the op table and the converters) against
the importer itself on one-op models, and `burn import --list-ops`'s report of both."""

import numpy as np
import pytest
from tflite.BuiltinOperator import BuiltinOperator
from tflite.TensorType import TensorType
from tflite_builder import ModelBuilder

from burn.host.cli import main
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.op_coverage import burn_pairs, pair_coverage, tflite_ops, tflm_ops
from burn.host.importers.tflite import import_tflite
from burn.host.importers.tflm_types import COMMIT, ROWS, SAME, named_types, pair_types

_QUANT = {"int8": (0.05, 3), "int16": (0.01, 0), "uint8": (0.05, 128)}


def test_the_table_lists_tflm_own_ops():
    """One op per builtin op TFLM registers; without tflite-micro installed, each op is at
    least one of TFLite's builtin ops."""
    ops = {op for op, _ins, _out, _note in ROWS}
    names, source = tflm_ops()
    if "tflite-micro" not in source:
        assert ops <= set(names)
        pytest.skip("tflite-micro is not installed: " + source)
    assert sorted(ops) == names, (sorted(ops - set(names)), sorted(set(names) - ops))


def test_the_table_speaks_tflite_type_names():
    """Types by TFLite's names (and any, none, same), ops by the builtin enum's, each
    (op, input, output) in one row only."""
    words = {w for _op, ins, out, _note in ROWS for w in ins.split() + [out]}
    tflite = {k.lower() for k in vars(TensorType) if not k.startswith("_")}
    assert words - tflite == {"any", "none", SAME}, words - tflite
    assert set(named_types()) <= tflite and "resource" in tflite
    assert all(op in vars(BuiltinOperator) for op, _ins, _out, _note in ROWS)
    assert len(COMMIT) == 40 and int(COMMIT, 16)
    seen = set()  # every pair from one row only
    for op, ins, out, _note in ROWS:
        for a in ins.split():
            assert (op, a, out) not in seen, (op, a, out)
            seen.add((op, a, out))


def test_pairs_spell_out_the_table():
    """pair_types(): a row's input types each with its output; "any" as every named type."""
    pairs = pair_types()
    assert pairs["SOFTMAX"] == (("float32", "float32"), ("int8", "int8"), ("int16", "int16"),
                                ("int8", "int16"))
    assert ("float32", "int8") in pairs["QUANTIZE"] and ("float32", "int32") \
        not in pairs["QUANTIZE"]  # Prepare lets it through, Eval refuses it
    assert pairs["RESHAPE"] == tuple((t, t) for t in named_types())
    assert pairs["SHAPE"] == tuple((t, "int32") for t in named_types())
    assert pairs["EQUAL"][-1] == ("bool", "bool") and ("int16", "bool") in pairs["GREATER"]
    assert pairs["FULLY_CONNECTED"] == tuple((t, t) for t in ("float32", "int8", "int16"))
    assert pairs["VAR_HANDLE"] == (("none", "resource"),)


def test_coverage_splits_each_ops_pairs():
    """Each op's TFLM pairs are covered (burn imports them) or missing, never both."""
    rows = pair_coverage()
    tflm = pair_types()
    assert [r.name for r in rows] == sorted(tflm)
    ours = burn_pairs()
    for r in rows:
        assert sorted(r.covered + r.missing) == sorted(tflm[r.name]), r.name
        assert set(r.covered) <= ours.get(r.name, set()), r.name
        assert not set(r.missing) & ours.get(r.name, set()), r.name
    by_name = {r.name: r for r in rows}
    assert ("int32", "int32") in by_name["ADD"].covered
    assert ("int64", "int64") in by_name["MAXIMUM"].covered  # s32_arith's, in Python
    assert ("int64", "bool") in by_name["LESS"].covered
    assert ("int8", "int8") in by_name["CONV_2D"].covered
    assert ("int8", "int16") in by_name["SOFTMAX"].covered
    assert ("int16", "int16") in by_name["ABS"].covered  # LEAKY_RELU's rescalings
    assert ("int16", "int16") in by_name["SELECT_V2"].covered  # a copy of int16 values
    assert ("int16", "int16") in by_name["RESIZE_NEAREST_NEIGHBOR"].covered
    assert ("int16", "int16") not in by_name["RESIZE_BILINEAR"].covered + \
        by_name["RESIZE_BILINEAR"].missing  # TFLM has no int16 bilinear resize
    assert ("int32", "int8") in by_name["CAST"].covered  # the cast op's low bits
    assert ("int16", "int32") in by_name["QUANTIZE"].covered
    assert ("uint8", "int8") in by_name["QUANTIZE"].covered  # s16_quantize's, in Python
    assert ("float32", "int8") in by_name["QUANTIZE"].covered
    # the control ops copy every type burn holds, int64, uint8 and uint32 too
    assert ("int32", "int32") in by_name["WHILE"].covered
    assert ("uint32", "uint32") in by_name["WHILE"].covered
    assert by_name["CALL_ONCE"].covered == (("none", "none"),)
    # each op burn imports in some TFLite type has a pair of it
    types = {r.name: r.types for r in tflite_ops()}
    assert all(ours[name] for name in types), [n for n in types if not ours[n]]


def _tensor(mb, name, dtype, shape=(1, 4), quant=None):
    """A tensor quantized by `quant` (scale, zero point): by default int8 and int16 ones by
    _QUANT's, none where `quant` is ()."""
    quant = _QUANT.get(dtype, ()) if quant is None else quant
    if quant:
        return mb.tensor(name, shape, dtype, scale=quant[0], zero_point=quant[1])
    return mb.tensor(name, shape, dtype)


def _unary(op, a, b, *consts, options=None, out_shape=(1, 4), out_quant=None, **fields):
    """One `op` node from an `a` input to a `b` output; `consts` (dtype, shape, data) are
    constant operands after the input."""
    def build():
        mb = ModelBuilder()
        x = _tensor(mb, "x", a)
        extra = [mb.tensor("c%d" % i, s, t, data=d) for i, (t, s, d) in enumerate(consts)]
        y = _tensor(mb, "y", b, out_shape, out_quant)
        mb.op(op, [x] + extra, [y], options, **fields)
        return mb.finish([x], [y])
    return build


def _binary(op, a, b, options=None):
    """One `op` node of two `a` inputs and a `b` output."""
    def build():
        mb = ModelBuilder()
        x1, x2, y = _tensor(mb, "x1", a), _tensor(mb, "x2", a), _tensor(mb, "y", b)
        mb.op(op, [x1, x2], [y], options)
        return mb.finish([x1, x2], [y])
    return build


def _weighted(op, t, options, shape, w_shape, out_shape, **kw):
    """CONV_2D or FULLY_CONNECTED of a `t` input with int8 weights, no bias."""
    def build():
        mb = ModelBuilder()
        x, y = _tensor(mb, "x", t, shape), _tensor(mb, "y", t, out_shape)
        n = w_shape[0]
        w = mb.tensor("w", w_shape, "int8", data=np.arange(np.prod(w_shape)) % 7 - 3,
                      scale=[0.02] * n, zero_point=[0] * n)
        mb.op(op, [x, w, -1], [y], options, **kw)
        return mb.finish([x], [y])
    return build


def _shape_of(t):
    """SHAPE of a `t` tensor, the new shape of a RESHAPE of it (SHAPE alone folds away)."""
    def build():
        mb = ModelBuilder()
        x, s, y = _tensor(mb, "x", t), mb.tensor("s", (2,), "int32"), _tensor(mb, "y", t)
        mb.op("SHAPE", [x], [s], "ShapeOptions", OutType=2)
        mb.op("RESHAPE", [x, s], [y])
        return mb.finish([x], [y])
    return build


def _broadcast_args(t):
    """BROADCAST_ARGS of two constant `t` shapes, the new shape of a RESHAPE."""
    def build():
        mb = ModelBuilder()
        a = mb.tensor("a", (2,), t, data=[1, 4])
        b = mb.tensor("b", (1,), t, data=[4])
        s = mb.tensor("s", (2,), t)
        mb.op("BROADCAST_ARGS", [a, b], [s])
        x, y = _tensor(mb, "x", "float32"), _tensor(mb, "y", "float32")
        mb.op("RESHAPE", [x, s], [y])
        return mb.finish([x], [y])
    return build


_AXIS = ("int32", (1,), [1])
# (op, input type, output type): a one-op model of that pair, a sample of each rule of
# burn_pairs (kernel types, int16 flags, requantize kernels, BOOL, int32, CAST, folds)
COVERED = {
    ("CONV_2D", "int8", "int8"): _weighted("CONV_2D", "int8", "Conv2DOptions", (1, 3, 3, 2),
                                           (2, 1, 1, 2), (1, 3, 3, 2), Padding=0, StrideH=1,
                                           StrideW=1),
    ("CONV_2D", "int16", "int16"): _weighted("CONV_2D", "int16", "Conv2DOptions",
                                             (1, 3, 3, 2), (2, 1, 1, 2), (1, 3, 3, 2),
                                             Padding=0, StrideH=1, StrideW=1),
    ("FULLY_CONNECTED", "int16", "int16"): _weighted("FULLY_CONNECTED", "int16",
                                                     "FullyConnectedOptions", (1, 4),
                                                     (3, 4), (1, 3)),
    ("ADD", "int16", "int16"): _binary("ADD", "int16", "int16", "AddOptions"),
    ("ADD", "float32", "float32"): _binary("ADD", "float32", "float32", "AddOptions"),
    ("ADD", "int32", "int32"): _binary("ADD", "int32", "int32", "AddOptions"),
    ("EQUAL", "int32", "bool"): _binary("EQUAL", "int32", "bool"),
    ("SOFTMAX", "int16", "int16"): _unary("SOFTMAX", "int16", "int16", options="SoftmaxOptions",
                                          Beta=1.0, out_quant=(1 / 32768, 0)),
    ("QUANTIZE", "float32", "int8"): _unary("QUANTIZE", "float32", "int8"),
    ("QUANTIZE", "int8", "int16"): _unary("QUANTIZE", "int8", "int16"),
    ("QUANTIZE", "int16", "int8"): _unary("QUANTIZE", "int16", "int8"),
    ("QUANTIZE", "int8", "int32"): _unary("QUANTIZE", "int8", "int32", out_quant=(1e-4, 0)),
    ("DEQUANTIZE", "int16", "float32"): _unary("DEQUANTIZE", "int16", "float32"),
    ("CAST", "bool", "int8"): _unary("CAST", "bool", "int8", out_quant=()),
    ("CAST", "int8", "float32"): _unary("CAST", "int8", "float32"),
    ("CAST", "float32", "int8"): _unary("CAST", "float32", "int8", out_quant=()),
    ("CAST", "int32", "float32"): _unary("CAST", "int32", "float32"),
    ("GREATER", "float32", "bool"): _binary("GREATER", "float32", "bool"),
    ("EQUAL", "bool", "bool"): _binary("EQUAL", "bool", "bool"),
    ("LOGICAL_AND", "bool", "bool"): _binary("LOGICAL_AND", "bool", "bool"),
    ("REDUCE_ALL", "bool", "bool"): _unary("REDUCE_ALL", "bool", "bool", _AXIS,
                                           options="ReducerOptions", out_shape=(1,)),
    ("ARG_MAX", "int8", "int32"): _unary("ARG_MAX", "int8", "int32", _AXIS,
                                         options="ArgMaxOptions", OutputType=2,
                                         out_shape=(1,)),
    ("RESHAPE", "int32", "int32"): _unary("RESHAPE", "int32", "int32",
                                          ("int32", (2,), [2, 2]), out_shape=(2, 2)),
    ("SHAPE", "int16", "int32"): _shape_of("int16"),
    ("SOFTMAX", "int8", "int16"): _unary("SOFTMAX", "int8", "int16", options="SoftmaxOptions",
                                         Beta=1.0, out_quant=(1 / 65536, -32768)),
    ("SUB", "int16", "int16"): _binary("SUB", "int16", "int16", "SubOptions"),
    ("SQUARED_DIFFERENCE", "int16", "int16"): _binary("SQUARED_DIFFERENCE", "int16", "int16"),
    ("MAXIMUM", "int16", "int16"): _binary("MAXIMUM", "int16", "int16"),
    ("PAD", "int16", "int16"): _unary("PAD", "int16", "int16",
                                      ("int32", (2, 2), [[0, 0], [1, 1]]),
                                      options="PadOptions", out_shape=(1, 6)),
    ("EXPAND_DIMS", "int16", "int16"): _unary("EXPAND_DIMS", "int16", "int16",
                                              ("int32", (1,), [1]), out_shape=(1, 1, 4)),
    ("BROADCAST_ARGS", "int64", "int64"): _broadcast_args("int64"),
    ("SLICE", "bool", "bool"): _unary("SLICE", "bool", "bool", ("int32", (2,), [0, 1]),
                                      ("int32", (2,), [1, 2]), out_shape=(1, 2)),
    ("RESHAPE", "bool", "bool"): _unary("RESHAPE", "bool", "bool", ("int32", (1,), [4]),
                                        out_shape=(4,)),
    ("SHAPE", "bool", "int32"): _shape_of("bool"),
    ("SHAPE", "uint32", "int32"): _shape_of("uint32"),
    ("RESHAPE", "int64", "int64"): _unary("RESHAPE", "int64", "int64", ("int32", (1,), [4]),
                                          out_shape=(4,)),
    ("MAXIMUM", "int64", "int64"): _binary("MAXIMUM", "int64", "int64"),
    ("EQUAL", "int64", "bool"): _binary("EQUAL", "int64", "bool"),
    ("ZEROS_LIKE", "int64", "int64"): _unary("ZEROS_LIKE", "int64", "int64"),
    ("CAST", "uint32", "float32"): _unary("CAST", "uint32", "float32"),
    ("CAST", "bool", "uint32"): _unary("CAST", "bool", "uint32"),
    ("QUANTIZE", "int8", "uint8"): _unary("QUANTIZE", "int8", "uint8"),
    ("DEQUANTIZE", "uint8", "float32"): _unary("DEQUANTIZE", "uint8", "float32"),
    ("BROADCAST_TO", "uint8", "uint8"): _unary("BROADCAST_TO", "uint8", "uint8",
                                               ("int32", (3,), [2, 1, 4]), out_shape=(2, 1, 4)),
}
# pairs TFLM accepts that burn does not import, for reasons that hold
MISSING = {
    ("GREATER", "int16", "bool"): _binary("GREATER", "int16", "bool"),
}
# pairs TFLM refuses, which the importer refuses too
REFUSED = {
    ("ADD", "int64", "int64"): _binary("ADD", "int64", "int64", "AddOptions"),
    ("SUB", "int64", "int64"): _binary("SUB", "int64", "int64", "SubOptions"),
    ("LESS", "uint8", "bool"): _binary("LESS", "uint8", "bool"),
    ("PACK", "bool", "bool"): _binary("PACK", "bool", "bool", "PackOptions"),
    ("PAD", "bool", "bool"): _unary("PAD", "bool", "bool", ("int32", (2, 2), [[0, 0], [1, 1]]),
                                    options="PadOptions", out_shape=(1, 6)),
}


def _imports(build):
    try:
        import_tflite(build(), tests=0)
    except TFLiteImportError as e:
        return str(e)
    return None


@pytest.mark.parametrize("pair", sorted(COVERED), ids="-".join)
def test_a_covered_pair_imports(pair):
    """A pair burn claims: a one-op model of it imports."""
    op, a, b = pair
    assert (a, b) in pair_types()[op] and (a, b) in burn_pairs()[op]
    assert _imports(COVERED[pair]) is None


@pytest.mark.parametrize("pair", sorted(MISSING), ids="-".join)
def test_a_missing_pair_is_refused(pair):
    """A pair burn does not claim: the importer refuses a one-op model of it."""
    op, a, b = pair
    assert (a, b) in pair_types()[op] and (a, b) not in burn_pairs().get(op, ())
    assert _imports(MISSING[pair]) is not None


@pytest.mark.parametrize("pair", sorted(REFUSED), ids="-".join)
def test_a_pair_tflm_refuses_is_refused(pair):
    op, a, b = pair
    assert (a, b) not in pair_types()[op] and (a, b) not in burn_pairs()[op]
    message = _imports(REFUSED[pair])
    assert "supported" in message and a in message.lower(), message  # names the type


def test_the_int8_kernels_of_float_only_ops_are_not_claimed():
    """SQUARE and FLOOR_DIV become graph ops that have int8 kernels, but their converters
    refuse int8 (TFLM has float32 kernels only): the op list says float32."""
    types = {r.name: r.types for r in tflite_ops()}
    assert types["SQUARE"] == types["FLOOR_DIV"] == types["L2_POOL_2D"] == ("float32",)
    assert _imports(_unary("SQUARE", "int8", "int8")) is not None
    assert _imports(_binary("FLOOR_DIV", "int8", "int8")) is not None


def _pair_line(lines, op):
    """The words of `op`'s line among the ops that miss pairs, or None."""
    for line in lines:
        words = line.split()
        if line.startswith("  %s " % op) and "/" in words[1]:
            return words
    return None


def test_list_ops_reports_the_pairs(capsys):
    """The totals, and the line of each op that misses pairs, within 99 columns."""
    rows = {r.name: r for r in pair_coverage()}
    covered = sum(len(r.covered) for r in rows.values())
    total = covered + sum(len(r.missing) for r in rows.values())
    assert main(["import", "--list-ops"]) == 0
    out = capsys.readouterr().out
    assert "TFLM type pairs covered: %d of %d (" % (covered, total) in out
    assert COMMIT[:12] in out
    lines = out.splitlines()
    assert max(map(len, lines)) <= 99
    lstm = rows["UNIDIRECTIONAL_SEQUENCE_LSTM"]
    assert len(lstm.covered) == len(pair_types()["UNIDIRECTIONAL_SEQUENCE_LSTM"]) == 3
    for op in ("PRELU", "BATCH_MATMUL", "TRANSPOSE_CONV", "UNIDIRECTIONAL_SEQUENCE_LSTM"):
        assert _pair_line(lines, op) is None, op
    assert _pair_line(lines, "ABS") is None  # every pair covered
    assert _pair_line(lines, "SOFTMAX") is None  # every pair covered
    assert _pair_line(lines, "CONV_2D") is None  # every pair covered
    assert _pair_line(lines, "CAST") is None  # every pair covered, uint32's too
    assert _pair_line(lines, "QUANTIZE") is None  # every pair covered, uint8's too
    assert _pair_line(lines, "EMBEDDING_LOOKUP") is None  # the hybrid lookup too
    assert _pair_line(lines, "GREATER")[2] == "int16->bool"


def test_help_tells_of_the_pairs(capsys):
    """`burn import --help` says --list-ops counts the pairs."""
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(op, input type, output type)" in out
