"""flex_plan_run_on (flex.h): a plan with a second core taking part of each large
convolution, depthwise convolution and fully connected step gives the bits of the whole
steps and TFLM's. The other core's part runs before or after this core's (tests/two_cores.py),
so a part that overwrote what the other still reads, an arena output laid over its input
among them, would change the output."""

import numpy as np
import pytest
from mobilenet_model import mobilenet_v1
from reference_models import model_path
from s8_cases import conv_case, fc_case
from two_cores import HostCores

import burn
from burn.cores import free_regions
from burn.host.bst_writer import encode_bst
from burn.host.flex.binding import host
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.plan import Plan
from burn.host.flex.runtime import _Recorder, use_flex
from burn.host.importers.tflite import import_tflite

NONE, ROWS, PIXELS, FEATURES = 0, 1, 2, 3
WHOLE_OP, WHOLE_SMALL, WHOLE_SHAPE, WHOLE_IN_PLACE, WHOLE_BUSY = range(5)
E_CORE, E_STOPPED = -7, -8


def _tflite(name):
    if name == "mobilenet":
        return mobilenet_v1(seed=2)
    with open(model_path(name), "rb") as f:
        return f.read()


@pytest.fixture(scope="module", params=["kws_ref_model.tflite",
                                        "pretrainedResnet_quant.tflite", "mobilenet"])
def planned(request):
    """(model running as a plan, its plan, the input and output views)."""
    model = use_flex(burn.load(encode_bst(import_tflite(_tflite(request.param), tests=0))))
    n = len(model.input_buffer())
    model.run(np.zeros(n, np.int8))
    plan = model.invoke.plan
    assert plan is not None
    return request.param, model, plan


def _run_both(model, plan, x, cores):
    """Outputs of the whole-step run and of the two-core run of plan on input x."""
    arena_in = np.frombuffer(model.input_buffer(), np.int8)
    arena_in[:] = x
    plan.run()
    want = [np.array(o, copy=True) for o in model.outputs()] if isinstance(
        model.outputs(), tuple) else [np.array(model.outputs(), copy=True)]
    arena_in[:] = x
    status, failed = cores.run(plan)
    got = model.outputs()
    got = [np.array(o) for o in got] if isinstance(got, tuple) else [np.array(got)]
    return status, failed, want, got


@pytest.mark.parametrize("order", ["first", "last"])
def test_models_split_across_two_cores_keep_their_bits(planned, order):
    name, model, plan = planned
    rng = np.random.default_rng(len(name))
    cores = HostCores(order=order, spare=2048, min_macs=4096)
    n = len(model.input_buffer())
    for _ in range(3):
        status, _failed, want, got = _run_both(model, plan, rng.integers(-128, 128, n,
                                                                         dtype=np.int8), cores)
        assert status == 0
        assert all(np.array_equal(w, g) for w, g in zip(want, got))
    recs = cores.records(len(plan.names))
    split = [r for r in recs if r[0] != NONE]
    heavy = [k for k, step in enumerate(plan.names)
             if step in ("flex_s8_conv2d", "flex_s8_depthwise_conv2d")]
    assert cores.jobs == 3 * len(split)
    # every convolution of these models splits except ones too small or in place
    for k in heavy:
        assert recs[k][0] in (ROWS, PIXELS) or recs[k][1] in (WHOLE_SMALL, WHOLE_IN_PLACE), k
    assert len(split) >= 0.8 * len(heavy)
    for _how, first, total, head in split:
        assert 0 < first < total and 0 <= head <= total - first
    if name.startswith("kws"):  # its arena lays most outputs over their inputs
        assert sum(1 for r in split if r[3] > 0) >= 6
        assert any(r[0] == PIXELS for r in split) and any(r[0] == ROWS for r in split)


def test_free_regions_hold_no_tensor_live_at_their_step(planned):
    _name, model, plan = planned
    free = free_regions(model)
    assert len(free) == 2 * len(plan.names)
    steps, tensors = model._steps, model.tensors
    outputs = {t for t, _s in model._bst.outputs}
    for k, s in enumerate(steps):
        at, n = free[2 * k], free[2 * k + 1]
        assert 0 <= at and at + n <= len(model._arena["int8"])
        if s.kind not in ("conv2d", "depthwise_conv2d", "fully_connected"):
            assert (at, n) == (0, 0)
            continue
        for t, (shape, dtype, off, *_rest) in enumerate(tensors):
            made = [j for j, o in enumerate(steps) if t in o.outs]
            read = [j for j, o in enumerate(steps) if t in o.ins]
            first = -1 if not made else made[0]
            last = len(steps) if t in outputs else max(read + [first])
            if dtype == "int8" and first <= k <= last and (made or read):
                assert off + int(np.prod(shape)) <= at or at + n <= off, (k, t)


