"""What `burn import` can read, derived from the op table (burn.graph.ops) and the importers
(SHAPE: computed at import, tflite_prune).

    rows = tflite_ops()            # [OpSupport], one per TFLite builtin op the importer takes
    kernels = kernel_runtimes()    # [KernelSupport], the runtimes of each kernel
    names, source = tflm_ops()     # TFLM's builtin ops, and where that list was read
    pairs = burn_pairs()           # {TFLite op: {(input type, output type)}} burn imports
    coverage = pair_coverage()     # [PairCoverage]: TFLM's type pairs, covered and missing

A TFLite op's types are those of the kernels of the graph ops it is imported as: a kernel
named `<stem>_s8` runs int8 tensors, `<stem>_s16` int16, any other float32 (`_f32`, and the
data-moving kernels without a suffix), less int8 for the ops TFLM runs on float32 only
(burn.host.importers.unary_tables.FLOAT_ONLY, and SQUARE, L2_POOL_2D, FLOOR_DIV and
FLOOR_MOD, whose converters refuse int8 as TFLM does), int16 only where the op's converter
takes int16 tensors (`@converts(..., int16=True)`), and int8 alone (BOOL held as int8 0/1)
for the logical ops and REDUCE_ALL (BOOL_ONLY). "hybrid" (float32 activations, int8 weights
that the importer dequantizes) applies to the ops whose float32 kernel takes weights (`w`).

The (input type, output type) pairs burn imports follow from the same kernels (see
burn_pairs), and pair_coverage() sets them against the pairs tflite-micro's reference
kernels accept (burn.host.importers.tflm_types).
"""

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

from burn.bst import PLAIN_INTS
from burn.graph.ops import CONTROL, KERNELS, OPS, kernel_args
from burn.host.importers.tflite_gather import HYBRID as GATHER_HYBRID
from burn.host.importers.tflite_prune import FOLDED_AT_IMPORT
from burn.host.importers.unary_tables import FLOAT_ONLY

TYPES = ("int8", "int16", "float32")  # the columns of the table, in this order
# ops of BOOL tensors only, which a .bst holds as int8 0/1: their int8 column
BOOL_ONLY = ("LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT", "REDUCE_ALL")
# float32 only: the unary ops TFLM has no int8 kernel of, and the ops whose graph ops have
# int8 kernels but whose converters refuse int8, as TFLM has float32 kernels only
_FLOAT_ONLY = FLOAT_ONLY + ("SQUARE", "L2_POOL_2D", "FLOOR_DIV", "FLOOR_MOD")
# `_s8_s16`: int8 in, int16 out; `_f32` in a name of two types (`cast_s32_f32`) is float32;
# `_u8`, `_u32`: uint8, uint32 (`requantize_u8_s8`, `cast_s32_u32`)
_SUFFIXES = re.compile(r"_(s8|s16|s32|f32|u8|u32)(?=_|$)")
_TYPE_OF = {"s8": "int8", "s16": "int16", "s32": "int32", "f32": "float32", "u8": "uint8",
            "u32": "uint32"}
# The Register_<OP>() functions of TFLM's interpreter library, as its dynamic symbol table
# spells them (Itanium C++ mangling, namespaces tflite and tflite::micro).
_REGISTER = re.compile(rb"_ZN6tflite(?:5micro)?\d+Register_([A-Z0-9_]+)Ev")


@dataclass(frozen=True)
class OpSupport:
    """One TFLite op: the graph ops (kinds) it becomes and the tensor types it runs in."""

    name: str
    kinds: tuple
    types: tuple   # a subset of TYPES
    hybrid: bool


def kernel_type(kernel):
    """The tensor type a kernel of the op table runs on (writes), by its name's suffix."""
    bits = _SUFFIXES.findall(kernel)
    return _TYPE_OF[bits[-1]] if bits else "float32"


# the data-moving kernels without a type suffix (burn.graph.layout and strided): they move
# elements of any size, so they serve int16 graphs too where the op's converter takes int16
_ANY_ELEMENT = {k for module, names, _args in KERNELS if module in ("layout", "strided")
                for k in names.split() if not _SUFFIXES.search(k)}


def _takes_int16(name):
    from burn.host.importers.tflite.convert import CONVERTERS

    return name not in CONVERTERS or CONVERTERS[name].int16


