"""TFLite UNIDIRECTIONAL_SEQUENCE_LSTM as burn's optional `lstm` op (burn.graph.lstm).

`convert(c, node)` checks the op as TFLM's micro kernel does (LstmTensors and
ValidateTensorSize in its Prepare) and returns the op's constants and parameters: the four
gates' weights stacked in TFLite's order (input, forget, cell, output) and, for int8, the
gates' fixed-point parameters as TFLM's PrepareGateParametersInteger computes them, and
the int16 sigmoid table (burn.host.importers.sigmoid16); int16 (TFLM's int16x8 LSTM) the
same, its int64 biases as int32 values.
TFLM's micro kernel has no CIFG, peephole, projection or layer normalization: a model that
uses them is refused by name. Anything else that TFLM refuses raises `LstmError` with its
reason.
"""

import numpy as np

from burn.graph import quant_params as qp
from burn.host.importers import sigmoid16

INPUT, WEIGHTS, RECURRENT, BIASES, HIDDEN, CELL = 0, 1, 5, 12, 18, 19
_MISSING = ((range(9, 12), "peephole (cell-to-gate) weights"),
            (range(16, 18), "projection"),
            (range(20, 24), "layer normalization"))
_TANH = 4  # TFLite's ActivationFunctionType: the only one TFLM's kernel reads from a file


class LstmError(ValueError):
    """An LSTM that TFLM's micro kernel (or burn) cannot run."""


def _check(ok, what):
    if not ok:
        raise LstmError(what + " (TFLM's check)")


def _type(c, t):
    return c.tf.tensors[t].dtype


def _shapes(c, node):
    """TFLM's tensor checks; returns (batch, steps, time_major)."""
    ins = node.inputs
    _check(len(ins) == 24, "needs 24 inputs, has %d" % len(ins))
    if min(ins[WEIGHTS], ins[RECURRENT], ins[BIASES]) < 0:
        raise LstmError("no input gate (CIFG): TFLM's micro kernel needs all four gates")
    for where, what in _MISSING:
        if any(ins[i] >= 0 for i in where):
            raise LstmError("%s: not supported by TFLM's micro kernel" % what)
    for i in (INPUT, HIDDEN, CELL) + tuple(range(1, 9)) + tuple(range(12, 16)):
        _check(ins[i] >= 0, "input %d is missing" % i)
    for i, name in ((HIDDEN, "hidden"), (CELL, "cell")):
        _check(c.tf.tensors[ins[i]].variable, "the %s state must be a variable tensor" % name)
    x, y = ins[INPUT], node.outputs[0]
    _check(_type(c, ins[HIDDEN]) == _type(c, x) == _type(c, y),
           "input, hidden state and output must have one type")
    _check(len({_type(c, ins[i]) for i in range(1, 9)}) == 1, "weights must have one type")
    _check(len({_type(c, ins[i]) for i in range(12, 16)}) == 1, "biases must have one type")
    if node.options is None:
        raise LstmError("missing options")
    time_major = int(bool(node.options["TimeMajor"]))
    xs, hs, ys = c.shape(x), c.shape(ins[HIDDEN]), c.shape(y)
    _check(len(xs) == 3, "input must be 3-D")
    _check(len(hs) == 2, "the hidden state must be [batch, units]")
    steps, batch = xs[:2] if time_major else xs[1::-1]
    n_in, units = xs[2], hs[1]
    for i in range(1, 9):
        want = (units, n_in if i < 5 else units)
        _check(tuple(c.shape(ins[i])) == want, "weights %d must be %s" % (i, list(want)))
    for i in range(12, 16):
        _check(tuple(c.shape(ins[i])) == (units,), "bias %d must have %d values" % (i, units))
    for i in (HIDDEN, CELL):
        _check(int(np.prod(c.shape(ins[i]))) == batch * units,
               "state %d must hold %d values" % (i, batch * units))
    _check(len(ys) == 3 and tuple(ys) == tuple(xs[:2]) + (units,),
           "output must be %s" % (list(xs[:2]) + [units]))
    return batch, steps, time_major


def _stack(c, node, first, what):
    """The four gates' constants from input `first` on, stacked on a new first axis."""
    return np.concatenate([c.const(node.inputs[first + g], what) for g in range(4)])


