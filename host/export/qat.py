"""Quantization-aware training (QAT) whose evaluation forward is the exported int8 model.

    qat = prepare_qat(model, calibration=x_train[:256], observe_batches=90)
    Learner(qat, Adam(qat.parameters(), lr=5e-4)).fit(train_loader, valid_loader, epochs=2)
    export_bst(qat, "model.bst", calibration=x_train[:256])   # the graph qat.eval() runs

Training mode runs the model's own forward with fake quantization where the exported graph
quantizes: weights per output channel, symmetric in [-127, 127] (a convolution followed by
BatchNorm has the folded weight `w * gamma / sqrt(running_var + eps)` quantized, expressed
back in the convolution's units, so BatchNorm keeps normalising with batch statistics while
the grid is the exported one), and every activation the graph stores as int8 asymmetric per
tensor, whether a module returns it or a tensor expression of a custom forward computes it
(`qat_hooks` finds them once, on a calibration batch). Gradients pass by the
straight-through estimator (zero outside the clamped range for activations). Observers
widen each activation's [min, max] during the first `observe_batches` training batches,
then freeze.

Eval mode runs the int8 graph itself: the model is traced and lowered exactly as
`export_bst` does it (BatchNorm folded with its running statistics, TFLite's scale, zero
point and multiplier arithmetic), and the graph is executed over the batch by
`int8_numpy.run_int8`, the runtime's integer arithmetic in numpy. Its outputs are the
exported file's outputs, bit for bit, returned dequantized as float32.
"""

import numpy as np

import burn
from burn import nn
from burn.ops.window1d import conv1d

from ..autodiff import Autodiff
from ..convert import to_numpy, to_tensor
from .calibrate import as_batches, observe
from .int8_numpy import check_supported, run_int8
from .lower import _quantization, int8_graph, quantize_input
from .qat_hooks import ForwardHooks
from .trace import trace

# The layers whose weight training fake-quantizes (a BatchNorm after one folds into it).
_WEIGHTED_LAYERS = (nn.Conv2d, nn.Conv1d, nn.Linear)
# Ops whose int8 output holds only values of their (already quantized) input.
_EXACT = ("max_pool2d", "clamp")


def _fake_quant_values(a, scale, zero_point, lo, hi):
    """(dequantized float32 values, in-range mask) of float32 `a` on the int8 grid. Ties
    round to even here; the exact half-away rounding of the runtime is the eval forward's
    business (see int8_numpy), this is the differentiable stand-in that trains."""
    q = np.rint(a / scale)
    if zero_point:
        q += zero_point
    clipped = np.clip(q, lo, hi)
    inside = clipped == q
    if zero_point:
        clipped -= zero_point
    clipped *= scale
    return clipped, inside


def _numpy_autodiff(backend, handle):
    return isinstance(backend, Autodiff) and isinstance(getattr(handle, "value", None),
                                                         np.ndarray)


def _fake_quant_node(ad, h, shape, scale, zero_point, lo=-128, hi=127):
    """The Autodiff node of `fake_quant` for the handle `h` (numpy inner) viewed as
    `shape` (the layout per-channel scales broadcast against)."""
    raw = h.value
    y, inside = _fake_quant_values(raw.reshape(shape), scale, zero_point, lo, hi)
    return ad._out(y.reshape(raw.shape), h.size, (h,),
                   lambda g: (np.where(inside.reshape(np.shape(g)), g, 0),))


def fake_quant(t, scale, zero_point=0, lo=-128, hi=127):
    """`t` rounded to the int8 grid of `scale` (a number, or an array broadcasting against
    t's shape for per-channel scales) and `zero_point`, clamped to [lo, hi] and
    dequantized. Under Autodiff the gradient passes straight through where the value was
    in range and is zero where it was clamped."""
    if _numpy_autodiff(t.backend, t.handle):
        node = _fake_quant_node(t.backend, t.handle, t.shape, scale, zero_point, lo, hi)
        return burn.Tensor(node, t.shape, t.dtype, t.device)
    a = to_numpy(t)
    y, _inside = _fake_quant_values(a, scale, zero_point, lo, hi)
    if not t.requires_grad:
        return to_tensor(y, t.device)
    return t + to_tensor(y - a, t.device)  # any other backend: identity gradient


