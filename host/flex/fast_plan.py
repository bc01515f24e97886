"""A validated plan: a finished `Plan` checked once by flex_c (`flex_fast_plan_new`, host
builds only, opt/host/plan_fast.c), then run without the per-run checks of its fully
connected and copy steps.

    fast = FastPlan(plan, arena_input)     # plan: a finished burn.host.flex.plan.Plan
    fast.bind(x)                           # a run first copies buffer x into arena_input
    fast.check(fast.run(fast.handle))      # raises FlexError naming the failing step

Why skipping the checks is safe: flex_c keeps its own copy of the steps and of the
pointer table, which Python cannot reach, so changing the plan's words or table afterwards
changes nothing a run reads or writes; the kernels' memory accesses depend on their checked
arguments only. The buffers stay alive with the plan (`Plan.keep`), and a bound input with
`self.src`, whose buffer export stops its owner from resizing or freeing it.
"""

import numpy as np

from burn.host.flex.binding import raise_for_status


class FastPlan:
    """flex_c's validated copy of `plan`, whose runs first copy the bound input (if any)
    into `input_view` (a writable buffer the plan's steps read)."""

    def __init__(self, plan, input_view):
        ffi, lib = plan.lib.ffi, plan.lib.lib
        self.ffi, self.lib, self.plan = ffi, lib, plan
        # cffi holds numpy's export, not a memoryview's: a memoryview exported to cffi that
        # ends in a reference cycle crashes the garbage collector
        self.dst = ffi.from_buffer(np.frombuffer(input_view, np.uint8), require_writable=True)
        self.nbytes = len(self.dst)
        status = ffi.new("flex_status *")
        handle = lib.flex_fast_plan_new(plan.block, ffi.cast("void *", self.dst), self.nbytes,
                                        status)
        if handle == ffi.NULL:
            plan.check(status[0])
            raise MemoryError("flex plan: no memory for the validated plan")
        self.handle = ffi.gc(handle, lib.flex_fast_plan_free)
        self.run = lib.flex_fast_run
        self.src = ffi.NULL

    def bind(self, x):
        """Make each run copy buffer `x` (exactly the input's byte length) into the input;
        None: copy nothing (the caller fills the input)."""
        src = self.ffi.NULL if x is None else self.ffi.from_buffer(np.frombuffer(x, np.uint8))
        status = self.lib.flex_fast_bind(self.handle, src, len(src) if x is not None else 0)
        if status:
            raise_for_status("flex_fast_bind", status, "input of %d bytes" % self.nbytes)
        self.src = src

    def check(self, status):
        """Raise the error of a non-OK status that a run returned."""
        if status:
            step = self.lib.flex_fast_failed(self.handle)
            raise_for_status(self.plan.names[step], status, "plan step %d" % step)
