"""The registry of the float ONNX lowering: `lowers` registers a handler (onnx_ops,
onnx_ops_math, onnx_resize) in LOWERED, and `Var` is the computed value the handlers and
the engine (`onnx_lower.Builder`) pass between them."""

LOWERED = {}  # ONNX op -> handler(builder, node)
QDQ_OPS = ("QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul")


def lowers(*ops):
    """Register a handler for the ONNX `ops`."""
    def register(fn):
        for op in ops:
            LOWERED[op] = fn
        return fn
    return register


class Var:
    """A computed value: its Python name and its tensor on the sample input."""

    def __init__(self, name, tensor):
        self.name = name
        self.tensor = tensor

    @property
    def shape(self):
        """The value's shape on the sample input (batch 1)."""
        return tuple(self.tensor.shape)
