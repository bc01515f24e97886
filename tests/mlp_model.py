"""Small int8 multilayer perceptrons as .tflite files, built with the real flatbuffers schema
(`tflite_builder`) from seeded random weights and calibrated like `mobilenet_model`.

    data = mlp(AD_SIZES)          # MLPerf Tiny anomaly detection's autoencoder shape
    data = mlp(TINY_SIZES)        # three 16-unit fully connected layers

Every layer is a FULLY_CONNECTED with per-channel int8 weights, int32 bias and a fused ReLU,
except the last (no activation). The input is int8 (scale 1/64, zero point 0).
"""

import numpy as np
from mobilenet_model import CALIBRATION_IMAGES, _fake_quant, _Net

# 640 -> 128 -> 128 -> 128 -> 128 -> 8 -> 128 -> 128 -> 128 -> 128 -> 640
AD_SIZES = (640, 128, 128, 128, 128, 8, 128, 128, 128, 128, 640)
TINY_SIZES = (16, 16, 16, 16)
RELU = 1
INPUT_SCALE = 1.0 / 64


class _Mlp(_Net):
    def dense(self, x, tx, in_scale, out_f, relu):
        """A FULLY_CONNECTED layer (ReLU fused when `relu`): (tensor, floats, scale)."""
        wq, ws, wf = self._weights((out_f, x.shape[-1]), x.shape[-1], 0)
        bq, bs, bf = self._bias(out_f, in_scale, ws)
        name, tw, tb = self._tensors("fc", wq, ws, 0, bq, bs)
        y = x @ wf.T + bf
        if relu:
            y = np.maximum(y, 0.0)
            scale, zp = float(np.float32(max(y.max(), 1e-3) / 255)), -128
        else:
            scale, zp = float(np.float32(max(np.abs(y).max(), 1e-3) / 127)), 0
        ty = self.mb.tensor(name, (1, out_f), "int8", scale=scale, zero_point=zp)
        self.mb.op("FULLY_CONNECTED", [tx, tw, tb], [ty], "FullyConnectedOptions",
                   FusedActivationFunction=RELU if relu else 0)
        return ty, _fake_quant(y, scale, zp), scale


def mlp(sizes, seed=0):
    """Bytes of the int8 .tflite of fully connected layers sizes[0] -> sizes[1] -> ...,
    weights and scales from `seed`."""
    net = _Mlp(seed)
    x = net.rng.integers(-128, 128, (CALIBRATION_IMAGES, sizes[0])) * INPUT_SCALE
    tin = net.mb.tensor("x", (1, sizes[0]), "int8", scale=INPUT_SCALE, zero_point=0)
    t, scale = tin, INPUT_SCALE
    for k, out_f in enumerate(sizes[1:]):
        t, x, scale = net.dense(x, t, scale, out_f, relu=k < len(sizes) - 2)
    return net.mb.finish([tin], [t])
