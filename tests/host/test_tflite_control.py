"""IF, WHILE, CALL_ONCE and resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE):
models made by the TensorFlow Lite converter (tests/tflite_tf_models.py) import and run bit
for bit with the tflite-micro interpreter over consecutive inferences and after a reset, on
the plain kernels and with flex on the host; bad control flow is a clear error at import or
at load (burn.graph.control, burn.host.importers.tflite_control)."""

import numpy as np
import pytest
import tflite_tf_models
from bst_mutants import header_of, with_header

import burn
from burn.host.bst_writer import encode_bst
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

STEPS = 6  # inferences in a row, then a reset (both sides), then RESTEPS more
RESTEPS = 3


@pytest.fixture(scope="module")
def models():
    found = tflite_tf_models.models()
    if found is None:
        pytest.skip("TensorFlow is not installed (the tensorflow-cpu of the dev extra)")
    return found


def _input(rng, det):
    """Seeded values for one input: normal float32, bool, integers in [-100, 100) within the
    range of int8, uint8 and int32, and anywhere in that of int64 and uint32."""
    dtype, shape = det["dtype"], det["shape"]
    if dtype == np.float32:
        return rng.standard_normal(shape).astype(np.float32)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    if info.bits > 8 and dtype != np.int32:
        return rng.integers(info.min, info.max, shape, dtype, endpoint=True)
    return rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(dtype)


def _inputs(data, count, seed):
    """`count` sets of inputs, a list of one array per model input each."""
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_bytes(data, arena_size=1 << 16)
    dets = [interp.get_input_details(k) for k in range(_count_inputs(interp))]
    rng = np.random.default_rng(seed)
    return [[_input(rng, det) for det in dets] for _ in range(count)]


def _count_inputs(interp):
    k = 0
    while True:
        try:
            interp.get_input_details(k)
        except IndexError:
            return k
        k += 1


def _tflm(data, xs, outputs):
    """TFLM's outputs for each input set, one interpreter, reset (TFLM's Reset()) before
    set STEPS."""
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_bytes(data, arena_size=1 << 16)
    got = []
    for i, x in enumerate(xs):
        if i == STEPS:
            interp.reset()
        for k, a in enumerate(x):
            interp.set_input(a, k)
        interp.invoke()
        got.append([np.array(interp.get_output(k)).reshape(-1) for k in range(outputs)])
    return got


def _burn(model, xs):
    got = []
    for i, x in enumerate(xs):
        if i == STEPS:
            model.reset()
        x = [a.astype(np.int8) if a.dtype == np.bool_ else a for a in x]  # BOOL: int8 0/1
        out = model.run(x if len(x) > 1 else x[0])
        got.append([np.array(o).reshape(-1) for o in (out if isinstance(out, tuple)
                                                      else (out,))])
    return got


def _same(got, want):
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            b = b.astype(np.int8) if b.dtype == np.bool_ else b
            assert a.dtype == b.dtype and np.array_equal(a, b), (a, b)


@pytest.mark.parametrize("name", tflite_tf_models.STATEFUL)
def test_converter_models_match_tflm_over_consecutive_inferences(models, name):
    data = models[name]
    graph = import_tflite(data, tests=4)
    bst = encode_bst(graph)
    kinds = {op.op for op in graph.all_ops()}
    assert {"call_once", "read_variable", "assign_variable"} <= kinds
    if name == "stream":
        assert {"if", "while"} <= kinds and len(graph.variables) == 3
        assert {v.dtype for v in graph.variables} == {"float32", "int32", "int8"}
    if name.startswith("plain_"):  # a variable, IF and WHILE of int64, uint8 or uint32 data
        assert {"if", "while"} <= kinds and [v.dtype for v in graph.variables] == [name[6:]]
    xs = _inputs(data, STEPS + RESTEPS, 3)
    want = _tflm(data, xs, len(graph.outputs))
    plain = burn.load(bst, variant="plain")
    assert plain.self_test() == 4  # TFLM's references, from a fresh interpreter
    plain.reset(init=True)
    _same(_burn(plain, xs), want)
    # flex on the host: the main graph's int8 and float kernels in C, control in Python
    from burn.host.flex.runtime import use_flex

    flex = use_flex(burn.load(bst))
    _same(_burn(flex, xs), want)
    if name == "wakeword_stream":  # no IF or WHILE: one plan, CALL_ONCE left out of it
        assert flex.invoke.plan is not None
    # a reset that re-arms CALL_ONCE gives the first inferences again
    for model in (plain, flex):
        model.reset(init=True)
        _same(_burn(model, xs[:2]), want[:2])


