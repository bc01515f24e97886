"""TFLite models made by the TensorFlow Lite converter, for the control-flow and resource-
variable tests (tests/host/test_tflite_control.py, tests/oracle/test_plain_ints_vs_tflm.py):
streaming models whose tf.Variable holds a state between calls, with tf.cond (IF) and
tf.while_loop (WHILE), of float32, int8, int32, int64, uint8 and uint32 data, converted with
`experimental_enable_resource_variables` (CALL_ONCE runs the variables' init subgraph; the
graph reads them with VAR_HANDLE + READ_VARIABLE and writes them with ASSIGN_VARIABLE);
among them (STATEFUL) a streaming wake-word detector of microWakeWord's shape with int8 ring
buffers. Beside them, MLPerf Tiny's visual wake words architecture ("vww"). The last two are
also benchmarks/flex_host.py's.

`models()` returns {name: bytes}. TensorFlow is heavy to import, so the models are made in a
child process (`python tests/tflite_tf_models.py FOLDER`) and cached under burn's cache dir,
keyed by this file's text and the installed TensorFlow's version; without TensorFlow the
caller skips.
"""

import hashlib
import importlib.metadata
import os
import subprocess
import sys
import tempfile
from pathlib import Path

STATEFUL = ("stream", "stream_int8", "counter", "plain_int64", "plain_uint8", "plain_uint32",
            "wakeword_stream")
NAMES = STATEFUL + ("vww",)


