"""TFLite BATCH_MATMUL imports as the optional batch_matmul kind (a second operand that is an
activation or a constant, adj_x / adj_y, batch dims equal or one operand broadcast; other
broadcasts dim by dim through a strided copy): bit for bit with TFLM on the plain kernels,
the flex C kernels (host, and built for the Cortex-M0+ run in unicorn) and the viper kernels
(MicroPython unix port); int16 (zero points 0, as TFLM's) bit for bit on the plain and flex
kernels; float32 within 1e-5 of TFLM."""

import copy

import numpy as np
import pytest
from mp_models import run_models
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.export.int8_numpy import run_int8
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 60  # a third with a constant b: 40 products of two activations


def _f32(v):
    return float(np.float32(v))


def _model(ls, rs, out, dtype="int8", adj=(False, False), const_b=None, q=None):
    """A one-op BATCH_MATMUL model of operands of shapes `ls` and `rs` (rs constant when
    `const_b` is given)."""
    mb = ModelBuilder()
    q = q or ((0.05, 3), (0.04, -2), (0.3, 5))
    qq = [{} if dtype == "float32" else {"scale": s, "zero_point": z} for s, z in q]
    x = mb.tensor("x", ls, dtype, **qq[0])
    y = mb.tensor("y", rs, dtype, data=const_b, **qq[1])
    z = mb.tensor("z", out, dtype, **qq[2])
    mb.op("BATCH_MATMUL", [x, y], [z], "BatchMatMulOptions", AdjX=adj[0], AdjY=adj[1])
    return mb.finish([x] if const_b is not None else [x, y], [z])


def _batch_dims(rng):
    """(batch, lhs batch dims, rhs batch dims): equal, or one side all ones."""
    batch = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    lb, rb = batch, batch
    if batch and rng.integers(0, 3) == 0:  # one operand broadcast to every product
        if rng.integers(0, 2):
            lb = (1,) * int(rng.integers(0, len(batch) + 1))
        else:
            rb = (1,) * int(rng.integers(0, len(batch) + 1))
    return batch, lb, rb


def _partial_dims(rng):
    """(batch, lhs batch dims, rhs batch dims) broadcast dim by dim: each side has a 1
    where the other has more, and more than one batch (lhs may have fewer dims)."""
    while True:
        batch = tuple(int(d) for d in rng.integers(2, 4, size=int(rng.integers(2, 4))))
        side = rng.integers(0, 3, size=len(batch))  # 0: both, 1: lhs only, 2: rhs only
        lb = tuple(d if s != 2 else 1 for d, s in zip(batch, side))
        rb = tuple(d if s != 1 else 1 for d, s in zip(batch, side))
        if 1 in side and 2 in side:
            break
    if lb[0] == 1 and rng.integers(0, 2):
        lb = lb[1:]
    return batch, lb, rb


def _case(rng, dtype, const, dims=_batch_dims):
    m, k, n = (int(v) for v in rng.integers(1, 6, size=3))
    batch, lb, rb = dims(rng)
    adj = (bool(rng.integers(0, 2)), bool(rng.integers(0, 2)))
    ls = lb + ((k, m) if adj[0] else (m, k))
    rs = rb + ((n, k) if adj[1] else (k, n))
    if dtype == "float32":
        make = lambda s: (rng.standard_normal(s) * 2).astype(np.float32)  # noqa: E731
        q = None
    elif dtype == "int16":  # zero points 0; sums of up to 5 products of 2**15 x 2**15
        make = lambda s: rng.integers(-32768, 32768, size=s).astype(np.int16)  # noqa: E731
        sa, sb = _f32(rng.uniform(1e-4, 1e-3)), _f32(rng.uniform(1e-4, 1e-3))
        q = ((sa, 0), (sb, 0), (_f32(sa * sb * rng.uniform(3000, 30000) * np.sqrt(k)), 0))
    else:
        make = lambda s: rng.integers(-128, 128, size=s, dtype=np.int8)  # noqa: E731
        sa, sb = _f32(rng.uniform(0.01, 0.1)), _f32(rng.uniform(0.01, 0.1))
        q = ((sa, int(rng.integers(-128, 128))), (sb, int(rng.integers(-128, 128))),
             (_f32(sa * sb * rng.uniform(20, 80) * np.sqrt(k)), int(rng.integers(-128, 128))))
    x, y = make(ls), make(rs)
    data = _model(ls, rs, batch + (m, n), dtype, adj, y if const else None, q)
    ins = [x] if const else [x, y]
    return data, ins


def _cases(dtype, seed):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(CASES):
        data, ins = _case(rng, dtype, const=i % 3 == 0)
        want = run_tflm(data, ins, arena_size=1 << 16)[0].reshape(-1)
        graph = import_tflite(data, tests=0)
        out.append((ins, want, encode_bst(graph), graph))
    return out


def _flat(ins):
    flat = [x.reshape(-1) for x in ins]
    return flat[0] if len(flat) == 1 else flat


@pytest.fixture(scope="module")
def int8_cases():
    """(inputs, TFLM's output, .bst bytes) of 60 int8 cases (a third with a constant b)."""
    return _cases("int8", 191)


def test_int8_batch_matmul_matches_tflm_on_plain_and_flex(int8_cases):
    m0 = EmulatedLib("cortex-m0plus")
    for ins, want, bst, _graph in int8_cases:
        plain = burn.load(bst, variant="plain")
        assert [s["op"] for s in plain.info()["ops"]] == ["batch_matmul"]
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        assert flex.flex_ops == emulated.flex_ops == 1
        for model in (plain, flex, emulated):
            got = np.array(model.run(_flat(ins))).reshape(-1)
            assert got.tolist() == want.tolist(), [x.shape for x in ins]


