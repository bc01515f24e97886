"""Small .tflite models for the tests: `ModelBuilder` is the product's TFLite writer
(burn.host.tflite_writer, documented there), and `run_tflm(data, [input arrays])` runs a
model in the tflite-micro interpreter; `run_tflm_sequence` runs several inferences in a row
on one interpreter (variable tensors such as SVDF's state carry over).
"""

import numpy as np

from burn.host.tflite_writer import ModelBuilder

__all__ = ["ModelBuilder", "run_tflm", "run_tflm_sequence"]


def run_tflm(model_bytes, inputs, n_outputs=1, arena_size=None):
    """Run a model in the tflite-micro interpreter (in this process; `arena_size` None is
    the Python wrapper's default, 10x the file); returns the list of output arrays."""
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_bytes(model_bytes, arena_size=arena_size)
    for i, x in enumerate(inputs):
        interp.set_input(x, i)
    interp.invoke()
    return [np.array(interp.get_output(i)) for i in range(n_outputs)]


def run_tflm_sequence(model_bytes, input_sets, arena_size=None):
    """Run the one-input, one-output model on each input of `input_sets` in turn, in one
    tflite-micro interpreter; returns the list of output arrays."""
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_bytes(model_bytes, arena_size=arena_size)
    outs = []
    for x in input_sets:
        interp.set_input(x, 0)
        interp.invoke()
        outs.append(np.array(interp.get_output(0)))
    return outs
