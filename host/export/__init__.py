"""Export a trained `burn.nn` model as a `.bst` file: float32, or int8 after post-training
quantization with a calibration set.

    from burn.host.export import export_bst, quantize
    graph = quantize(model, calibration_images)             # a burn.host.bst_writer.Graph
    export_bst(model, "model.bst", calibration=calibration_images, labels=names)
    export_bst(model, "model_f32.bst", calibration=calibration_images, dtype="float32")

The exported graph is NHWC: a model that takes [N, C, H, W] becomes a graph whose input is
[1, H, W, C] (`nhwc` converts). An int8 graph takes and returns int8 by default
(`quantize_input` gives its input from floats with the scale and zero point of the
graph's input tensor); `io="float32"` puts the (de)quantization inside the model.
See docs/export.md.
"""

import numpy as np

from ..atomic import write_bytes_atomic
from ..bst_writer import encode_bst, runtime_tests
from .calibrate import METHODS, as_batches, observe
from .lower import IO_DTYPES, float_graph, int8_graph, quantize_input
from .qat import QATModel, prepare_qat, qat_parts
from .trace import SUPPORTED, ExportError, trace

DTYPES = ("int8", "float32")


def nhwc(x):
    """[N, C, H, W] (or one [C, H, W] sample) as NHWC; 2-D/1-D arrays are returned as they
    are."""
    x = np.asarray(x)
    if x.ndim == 4:
        return np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    if x.ndim == 3:
        return np.ascontiguousarray(x.transpose(1, 2, 0))
    return x


def graph_input(graph, sample):
    """The graph's input array for one model-layout sample ([C, H, W], [C, L] or
    [features]): NHWC ([1, 1, L, C] for [C, L]), quantized when the graph takes int8."""
    tid, shape = graph.inputs[0]
    t = graph.tensors[tid]
    x = np.asarray(sample, np.float32)
    x = x.T if x.ndim == 2 and len(shape) == 4 else nhwc(x)
    x = np.ascontiguousarray(x).reshape(shape)
    return quantize_input(x, t.scale, t.zero_point) if t.dtype == "int8" else x


def add_reference_tests(graph, samples):
    """Run `samples` (model layout, one per test) through the `.bst` runtime of this very
    graph and store them with the outputs as the file's self-test vectors."""
    graph.tests = runtime_tests(graph, [graph_input(graph, s) for s in samples])
    return graph


def _metadata(model, dtype, extra, method=None, percentile=None, count=0):
    meta = {"exporter": "burn.host.export", "model": type(model).__name__, "dtype": dtype,
            "input_layout": "NHWC"}
    if method is not None:
        meta["calibration"] = method if method == "minmax" else \
            "percentile %g" % percentile
        meta["calibration_samples"] = count
    for key, value in (extra or {}).items():
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise TypeError("metadata %r: values must be strings or numbers, got %s"
                            % (key, type(value).__name__))
        meta[str(key)] = value
    return meta


def _say(progress):
    return progress or (lambda message: None)


def quantize(model, calibration, method="minmax", percentile=99.99, io="int8",
             max_samples=None, tests=3, labels=(), metadata=None, progress=None):
    """Post-training int8 quantization of `model` into a Graph.

    `calibration`: samples in the model's layout, [N, C, H, W] or [N, features] (a numpy
    array, a list of batches, or a DataLoader yielding (inputs, labels)); `method`
    "minmax" or "percentile" (activation ranges from the `percentile` and
    `100 - percentile` percentiles); `io` "int8" or "float32" (the graph's input and
    output dtype); `tests` calibration samples become the file's self-test vectors.
    A QATModel (`prepare_qat`) keeps the ranges its observers froze: the graph is the one
    its eval-mode forward runs."""
    say = _say(progress)
    if method not in METHODS:
        raise ValueError("method must be one of %s, got %r" % (METHODS, method))
    if io not in IO_DTYPES:
        raise ValueError("io must be one of %s, got %r" % (IO_DTYPES, io))
    batches = as_batches(calibration, max_samples)
    qat, model = qat_parts(model, batches[0].shape[1:])
    t = trace(model, batches[0].shape[1:])
    count = sum(len(b) for b in batches)
    if qat is None:
        say("tracing: %d ops; calibrating on %d samples (%s)" % (len(t.layers), count, method))
        ranges = observe(model, t, batches, method, percentile, say)
        meta = _metadata(model, "int8", metadata, method, percentile, count)
    else:
        ranges = qat.ranges
        meta = _metadata(model, "int8", dict(metadata or {}, calibration="qat"))
    graph = int8_graph(t, ranges, io, meta)
    graph.labels = [str(label) for label in labels]
    if tests:
        say("reference outputs of %d samples" % min(tests, count))
        add_reference_tests(graph, np.concatenate(batches)[:tests])
    return graph


def to_float_graph(model, calibration=None, sample_shape=None, tests=3, labels=(),
                   metadata=None):
    """The float32 Graph of `model` (BatchNorm folded, activations fused). The input shape
    comes from `calibration` (whose first samples become the self-test vectors) or from
    `sample_shape` (then the tests use seeded random inputs). A QATModel gives the float
    model it trains."""
    if isinstance(model, QATModel):
        model = model.model
    if calibration is not None:
        samples = np.concatenate(as_batches(calibration, tests or 1))
    elif sample_shape is not None:
        samples = np.random.default_rng(0).standard_normal(
            (max(tests, 1),) + tuple(sample_shape)).astype(np.float32)
    else:
        raise ValueError("to_float_graph: give calibration samples or sample_shape")
    t = trace(model, samples.shape[1:])
    graph = float_graph(t, _metadata(model, "float32", metadata))
    graph.labels = [str(label) for label in labels]
    if tests:
        add_reference_tests(graph, samples[:tests])
    return graph


def export_bst(model, path, calibration=None, dtype="int8", method="minmax",
               percentile=99.99, io="int8", labels=(), metadata=None, max_samples=None,
               tests=3, sample_shape=None, progress=None):
    """Write `model` to the `.bst` file `path` (atomically): int8 (`quantize`, which needs
    `calibration`) or float32 (`to_float_graph`). Returns the Graph written."""
    if dtype not in DTYPES:
        raise ValueError("dtype must be one of %s, got %r" % (DTYPES, dtype))
    if dtype == "int8":
        if calibration is None:
            raise ValueError("int8 export needs calibration samples")
        graph = quantize(model, calibration, method, percentile, io, max_samples, tests,
                         labels, metadata, progress)
    else:
        graph = to_float_graph(model, calibration, sample_shape, tests, labels, metadata)
    data = encode_bst(graph)
    write_bytes_atomic(path, data)
    _say(progress)("wrote %s (%d bytes)" % (path, len(data)))
    return graph


__all__ = ["DTYPES", "IO_DTYPES", "METHODS", "SUPPORTED", "ExportError", "QATModel",
           "add_reference_tests", "export_bst", "float_graph", "graph_input", "int8_graph",
           "nhwc", "prepare_qat", "quantize", "quantize_input", "to_float_graph", "trace"]
