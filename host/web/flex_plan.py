"""A model as one flex_plan_run call for flex's wasm32 build in the page: the plan blob that
`burn web build` ships beside each model that every op of which has a flex plan step.

The model is traced as `burn compile` traces it (burn.host.compile.trace: loaded, its
kernels moved to flex_c, one inference run, every step read back with each buffer named by
where it lives), and its steps are written as flex_plan_run's words (burn.host.flex.plan's
encoding) over one memory image:

    the plan words (int32) | the buffers outside the arena (weights, biases, requantization
    tables, parameter state), each 16-byte aligned | the arena (zeros, not stored)

Blob: b"BFXW", uint32 version 1, uint32 length of a JSON header, the header, zeros to a
multiple of 16, then the image up to the arena. The header gives "words" (their count, at
image offset 0), "table" (the image offset of each flex_plan_run buffer entry), "data_bytes"
(image bytes stored), "memory_bytes" (the whole image, arena included), "inputs" and
"outputs" ([image offset, bytes] of each, in the arena) and "steps" (the kernels' names).
The page places the image at a 16-byte aligned address of flex.wasm's memory, writes the
table as absolute addresses after it, and runs an inference as: copy the input in, one
flex_plan_run call, copy the outputs out (burn_web.js).
"""

import json
import struct

import numpy as np

from burn.host.compile.emit_c import arena_layout
from burn.host.compile.trace import ArenaRef, Call, CompileError, Copy, trace
from burn.host.flex.binding import host
from burn.host.flex.plan import Plan

MAGIC = b"BFXW"
VERSION = 1
ALIGN = 16


class NoPlan(ValueError):
    """The model has an op without a flex plan step (the page then runs the plain
    kernels); the message says which."""


def _align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


class _ImagePlan(Plan):
    """Plan's encoding of steps, with pointer-table entries that are places (ArenaRef or a
    trace's Outside buffer) instead of host pointers."""

    def _pointer(self, place):
        self.pointers.append(place)
        return len(self.pointers) - 1

    def place_copy(self, src, dst, nbytes):
        """Add a copy of `nbytes` bytes between two arena places."""
        self._step("copy", self.lib.lib.FLEX_OP_COPY, [nbytes],
                   [self._pointer(src), self._pointer(dst)])


def _steps(t):
    """The _ImagePlan of trace `t`'s steps; NoPlan for a step without a plan op."""
    plan = _ImagePlan(host())
    for i, step in enumerate(t.steps):
        if isinstance(step, Call):
            if not plan.kernel(step.name, step.args):
                raise NoPlan("step %d (%s) has no flex plan step" % (i, step.name))
        elif isinstance(step, Copy):
            plan.place_copy(step.src, step.dst, step.nbytes)
        else:  # the int8 clamp that burn runs in Python
            raise NoPlan("step %d (%s) runs in Python: it has no flex plan step"
                         % (i, type(step).__name__.lower()))
    return plan


def plan_blob(source):
    """The plan blob (bytes) of .bst `source` (path or bytes); NoPlan with the reason when
    an op has no flex plan step or the model cannot be traced (no self-test vectors)."""
    try:
        t = trace(source, tests=0)
    except CompileError as exc:
        raise NoPlan(str(exc)) from None
    plan = _steps(t)
    words = np.asarray(plan.words, "<i4").tobytes()
    image = bytearray(words)
    outside = {}
    for place in plan.pointers:
        if not isinstance(place, ArenaRef) and id(place) not in outside:
            image += bytes(_align(len(image)) - len(image))
            outside[id(place)] = len(image)
            image += np.ascontiguousarray(place.values).tobytes()
    arena_at = _align(len(image))
    offsets, arena_bytes = arena_layout(t.arena_bytes)

    def at(ref):
        return arena_at + offsets[ref.dtype] + ref.offset

    table = [at(p) if isinstance(p, ArenaRef) else outside[id(p)] for p in plan.pointers]
    header = {"words": len(plan.words), "table": table, "data_bytes": len(image),
              "memory_bytes": arena_at + arena_bytes,
              "inputs": [[at(ref), ref.nbytes] for ref, _d, _s in t.inputs],
              "outputs": [[at(ref), ref.nbytes] for ref, _d, _s in t.outputs],
              "steps": plan.names}
    text = json.dumps(header, separators=(",", ":")).encode()
    head = MAGIC + struct.pack("<II", VERSION, len(text)) + text
    return head + bytes(_align(len(head)) - len(head)) + bytes(image)


def read_header(blob):
    """(header dict, image bytes) of a plan blob; ValueError for anything else."""
    if len(blob) < 12 or blob[:4] != MAGIC:
        raise ValueError("not a flex plan blob")
    version, n = struct.unpack_from("<II", blob, 4)
    if version != VERSION or 12 + n > len(blob):
        raise ValueError("flex plan blob of version %d or truncated" % version)
    header = json.loads(blob[12:12 + n])
    start = _align(12 + n)
    return header, blob[start:start + header["data_bytes"]]
