"""Host int8 inference time: flex_c (through cffi, via the .bst runtime) against the
tflite-micro interpreter, LiteRT with its XNNPACK delegate on one thread (`ai-edge-litert`,
optional: pip install ai-edge-litert) and the pure-Python kernels, on the MLPerf Tiny KWS and
ResNet-8 models, on TFLM's person_detect.tflite (MobileNetV1-0.25 on a 96x96x1 image: the
MLPerf Tiny visual wake words architecture with one input channel; taken from the TFLM
checkout at $BURN_TFLM and left out with a note when that is not set), on two models the
TFLite converter makes (tests/tflite_tf_models.py; left out without TensorFlow): MLPerf
Tiny's visual wake words architecture on 96x96x3 and a streaming wake-word detector of
microWakeWord's MixedNet shape, whose ring buffers are int8 resource variables, and on two
stacks of fully connected layers built here (tests/mlp_model.py): the anomaly-detection
autoencoder's shape (640 -> 128 x4 -> 8 -> 128 x4 -> 640) and three 16-unit layers, where
the cost of a call rather than the kernels decides.

    python benchmarks/flex_host.py [--runs 20] [--s8-width 32]

TFLM and flex run in alternating rounds (each round a batch of calls that takes about a
millisecond), so that load on the machine falls on both alike; the figures are the medians
of the rounds. Both sides time one inference through their Python API, input to readable
output: TFLM's `set_input`, `invoke` and `get_output`; burn's `model(x)`, which puts `x`
into its arena and returns its output Tensor ("flex/tflm"). The column "no read" is TFLM
without `get_output` and "flex/no read" the ratio to it, the bound for a caller that leaves
TFLM's outputs unread. LiteRT times `set_tensor`, `invoke` and `get_tensor` in the same
rounds ("flex/litert"; "=tflm": whether its outputs are TFLM's bit for bit, as flex's are,
over four inputs in a row after a reset of each); a model it refuses shows why. Goals: flex
<= 0.3x TFLM's time per inference, and flex <= 1.0x LiteRT's (<= 1.5x on the autoencoder).
The MLPerf Tiny models come from $BURN_MODELS_DIR (benchmarks/model_files.py); the run stops
with status 2 when they are absent. `--s8-width` caps flex's int8 vector paths
(flex_s8_vector_width: 32 keeps an AVX-512 VNNI host on the AVX2 and auto-vectorized paths,
1 on the portable loops).
"""

import argparse
import os
import sys
import time

import numpy as np
from model_files import PERSON_DETECT, require, tflm_model
from tflite_micro.python.tflite_micro import runtime

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.binding import host
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))
import tflite_tf_models
from mlp_model import AD_SIZES, TINY_SIZES, mlp

CASES = [("kws_ref_model.tflite", (1, 49, 10, 1)),
         ("pretrainedResnet_quant.tflite", (1, 32, 32, 3))]
PERSON_SHAPE = (1, 96, 96, 1)
# made by the TFLite converter (tests/tflite_tf_models.py): (name, key, input shape)
CONVERTED = [("wake word, streaming (MixedNet)", "wakeword_stream", (1, 3, 40)),
             ("vww 96x96x3 (MobileNetV1-0.25)", "vww", (1, 96, 96, 3))]
BUILT = [("mlp ad 640-128x4-8-128x4-640", AD_SIZES),
         ("mlp 16-16-16-16", TINY_SIZES)]


def _batch(fn):
    """How many calls of fn() take about a millisecond (at least one)."""
    t = time.perf_counter()
    fn()
    return max(1, int(1e-3 / max(time.perf_counter() - t, 1e-7)))


def alternating_times(fns, runs):
    """Median seconds per call of each of `fns`, timed in `runs` rounds that call each in
    turn a batch of times, after a warm-up call of each."""
    for fn in fns:
        fn()
    batches = [_batch(fn) for fn in fns]
    times = [[] for _ in fns]
    for _ in range(runs):
        for fn, n, out in zip(fns, batches, times):
            t = time.perf_counter()
            for _ in range(n):
                fn()
            out.append((time.perf_counter() - t) / n)
    return [float(np.median(t)) for t in times]


def best_time(fn, runs):
    """Median seconds of `runs` calls of fn() after one warm-up call."""
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def litert_copy(data):
    """`data`, or a copy LiteRT accepts: LiteRT refuses a tensor whose quantized_dimension
    is not below its rank, which TFLM ignores (person_detect's 1-D depthwise biases carry
    their filters' 3); the copy sets those to 0, the biases' only axis."""
    import tflite
    out = bytearray(data)
    graphs = tflite.Model.GetRootAsModel(out, 0)
    for g in range(graphs.SubgraphsLength()):
        sg = graphs.Subgraphs(g)
        for i in range(sg.TensorsLength()):
            t = sg.Tensors(i)
            q = t.Quantization()
            if q is not None and q.QuantizedDimension() >= max(t.ShapeLength(), 1):
                field = q._tab.Offset(16)  # the vtable slot of quantized_dimension
                out[q._tab.Pos + field:q._tab.Pos + field + 4] = bytes(4)
    return bytes(out)