@pytest.mark.parametrize("order", ["first", "last"])
def test_free_arena_regions_let_the_steps_over_their_input_split_near_the_middle(planned,
                                                                                  order):
    """The spare rows that do not fit the 2 KB spare buffer go to the step's free region of
    the arena instead: MobileNet's first convolution (its output laid 102 bytes below its
    input) and its first pointwise one then split near the middle, with the same bits."""
    _name, model, plan = planned
    rng = np.random.default_rng(7)
    cores = HostCores(order=order, spare=2048, min_macs=4096,
                      free=(model._arena["int8"], free_regions(model)))
    n = len(model.input_buffer())
    for _ in range(2):
        status, _failed, want, got = _run_both(model, plan, rng.integers(-128, 128, n,
                                                                         dtype=np.int8), cores)
        assert status == 0 and all(np.array_equal(w, g) for w, g in zip(want, got))
    recs = cores.records(len(plan.names))
    for k, step in enumerate(plan.names):
        if step in ("flex_s8_conv2d", "flex_s8_depthwise_conv2d"):
            how, first, total, _head = recs[k]
            assert how in (ROWS, PIXELS) or first == WHOLE_SMALL, (k, recs[k])
            assert how == NONE or abs(2 * first - total) <= max(2, total // 5), (k, recs[k])


def test_without_a_spare_buffer_steps_over_their_input_run_whole(planned):
    name, model, plan = planned
    cores = HostCores(order="first", spare=0, min_macs=4096)
    n = len(model.input_buffer())
    status, _failed, want, got = _run_both(model, plan, np.arange(n, dtype=np.int64).astype(
        np.int8), cores)
    assert status == 0 and all(np.array_equal(w, g) for w, g in zip(want, got))
    recs = cores.records(len(plan.names))
    assert all(r[3] == 0 for r in recs)
    if name.startswith("kws"):
        assert sum(1 for r in recs if r[:2] == [NONE, WHOLE_IN_PLACE]) >= 6


def test_small_busy_failing_and_stopped_runs(planned):
    _name, model, plan = planned
    n = len(model.input_buffer())
    x = np.full(n, 3, np.int8)
    small = HostCores(min_macs=1 << 30)
    status, _f, want, got = _run_both(model, plan, x, small)
    assert status == 0 and all(np.array_equal(w, g) for w, g in zip(want, got))
    recs = small.records(len(plan.names))
    assert small.jobs == 0
    assert {tuple(r[:2]) for r in recs} <= {(NONE, WHOLE_OP), (NONE, WHOLE_SMALL)}
    busy = HostCores(take=False)
    status, _f, want, got = _run_both(model, plan, x, busy)
    assert status == 0 and all(np.array_equal(w, g) for w, g in zip(want, got))
    assert any(r[:2] == [NONE, WHOLE_BUSY] for r in busy.records(len(plan.names)))
    failing = HostCores(fail=E_CORE)
    status, failed, _w, _g = _run_both(model, plan, x, failing)
    first_split = next(k for k, r in enumerate(failing.records(len(plan.names))) if r[0])
    assert (status, failed) == (E_CORE, first_split)
    stopped = HostCores(stop=True)
    assert stopped.run(plan) == (E_STOPPED, 0)


def _one_step_plan(case):
    """The case's kernel call as a one-step plan, and the output array it writes."""
    lib = host()
    recorder = _Recorder(lib)
    out = case.run(GraphKernels(recorder))
    plan = Plan(lib)
    assert plan.kernel(recorder.prepared[0], recorder.args)
    plan.finish()
    return plan, out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("order", ["first", "last"])
def test_random_layers_split_give_tflm_bits(seed, order):
    """Random windows (strides, dilations, SAME and VALID padding, groups, batches, depth
    multipliers) and fully connected layers, split whatever their size."""
    rng = np.random.default_rng(100 + seed)
    split = 0
    for k in range(40):
        kind = k % 3
        case = conv_case(rng, depthwise=kind == 1) if kind < 2 else fc_case(rng)
        plan, out = _one_step_plan(case)
        assert np.array_equal(out.reshape(-1), case.want), case.name
        out[...] = 0
        cores = HostCores(order=order, spare=256, min_macs=0, steps=1)
        assert cores.run(plan) == (0, -1), case.name
        assert np.array_equal(out.reshape(-1), case.want), (case.name, cores.records(1))
        split += cores.records(1)[0][0] != NONE
    assert split >= 15
