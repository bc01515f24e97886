"""The strided copy: the data-movement ops without arithmetic (TRANSPOSE, SLICE,
STRIDED_SLICE, SPLIT, SPLIT_V, UNPACK, DEPTH_TO_SPACE, SPACE_TO_DEPTH, and the pieces of
GATHER and MIRROR_PAD) as one kernel.

The output, in order, is inp[offset + i0*s0 + i1*s1 + ... + i5*s5] for every index of the
box d0 x d1 x ... x d5: strides count elements and may be negative (a reversed axis) or
zero. The importer finds offset, dims and strides of each op (burn.host.importers.
tflite_move). `strided` works on any typed buffer; `strided_s8` takes the same arguments
for int8 buffers (a viper twin on MicroPython).

A box that reads one run of consecutive elements (a slice of whole rows) is bound to the
copy kernel instead (burn.graph.layout.copy), which plans take as a byte copy.

An optional op (burn.graph.ops.OPTIONAL): its prepare step is `prepare` here, so a default
firmware, which leaves this module out, does not carry it.
"""

import sys

from burn.bst import MAX_DIM, PLAIN_INTS
from burn.bst_ops import _arity, _bind, _dtype, _int_list, _layout_kernel, _shape
from burn.shape import numel

DIMS = 6


def strided(inp, out, offset, d0, d1, d2, d3, d4, d5, s0, s1, s2, s3, s4, s5):
    """out[k] = inp[offset + i0*s0 + ... + i5*s5], k the row-major index of (i0, ..., i5)
    in the box [d0, ..., d5]."""
    o = 0
    for i0 in range(d0):
        p0 = offset + i0 * s0
        for i1 in range(d1):
            p1 = p0 + i1 * s1
            for i2 in range(d2):
                p2 = p1 + i2 * s2
                for i3 in range(d3):
                    p3 = p2 + i3 * s3
                    for i4 in range(d4):
                        p = p3 + i4 * s4
                        for _ in range(d5):
                            out[o] = inp[p]
                            o += 1
                            p += s5


strided_s8_plain = strided
strided_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .strided_viper import strided_s8_fast
    except SyntaxError:
        pass

strided_s8 = strided_s8_fast or strided


def prepare(step, ctx, variant):
    """Check a strided op (burn.bst_ops.prepare): the box holds the output's elements and
    every element it reads, from the lowest address to the highest, lies in the input."""
    _arity(step, 1)
    dt = _dtype(step, ctx)
    if dt not in ("int8", "int16", "int32", "float32") + PLAIN_INTS:
        step.fail("tensor %d is %s, expected int8, int16, int32, float32, int64, uint8 or "
                  "uint32" % (step.ins[0], dt))
    size = numel(_shape(step, ctx, step.ins[0], dt))
    count = numel(_shape(step, ctx, step.outs[0], dt))
    dims = _int_list(step, "dims", DIMS, 1, MAX_DIM)
    strides = _int_list(step, "strides", DIMS, -size, size)
    offset = step.p("offset", 0, size - 1)
    box, lo, hi = 1, offset, offset
    for d, s in zip(dims, strides):
        box *= d
        if box > count:
            break
        if s < 0:
            lo += (d - 1) * s
        else:
            hi += (d - 1) * s
    if box != count:
        step.fail("the box %s does not hold the output's %d elements" % (dims, count))
    if lo < 0 or hi >= size:
        step.fail("reads elements %d to %d of an input of %d" % (lo, hi, size))
    name = "strided_s8" if dt == "int8" else "strided"
    if _consecutive(dims, strides):  # e.g. a streaming model's slice of its last frames
        step.a = (ctx.view(step.ins[0])[offset:offset + count], ctx.view(step.outs[0]), count)
        _layout_kernel(step, "copy", dt, variant, name)  # every firmware has copy
        return
    step.a = (ctx.view(step.ins[0]), ctx.view(step.outs[0]), offset) + dims + strides
    _bind(step, "strided", name,
          "plain" if dt in PLAIN_INTS else variant)  # flex moves 1, 2 or 4-byte types


def _consecutive(dims, strides):
    """Whether the box reads consecutive elements in order (every axis longer than one
    steps by the elements of the axes after it): the op is then a copy of one run."""
    step = 1
    for k in range(DIMS - 1, -1, -1):
        if dims[k] > 1:
            if strides[k] != step:
                return False
            step *= dims[k]
    return True
