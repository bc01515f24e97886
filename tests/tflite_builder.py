"""Small .tflite models for the tests: `ModelBuilder` is the product's TFLite writer
(burn.host.tflite_writer, documented there), and `run_tflm(data, [input arrays])` runs a
model in the tflite-micro interpreter.
"""

import numpy as np

from burn.host.tflite_writer import ModelBuilder

__all__ = ["ModelBuilder", "run_tflm"]


def run_tflm(model_bytes, inputs, n_outputs=1, arena_size=None):
    """Run a model in the tflite-micro interpreter (in this process; `arena_size` None is
    the Python wrapper's default, 10x the file); returns the list of output arrays."""
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_bytes(model_bytes, arena_size=arena_size)
    for i, x in enumerate(inputs):
        interp.set_input(x, i)
    interp.invoke()
    return [np.array(interp.get_output(i)) for i in range(n_outputs)]
