"""Kernel arguments placed in another machine's memory (an emulated core's RAM, a WebAssembly
instance's linear memory): binding-vocabulary arguments (burn.host.flex.binding) become
32-bit words (addresses below 4 GiB, also on a 64-bit core), buffers copied in at addresses
that `alloc` gives.

numpy views of one array are placed as that whole array, once, so that buffers which overlap
on the host overlap there too (an output over its input, as the .bst arena plans it); the
writable ones are listed in `written`, to be copied back after the call.
"""

import struct

import numpy as np

from burn.host.flex.binding import PtrList, Struct


def _root(a):
    """The numpy array that owns the memory of view `a` (a itself when it owns it), or, when
    that array views a writable Python buffer (a bytearray, array or a memoryview of one, as
    the runtime's arena), the whole of that buffer as bytes: views taken of one arena by
    separate frombuffer calls keep their overlap."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    owner = a.base.obj if isinstance(a.base, memoryview) else a.base
    if owner is not None and not isinstance(owner, np.ndarray) and not memoryview(owner).readonly:
        return np.frombuffer(owner, np.uint8)
    return a


class Placement:
    """One call's buffers: `alloc(nbytes)` gives an address, `write(addr, bytes)` fills it;
    `written` holds (address, array) of the writable buffers placed; `pointer_size` is the
    bytes of a pointer in an array of pointers (PtrList)."""

    def __init__(self, alloc, write, pointer_size=4):
        self.alloc, self.write = alloc, write
        self.pointer_format = {4: "I", 8: "Q"}[pointer_size]
        self.placed = []  # (address, host address, bytes)
        self.written = []

    def word(self, a):
        """The 32-bit word passed for argument `a` (not a float: the caller passes those)."""
        if a is None:
            return 0
        if isinstance(a, np.ndarray):
            root = _root(a) if a.flags.c_contiguous else a  # views keep their overlap
            host = root.__array_interface__["data"][0]
            offset = a.__array_interface__["data"][0] - host
            for addr, placed_host, nbytes in self.placed:
                if (placed_host, nbytes) == (host, root.nbytes):
                    return addr + offset
            addr = self.alloc(root.nbytes)
            self.write(addr, root.tobytes())
            self.placed.append((addr, host, root.nbytes))
            if root.flags.writeable:
                self.written.append((addr, root))
            return addr + offset
        if isinstance(a, Struct):
            addr = self.alloc(4 * len(a.values))
            self.write(addr, struct.pack("<%di" % len(a.values), *a.values))
            return addr
        if isinstance(a, PtrList):
            ptrs = [self.word(x) for x in a.arrays]
            fmt = "<%d%s" % (len(ptrs), self.pointer_format)
            addr = self.alloc(struct.calcsize(fmt))
            self.write(addr, struct.pack(fmt, *ptrs))
            return addr
        return int(a) & 0xFFFFFFFF


def copy_back(written, read):
    """Copy each written buffer back from the other machine (`read(addr, nbytes)`)."""
    for addr, arr in written:
        arr[...] = np.frombuffer(read(addr, arr.nbytes), dtype=arr.dtype).reshape(arr.shape)
