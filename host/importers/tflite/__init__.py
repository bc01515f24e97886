"""TFLite -> `.bst` graph: `import_tflite(bytes)` returns a `burn.host.bst_writer.Graph`.

int8 models keep TFLite's quantization; the requantization multipliers, shifts and clamps
are computed here exactly as TFLM's Prepare() computes them (`burn.graph.fixedpoint`).
float32 models keep float weights.

Hostile files: everything is checked before the arena is planned, and every failure is one
`TFLiteImportError` line naming the node and the problem. Reference vectors for the file's
self-test come from the TFLM interpreter, run in a child process (`tflm_child`).

The package is layered: `registry` (which converter handles which TFLite op, registered with
`@converts`), the handler modules `ops_*` (one converter per kind of op), then `check` and
the engine `convert` (`build_graph`), and `selftest`; nothing imports a layer above it.
"""

from burn.host.importers import MAX_TESTS
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite.convert import build_graph
from burn.host.importers.tflite.selftest import self_tests
from burn.host.importers.tflite_prune import prune
from burn.host.importers.tflite_read import read_tflite


def import_tflite(data, tests=4, labels=(), metadata=None, progress=None):
    """Convert TFLite bytes into a Graph with `tests` (0 to MAX_TESTS) TFLM reference
    tests. Raises TFLiteImportError (a ValueError), one line naming every unsupported op
    (node index and op name) or the malformed part. `progress(message)` is called as the
    work goes on."""
    say = progress or (lambda message: None)
    if type(tests) is not int or not 0 <= tests <= MAX_TESTS:
        raise TFLiteImportError("tests must be an integer from 0 to %d, got %r"
                                % (MAX_TESTS, tests))
    tf = prune(read_tflite(data))
    say("converting %d ops" % len(tf.ops))
    meta = {"importer": "tflite", "description": tf.description}
    meta.update(metadata or {})
    graph, arena = build_graph(tf, labels, meta)
    if tests:
        graph.tests = self_tests(data, graph, tests, arena, say)
    return graph
