"""Read and check an ONNX model before any conversion: the protobuf, the opset, external
data, shapes, the graph's order (cycles), then dead-node removal.

Everything a hostile file could use to crash, hang or exhaust memory is bounded here, before
a tensor is allocated: the file size, the node count, every initializer's dims and element
count, external data locations (which must stay inside the model's folder). The result is an
`OnnxGraph` whose nodes are in execution order and all reach an output.
"""

import os

import numpy as np

MIN_OPSET, MAX_OPSET = 13, 21
MAX_FILE = 512 << 20       # bytes of protobuf (external data not included)
MAX_NODES = 4096
MAX_DIM = 1 << 24
MAX_ELEMENTS = 1 << 26     # of any one constant (256 MiB of float32)
MAX_ACTIVATION = 1 << 22   # elements of any computed value at batch 1 (16 MiB of float32)


class ONNXImportError(ValueError):
    """An ONNX model that cannot be imported: malformed, hostile or unsupported. The message
    is one line naming the node (index, op and name) or tensor and the problem; where
    several nodes fail, `problems` holds one line for each."""

    def __init__(self, message, problems=()):
        super().__init__(message)
        self.problems = list(problems) or [message]


class Node:
    """One ONNX node: `index` in the file, `op`, `name`, `inputs`/`outputs` (value names,
    "" for an absent optional input) and `attrs` (plain Python values)."""

    def __init__(self, index, op, name, inputs, outputs, attrs):
        self.index = index
        self.op = op
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs

    def where(self):
        """'node 3 (Conv "conv1")' for error messages."""
        return "node %d (%s %s)" % (self.index, self.op, ascii(self.name))


class OnnxGraph:
    """A checked graph: `inputs` [(name, shape)], `outputs` [names], `constants`
    {name: numpy array}, `nodes` in execution order, `opset`."""

    def __init__(self, inputs, outputs, constants, nodes, opset):
        self.inputs = inputs
        self.outputs = outputs
        self.constants = constants
        self.nodes = nodes
        self.opset = opset


def _s(value):
    """A protobuf string field as str (invalid UTF-8 comes back as bytes)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def check_dims(what, dims, limit=MAX_ELEMENTS):
    """The dims as ints, refused (before anything is allocated) when a dim is negative or
    above MAX_DIM or the element count above `limit`."""
    dims = [int(d) for d in dims]
    count = 1
    for d in dims:
        if not 0 <= d <= MAX_DIM:
            raise ONNXImportError("%s: dim %d is out of range [0, %d]" % (what, d, MAX_DIM))
        count *= d
        if count > limit:
            raise ONNXImportError("%s: shape %s has more than %d elements"
                                  % (what, dims, limit))
    return dims


def _parse(data):
    try:
        import onnx
    except ImportError:
        raise ONNXImportError("reading ONNX needs the onnx package: pip install "
                              "'onnx>=1.16' (part of burn's host extra)") from None
    if len(data) > MAX_FILE:
        raise ONNXImportError("the file is larger than %d bytes" % MAX_FILE)
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as e:  # protobuf's DecodeError and whatever its C parser raises
        raise ONNXImportError("malformed ONNX protobuf: %s" % e) from None
    if not model.HasField("graph") or not model.graph.output:
        raise ONNXImportError("malformed ONNX model: no graph or no graph output")
    return model


def _opset(model):
    versions = [o.version for o in model.opset_import if _s(o.domain) in ("", "ai.onnx")]
    if not versions:
        raise ONNXImportError("the model imports no version of the default ONNX opset")
    v = int(versions[0])
    if not MIN_OPSET <= v <= MAX_OPSET:
        raise ONNXImportError("opset %d is not supported (%d to %d are)"
                              % (v, MIN_OPSET, MAX_OPSET))
    return v


def _external_path(tensor, folder):
    """The file of an external tensor, refused unless it is inside `folder`."""
    entries = {_s(e.key): _s(e.value) for e in tensor.external_data}
    location = entries.get("location", "")
    if not location or folder is None:
        raise ONNXImportError("tensor %s: external data needs the model's folder and a "
                              "location" % ascii(tensor.name))
    base = os.path.realpath(folder)
    path = os.path.realpath(os.path.join(base, location))
    if os.path.isabs(location) or os.path.commonpath([base, path]) != base:
        raise ONNXImportError("tensor %s: external data %s is outside the model's folder"
                              % (ascii(tensor.name), ascii(location)))
    if not os.path.isfile(path):
        raise ONNXImportError("tensor %s: external data file %s is missing"
                              % (ascii(tensor.name), ascii(location)))
    try:
        offset = int(entries.get("offset", "0"))
        length = int(entries.get("length", "-1"))
    except ValueError:
        raise ONNXImportError("tensor %s: bad external data offset or length"
                              % ascii(tensor.name)) from None
    return path, offset, length


def _tensor(tensor, folder):
    """An initializer or Constant value as a numpy array, its dims checked first."""
    import onnx
    from onnx import numpy_helper
    what = "tensor %s" % ascii(tensor.name)
    dims = check_dims(what, tensor.dims)
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type) \
        if tensor.data_type in onnx.helper.get_all_tensor_dtypes() else None
    if dtype is None or dtype.kind not in "fiub":
        raise ONNXImportError("%s: data type %d is not supported" % (what, tensor.data_type))
    count = int(np.prod(dims, dtype=np.int64))
    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        path, offset, length = _external_path(tensor, folder)
        need = count * dtype.itemsize
        if offset < 0 or (length >= 0 and length != need) or \
                offset + need > os.path.getsize(path):
            raise ONNXImportError("%s: external data is shorter than its shape needs" % what)
        with open(path, "rb") as f:
            f.seek(offset)
            raw = f.read(need)
        return np.frombuffer(raw, dtype.newbyteorder("<")).reshape(dims).astype(dtype)
    try:
        arr = numpy_helper.to_array(tensor)
    except Exception as e:  # the helper raises many kinds on malformed data
        raise ONNXImportError("%s: malformed data (%s)" % (what, e)) from None
    if arr.size != count:
        raise ONNXImportError("%s: %d values for shape %s" % (what, arr.size, dims))
    return arr.reshape(dims)


def _attrs(node, folder):
    import onnx
    out = {}
    for a in node.attribute:
        t, name = a.type, _s(a.name)
        if t == onnx.AttributeProto.INT:
            out[name] = int(a.i)
        elif t == onnx.AttributeProto.FLOAT:
            out[name] = float(a.f)
        elif t == onnx.AttributeProto.INTS:
            out[name] = [int(v) for v in a.ints]
        elif t == onnx.AttributeProto.FLOATS:
            out[name] = [float(v) for v in a.floats]
        elif t == onnx.AttributeProto.STRING:
            out[name] = a.s.decode("utf-8", "replace")
        elif t == onnx.AttributeProto.TENSOR:
            out[name] = _tensor(a.t, folder)
        else:
            out[name] = None  # graphs and other kinds: no supported op reads them
    return out


def _input_shape(vi):
    """A graph input's shape; a symbolic or unknown first dim (the batch) becomes 1."""
    tt = vi.type.tensor_type
    if not vi.type.HasField("tensor_type") or not tt.HasField("shape"):
        raise ONNXImportError("input %s has no tensor shape" % ascii(vi.name))
    dims = []
    for i, d in enumerate(tt.shape.dim):
        if d.HasField("dim_value") and d.dim_value > 0:
            dims.append(d.dim_value)
        elif i == 0:
            dims.append(1)
        else:
            raise ONNXImportError("input %s: dim %d has no fixed size" % (ascii(vi.name), i))
    if not 2 <= len(dims) <= 4:
        raise ONNXImportError("input %s: rank %d is not supported (2 to 4 are)"
                              % (ascii(vi.name), len(dims)))
    return tuple(check_dims("input %s" % ascii(vi.name), dims, MAX_ACTIVATION))


