"""Write `.bst` model files (docs/bst-format.md) from an inference graph.

The graph is described with three small classes: `GraphTensor` (an activation), `GraphOp`
(an op with its constant arrays and integer parameters) and `Graph`. Importers and the
exporter build a Graph; `write_bst` plans the arena and writes the file atomically.
"""

import binascii
import json
import struct

import numpy as np

import burn
from burn.bst import HEADER_ARENAS
from burn.host.arena_plan import plan_arena
from burn.host.atomic import write_bytes_atomic

MAGIC = b"\x89BST"
VERSION = 1
HEADER_SIZE = 48  # magic, version, flags, header_len, header_crc, then 8 u32 (the rest)
ALIGN = 16
_BLOB_DTYPES = {"int8": np.int8, "int32": np.int32, "float32": np.float32, "int16": np.int16,
                "int64": np.int64, "uint8": np.uint8, "uint32": np.uint32}
# Streamed constants come first in each op's run of blobs, so a layer is one contiguous read.
_BLOB_ORDER = {"int8": 0, "float32": 1, "int32": 2, "int16": 3, "int64": 4, "uint8": 5,
               "uint32": 6}


class GraphTensor:
    """An activation tensor: name, NHWC shape, dtype ('int8', 'int16' or 'float32') and,
    for int8 and int16, its quantization (real = scale * (q - zero_point)). `is_bool` marks
    an int8 tensor of 0s and 1s that stands for a TFLite BOOL tensor (the file does not
    record it: it is int8 with scale 1 and zero point 0 there)."""

    def __init__(self, name, shape, dtype, scale=None, zero_point=None, is_bool=False):
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype
        self.scale = scale
        self.zero_point = zero_point
        self.is_bool = is_bool


class GraphOp:
    """One op: kind (a name from docs/bst-format.md), input and output tensor indices,
    constant numpy arrays by name and parameters (ints, lists of ints, or floats)."""

    def __init__(self, op, inputs, outputs, consts=None, params=None):
        self.op = op
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.consts = dict(consts or {})
        self.params = dict(params or {})


class SubGraph:
    """A subgraph that control ops run (IF's branches, WHILE's cond and body, CALL_ONCE's
    init): its ops in execution order and its input and output tensor indices, into the
    Graph's one tensor table (each tensor belongs to one graph)."""

    def __init__(self, ops, inputs, outputs):
        self.ops = list(ops)
        self.inputs = [int(t) for t in inputs]
        self.outputs = [int(t) for t in outputs]


class Variable:
    """A resource variable: kept between inferences, read and written by the
    read_variable and assign_variable ops; `rest` is its value at load and after a reset
    (TFLM's: each byte the int8 zero point of its first assigned value)."""

    def __init__(self, name, shape, dtype, rest):
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype
        self.rest = rest


class Graph:
    """An inference graph: tensors, ops in execution order, inputs and outputs as
    (tensor index, shape) pairs, reference tests as (input arrays, output arrays) pairs,
    labels and metadata; the subgraphs its control ops run and its resource variables
    (docs/bst-format.md, "Subgraphs and variables")."""

    def __init__(self, tensors, ops, inputs, outputs, tests=(), labels=(), metadata=None,
                 subgraphs=(), variables=()):
        self.tensors = list(tensors)
        self.ops = list(ops)
        self.inputs = [(int(t), tuple(int(d) for d in s)) for t, s in inputs]
        self.outputs = [(int(t), tuple(int(d) for d in s)) for t, s in outputs]
        self.tests = list(tests)
        self.labels = [str(label) for label in labels]
        self.metadata = dict(metadata or {})
        self.subgraphs = list(subgraphs)
        self.variables = list(variables)

    def all_ops(self):
        """The ops of the main graph, then of each subgraph."""
        return self.ops + [op for g in self.subgraphs for op in g.ops]


class _Blobs:
    """Collects blobs into the data section, each at a 16-byte boundary."""

    def __init__(self):
        self.table = []
        self.parts = []
        self.size = 0

    def add(self, array, dtype):
        data = np.ascontiguousarray(array, dtype=_BLOB_DTYPES[dtype])
        pad = -self.size % ALIGN
        self.parts.append(bytes(pad))
        self.size += pad
        self.table.append([self.size, data.nbytes, dtype, [int(d) for d in data.shape]])
        self.parts.append(data.astype(data.dtype.newbyteorder("<")).tobytes())
        self.size += data.nbytes
        return len(self.table) - 1


def _const_dtype(array):
    kind = np.asarray(array).dtype
    for name, dtype in _BLOB_DTYPES.items():
        if kind == dtype:
            return name
    raise TypeError("constant of dtype %s: expected one of %s" % (kind, ", ".join(_BLOB_DTYPES)))