def _bn_scale(bn):
    """gamma / sqrt(running_var + eps) per channel (numpy float64)."""
    scale = 1.0 / np.sqrt(to_numpy(bn.running_var, copy=False).astype(np.float64) + bn.eps)
    if bn.weight is not None:
        scale = scale * to_numpy(bn.weight, copy=False)
    return scale


def _weight_grid(module, bn):
    """Per-output-channel scales (shaped to broadcast over the weight) of the grid the
    exported graph quantizes `module`'s weight on, in the weight's own units."""
    w = to_numpy(module.weight, copy=False)
    peak = np.abs(w.reshape(len(w), -1)).max(axis=1).astype(np.float64)
    if bn is not None:
        fold = np.abs(_bn_scale(bn))
        peak = peak * fold
    scales = np.where(peak > 0, (peak / 127.0).astype(np.float32), 1.0).astype(np.float64)
    if bn is not None:
        scales = scales / np.where(fold == 0, 1.0, fold)
    return scales.astype(np.float32).reshape((-1,) + (1,) * (w.ndim - 1))


class QATModel(nn.Module):
    """A model under quantization-aware training (made by `prepare_qat`). `model` is the
    float model whose parameters train; `ranges` the activation ranges by traced value
    (as calibration gives them); `observing` whether the observers still widen them."""

    def __init__(self, model, batches, observe_batches, ranges):
        super().__init__()
        self.model = model
        sample_shape = tuple(int(d) for d in batches[0].shape[1:])
        t = trace(model, sample_shape)
        graph = int8_graph(t, ranges)
        check_supported(graph)
        setter = object.__setattr__
        setter(self, "sample_shape", sample_shape)
        setter(self, "observe_batches", int(observe_batches))
        setter(self, "observed_batches", 0)
        setter(self, "ranges", {v: (_f32(lo), _f32(hi)) for v, (lo, hi) in ranges.items()})
        setter(self, "_trace", t)
        setter(self, "_exact", {layer.dst for layer in t.layers if layer.kind in _EXACT})
        setter(self, "_qp", None)
        setter(self, "_points", {})
        setter(self, "_folds", {})
        self._probe(batches[0][:8])

    def _probe(self, xb):
        """Find, on one calibration batch in eval mode, which module call or functional
        operation returns which traced value (by its [min, max] and size per sample: the
        calibration's own numbers), and which convolution's or Linear's output goes
        straight into a BatchNorm (folded on export)."""
        from ..autodiff import no_grad

        ranges = observe(self.model, self._trace, [xb])
        sizes = {v.index: int(np.prod(v.shape)) for v in self._trace.values}
        seen, producers, alive = {self._trace.input}, {}, []

        def match(key, a):
            alive.append(a)  # ids stay unique while the results live
            stats = (float(a.min()), float(a.max()), a.size // len(xb))
            for v, (lo, hi) in ranges.items():
                if v not in seen and (lo, hi, sizes[v]) == stats:
                    seen.add(v)
                    self._points[key] = v
                    return

        def on_module(m, key, original, args, kwargs):
            out = original(*args, **kwargs)
            # Producers by storage handle: a reshape between a layer and its BatchNorm
            # keeps it; a container returning its last child's result hands it on.
            source = producers.get(id(getattr(args[0], "handle", None)))
            if isinstance(m, nn.BatchNorm2d) and isinstance(source, _WEIGHTED_LAYERS):
                self._folds[id(source)] = m
            if isinstance(out, burn.Tensor) and id(out.handle) not in producers:
                producers[id(out.handle)] = m
                alive.append(out)
                match(key, to_numpy(out, copy=False))
            return out

        def on_primitive(key, h):
            if isinstance(getattr(h, "value", None), np.ndarray) and h.value.size:
                match(key, h.value)
            return h

        was_training = self.model.training
        self.model.eval()
        x = to_tensor(xb, _device(self.model))
        try:
            with no_grad(), ForwardHooks(self.model, _autodiff(x), on_module, on_primitive):
                self.model(x)
        finally:
            self.model.train(was_training)

    @property
    def observing(self):
        """True while the observers still widen the activation ranges."""
        return self.observed_batches < self.observe_batches

    def freeze(self):
        """Stop observing: the activation ranges (hence scales and zero points) stay."""
        object.__setattr__(self, "observe_batches", self.observed_batches)
        return self

    def qparams(self):
        """[(scale, zero_point)] of every traced value under the current ranges, as the
        exported graph has them."""
        if self._qp is None or self.observing:
            object.__setattr__(self, "_qp", _quantization(self._trace, self.ranges))
        return self._qp

    # -- state (a Learner checkpoint resumes QAT where it stopped) ----------------------
    def state_dict(self):
        """The float model's state (keys `model.*`) plus `qat_ranges` ([values, 2]: each
        traced value's [min, max], float32 as they are kept) and `qat_observed` (training
        batches observed, batches to observe)."""
        state = nn.Module.state_dict(self)
        dev = _device(self.model)
        ranges = [self.ranges[v.index] for v in self._trace.values]
        state["qat_ranges"] = to_tensor(np.array(ranges, np.float32), dev)
        state["qat_observed"] = to_tensor(
            np.array([self.observed_batches, self.observe_batches], np.int32), dev)
        return state

    def load_state_dict(self, state, strict=True):
        """Load what `state_dict` gives (see nn.Module.load_state_dict); the ranges and
        observer counts too, checked before anything changes."""
        state = dict(state)
        extra = [state.pop(k, None) for k in ("qat_ranges", "qat_observed")]
        arrays = [None if e is None else to_numpy(e) if isinstance(e, burn.Tensor) else
                  np.asarray(e) for e in extra]
        if strict and any(a is None for a in arrays):
            raise ValueError("load_state_dict: a QAT state needs qat_ranges and qat_observed")
        ranges, observed = arrays
        if ranges is not None and ranges.shape != (len(self._trace.values), 2):
            raise ValueError("load_state_dict: qat_ranges of shape %s, expected %s" % (
                ranges.shape, (len(self._trace.values), 2)))
        if observed is not None and observed.shape != (2,):
            raise ValueError("load_state_dict: qat_observed of shape %s, expected (2,)"
                             % (observed.shape,))
        result = nn.Module.load_state_dict(self, state, strict)
        if ranges is not None:
            self.ranges.update({i: (float(lo), float(hi)) for i, (lo, hi) in
                                enumerate(ranges.astype(np.float32))})
            object.__setattr__(self, "_qp", None)
        if observed is not None:
            object.__setattr__(self, "observed_batches", int(observed[0]))
            object.__setattr__(self, "observe_batches", int(observed[1]))
        return result

    # -- forward passes ---------------------------------------------------------------
    def forward(self, x):
        """Fake-quantized float forward in training mode; in eval mode the exported int8
        graph's outputs for `x`, dequantized (model layout, float32)."""
        if self.training:
            return self._train_forward(x)
        return self._int8_forward(x)

    def _train_forward(self, x):
        observing = self.observing
        x = self._quantize(self._trace.input, x, observing)
        points, folds = self._points, self._folds
        ad = _autodiff(x)

        def on_module(m, key, original, args, kwargs):
            if isinstance(m, _WEIGHTED_LAYERS):
                hooks.paused = True
                try:
                    w = fake_quant(m.weight, _weight_grid(m, folds.get(id(m))), 0, -127, 127)
                finally:
                    hooks.paused = False
                out = _weighted(m, w, args[0])
            else:
                out = original(*args, **kwargs)
            value = points.get(key)
            if value is None:
                return out
            hooks.paused = True  # another backend's fake_quant runs primitives
            try:
                return self._quantize(value, out, observing)
            finally:
                hooks.paused = False

        def on_primitive(key, h):
            value = points.get(key)
            if value is None or ad is None or not _numpy_autodiff(ad, h):
                return h
            if observing:
                self._observe(value, h.value)
            if value in self._exact:
                return h
            scale, zp = self.qparams()[value]
            return _fake_quant_node(ad, h, h.value.shape, np.float32(scale), zp)

        hooks = ForwardHooks(self.model, ad, on_module, on_primitive)
        with hooks:
            y = self.model(x)
        if observing:
            object.__setattr__(self, "observed_batches", self.observed_batches + 1)
        return y

    def _observe(self, value, a):
        lo, hi = self.ranges[value]
        self.ranges[value] = (min(lo, _f32(a.min())), max(hi, _f32(a.max())))

    def _quantize(self, value, x, observing):
        if observing:
            self._observe(value, to_numpy(x, copy=False))
        if value in self._exact:
            return x
        scale, zp = self.qparams()[value]
        return fake_quant(x, np.float32(scale), zp)

    def int8_graph(self, io="int8", metadata=None):
        """The int8 Graph that `export_bst(self, ...)` writes (no reference tests)."""
        return int8_graph(trace(self.model, self.sample_shape), self.ranges, io, metadata)

    def int8_outputs(self, x):
        """(int8 outputs, Graph): the exported graph's outputs for float inputs `x` (model
        layout, [N, ...], a numpy array or tensor), [N] + the graph's output shape
        without its batch axis."""
        graph = self.int8_graph()
        a = np.asarray(x if isinstance(x, np.ndarray) else to_numpy(x), np.float32)
        if a.shape[1:] != self.sample_shape:
            raise ValueError("QAT model: inputs of sample shape %s expected, got %s"
                             % (self.sample_shape, a.shape[1:]))
        tin = graph.tensors[graph.inputs[0][0]]
        nhwc = a.transpose(0, 2, 3, 1) if a.ndim == 4 else a
        if a.ndim == 3:  # [N, C, L] is the graph's [N, 1, L, C]
            nhwc = a.transpose(0, 2, 1)[:, None]
        return run_int8(graph, quantize_input(nhwc, tin.scale, tin.zero_point)), graph

    def _int8_forward(self, x):
        q, graph = self.int8_outputs(x)
        tout = graph.tensors[graph.outputs[0][0]]
        y = (q.astype(np.float32) - tout.zero_point) * np.float32(tout.scale)
        if y.ndim == 4:
            y = y.transpose(0, 3, 1, 2)
            if self._trace.output_rank == 3:  # [N, C, 1, L] back to [N, C, L]
                y = y[:, :, 0]
        return to_tensor(np.ascontiguousarray(y), getattr(x, "device", None))


def _f32(x):
    """A range bound as float32 keeps it (so a checkpoint holds it exactly)."""
    return float(np.float32(x))


def _weighted(m, w, x):
    """Conv2d, Conv1d or Linear `m` applied to `x` with the weight `w`."""
    if isinstance(m, nn.Linear):
        return burn.linear(x, w, m.bias)
    if isinstance(m, nn.Conv1d):
        return conv1d(x, w, m.bias, m.stride, m.padding, m.dilation, m.groups)
    return burn.conv2d(x, w, m.bias, m.stride, m.padding, m.dilation, m.groups)


def _autodiff(t):
    """The Autodiff backend of tensor `t`, or None."""
    return t.backend if isinstance(t.backend, Autodiff) else None


def _device(model):
    for p in model.parameters():
        return p.device
    return None


def prepare_qat(model, calibration, observe_batches=100, method="minmax", percentile=99.99,
                max_samples=512):
    """Wrap a (trained) float `model` for quantization-aware training; returns a QATModel
    in the model's training mode.

    `calibration` (samples in the model layout, as for `quantize`) gives the observers
    their starting ranges, as post-training quantization would (`method`, `percentile`);
    the observers keep widening them for `observe_batches` training batches, then freeze.
    The model keeps its own parameters: it trains in place."""
    if not isinstance(model, nn.Module):
        raise TypeError("prepare_qat: expected a burn.nn Module, got " + type(model).__name__)
    if isinstance(model, QATModel):
        raise TypeError("prepare_qat: the model is already prepared for QAT")
    if observe_batches < 0:
        raise ValueError("prepare_qat: observe_batches must be >= 0, got %r"
                         % (observe_batches,))
    batches = as_batches(calibration, max_samples)
    ranges = observe(model, trace(model, batches[0].shape[1:]), batches, method, percentile)
    qat = QATModel(model, batches, observe_batches, ranges)
    return qat.train(model.training)


def qat_parts(model, sample_shape):
    """(QATModel or None, the float model to trace) for an export of `model` with inputs
    of `sample_shape`."""
    if not isinstance(model, QATModel):
        return None, model
    if tuple(sample_shape) != model.sample_shape:
        raise ValueError("QAT model prepared for samples of shape %s, exported with %s"
                         % (model.sample_shape, tuple(sample_shape)))
    return model, model.model
