"""The TFLite ops that move data: PAD, CONCATENATION and PACK, the strided copies of
burn.host.importers.tflite_move, GATHER and EMBEDDING_LOOKUP (tflite_gather), the ops joined
by copies of constant boxes, and the resizes."""

import numpy as np

from burn.bst import PLAIN_INTS
from burn.host.importers import tflite_move
from burn.host.importers.tflite.common import MAX_DIM
from burn.host.importers.tflite.registry import Fail, converts
from burn.host.importers.tflite_batch_space import convert as convert_batch_space
from burn.host.importers.tflite_cumsum import convert as convert_cumsum
from burn.host.importers.tflite_gather import GatherError, is_runtime_gather
from burn.host.importers.tflite_gather import convert as convert_gather
from burn.host.importers.tflite_update_slice import convert as convert_update_slice


@converts("PAD", "PADV2", arity=2, shaped=True, int16=True, int32=True)
def _pad(c, node):
    shape = c.shape(node.inputs[0])
    pads = c.const(node.inputs[1], "paddings").reshape(-1)
    if len(shape) > 4 or pads.size != 2 * len(shape) or (pads < 0).any() or \
            (pads > MAX_DIM).any():
        raise Fail("paddings %s do not fit shape %s" % (pads.tolist(), shape))
    pads = [[0, 0]] * (4 - len(shape)) + pads.reshape(-1, 2).tolist()
    params = {"before": [int(p[0]) for p in pads], "after": [int(p[1]) for p in pads]}
    dims = (1,) * (4 - len(shape)) + tuple(shape)
    padded = [d + p[0] + p[1] for d, p in zip(dims, pads)]
    if padded[4 - len(shape):] != list(c.shape(node.outputs[0])):
        raise Fail("output %s is not the padded input %s" % (c.shape(node.outputs[0]),
                                                             padded))
    dtype = c.tf.tensors[node.inputs[0]].dtype
    if dtype in (np.int8, np.int16, np.int32):
        if dtype != np.int32 and c.quant(node.inputs[0]) != c.quant(node.outputs[0]):
            raise Fail("input and output quantization differ")
        # TFLM pads int8 with the output zero point, int16 and int32 with 0
        value = c.quant(node.outputs[0])[1] if c.is_int8(node) else 0
        if len(node.inputs) > 2 and node.inputs[2] >= 0:
            value = int(c.const(node.inputs[2], "pad value").reshape(-1)[0])
        limits = np.iinfo(dtype)
        if not limits.min <= value <= limits.max:
            raise Fail("pad value %d is not an %s" % (value, limits.dtype))
    else:
        value = 0.0
        if len(node.inputs) > 2 and node.inputs[2] >= 0:
            value = float(c.const(node.inputs[2], "pad value").reshape(-1)[0])
    params["value"] = value
    c.emit("pad", node, params=params)


@converts("CONCATENATION", int16=True, int32=True, bool_inputs=True, plain_ints=PLAIN_INTS)
@converts("PACK", int16=True, int32=True, plain_ints=PLAIN_INTS)
def _concat(c, node):
    """CONCATENATION, and PACK (a concatenation along a new axis, no activation)."""
    shape = c.shape(node.outputs[0])
    if not shape:
        raise Fail("output has no dimensions")
    if len({c.tf.tensors[t].dtype for t in node.inputs + node.outputs}) > 1:
        raise Fail("inputs and output differ in type")
    pack = node.name == "PACK"
    axis = node.options["Axis"] % len(shape) if node.options else 0
    if pack and (node.options is None or node.options["ValuesCount"] != len(node.inputs)):
        raise Fail("values_count does not match the %d inputs" % len(node.inputs))
    if not pack and c.fused(node):
        raise Fail("fused activation on concatenation is not supported")
    if c.is_int8(node) or c.is_int16(node):
        q = c.quant(node.outputs[0])
        if any(c.quant(t) != q for t in node.inputs):
            raise Fail("int8 inputs must share the output's scale and zero point")
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = [int(np.prod(c.shape(t)[axis:], dtype=np.int64)) for t in node.inputs]
    c.emit("concat", node, params={"outer": outer, "inner_sizes": inner}, ins=node.inputs)


# int16, int32, BOOL, int64, uint8, uint32: the moves that TFLM runs on those tensors (BOOL
# held as int8 0/1, moved as it is)
@converts("TRANSPOSE", arity=2, int16=True)
@converts("REVERSE_V2", "BROADCAST_TO", arity=2, int16=True, int32=True, bool_inputs=True,
          plain_ints=PLAIN_INTS)