def tflite_ops():
    """[OpSupport] of every TFLite op the op table imports, sorted by name."""
    found = {}
    for kind, _rule, names, kernels in OPS:
        for name in names.split():
            kinds, types, hybrid = found.get(name, ((), set(), False))
            for kernel in kernels.split():
                dtype = kernel_type(kernel)
                if not (name in _FLOAT_ONLY and dtype == "int8") and \
                        not (name in BOOL_ONLY and dtype != "int8") and \
                        not (dtype == "int16" and not _takes_int16(name)):
                    types.add(dtype)
                if kernel in _ANY_ELEMENT and _takes_int16(name):
                    types.add("int16")
                hybrid = hybrid or name in GATHER_HYBRID or (kernel_type(kernel) == "float32"
                                                             and "w" in kernel_args(kernel)[1])
            found[name] = (kinds + (kind,), types, hybrid)
    for name in FOLDED_AT_IMPORT:  # computed by the importer: no graph op, any type
        found[name] = (("(constant)",), set(TYPES), False)
    for kind, names in CONTROL:  # control flow and variables: copies of any type
        for name in names.split():
            found[name] = ((kind,) if name != "VAR_HANDLE" else ("(resolved)",), set(TYPES),
                           False)
    return [OpSupport(name, kinds, tuple(t for t in TYPES if t in types), hybrid)
            for name, (kinds, types, hybrid) in sorted(found.items())]


def _kernel_pair(kind, kernel):
    """(input type, output type) of a kernel of the op table: `<stem>_sA_sB` reads intA and
    writes intB (`_f32` float32), a quantize kernel writes its type from float32 and a
    dequantize one the reverse; the others keep their type (kernel_type) in and out."""
    bits = _SUFFIXES.findall(kernel)
    dtype = kernel_type(kernel)
    if len(bits) == 2:
        return _TYPE_OF[bits[0]], _TYPE_OF[bits[1]]
    return {"quantize": ("float32", dtype), "dequantize": (dtype, "float32")}.get(
        kind, (dtype, dtype))


def burn_pairs():
    """{TFLite op: {(input type, output type)}} that the importer takes, derived from the
    kernels of the op's graph ops (those tflite_ops() keeps, through _kernel_pair) and the
    importer's own rules: a comparison gives BOOL (and reads BOOL where its converter takes
    BOOL inputs), a BOOL_ONLY op reads and gives BOOL, a kind whose output 0 may be int32
    (tflite.check's int32 uses: ARG_MAX's index) gives int32, and also copies int32 where
    its input 0 may be one (RESHAPE); the copies, and the moves whose converters take BOOL
    inputs, move BOOL data; int64, uint8 and uint32 data (`plain_ints`) go through as they
    are, a comparison of them giving BOOL; ZEROS_LIKE of int32 is a sub; CAST's pairs are those
    tflite_cast computes exactly; SHAPE gives int32, and BROADCAST_ARGS takes int32 or int64
    shapes (tflite_prune)."""
    from burn.host.importers.tflite.check import _INT32_USES, MOVES
    from burn.host.importers.tflite.convert import CONVERTERS
    from burn.host.importers.tflite_cast import _EXACT

    types = {r.name: r.types for r in tflite_ops()}
    # SHAPE reads only its input's shape: any type burn holds (BOOL as int8 0/1)
    special = {"CAST": set(_EXACT),
               "SHAPE": {(t, "int32") for t in types["SHAPE"] + ("int32", "bool") + PLAIN_INTS},
               "BROADCAST_ARGS": {("int32", "int32"), ("int64", "int64")}}
    found = {}
    for kind, _rule, names, kernels in OPS:
        ins, outs = _INT32_USES.get(kind, ((), ()))
        for name in set(names.split()) - set(special):
            # an int32 or uint8 kernel (a requantization) is named by its pair of types
            pairs = {_kernel_pair(kind, k) for k in kernels.split()
                     if kernel_type(k) in types[name] + ("int32", "uint8")}
            if "int16" in types[name] and set(kernels.split()) & _ANY_ELEMENT:
                pairs.add(("int16", "int16"))
            if kind == "compare":
                pairs = {(a, "bool") for a, _b in pairs}
                if CONVERTERS[name].bool_inputs:
                    pairs.add(("bool", "bool"))
            if name in BOOL_ONLY:
                pairs = {("bool", "bool")} if pairs else set()
            if (0 in outs and 0 in ins) or (kind in MOVES and CONVERTERS[name].int32):
                pairs.add(("int32", "int32"))  # the kind moves int32 data as it is
            elif 0 in outs:  # the kind writes an int32 result
                pairs = {(a, "int32") for a, _b in pairs}
            if kind == "copy" or (kind in MOVES and CONVERTERS[name].bool_inputs):
                pairs.add(("bool", "bool"))  # and BOOL data (int8 0/1)
            # int64, uint8 and uint32 data: the copies (folded: no converter) take all
            plain = PLAIN_INTS if kind == "copy" else CONVERTERS[name].plain_ints
            pairs.update((t, "bool" if kind == "compare" else t) for t in plain)
            found.setdefault(name, set()).update(pairs)
    if CONVERTERS["ZEROS_LIKE"].int32:  # an int32 input less itself: int32 arithmetic
        found["ZEROS_LIKE"].add(("int32", "int32"))
    for name in GATHER_HYBRID:  # an int8 table dequantized at import: float32 out
        found[name].add(("int8", "float32"))
    return dict(found, **special, **control_pairs())