def _tensor_entry(t, offset):
    entry = {"name": t.name, "shape": list(t.shape), "dtype": t.dtype, "arena": offset}
    if t.scale is not None:
        entry["scale"] = float(t.scale)
        entry["zero_point"] = int(t.zero_point)
    return entry


def _op_entry(op, blobs):
    consts = {}
    names = sorted(op.consts, key=lambda k: _BLOB_ORDER[_const_dtype(op.consts[k])])
    for name in names:
        consts[name] = blobs.add(op.consts[name], _const_dtype(op.consts[name]))
    return {"op": op.op, "in": op.inputs, "out": op.outputs, "consts": consts,
            "params": op.params}


def _test_entry(graph, test, blobs):
    ins, outs = test
    specs = [(graph.inputs, ins), (graph.outputs, outs)]
    entry = []
    for io, arrays in specs:
        if len(arrays) != len(io):
            raise ValueError("a reference test needs one array per graph input and output")
        entry.append([blobs.add(a, graph.tensors[tid].dtype) for (tid, _s), a in
                      zip(io, arrays)])
    return {"inputs": entry[0], "outputs": entry[1]}


def _layer_bytes(ops, table):
    """Per streamed dtype, the largest span of one op's blobs (the reader's buffer size)."""
    largest = {"int8": 0, "float32": 0, "int32": 0}
    for op in ops:
        for dtype in largest:
            spans = [table[b] for b in op["consts"].values() if table[b][2] == dtype]
            if spans:
                span = max(s[0] + s[1] for s in spans) - min(s[0] for s in spans)
                largest[dtype] = max(largest[dtype], span)
    return largest


def encode_bst(graph):
    """The bytes of the `.bst` file of `graph` (arena planned here)."""
    offsets, arena = plan_arena(graph)
    blobs = _Blobs()
    ops = [_op_entry(op, blobs) for op in graph.ops]
    subgraphs = [{"ops": [_op_entry(op, blobs) for op in g.ops], "inputs": g.inputs,
                  "outputs": g.outputs} for g in graph.subgraphs]
    tests = [_test_entry(graph, t, blobs) for t in graph.tests]
    header = {
        "blobs": blobs.table,
        "tensors": [_tensor_entry(t, offsets[i]) for i, t in enumerate(graph.tensors)],
        "ops": ops,
        "inputs": [{"tensor": t, "shape": list(s)} for t, s in graph.inputs],
        "outputs": [{"tensor": t, "shape": list(s)} for t, s in graph.outputs],
        "tests": tests,
        "labels": graph.labels,
        "metadata": dict({"producer": "burn " + burn.__version__}, **graph.metadata),
    }
    for dtype in HEADER_ARENAS:  # keys of their own: files without them stay the same
        if arena[dtype]:
            header["arena_" + dtype] = arena[dtype]
    if subgraphs:
        header["subgraphs"] = subgraphs
    if graph.variables:
        header["variables"] = [{"name": v.name, "shape": list(v.shape), "dtype": v.dtype,
                                "rest": v.rest} for v in graph.variables]
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    data = b"".join(blobs.parts)
    data_offset = (HEADER_SIZE + len(text) + ALIGN - 1) // ALIGN * ALIGN
    layer = _layer_bytes(ops + [op for g in subgraphs for op in g["ops"]], blobs.table)
    rest = struct.pack("<8I", data_offset, len(data),
                       binascii.crc32(data), arena["int8"], arena["float32"], layer["int8"],
                       layer["float32"], layer["int32"])
    pad = bytes(data_offset - HEADER_SIZE - len(text))
    head = struct.pack("<4sHHII", MAGIC, VERSION, 0, len(text),
                       binascii.crc32(rest + text + pad)) + rest
    return head + text + pad + data


def runtime_tests(graph, input_sets):
    """Reference tests computed by burn's own `.bst` runtime on this very graph: one
    (inputs, outputs) pair per input set, a list of one array per graph input (graph layout
    and dtype)."""
    model = burn.load(encode_bst(graph))
    tests = []
    for ins in input_sets:
        # in the graph inputs' shapes, which the runtime demands (a set may drop the batch)
        arrays = [np.asarray(a).reshape(shape) for a, (_t, shape) in zip(ins, graph.inputs)]
        outs = model.run(arrays[0] if len(arrays) == 1 else arrays)
        outs = outs if len(graph.outputs) > 1 else (outs,)
        tests.append((list(ins), [np.array(o).reshape(shape)
                                  for o, (_t, shape) in zip(outs, graph.outputs)]))
    return tests


def _check_loads(path):
    try:
        burn.load(path).close()
    except ValueError as e:
        raise ValueError("the written .bst does not load, so it was not kept: %s" % e) from e


def write_bst(graph, path):
    """Plan, encode and atomically write `graph` to `path`, checking that `burn.load`
    accepts the file before it takes the name; returns the bytes written."""
    data = encode_bst(graph)
    write_bytes_atomic(path, data, check=_check_loads)
    return data