@converts("GATHER", "MIRROR_PAD", "GATHER_ND", arity=2)
@converts("FILL", arity=2, int32=True)
@converts("SPLIT", arity=2, many_outputs=True, int16=True, int32=True)
@converts("SPLIT_V", arity=3, many_outputs=True, int16=True, int32=True)
@converts("UNPACK", many_outputs=True, int16=True, int32=True)
@converts("SLICE", arity=3, int16=True, int32=True, bool_inputs=True)
@converts("STRIDED_SLICE", arity=4, int16=True, int32=True, bool_inputs=True)
@converts("DEPTH_TO_SPACE", "SPACE_TO_DEPTH")
def _move(c, node):
    """The data-movement ops: strided copies (burn.host.importers.tflite_move); a GATHER
    at run-time positions or of a constant table is the gather op (tflite_gather)."""
    try:
        if is_runtime_gather(c.tf, node):
            convert_gather(c, node)
        else:
            tflite_move.convert(c, node)
    except (tflite_move.MoveError, GatherError) as e:
        raise Fail(str(e)) from None


@converts("EMBEDDING_LOOKUP", arity=2)
def _embedding_lookup(c, node):
    """EMBEDDING_LOOKUP: the gather op (burn.host.importers.tflite_gather)."""
    try:
        convert_gather(c, node)
    except GatherError as e:
        raise Fail(str(e)) from None


@converts("DYNAMIC_UPDATE_SLICE", arity=3, int16=True, int32=True)
@converts("SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND", arity=3)
@converts("CUMSUM", arity=2)
def _copies(c, node):
    """SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (burn.host.importers.tflite_batch_space),
    DYNAMIC_UPDATE_SLICE (tflite_update_slice) and CUMSUM (tflite_cumsum): ops that exist,
    joined by copies of constant boxes."""
    convert = {"DYNAMIC_UPDATE_SLICE": convert_update_slice, "CUMSUM": convert_cumsum}
    try:
        convert.get(node.name, convert_batch_space)(c, node)
    except tflite_move.MoveError as e:
        raise Fail(str(e)) from None


@converts("RESIZE_BILINEAR", arity=2, shaped=True)
def _resize(c, node):
    """RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: TFLM's sampling positions, computed
    here into the resize kind's tables (burn.graph.resize)."""
    from burn.host.importers.resize_tables import tables

    (n, ih, iw, ch), (n2, oh, ow, oc) = c.shape4(node.inputs[0]), c.shape4(node.outputs[0])
    size = c.tf.tensors[node.inputs[1]]
    if size.dtype != np.int32 or len(size.shape) != 1 or size.shape[0] != 2:
        raise Fail("size must be a 1-D int32 tensor of 2 values")
    if c.const(node.inputs[1], "size").tolist() != [oh, ow] or (n2, oc) != (n, ch):
        raise Fail("output %s is not input %s resized to %s"
                   % ((n2, oh, ow, oc), (n, ih, iw, ch), size.data.tolist()))
    opts = node.options or {"AlignCorners": False, "HalfPixelCenters": False}
    align, half = bool(opts["AlignCorners"]), bool(opts["HalfPixelCenters"])
    bilinear = node.name == "RESIZE_BILINEAR"
    if bilinear and align and half:  # TFLM's ResizeBilinearPrepare
        raise Fail("If half_pixel_centers is True, align_corners must be False.")
    integer = c.is_int8(node) or c.is_int16(node)
    ys, fy = tables(ih, oh, bilinear, integer, align, half)
    xs, fx = tables(iw, ow, bilinear, integer, align, half)
    if ys[0::3].max() >= ih or xs[0::3].max() >= iw:
        raise Fail("TFLM's positions for %s -> %s fall outside the input"
                   % ((ih, iw), (oh, ow)))
    consts = {"ys": ys, "xs": xs}
    if not integer:
        consts.update(fy=fy, fx=fx)
    c.emit("resize", node, consts=consts)


@converts("RESIZE_NEAREST_NEIGHBOR", arity=2, shaped=True, int16=True)
def _resize_nearest(c, node):
    """RESIZE_NEAREST_NEIGHBOR, of int16 too (TFLM's bilinear resize takes no int16)."""
    _resize(c, node)