def convert(c, node):
    """(consts, params) of the lstm op for TFLite `node` (c: the importer's converter)."""
    batch, steps, time_major = _shapes(c, node)
    act = node.options["FusedActivationFunction"]
    if act != _TANH:  # TFLM asserts on another and leaves the gate unactivated
        raise LstmError("cell gate activation %d: TFLM's kernel computes TANH (4) only" % act)
    clip = float(np.float32(node.options["CellClip"]))
    params = {"batch": batch, "steps": steps, "time_major": time_major,
              "cell_clip": clip}
    types = [_type(c, node.inputs[i]) for i in (INPUT, WEIGHTS, BIASES, CELL)]
    if all(t == np.float32 for t in types):
        consts = {"w": _stack(c, node, WEIGHTS, "weights").astype(np.float32),
                  "r": _stack(c, node, RECURRENT, "recurrent weights").astype(np.float32),
                  "bias": _stack(c, node, BIASES, "bias").astype(np.float32)}
        return consts, params
    if types in ([np.int8, np.int8, np.int32, np.int16], [np.int16, np.int8, np.int64, np.int16]):
        consts, q = _integer(c, node, types[0] == np.int16)
        params.update(q, cell_clip=_quantized_clip(clip, c.tf.tensors[node.inputs[CELL]]))
        return consts, params
    names = "/".join(c.tf.tensors[node.inputs[i]].type_name
                     for i in (INPUT, WEIGHTS, BIASES, CELL))
    raise LstmError("input/weights/bias/cell state types %s: burn runs float32, int8 with "
                    "int8 weights, int32 biases and an int16 cell state, and int16 with int8 "
                    "weights, int64 biases (TFLM reads them as int64) and an int16 cell state"
                    % names)


_Q312, _Q015 = 2.0 ** -12, 2.0 ** -15  # the gates' scales before and after activation


def _scale(c, t, what):
    """The one scale of symmetric tensor t (TFLM's FC and LSTM take no other)."""
    tt = c.tf.tensors[t]
    if len(tt.scales) != 1 or any(tt.zero_points or [0]):
        raise LstmError("%s needs one scale and zero point 0" % what)
    return float(tt.scales[0])


def _multiplier(real, top=31):
    mult, shift = qp.quantize_multiplier(real)
    if not -31 <= shift <= top:
        raise LstmError("requantization shift %d out of range (scales too far apart%s)"
                        % (shift, "; TFLM's int64 multiply takes at most 7" if top < 31 else ""))
    return mult, shift


def _biases(c, node, int16):
    """The stacked biases as int32 (an int16 LSTM's int64 ones range-checked)."""
    bias = _stack(c, node, BIASES, "bias")
    if int16 and ((bias < -2 ** 31) | (bias >= 2 ** 31)).any():
        raise LstmError("int64 bias values beyond int32 are not supported")
    return bias.astype(np.int32)


def _integer(c, node, int16):
    """The consts and quantization params of an int8 or int16 LSTM (TFLM's integer LSTM)."""
    ins = node.inputs
    in_scale, in_zp = c.quant(ins[INPUT])
    h_scale, h_zp = c.quant(ins[HIDDEN])
    if int16 and (in_zp or h_zp):
        raise LstmError("an int16 LSTM's input and hidden state need zero point 0 (TFLite's "
                        "int16 quantization)")
    cell_scale = _scale(c, ins[CELL], "the cell state")
    power = sigmoid16.checked_log2(cell_scale)[0]  # TFLM rounds, whatever the scale
    if not -43 <= power <= 2:
        raise LstmError("cell state scale 2**%d: burn takes 2**-43 to 2**2" % power)
    gate_q = []
    top = 7 if int16 else 31
    for g in range(4):
        w_scale = _scale(c, ins[WEIGHTS + g], "weights %d" % (WEIGHTS + g))
        r_scale = _scale(c, ins[RECURRENT + g], "weights %d" % (RECURRENT + g))
        gate_q += _multiplier(float(in_scale) * w_scale / _Q312, top)
        gate_q += _multiplier(float(h_scale) * r_scale / _Q312, top)
    fc = _multiplier(_Q015 * cell_scale / cell_scale)
    ic = _multiplier(_Q015 * _Q015 / cell_scale)
    hid = _multiplier(_Q015 * _Q015 / float(h_scale))
    consts = {"w": _stack(c, node, WEIGHTS, "weights").astype(np.int8),
              "r": _stack(c, node, RECURRENT, "recurrent weights").astype(np.int8),
              "bias": _biases(c, node, int16),
              "gate_q": np.array(gate_q, np.int32), "table": sigmoid16.sigmoid_table()}
    params = {"in_zp": in_zp, "out_zp": h_zp, "cell_power": power, "fc_mult": fc[0],
              "fc_shift": fc[1], "ic_mult": ic[0], "ic_shift": ic[1], "hid_mult": hid[0],
              "hid_shift": hid[1]}
    return consts, params


def _quantized_clip(clip, cell):
    """TFLM's quantized cell clip (truncated to int16), or -1: no clipping."""
    if clip <= 0:
        return -1
    return int(min(max(clip / float(cell.scales[0]), -32768.0), 32767.0))