def test_tflms_reset_keeps_call_once_done(models):
    """TFLM's Reset() sets each variable to its rest value (0 here) and does not run the
    init subgraph again: the counter starts at 7 - 2 0 once, at 0 after a reset; burn's
    Model.reset() does the same, reset(init=True) starts over."""
    data = models["counter"]
    model = burn.load(encode_bst(import_tflite(data, tests=0)))
    x = np.array([1, 1, 1], np.int32)
    assert list(model.run(x)) == [8, -1, 1] and list(model.run(x)) == [9, 0, 2]
    model.reset()
    assert list(model.run(x)) == [1, 1, 1]
    model.reset(init=True)
    assert list(model.run(x)) == [8, -1, 1]
    assert _tflm(data, [[x]] * (STEPS + 1), 1)[STEPS][0].tolist() == [1, 1, 1]


def _mutated(data, change):
    """`data` changed through the flatbuffer object API of tflite-micro's schema."""
    import flatbuffers
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))
    change(model, schema)
    b = flatbuffers.Builder(1024)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def _op(model, schema, name, sub=0):
    code = getattr(schema.BuiltinOperator, name)
    for op in model.subgraphs[sub].operators:
        if max(model.operatorCodes[op.opcodeIndex].builtinCode,
               model.operatorCodes[op.opcodeIndex].deprecatedBuiltinCode) == code:
            return op
    raise AssertionError(name)


def test_bad_calls_and_variables_are_refused_at_import(models):
    data = models["stream"]

    def missing(model, schema):
        _op(model, schema, "IF").builtinOptions.thenSubgraphIndex = 42

    def cycle(model, schema):
        _op(model, schema, "CALL_ONCE").builtinOptions.initSubgraphIndex = 0

    def body_cycle(model, schema):  # the cond subgraph runs the WHILE's own body... itself
        loop = _op(model, schema, "WHILE").builtinOptions
        sub = model.subgraphs[loop.condSubgraphIndex]
        once = schema.OperatorT()
        once.opcodeIndex = _op(model, schema, "CALL_ONCE").opcodeIndex
        once.builtinOptionsType = schema.BuiltinOptions.CallOnceOptions
        once.builtinOptions = schema.CallOnceOptionsT()
        once.builtinOptions.initSubgraphIndex = loop.condSubgraphIndex
        once.inputs, once.outputs = [], []
        sub.operators.insert(0, once)

    def unwritten(model, schema):  # READ_VARIABLE of a variable no op assigns
        main = model.subgraphs[0]
        handle = _op(model, schema, "VAR_HANDLE")
        t = schema.TensorT()
        t.shape, t.type, t.buffer, t.name = [], schema.TensorType.RESOURCE, 0, b"nobody"
        main.tensors.append(t)
        op = schema.OperatorT()
        op.opcodeIndex = handle.opcodeIndex
        op.builtinOptionsType = schema.BuiltinOptions.VarHandleOptions
        op.builtinOptions = schema.VarHandleOptionsT()
        op.builtinOptions.sharedName = b"nobody"
        op.inputs, op.outputs = [], [len(main.tensors) - 1]
        main.operators.insert(1, op)
        _op(model, schema, "READ_VARIABLE").inputs = [len(main.tensors) - 1]

    def wrong_type(model, schema):  # IF's branch input of another type than its operand
        branch = _op(model, schema, "IF").builtinOptions.thenSubgraphIndex
        sub = model.subgraphs[branch]
        sub.tensors[sub.inputs[0]].type = schema.TensorType.INT32

    for change, pattern in ((missing, r"node \d+ \(IF\): ThenSubgraphIndex 42: no such "
                                      r"subgraph \(the model has 6\)"),
                            (cycle, r"node 0 \(CALL_ONCE\): subgraph cycle subgraph 0 -> "
                                    r"subgraph 0"),
                            (body_cycle, r"\(CALL_ONCE\): subgraph cycle subgraph \d -> "
                                         r"subgraph \d"),
                            (unwritten, r"node \d+ \(READ_VARIABLE\): variable 'nobody' is "
                                        r"read but never assigned"),
                            (wrong_type, r"node \d+ \(IF\): operand 1: float32 \[1, 8\] into "
                                         r"int32 \[1, 8\]")):
        with pytest.raises(TFLiteImportError, match=pattern):
            import_tflite(_mutated(data, change), tests=0)


