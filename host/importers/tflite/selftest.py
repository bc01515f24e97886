"""The self-test vectors of an imported model: seeded random inputs, and the outputs the
TFLM interpreter gives for them, run in a child process (`tflm_child`)."""

import numpy as np

from burn.bst import PLAIN_INTS
from burn.host.bst_writer import runtime_tests
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflm_child import TFLMError, run_tflm


def _rows(graph, tid):
    """How many rows int32 input `tid` may pick: the smallest table of the gather ops that
    take it as positions (1 when none does)."""
    return min([op.params["size"] for op in graph.ops
                if op.op == "gather" and op.inputs[-1] == tid], default=1)


def random_inputs(graph, count, seed=0):
    """`count` seeded random input sets: one array per graph input, in its dtype (int32
    positions within the tables they index; int64, uint8 and uint32 anywhere)."""
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(count):
        ins = []
        for tid, shape in graph.inputs:
            if graph.tensors[tid].is_bool:
                ins.append(rng.integers(0, 2, size=shape, dtype=np.int8))
            elif graph.tensors[tid].dtype == "int8":
                ins.append(rng.integers(-128, 128, size=shape, dtype=np.int8))
            elif graph.tensors[tid].dtype == "int16":
                ins.append(rng.integers(-32768, 32768, size=shape, dtype=np.int16))
            elif graph.tensors[tid].dtype == "int32":
                ins.append(rng.integers(0, _rows(graph, tid), size=shape, dtype=np.int32))
            elif graph.tensors[tid].dtype in PLAIN_INTS:  # over the whole range
                info = np.iinfo(graph.tensors[tid].dtype)
                ins.append(rng.integers(info.min, info.max, size=shape, dtype=info.dtype,
                                        endpoint=True))
            else:
                ins.append(rng.standard_normal(shape).astype(np.float32))
        sets.append(ins)
    return sets


def reference_tests(data, graph, count, arena, seed=0):
    """Run `count` random input sets through TFLM (in a child process, its arena starting
    at `arena` bytes); returns ([(ins, outs)], one line of TFLM's stderr or ''). Raises
    TFLMError."""
    sets = random_inputs(graph, count, seed)
    outs, noise = run_tflm(data, sets, len(graph.outputs), arena)
    shapes = [shape for _t, shape in graph.outputs]
    tests = [(ins, [np.asarray(o).reshape(s) for o, s in zip(out, shapes)])
             for ins, out in zip(sets, outs)]
    return tests, noise


def _tflm_arena(graph, arena):
    """Where TFLM's arena starts: burn's planned arena, doubled, plus room for TFLM's own
    per-tensor and per-op records (it doubles from there when that is too small)."""
    return 2 * sum(arena.values()) + 256 * (len(graph.tensors) + len(graph.ops)) + (16 << 10)


def self_tests(data, graph, count, arena, say):
    """TFLM's reference tests, or burn's runtime's when TFLM refuses the model cleanly."""
    say("running TFLM for %d reference tests (in a child process)" % count)
    try:
        tests, noise = reference_tests(data, graph, count, _tflm_arena(graph, arena))
    except TFLMError as e:
        if not e.refused:
            raise TFLiteImportError("%s; --tests 0 imports without TFLM" % e) from e
        # TFLM refuses some valid TFLite models (hybrid ones: float ops with int8
        # weights); their self-test vectors then come from burn's own runtime.
        say("%s; reference tests come from burn's runtime" % e)
        return runtime_tests(graph, random_inputs(graph, count))
    if noise:
        say(noise)
    return tests