def _build(folder):
    """Make every model into `folder` (the child's side)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    import tensorflow as tf

    class Stream(tf.Module):
        """A float state of the last 8 inputs, a call counter (int32, starting at 3: a
        reset, which TFLM does to the rest value 0, differs from the start) and a bool flag
        of the last call's sign; IF on that sign with two outputs (one a branch input passed
        through), WHILE that runs a data-dependent number of times."""

        def __init__(self):
            self.state = tf.Variable(tf.zeros([1, 8]), trainable=False)
            self.count = tf.Variable(3, trainable=False)
            self.flag = tf.Variable([False], trainable=False)

        @tf.function(input_signature=[tf.TensorSpec([1, 2], tf.float32)])
        def __call__(self, x):
            s = tf.concat([self.state[:, 2:], x], axis=1)
            self.state.assign(s)
            c = self.count + 1
            self.count.assign(c)
            up = tf.reduce_sum(x) > 0.0
            was = self.flag.read_value()
            self.flag.assign(tf.reshape(up, [1]))
            y, k = tf.cond(up, lambda: (s * 2.0, c * 2), lambda: (s - 1.0, c))
            _, v = tf.while_loop(lambda i, v: i < tf.minimum(k, 5),
                                 lambda i, v: (i + 1, v * 0.5 + 1.0), [tf.constant(0), y])
            return v, k, was

    class Dense(tf.Module):
        """A quantizable streaming model: a state of the last 8 inputs feeds a dense
        layer, and IF halves its output when the input's sum is positive."""

        def __init__(self):
            rng = np.random.default_rng(0)
            self.state = tf.Variable(tf.zeros([1, 8]), trainable=False)
            self.w = tf.constant(rng.standard_normal((8, 4)).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([1, 2], tf.float32)])
        def __call__(self, x):
            s = tf.concat([self.state[:, 2:], x], axis=1)
            self.state.assign(s)
            y = tf.matmul(s, self.w)
            return tf.cond(tf.reduce_sum(x) > 0.0, lambda: y * 0.5, lambda: y + 1.0)

    class Counter(tf.Module):
        """An int32 variable only: the graph adds its input to it and returns the sum."""

        def __init__(self):
            self.total = tf.Variable(tf.constant([7, -2, 0], tf.int32), trainable=False)

        @tf.function(input_signature=[tf.TensorSpec([3], tf.int32)])
        def __call__(self, x):
            t = self.total + x
            self.total.assign(t)
            return t

    def plain(dtype):
        """A variable, IF and WHILE of `dtype` data (int64, uint8): the variable keeps the
        last input (its first value [5, 0, 200]), IF picks it or the input by a flag, WHILE
        swaps it and the variable's old value `n` times."""
        class Plain(tf.Module):
            def __init__(self):
                self.last = tf.Variable(tf.constant([5, 0, 200], dtype), trainable=False)

            @tf.function(input_signature=[tf.TensorSpec([3], dtype), tf.TensorSpec([], tf.bool),
                                          tf.TensorSpec([], tf.int32)])
            def __call__(self, x, up, n):
                was = self.last.read_value()
                self.last.assign(x)
                y = tf.cond(up, lambda: was, lambda: x)
                _, a, b = tf.while_loop(lambda i, a, b: i < n, lambda i, a, b: (i + 1, b, a),
                                        [tf.constant(0), y, was])
                return a, b

        return Plain()

    class WakeWord(tf.Module):
        """A streaming wake-word detector of microWakeWord's MixedNet shape: each call takes
        3 new frames of 40 features; a strided first convolution (kernel 5, 32 filters),
        four depthwise convolutions along time (kernels 5, 9, 13, 21) each followed by a
        64-filter pointwise one, and a dense layer over the last 6 frames with a sigmoid.
        Every layer that looks back keeps its past frames in a variable (a ring buffer:
        READ_VARIABLE, CONCATENATION, STRIDED_SLICE, ASSIGN_VARIABLE)."""

        KERNELS = (5, 9, 13, 21)

        def __init__(self):
            rng = np.random.default_rng(4)

            def he(*shape):
                fan_in = int(np.prod(shape[:-1]))
                return tf.constant((rng.standard_normal(shape) * np.sqrt(2.0 / fan_in))
                                   .astype(np.float32))

            self.first = (he(5, 1, 40, 32), he(32) * 0.1)
            self.blocks = [(he(k, 1, 32 if i == 0 else 64, 1), he(1, 1, 32 if i == 0 else 64, 64),
                            he(64) * 0.1) for i, k in enumerate(self.KERNELS)]
            self.dense = (he(6 * 64, 1), he(1) * 0.1)
            self.states = [tf.Variable(tf.zeros([1, 2, 1, 40]), trainable=False)]
            self.states += [tf.Variable(tf.zeros([1, k - 1, 1, 32 if i == 0 else 64]),
                                        trainable=False) for i, k in enumerate(self.KERNELS)]
            self.states.append(tf.Variable(tf.zeros([1, 5, 1, 64]), trainable=False))

        @staticmethod
        def stream(state, x):
            """The state's frames then x's, along time; the state keeps the last ones."""
            s = tf.concat([state, x], axis=1)
            state.assign(s[:, -state.shape[1]:])
            return s

        @tf.function(input_signature=[tf.TensorSpec([1, 3, 40], tf.float32)])
        def __call__(self, x):
            y = self.stream(self.states[0], tf.reshape(x, [1, 3, 1, 40]))
            y = tf.nn.relu(tf.nn.conv2d(y, self.first[0], [1, 3, 1, 1], "VALID") + self.first[1])
            for state, (dw, pw, b) in zip(self.states[1:], self.blocks):
                y = tf.nn.depthwise_conv2d(self.stream(state, y), dw, [1, 1, 1, 1], "VALID")
                y = tf.nn.relu(tf.nn.conv2d(y, pw, [1, 1, 1, 1], "VALID") + b)
            y = tf.reshape(self.stream(self.states[-1], y), [1, 6 * 64])
            return tf.sigmoid(tf.matmul(y, self.dense[0]) + self.dense[1])

    def vww():
        """MLPerf Tiny's visual wake words model: MobileNetV1 with width 0.25 on a 96x96x3
        image (Keras' layers), 3x3 average pooling, a two-class dense layer and softmax
        (seeded weights, not trained)."""
        tf.keras.utils.set_random_seed(5)
        image = tf.keras.Input((96, 96, 3), batch_size=1)
        base = tf.keras.applications.MobileNet(input_tensor=image, alpha=0.25, weights=None,
                                               include_top=False)
        y = tf.keras.layers.AveragePooling2D(3)(base.output)
        y = tf.keras.layers.Dense(2, activation="softmax")(tf.keras.layers.Flatten()(y))
        model = tf.keras.Model(image, y)
        rng = np.random.default_rng(5)
        for layer in model.layers:  # He's scale, so that activations last 28 layers
            kind = type(layer).__name__
            if kind in ("Conv2D", "DepthwiseConv2D", "Dense"):
                w = layer.get_weights()
                fan_in = int(np.prod(w[0].shape[:2 if kind == "DepthwiseConv2D" else -1]))
                w[0] = (rng.standard_normal(w[0].shape) * np.sqrt(2.0 / fan_in)).astype(
                    np.float32)
                layer.set_weights(w)
        return model

    def retyped(data, old, new):
        """`data` with every tensor of TensorType `old` made `new` and its constants cast
        (the converter has no uint32 variables: the uint8 model as uint32)."""
        import flatbuffers
        from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

        model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))
        kinds = {schema.TensorType.UINT8: np.uint8, schema.TensorType.UINT32: np.uint32}
        for g in model.subgraphs:
            for t in g.tensors:
                if t.type == old:
                    t.type = new
                    buf = model.buffers[t.buffer]
                    if buf.data is not None and len(buf.data):
                        values = np.frombuffer(bytes(bytearray(buf.data)), kinds[old])
                        buf.data = list(values.astype(kinds[new]).tobytes())
        b = flatbuffers.Builder(1024)
        b.Finish(model.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())

    def convert(module, quantize=False, shape=(1, 2), keras=False):
        if keras:
            conv = tf.lite.TFLiteConverter.from_keras_model(module)
        else:
            fn = module.__call__.get_concrete_function()
            conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], module)
            conv.experimental_enable_resource_variables = True
        if quantize:
            def samples():
                rng = np.random.default_rng(1)
                for _ in range(64 if shape == (1, 2) else 16):
                    yield [rng.standard_normal(shape).astype(np.float32)]
            conv.optimizations = [tf.lite.Optimize.DEFAULT]
            conv.representative_dataset = samples
            conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            conv.inference_input_type = tf.int8
            conv.inference_output_type = tf.int8
            # int8 ring buffers, as microWakeWord's models have (float ones otherwise)
            conv._experimental_variable_quantization = shape != (1, 2)
        return conv.convert()

    made = {"stream": convert(Stream()), "stream_int8": convert(Dense(), quantize=True),
            "counter": convert(Counter()), "plain_int64": convert(plain(tf.int64)),
            "plain_uint8": convert(plain(tf.uint8)),
            "wakeword_stream": convert(WakeWord(), quantize=True, shape=(1, 3, 40)),
            "vww": convert(vww(), quantize=True, shape=(1, 96, 96, 3), keras=True)}
    made["plain_uint32"] = retyped(made["plain_uint8"], 3, 15)  # TensorType UINT8, UINT32
    for name, data in made.items():
        Path(folder, name + ".tflite").write_bytes(data)


def _key():
    text = Path(__file__).read_bytes()
    version = importlib.metadata.version("tensorflow-cpu")
    return hashlib.sha256(text + version.encode()).hexdigest()[:12], version


def models():
    """{name: TFLite bytes} of every model, made once and cached; None without TensorFlow
    (the tensorflow-cpu package of the dev extra)."""
    try:
        key, version = _key()
    except importlib.metadata.PackageNotFoundError:
        return None
    from burn.host.cache import cache_dir

    folder = cache_dir("tf-models", "%s-%s" % (version, key))
    if not all((folder / (n + ".tflite")).is_file() for n in NAMES):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        # a folder of this process's own: test workers may make the models at once
        tmp = Path(tempfile.mkdtemp(prefix="partial-", dir=folder))
        done = subprocess.run([sys.executable, __file__, str(tmp)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
        if done.returncode:
            raise RuntimeError("the TFLite converter failed: %s"
                               % done.stderr.decode("utf-8", "replace")[-2000:])
        for n in NAMES:
            (tmp / (n + ".tflite")).replace(folder / (n + ".tflite"))
        tmp.rmdir()
    return {n: (folder / (n + ".tflite")).read_bytes() for n in NAMES}


if __name__ == "__main__":
    _build(sys.argv[1])