def _order(nodes, known, outputs):
    """The nodes that reach an output (dead ones dropped), in an order where every input is
    produced before it is read; a cycle or a value nobody produces is an error."""
    producer = {}
    for n in nodes:
        for o in n.outputs:
            if o:
                if o in producer or o in known:
                    raise ONNXImportError("%s: value %s is produced twice"
                                          % (n.where(), ascii(o)))
                producer[o] = n
    order, state = [], {}
    for out in outputs:
        if out not in producer and out not in known:
            raise ONNXImportError("graph output %s is produced by no node" % ascii(out))
        stack = [(producer[out], 0)] if out in producer else []
        while stack:  # iterative depth-first search: deep graphs cannot overflow the stack
            n, i = stack.pop()
            if i == 0:
                if state.get(n.index) == 2:
                    continue
                state[n.index] = 1
            ins = [v for v in n.inputs if v]
            if i < len(ins):
                stack.append((n, i + 1))
                v = ins[i]
                if v in known:
                    continue
                if v not in producer:
                    raise ONNXImportError("%s: input %s is produced by no node"
                                          % (n.where(), ascii(v)))
                p = producer[v]
                if state.get(p.index) == 1:
                    raise ONNXImportError("%s: the graph has a cycle through %s"
                                          % (n.where(), ascii(v)))
                if state.get(p.index) != 2:
                    stack.append((p, 0))
            else:
                state[n.index] = 2
                order.append(n)
    return order


def read_onnx(data, folder=None):
    """Parse and check ONNX bytes; `folder` is where external data may be read from."""
    model = _parse(data)
    opset = _opset(model)
    g = model.graph
    if len(g.node) > MAX_NODES:
        raise ONNXImportError("%d nodes, more than %d" % (len(g.node), MAX_NODES))
    constants = {}
    for t in g.initializer:
        constants[_s(t.name)] = _tensor(t, folder)
    inputs = [(_s(vi.name), _input_shape(vi)) for vi in g.input
              if _s(vi.name) not in constants]
    if len(inputs) != 1:
        raise ONNXImportError("the model has %d inputs; one is supported" % len(inputs))
    nodes = []
    for i, n in enumerate(g.node):
        node = Node(i, _s(n.op_type), _s(n.name), [_s(v) for v in n.input],
                    [_s(v) for v in n.output], None)
        if _s(n.domain) not in ("", "ai.onnx"):
            node.op = _s(n.domain) + "." + node.op
        nodes.append(node)
    known = set(constants) | {name for name, _ in inputs}
    outputs = [_s(o.name) for o in g.output]
    order = _order(nodes, known, outputs)
    for node in order:
        node.attrs = _attrs(g.node[node.index], folder)
    return OnnxGraph(inputs, outputs, constants, order, opset)
