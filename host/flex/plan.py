"""A whole int8 or float32 model as one flex_c call: the steps of `flex_plan_run` (see
flex.h), made from the kernel calls that `GraphKernels` converts (binding's argument
vocabulary) and from byte copies.

    plan = Plan(lib)                       # lib: a HostLib (cffi)
    plan.kernel("flex_s8_fully_connected", args) or plan.copy(src, dst, nbytes)
    plan.finish(); plan.run()              # raises FlexError naming the failing step
    fn, args = plan.call; plan.check(fn(*args))    # the same, one Python call less

`plan.call` is flex_plan_call with the one block of flex_plan_run's arguments: cffi converts
one pointer per run instead of five.

Integers, floats (their bits) and parameter blocks become the step's words, buffers entries
of its pointer table (`_pointer`, which a subclass may redefine for buffers of another
kind: burn.host.web.flex_plan); a kernel without a plan op code makes `kernel` return
False.
"""

import struct

import numpy as np

from burn.host.flex.binding import PtrList, Struct, raise_for_status

_I32 = (-(1 << 31), (1 << 31) - 1)


class Plan:
    """The steps of one plan and the buffers they point into (kept alive here)."""

    def __init__(self, lib):
        self.lib = lib
        self.words = []
        self.names = []
        self.pointers = []
        self.keep = []
        self.block = self.call = None

    def _pointer(self, arr):
        if not arr.flags.c_contiguous:
            raise ValueError("flex plan: buffers must be C-contiguous")
        ffi = self.lib.ffi
        self.keep.append(arr)
        self.pointers.append(ffi.cast("void *", ffi.from_buffer(arr)))
        return len(self.pointers) - 1

    def _step(self, name, op, words, indices):
        for w in words:
            if not _I32[0] <= w <= _I32[1]:
                raise ValueError("flex plan: %s argument %d does not fit int32" % (name, w))
        self.words += [op, len(words), len(indices)] + words + indices
        self.names.append(name)

    def kernel(self, name, args):
        """Add the call of flex_c kernel `name` with binding-vocabulary `args`; False (and
        nothing added) when the kernel has no plan op code."""
        op = getattr(self.lib.lib, "FLEX_OP_" + name[len("flex_"):].upper(), None)
        if op is None:
            return False
        words, indices = [], []
        for a in args:
            if a is None:
                indices.append(-1)
            elif isinstance(a, float):  # a float parameter: its bits
                words.append(struct.unpack("<i", struct.pack("<f", a))[0])
            elif isinstance(a, Struct):
                words += a.values
            elif isinstance(a, (PtrList, list)):  # a list of buffers: consecutive entries
                words.append(len(self.pointers))
                for x in (a.arrays if isinstance(a, PtrList) else a):
                    self._pointer(x)
            elif isinstance(a, (int, np.integer)):
                words.append(int(a))
            else:  # a buffer (what _pointer takes)
                indices.append(self._pointer(a))
        self._step(name, op, words, indices)
        return True

    def copy(self, src, dst, nbytes):
        """Add a copy of `nbytes` bytes from buffer `src` to buffer `dst` (any objects with
        the buffer protocol, at least that long)."""
        s = np.frombuffer(src, np.uint8)
        d = np.frombuffer(dst, np.uint8)
        if min(s.size, d.size) < nbytes:
            raise ValueError("flex plan: copy of %d bytes between shorter buffers" % nbytes)
        self._step("copy", self.lib.lib.FLEX_OP_COPY, [nbytes],
                   [self._pointer(s), self._pointer(d)])

    def finish(self):
        """Convert the steps for `run` (no step may be added afterwards)."""
        ffi = self.lib.ffi
        words = ffi.new("int32_t[]", self.words)
        pointers = ffi.new("void *[]", self.pointers)
        self.failed = ffi.new("int32_t *")
        block = ffi.new("flex_plan_args *", {
            "plan": words, "plan_len": len(self.words), "buffers": pointers,
            "n_buffers": len(self.pointers), "failed": self.failed})
        self.keep += [words, pointers]
        self.block = block
        self.call = (self.lib.lib.flex_plan_call, (block,))

    def run(self):
        """Run the whole plan in one C call; raise the failing step's error."""
        fn, args = self.call
        self.check(fn(*args))

    def check(self, status):
        """Raise the error of a non-OK status that `self.call` returned."""
        if status:
            step = self.failed[0]
            raise_for_status(self.names[step], status, "plan step %d" % step)
