"""TFLite UNIDIRECTIONAL_SEQUENCE_LSTM as burn's optional `lstm` op (burn.graph.lstm).

`convert(c, node)` checks the op as TFLM's micro kernel does (LstmTensors and
ValidateTensorSize in its Prepare) and returns the op's constants and parameters: the four
gates' weights stacked in TFLite's order (input, forget, cell, output) and, for int8, the
gates' fixed-point parameters as TFLM's PrepareGateParametersInteger computes them.
TFLM's micro kernel has no CIFG, peephole, projection or layer normalization: a model that
uses them is refused by name. Anything else that TFLM refuses raises `LstmError` with its
reason.
"""

import numpy as np

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
    names = "/".join(c.tf.tensors[node.inputs[i]].type_name
                     for i in (INPUT, WEIGHTS, BIASES, CELL))
    raise LstmError("input/weights/bias/cell state types %s: burn runs float32 only" % names)
