"""The Python side of the page that `burn web build` writes: it runs in the browser on
MicroPython's WebAssembly port (copied into the site as lib/burn_page.py) and is called by
burn_web.js. It imports nothing but burn's core and MicroPython-safe modules, so it also runs
on CPython. Every function returns a JSON string; a bad model raises the core's ValueError,
which the page shows.

A model whose plan blob the site ships runs on flex's wasm32 build: `load(path, run)` gives
the model an `invoke` that passes the inputs' bytes to `run` (burn_web.js's one
flex_plan_run call, hex in a JSON list) and writes the outputs' bytes it returns into the
model's outputs, so Model.run and Model.self_test (TFLM's vectors, bit for bit) run
unchanged on it."""

import gc
import json
from array import array
from binascii import hexlify, unhexlify

import burn
from burn.bst import zeros
from burn.model import ticks_diff, ticks_us  # MicroPython's clock, or CPython's stand-in

_state = {"model": None}
_TYPECODE = {"int8": "b", "int16": "h", "int32": "i", "float32": "f"}
_SHOWN = 16  # output values shown per output


def _model():
    model = _state["model"]
    if model is None:
        raise ValueError("no model is loaded")
    return model


def _flex_invoke(model, run):
    """An invoke for `model` that runs it by `run` (a function of the inputs' bytes as a
    JSON list of hex strings that returns the outputs' bytes the same way)."""
    kinds = [_TYPECODE[model.tensors[t][1]] for t, _shape in model._bst.outputs]

    def invoke():
        start = ticks_us()
        raw = run(json.dumps([hexlify(bytes(view)).decode() for view, _s, _t in
                              model._inputs]))
        for k, text in enumerate(json.loads(raw)):
            values = array(kinds[k], unhexlify(text))
            out = model._outputs[k]
            if len(values) != len(out):
                raise ValueError("flex-wasm output %d: %d values, expected %d"
                                 % (k, len(values), len(out)))
            for e in range(len(out)):
                out[e] = values[e]
        model.last_us = ticks_diff(ticks_us(), start)

    return invoke


def load(path, run=None):
    """Load the .bst file at `path` (in the port's filesystem) as the page's model, in place
    of the one before; returns its description (burn.Model.info, without the op table).
    With `run` (see _flex_invoke) the model's inferences run through it, on flex-wasm."""
    old = _state["model"]
    _state["model"] = None
    if old is not None:
        old.close()
    gc.collect()
    with open(path, "rb") as f:
        data = f.read()
    model = burn.load(data)
    info = model.info()
    if run is not None:
        model.invoke = _flex_invoke(model, run)
    _state["model"] = model
    return json.dumps({
        "backend": "flex-wasm" if run is not None else info["backend"],
        "ops": len(info["ops"]), "params": info["params"],
        "macs": info["macs"], "arena_bytes": info["arena_bytes"],
        "flash_bytes": info["flash_bytes"], "tests": info["tests"],
        "labels": info["labels"], "inputs": info["inputs"], "outputs": info["outputs"],
        "kinds": sorted(set(op["op"] for op in info["ops"]))})


def _random_input(spec, seed):
    """An array of the input's dtype and size, filled by a small LCG from `seed`: int8 over
    its whole range, wider integers over -1000..999, float32 over [-1, 1)."""
    dtype = spec["dtype"]
    n = 1
    for d in spec["shape"]:
        n *= d
    out = zeros(_TYPECODE[dtype], n)
    x = seed & 0x7FFFFFFF
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        r = x >> 8  # 23 random bits
        if dtype == "int8":
            out[i] = (r & 255) - 128
        elif dtype == "float32":
            out[i] = r / 4194304.0 - 1.0
        else:
            out[i] = r % 2000 - 1000
    return out


def run_random(seed):
    """One inference on random inputs made from `seed`; returns the first output values of
    each output, the top class (with its label) of the first, and the inference's time."""
    model = _model()
    info = model.info()
    xs = [_random_input(spec, seed + k) for k, spec in enumerate(info["inputs"])]
    raw = model.run(xs[0] if len(xs) == 1 else xs)
    outs = raw if isinstance(raw, tuple) else (raw,)
    first = outs[0]
    top = 0
    for i in range(len(first)):
        if first[i] > first[top]:
            top = i
    labels = info["labels"]
    return json.dumps({
        "outputs": [[v for v in out[:_SHOWN]] for out in outs],
        "lengths": [len(out) for out in outs], "top": top,
        "label": labels[top] if labels and top < len(labels) else None,
        "ms": model.last_us / 1000})


def self_test():
    """Run the model's reference vectors (burn.Model.self_test: ValueError at the first
    output that differs); returns how many ran of how many and the last inference's time."""
    model = _model()
    total = model.info()["tests"]
    ran = model.self_test()
    return json.dumps({"ran": ran, "total": total, "ms": model.last_us / 1000})