def test_int8_numpy_emulation_matches_tflm(int8_cases):
    """The exporter's batch emulation (quantization-aware training's eval forward) on the
    cases with a constant b (one input)."""
    single = [(ins, want, graph) for ins, want, _bst, graph in int8_cases if len(ins) == 1]
    assert len(single) == 20
    for ins, want, graph in single:
        graph = copy.deepcopy(graph)
        # the emulation runs a batch of samples along a first axis the TFLite shapes lack
        for t in graph.tensors:
            t.shape = (1,) + t.shape
        graph.inputs = [(t, (1,) + tuple(shape)) for t, shape in graph.inputs]
        graph.outputs = [(t, (1,) + tuple(shape)) for t, shape in graph.outputs]
        got = run_int8(graph, ins[0][None])
        assert got.reshape(-1).tolist() == want.tolist()


def test_int8_batch_matmul_matches_tflm_on_viper(int8_cases, tmp_path):
    results = run_models(tmp_path, [(bst, [ins]) for ins, _want, bst, _graph in int8_cases])
    for (_ins, want, _bst, _graph), result in zip(int8_cases, results):
        assert result.runtimes == ["viper"], result.runtimes
        assert result.outputs[0][0] == want.tolist()


def test_float_batch_matmul_matches_tflm(tmp_path):
    """60 float32 cases within 1e-5 of TFLM: plain, flex host, flex Cortex-M0+ and
    MicroPython."""
    cases = [("case %d %s" % (i, [x.shape for x in ins]), ins[0] if len(ins) == 1 else ins,
              want, bst) for i, (ins, want, bst, _g) in enumerate(_cases("float32", 192))]
    check_on_host(cases, "batch_matmul", atol=1e-5)
    check_on_micropython(cases, tmp_path, atol=1e-5)


def test_int16_batch_matmul_matches_tflm(tmp_path):
    """60 int16 cases (a third with a constant b) bit for bit: plain, flex host, flex
    Cortex-M0+ and the MicroPython unix port (plain kernel)."""
    cases = [("case %d %s" % (i, [x.shape for x in ins]), ins[0] if len(ins) == 1 else ins,
              want, bst) for i, (ins, want, bst, _g) in enumerate(_cases("int16", 195))]
    check_on_host(cases, "batch_matmul")
    check_on_micropython(cases, tmp_path)


@pytest.mark.parametrize("dtype,seed", [("int8", 193), ("float32", 194)])
def test_batch_dims_broadcast_dim_by_dim_match_tflm(dtype, seed, tmp_path):
    """12 cases per dtype whose operands each broadcast along some batch dims (a strided
    copy gives the op every batch of an activation; a constant b is expanded at import):
    plain, flex host, flex Cortex-M0+ and MicroPython against TFLM."""
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(12):
        data, ins = _case(rng, dtype, const=i % 4 == 0, dims=_partial_dims)
        want = run_tflm(data, ins, arena_size=1 << 17)[0].reshape(-1)
        cases.append(("case %d %s" % (i, [x.shape for x in ins]), ins if len(ins) > 1
                      else ins[0], want, encode_bst(import_tflite(data, tests=0))))
    check_on_host(cases, ("strided", "batch_matmul"), atol=1e-5)
    check_on_micropython(cases, tmp_path, atol=1e-5)


@pytest.mark.parametrize("ls,rs,out,match", [
    ((2, 3), (4, 5), (2, 5), "inner dimensions 3 and 4 differ"),
    ((2, 2, 3), (3, 3, 4), (2, 2, 4), "do not broadcast"),
    ((2, 1, 2, 3), (1, 3, 3, 4), (2, 3, 2, 5), r"output \(2, 3, 2, 5\) is not"),
    ((3,), (3, 4), (4,), "2 to 5"),
])
def test_what_cannot_run_is_refused_at_import(ls, rs, out, match):
    with pytest.raises(TFLiteImportError, match=match):
        import_tflite(_model(ls, rs, out, "float32"), tests=0)


def test_int16_zero_points_are_refused_as_by_tflm():
    data = _model((2, 3), (3, 4), (2, 4), "int16", q=((0.001, 2), (0.001, 0), (0.01, 0)))
    with pytest.raises(TFLiteImportError, match="int16 zero points 2, 0, 0"):
        import_tflite(data, tests=0)
    with pytest.raises(RuntimeError):
        run_tflm(data, [np.zeros((2, 3), np.int16), np.zeros((3, 4), np.int16)])


@pytest.mark.parametrize("params,match", [
    ({"k": 4, "a_step": 8, "b_step": 8}, "tensor sizes do not match"),
    ({"a_step": 3}, "a_step 3"),
    ({"adj_x": 2}, "adj_x"),
    ({"shift": -40}, "shift"),
    ({"k": 1 << 16, "m": 1, "n": 1}, "k"),
])
def test_hostile_batch_matmul_parameters_are_refused_by_the_reader(params, match):
    tensors = [GraphTensor("a", (2, 2, 3), "int8", 0.05, 0),
               GraphTensor("b", (2, 3, 2), "int8", 0.05, 0),
               GraphTensor("y", (2, 2, 2), "int8", 0.05, 0)]
    base = dict({"batches": 2, "m": 2, "k": 3, "n": 2, "a_step": 6, "b_step": 6, "adj_x": 0,
                 "adj_y": 0, "a_zp": 0, "b_zp": 0, "out_zp": 0, "mult": 1 << 30, "shift": 0},
                **params)
    bst = encode_bst(Graph(tensors, [GraphOp("batch_matmul", [0, 1], [2], params=base)],
                           [(0, (2, 2, 3)), (1, (2, 3, 2))], [(2, (2, 2, 2))]))
    with pytest.raises(ValueError, match=match):
        burn.load(bst)