def control_pairs():
    """The pairs of the control ops and resource variables (burn.graph.control): they copy
    tensors of every type the importer holds (tflite_control.TYPE_NAMES: BOOL as int8 0/1),
    as TFLM's pair list spells them: IF from its bool condition to each output type, WHILE
    each type in and out, READ_VARIABLE from a resource, ASSIGN_VARIABLE to none,
    VAR_HANDLE a resource from none, CALL_ONCE no tensor."""
    from burn.host.importers.tflite_control import TYPE_NAMES

    return {"IF": {("bool", t) for t in TYPE_NAMES},
            "WHILE": {(t, t) for t in TYPE_NAMES},
            "READ_VARIABLE": {("resource", t) for t in TYPE_NAMES},
            "ASSIGN_VARIABLE": {(t, "none") for t in TYPE_NAMES},
            "VAR_HANDLE": {("none", "resource")},
            "CALL_ONCE": {("none", "none")}}


@dataclass(frozen=True)
class PairCoverage:
    """One TFLM op and its (input type, output type) pairs that TFLM's reference kernels
    accept (burn.host.importers.tflm_types): those burn imports, and the others."""

    name: str
    covered: tuple
    missing: tuple


def pair_coverage():
    """[PairCoverage] of every op of tflite-micro's reference kernels, sorted by name."""
    from burn.host.importers.tflm_types import pair_types

    ours = burn_pairs()
    return [PairCoverage(op, tuple(p for p in pairs if p in ours.get(op, ())),
                         tuple(p for p in pairs if p not in ours.get(op, ())))
            for op, pairs in sorted(pair_types().items())]


@dataclass(frozen=True)
class KernelSupport:
    """One kernel of the op table and the runtimes that have it: the plain Python one (all),
    a viper twin (MicroPython), the flex C kernels through cffi on the host, the same C
    kernels on a Cortex-M0+ (no FPU: int kernels only), and whether a default firmware
    leaves it out (an optional op's)."""

    name: str
    kind: str
    type: str
    viper: bool
    flex_host: bool
    flex_m0plus: bool
    optional: bool


def kernel_runtimes():
    """[KernelSupport] of every kernel of the op table, in table order."""
    from burn.graph.ops import OPTIONAL, needs_fpu
    from burn.host.flex.runtime import _FLEX_KERNELS

    rows = []
    for kind, _rule, _names, kernels in OPS:
        for kernel in kernels.split():
            module = importlib.import_module("burn.graph." + kernel_args(kernel)[0])
            rows.append(KernelSupport(
                kernel, kind, kernel_type(kernel), hasattr(module, kernel + "_fast"),
                kernel in _FLEX_KERNELS, kernel in _FLEX_KERNELS and not needs_fpu(kernel),
                kind in OPTIONAL))
    return rows


def _builtin_enum():
    """{name: code} of TFLite's BuiltinOperator enum: the schema shipped with tflite-micro,
    else the `tflite` package's; and the module it came from."""
    try:
        from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema
        enum, where = schema.BuiltinOperator, "tflite_micro's schema"
    except ImportError:
        from tflite.BuiltinOperator import BuiltinOperator as enum
        where = "the tflite package's schema"
    return {k: v for k, v in vars(enum).items() if not k.startswith("_")}, where


def _tflm_library():
    """The path of tflite-micro's interpreter library and the package's version, or None."""
    spec = importlib.util.find_spec("tflite_micro")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / "python" / "tflite_micro"
    libs = sorted(root.glob("_runtime*.so"))
    if not libs:
        return None
    version = re.search(r'__version__\s*=\s*"([^"]+)"', (root / "_version.py").read_text()
                        if (root / "_version.py").is_file() else "")
    return libs[0], version.group(1) if version else "unknown version"


def tflm_ops():
    """(sorted names, source): the builtin ops TFLM registers, read from the Register_*
    functions of the installed tflite-micro's interpreter library and kept where the
    BuiltinOperator enum names them; without tflite-micro, every builtin op of the enum.
    `source` says, in words, which list it is."""
    enum, where = _builtin_enum()
    found = _tflm_library()
    if found is None:
        return sorted(enum), ("every builtin op of TFLite's BuiltinOperator enum (%s; "
                              "tflite-micro is not installed)" % where)
    lib, version = found
    registered = {m.group(1).decode() for m in _REGISTER.finditer(lib.read_bytes())}
    return sorted(registered & set(enum)), (
        "the Register_* functions of tflite-micro %s (%s), builtin ops by %s"
        % (version, lib.name, where))
