"""One-op `.bst` models against TFLM's outputs on every runtime: the plain kernels, flex on
the host, flex built for the Cortex-M0+ and run in unicorn, and the MicroPython unix port
(viper twins where an op has them). A case is (name, input array, TFLM's flat output,
.bst bytes), the input a list of arrays for a model of several inputs; integer outputs must
be equal, float32 ones within 1e-5 relative (or `atol` where an op's output cancels to
near 0)."""

import numpy as np
from mp_models import run_models

import burn
from burn.host import mpy
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
        # a copy (a reshape, a strided run of consecutive elements) stays a memory move
        copies = sum(1 for s in flex._steps if type(s.k).__name__ == "_BufferCopy")
        assert flex.flex_ops == emulated.flex_ops == len(ops) - copies
        for model in (plain, flex, emulated):
            check(name, model.run(_flat(x)), want, atol)


def _flat(x):
    """The flat input array, or the list of them for several inputs."""
    return x.reshape(-1) if isinstance(x, np.ndarray) else [a.reshape(-1) for a in x]


def check_on_micropython(cases, folder, atol=1e-30, int8_runtime="viper"):
    """Run every case on the MicroPython unix port (one process): ops of int8 inputs on
    their viper twins (`int8_runtime` "plain" for an op without one), the others on the
    plain kernels; skips without it."""
    # a heap above the board's: the job lines of the larger cases are read whole
    results = run_models(folder, [(bst, [x]) for _name, x, _want, bst in cases], heap="1m",
                         core=mpy.core_for_unix_port())
    for (name, x, want, _bst), result in zip(cases, results):
        first = x if isinstance(x, np.ndarray) else x[0]
        # the input's type decides (the output may be another type: ARG_MAX)
        runtime = int8_runtime if first.dtype == np.int8 else "plain"
        assert set(result.runtimes) == {runtime}, (name, result.runtimes)
        check(name, result.outputs[0][0], want, atol)