def test_bad_subgraphs_and_variables_are_refused_at_load(models):
    """A hostile .bst: a missing subgraph, a cycle, a variable never written, a subgraph's
    tensor over a tensor its caller still needs: ValueErrors at load, before anything runs."""
    bst = encode_bst(import_tflite(models["stream"], tests=0))
    burn.load(bst)
    header = header_of(bytearray(bst))
    call = next(op for op in header["ops"] if op["op"] == "call_once")

    def refused(change, pattern):
        h = header_of(bytearray(bst))
        change(h)
        with pytest.raises(ValueError, match=pattern):
            burn.load(with_header(bytearray(bst), h))

    refused(lambda h: h["ops"][header["ops"].index(call)]["params"].update(graph=99),
            r"op 0 \(call_once\): graph subgraph 99 does not exist \(the file has 5\)")
    loop = next(i for i, op in enumerate(header["ops"]) if op["op"] == "while")
    body = header["ops"][loop]["params"]["body"]

    def cycle(h):  # the body runs the WHILE again
        h["subgraphs"][body]["ops"].append({"op": "call_once", "in": [], "out": [],
                                            "params": {"graph": body}})
    refused(cycle, r"subgraph cycle: subgraph %d -> subgraph %d" % (body, body))

    def unwritten(h):
        for g in [h] + h["subgraphs"]:
            g["ops"] = [op for op in g["ops"] if not (op["op"] == "assign_variable" and
                                                      op["params"]["var"] == 0)]
    refused(unwritten, r"variable 0 \(Variable_2\) is never assigned")

    def overlap(h):  # a body tensor moved onto the WHILE's output, alive at the call
        out = h["ops"][loop]["out"][-1]
        mine = h["subgraphs"][body]["ops"][-1]["out"][0]
        h["tensors"][mine]["arena"] = h["tensors"][out]["arena"]
    refused(overlap, r"op %d \(while\): tensor \d+ of a subgraph it runs overlaps tensor "
                     r"\d+, alive at the op" % loop)


def test_list_ops_counts_the_control_pairs():
    from burn.host.importers.op_coverage import pair_coverage

    rows = {r.name: r for r in pair_coverage()}
    for op in ("IF", "WHILE", "READ_VARIABLE", "ASSIGN_VARIABLE"):
        assert len(rows[op].covered) == 8 and rows[op].missing == ()
        assert {t for pair in rows[op].covered for t in pair} >= {"int64", "uint8", "uint32"}
    assert rows["CALL_ONCE"].missing == () and rows["VAR_HANDLE"].missing == ()


def test_the_check_names_the_firmware_that_runs_control_flow(models, tmp_path, capsys):
    """A default burn firmware leaves burn.graph.control out: `burn import --check` says
    which build runs such a model."""
    from burn.host.cli import main

    path = tmp_path / "stream.tflite"
    path.write_bytes(models["stream"])
    assert main(["import", "--check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "build one with `burn firmware build --ops-from MODEL.bst`" in out
    assert "if" in out.split("control flow and variables (")[1]
    # a model needing an optional kernel too: one line names both
    path.write_bytes(models["wakeword_stream"])
    assert main(["import", "--check", str(path)]) == 0
    placement = [line for line in capsys.readouterr().out.splitlines()
                 if line.startswith("ROMFS placement")]
    assert len(placement) == 1
    assert "the kernels of " in placement[0] and " and control flow and variables (" in \
        placement[0]
