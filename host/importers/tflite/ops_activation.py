"""The TFLite ops whose int8 and int16 outputs have TFLM's fixed scales: SOFTMAX,
LOG_SOFTMAX, LOGISTIC, TANH and L2_NORMALIZATION."""

import math

import numpy as np

from burn.graph import quant_params as qp
from burn.host.importers import sigmoid16
from burn.host.importers.tflite.registry import Fail, converts
from burn.host.importers.tflite_luts import softmax_luts


@converts("SOFTMAX", shaped=True, int16=True)
def _softmax(c, node):
    beta = float(node.options["Beta"]) if node.options else 1.0
    if not math.isfinite(beta) or beta <= 0:
        raise Fail("bad beta %r" % beta)
    if c.shape(node.inputs[0]) != c.shape(node.outputs[0]) or not c.shape(node.inputs[0]):
        raise Fail("input and output shapes differ")
    if c.is_int16(node):
        _softmax16(c, node, beta)
        return
    if not c.is_int8(node):
        c.emit("softmax", node, params={"beta": beta})
        return
    out_scale, out_zp = c.quant(node.outputs[0])
    if c.tf.tensors[node.outputs[0]].dtype == np.int16:  # TFLM's int8 -> int16 softmax
        if out_zp != -32768 or abs(out_scale - 1.0 / 65536) > 0.001 / 65536:
            raise Fail("int16 output of an int8 input must have scale 1/65536 and zero "
                       "point -32768 (TFLM)")
    elif (out_scale, out_zp) != (1.0 / 256, -128):
        raise Fail("int8 output must have scale 1/256 and zero point -128")
    m, ls, dmin = qp.softmax_params(beta, c.quant(node.inputs[0])[0])
    c.emit("softmax", node, params={"in_mult": m, "in_left_shift": ls, "diff_min": dmin})


def _softmax16(c, node, beta):
    """TFLM's int16 softmax: zero points 0, output scale 1/32768 (within 0.1%), its two
    tables made as TFLM's Prepare makes them."""
    (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), \
        c.quant(node.outputs[0])
    if c.tf.tensors[node.outputs[0]].dtype != np.int16:
        raise Fail("an int16 input needs an int16 output")
    if in_zp or out_zp:
        raise Fail("int16 softmax needs zero points 0 (TFLM)")
    if abs(out_scale - 1.0 / 32768) > 0.001 / 32768:
        raise Fail("int16 output must have scale 1/32768 (TFLM)")
    mult, shift = qp.quantize_multiplier(in_scale * beta / (10.0 / 65535.0))
    exp_lut, inv_lut = softmax_luts()
    c.emit("softmax", node, consts={"exp_lut": exp_lut, "inv_lut": inv_lut},
           params={"in_mult": mult, "in_left_shift": shift})


@converts("LOG_SOFTMAX", shaped=True)
def _log_softmax(c, node):
    """LOG_SOFTMAX over the last axis; int8 output at TFLM's fixed scale 16/256, zero point
    127."""
    shape = c.shape(node.inputs[0])
    if shape != c.shape(node.outputs[0]) or not shape:
        raise Fail("input and output shapes differ")
    if not c.is_int8(node):
        c.emit("log_softmax", node)
        return
    if c.quant(node.outputs[0]) != (16.0 / 256, 127):
        raise Fail("int8 output must have scale 16/256 and zero point 127 (TFLM)")
    mult, left_shift, diff_min = qp.softmax_params(1.0, c.quant(node.inputs[0])[0])
    if left_shift < 1:
        raise Fail("input scale %r is too small for TFLM's log softmax scaling"
                   % c.quant(node.inputs[0])[0])
    rm, rs = qp.quantize_multiplier((1 << (31 - left_shift)) / float(mult))
    c.emit("log_softmax", node, params={"in_mult": mult, "in_left_shift": left_shift,
                                        "reverse_mult": rm, "reverse_shift": rs,
                                        "diff_min": diff_min})


@converts("LOGISTIC", "TANH", int16=True)
def _sigmoid_like(c, node):
    kind = node.name.lower()
    if c.is_int16(node):
        _sigmoid16(c, node, kind)
        return
    if not c.is_int8(node):
        c.emit(kind, node)
        return
    try:
        params = qp.sigmoid_params(kind, c.quant(node.inputs[0]), c.quant(node.outputs[0]))
    except ValueError as e:
        raise Fail(str(e)) from None
    c.emit(kind, node, params=params)


def _sigmoid16(c, node, kind):
    """TFLM's int16 LOGISTIC and TANH: zero points 0, output scale 2**-15 (TFLM's
    CheckedLog2), the input scaling of its Prepare, and the table both interpolate in."""
    (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), \
        c.quant(node.outputs[0])
    if c.tf.tensors[node.outputs[0]].dtype != np.int16:
        raise Fail("an int16 input needs an int16 output")
    if in_zp or out_zp:
        raise Fail("int16 %s needs zero points 0 (TFLM: input and output "
                   "params.zero_point must be 0)" % node.name)
    log2, pot = sigmoid16.checked_log2(out_scale)
    if not pot or log2 != sigmoid16.OUTPUT_SCALE_LOG2:
        raise Fail("int16 %s output must have scale 1/32768 (TFLM: "
                   "output_scale_log2_rounded != -kOutputFractionalBits)" % node.name)
    try:
        mult, shift = sigmoid16.input_scaling(kind, in_scale)
    except ValueError as e:
        raise Fail(str(e)) from None
    c.emit(kind, node, consts={"table": sigmoid16.sigmoid_table()},
           params={"in_mult": mult, "in_left_shift": shift})


@converts("L2_NORMALIZATION")
def _l2norm(c, node):
    """L2_NORMALIZATION over the last axis, as TFLM's Prepare allows it."""
    shape = c.shape(node.inputs[0])
    if not 1 <= len(shape) <= 4:
        raise Fail("input of %d dims: TFLM takes 1 to 4" % len(shape))
    if c.shape(node.outputs[0]) != shape or \
            c.tf.tensors[node.outputs[0]].dtype != c.tf.tensors[node.inputs[0]].dtype:
        raise Fail("input and output shapes or types differ")
    if c.fused(node):  # TFLM's L2NormPrepare
        raise Fail("fused activation %d: TFLM supports none" % c.fused(node))
    if not c.is_int8(node):
        c.emit("l2norm", node)
        return
    if c.quant(node.outputs[0]) != (1.0 / 128, 0):  # the kernel's output scale
        raise Fail("int8 output must have scale 1/128 and zero point 0")
    c.emit("l2norm", node, params={"in_zp": c.quant(node.inputs[0])[1]})
