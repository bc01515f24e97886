"""`burn import --check`: can burn import a model, and would it fit the boards? Nothing is
written.

    report = check_tflite(data)            # a CheckReport
    report = check_onnx("model.onnx")

A report lists everything that stops the import at once: every unsupported op (by name, with
its nodes), every unsupported tensor type (with its tensors), and the importer's other
objections, one per node. For an importable model it has the `.bst` the import would write
(without reference tests), its MACs and arena, and its fit on every board (board_fit).
Malformed files raise the importer's one-line error (a ValueError).
"""

from dataclasses import dataclass, field

from burn.bst import TENSOR_DTYPES
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite
from burn.host.importers.tflite.registry import SUPPORTED
from burn.host.importers.tflite_prune import data_inputs, prune
from burn.host.importers.tflite_read import RESOURCE, read_tflite, unreadable_tensors


@dataclass
class CheckReport:
    """What a check found. `ops`: {op name: [node indices]} of unsupported ops; `types`:
    {type name: [(tensor index, tensor name)]} of unsupported tensor types; `problems`: the
    importer's other objections, one line each. For an importable model, `bst` (bytes),
    `macs`, `arena_bytes`, `facts` (burn.host.deploy.fit.ModelFacts), `fits`
    ([burn.host.deploy.board_fit.Fit]), `optional` (its op kinds that a default firmware leaves
    out, burn.graph.ops.OPTIONAL) and `control` (its control-flow and variable op kinds,
    burn.graph.ops.CONTROL, which only a firmware with every op holds)."""

    nodes: int
    ops: dict = field(default_factory=dict)
    types: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)
    bst: bytes = None
    macs: int = 0
    arena_bytes: int = 0
    facts: object = None
    fits: list = field(default_factory=list)
    optional: list = field(default_factory=list)
    control: list = field(default_factory=list)

    @property
    def importable(self):
        """Whether the import would succeed."""
        return self.bst is not None


def _group(items):
    """{key: [values]} of (key, value) pairs, keys sorted, values in order."""
    out = {}
    for key, value in items:
        out.setdefault(key, []).append(value)
    return dict(sorted(out.items()))


# held otherwise: BOOL as int8 0/1, a resource handle resolved to its variable
# (burn.host.importers.tflite_control)
_HELD = ("bool", RESOURCE)


def _unsupported_types(tf):
    """Tensors of a TFLite type numpy cannot hold, and activations (tensors without data
    that an op or the graph reads as data or writes) of a type `.bst` files have no arena
    for."""
    used = set(tf.inputs) | set(tf.outputs)
    for node in tf.ops:
        used.update(data_inputs(node) + [t for t in node.outputs if t >= 0])
    bad = set(unreadable_tensors(tf)) | {
        t for t in used if tf.tensors[t].data is None and
        tf.tensors[t].type_name not in TENSOR_DTYPES + _HELD}
    return _group((tf.tensors[t].type_name, (t, tf.tensors[t].name)) for t in sorted(bad))


def check_tflite(data):
    """The CheckReport of TFLite bytes; TFLiteImportError for a malformed file."""
    tf = prune(read_tflite(data))
    report = CheckReport(len(tf.ops))
    report.ops = _group((n.name, n.index) for n in tf.ops if n.name not in SUPPORTED)
    report.types = _unsupported_types(tf)
    if report.ops or report.types:
        return report
    try:
        graph = import_tflite(data, tests=0)
    except TFLiteImportError as e:
        report.problems = e.problems
        return report
    return _with_figures(report, graph)


def check_onnx(path):
    """The CheckReport of an ONNX file: its unsupported nodes, or the figures of the `.bst`
    it imports as (float32, or int8 for a quantized model). ONNXImportError (a ValueError)
    for a malformed file."""
    import os

    from burn.host.importers import onnx_qdq
    from burn.host.importers.onnx_import import Imported
    from burn.host.importers.onnx_lower import lower, unsupported_nodes
    from burn.host.importers.onnx_read import MAX_FILE, ONNXImportError, read_onnx

    with open(path, "rb") as f:
        graph = read_onnx(f.read(MAX_FILE + 1), os.path.dirname(os.path.abspath(path)))
    report = CheckReport(len(graph.nodes))
    quantized = onnx_qdq.is_quantized(graph)
    bad = onnx_qdq.unsupported_nodes(graph) if quantized else unsupported_nodes(graph)
    report.ops = _group((n.op, n.index) for n in bad)
    if report.ops:
        return report
    try:
        bst_graph = onnx_qdq.int8_graph(graph, tests=0) if quantized else \
            Imported(lower(graph), os.path.basename(path)).float_graph(tests=0)
    except ONNXImportError as e:
        report.problems = e.problems
        return report
    return _with_figures(report, bst_graph)


def _with_figures(report, graph):
    """`report` with the `.bst` of `graph`, its MACs, arena and board fits."""
    import burn
    from burn.graph import ops as op_table
    from burn.host.bst_writer import encode_bst
    from burn.host.deploy.board_fit import board_fits
    from burn.host.deploy.fit import bst_facts

    report.bst = encode_bst(graph)
    info = burn.load(report.bst).info()
    report.macs, report.arena_bytes = info["macs"], info["arena_bytes"]
    kinds = {op["op"] for op in info["ops"]}
    report.optional = sorted(kinds & set(op_table.OPTIONAL))
    report.control = sorted(kinds & {kind for kind, _names in op_table.CONTROL})
    report.facts = bst_facts(report.bst)
    report.fits = board_fits(report.facts)
    return report
