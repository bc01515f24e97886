"""ONNX import: a `.onnx` file to a `burn.nn` model, a Python module (+ weights) that
defines it, or a float32 `.bst` graph traced from that model by the exporter.

    from burn.host.importers.onnx_import import import_onnx
    imported = import_onnx("model.onnx")
    imported.write_python("model.py")           # and model.npz beside it
    model = imported.model()                    # the same module, built in memory
    graph = imported.float_graph(tests=3)       # a burn.host.bst_writer.Graph

Quantized models (QDQ or QLinear ops) become int8 graphs through onnx_qdq.int8_graph.
See docs/import.md."""

import os
import types

import numpy as np

from ..atomic import write_bytes_atomic
from .onnx_codegen import python_source
from .onnx_lower import lower, sample_output
from .onnx_read import MAX_FILE, ONNXImportError, read_onnx


class Imported:
    """A lowered ONNX model: `builder` (see onnx_lower.Builder), `source` (file name),
    `input_shape` (batch first)."""

    def __init__(self, builder, source):
        self.builder = builder
        self.source = source
        self.input_shape = builder.graph.inputs[0][1]

    def code(self, module="model", weights="model.npz"):
        """The generated Python module's text."""
        return python_source(self.builder, module, weights, self.source)

    def write_python(self, path):
        """Write the module to `path` and its weights to the same name with `.npz`, both
        atomically; returns the two paths."""
        base, _ = os.path.splitext(str(path))
        weights = base + ".npz"
        name = os.path.basename(base)
        from io import BytesIO
        buf = BytesIO()
        np.savez(buf, **self.builder.weights)
        write_bytes_atomic(weights, buf.getvalue())
        write_bytes_atomic(str(path), self.code(name, os.path.basename(weights)).encode())
        return str(path), weights

    def model(self, device=None):
        """A fresh model built by running the generated module's code, weights loaded, on
        `device` (default: the default device)."""
        from ..convert import to_tensor
        mod = types.ModuleType("burn_onnx_imported")
        mod.__file__ = "<burn import>"
        exec(compile(self.code(), "<burn import %s>" % ascii(self.source), "exec"),
             mod.__dict__)
        m = mod.Model()
        m.load_state_dict({k: to_tensor(v) for k, v in self.builder.weights.items()})
        return (m.to(device) if device is not None else m).eval()

    def sample_output(self):
        """The outputs the model gave on a zero input while it was imported."""
        return sample_output(self.builder)

    def float_graph(self, tests=3, labels=(), metadata=None):
        """The float32 `.bst` Graph of the model (`burn.host.export.to_float_graph`)."""
        from ..export import ExportError, to_float_graph
        meta = dict(metadata or {}, source=self.source, importer="onnx")
        try:
            return to_float_graph(self.model(), sample_shape=self.input_shape[1:], tests=tests,
                                  labels=labels, metadata=meta)
        except ExportError as e:
            raise ONNXImportError("the imported model does not export to .bst: %s" % e) \
                from None


def read(path):
    """Read and check the ONNX file `path` (an `onnx_read.OnnxGraph`); external data may
    only come from its folder. Raises ONNXImportError (a ValueError) with a one-line
    reason."""
    path = str(path)
    with open(path, "rb") as f:
        data = f.read(MAX_FILE + 1)
    return read_onnx(data, os.path.dirname(os.path.abspath(path)))


def import_onnx(path):
    """Read, check and lower the (float) ONNX file `path`; see `read`."""
    return Imported(lower(read(path)), os.path.basename(str(path)))