def litert_runner(data, x):
    """(a function running one LiteRT inference of `x` (or of its argument) on one thread
    and returning its output, LiteRT's variable reset) or (None, why LiteRT cannot run the
    model)."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        return None, "not installed (pip install ai-edge-litert)"
    try:
        interp = Interpreter(model_content=litert_copy(data), num_threads=1)
        interp.allocate_tensors()
    except (RuntimeError, ValueError) as exc:
        return None, "refused: " + str(exc).strip().splitlines()[-1][:60]
    i, o = interp.get_input_details()[0]["index"], interp.get_output_details()[0]["index"]

    def run(x=x):
        interp.set_tensor(i, x)
        interp.invoke()
        return interp.get_tensor(o)
    return run, interp.reset_all_variables


def same_outputs(runs, xs):
    """Whether every (run(x), reset) of `runs` gives the first one's outputs for each of
    `xs` in turn, each reset first (a streaming model's state then starts alike)."""
    seen = []
    for run, reset in runs:
        reset()
        seen.append([np.asarray(run(x)).reshape(-1).copy() for x in xs])
    return [all(np.array_equal(a, b) for a, b in zip(s, seen[0])) for s in seen[1:]]


def measure(data, shape, runs):
    """(tflm s, tflm s without reading the output, flex s, pure s, flex outputs equal
    TFLM's, LiteRT s or None, LiteRT outputs equal TFLM's or why it did not run) for one
    model; outputs are compared over four inputs in a row, after a reset of each."""
    rng = np.random.default_rng(0)
    xs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(4)]
    x = xs[0]
    interp = runtime.Interpreter.from_bytes(data)

    def tflm_invoke(x=x):
        interp.set_input(x, 0)  # TFLM's arena reuses the input tensor: set it each time
        interp.invoke()

    def tflm_run(x=x):
        tflm_invoke(x)
        return interp.get_output(0)  # model(x) returns the outputs: TFLM's are read too

    bst = encode_bst(import_tflite(data, tests=0))
    flat = x.reshape(-1)
    flex_model = use_flex(burn.load(bst))
    litert, reset_or_why = litert_runner(data, x)
    fns = [tflm_run, tflm_invoke, lambda: flex_model(flat)] + ([litert] if litert else [])
    times = alternating_times(fns, runs)
    tflm, no_read, flex = times[:3]
    pure_model = burn.load(bst)
    pure = best_time(lambda: pure_model(flat), 2)
    checks = [(tflm_run, interp.reset),
              (lambda x: flex_model(x.reshape(-1)).tolist(), flex_model.reset)]
    same = same_outputs(checks + ([(litert, reset_or_why)] if litert else []), xs)
    if litert:
        return tflm, no_read, flex, pure, same[0], times[3], same[1]
    return tflm, no_read, flex, pure, same[0], None, reset_or_why


def vector_width_line(width):
    """The line saying which int8 paths flex runs, from flex_s8_vector_width's answer (0:
    none of the vector paths, the portable loops)."""
    if width:
        return "flex int8 vector width: %d bytes" % width
    return "flex int8 vector width: none (the portable loops)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--s8-width", type=int, default=0,
                        help="cap flex's int8 vector width in bytes (64, 32, 1; 0: the CPU's)")
    args = parser.parse_args()
    paths = require([name for name, _shape in CASES])
    print(vector_width_line(host().lib.flex_s8_vector_width(args.s8_width)))
    models = [(name, path.read_bytes(), shape) for (name, shape), path in zip(CASES, paths)]
    notes = []
    person, why = tflm_model(PERSON_DETECT)
    if person:
        models.append(("person_detect (VWW class)", person.read_bytes(), PERSON_SHAPE))
    else:
        notes.append("person_detect left out: " + why)
    made = tflite_tf_models.models()
    if made:
        models += [(name, made[key], shape) for name, key, shape in CONVERTED]
    else:
        notes.append("the converter-made models left out: TensorFlow is not installed "
                     "(pip install tensorflow-cpu)")
    models += [(name, mlp(sizes), (1, sizes[0])) for name, sizes in BUILT]
    print("%-30s %9s %9s %9s %9s %8s %9s %9s %11s %6s" % (
        "model", "tflm us", "no read", "flex us", "pure ms", "flex/tfl", "flex/nord",
        "litert us", "flex/litert", "=tflm"))
    for name, data, shape in models:
        tflm, no_read, flex, pure, same, litert, lsame = measure(data, shape, args.runs)
        lite = ("%9.2f %11.2f %6s" % (litert * 1e6, flex / litert, "yes" if lsame else "NO")
                if litert else "%9s %11s %6s" % ("-", "-", "-"))
        if not litert:
            notes.append("%s: LiteRT %s" % (name, lsame))
        print("%-30s %9.2f %9.2f %9.2f %9.1f %8.2f %9.2f %s%s" % (
            name[:30], tflm * 1e6, no_read * 1e6, flex * 1e6, pure * 1e3, flex / tflm,
            flex / no_read, lite, "" if same else "  FLEX OUTPUTS DIFFER"))
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
