"""A model's flex_c calls as data for C code: the model loaded, its kernels moved to flex_c
(burn.host.flex.runtime), one inference run so that every step is prepared, then every step
read back as a kernel call or a copy, each buffer named by where it lives.

A buffer is an arena place (`ArenaRef`: which dtype's arena, byte offset, bytes), or a
buffer outside the arenas (`Outside`): the model's constants (weights, biases, the
requantization tables) and the state some ops keep between inferences.
"""

from dataclasses import dataclass, field

import numpy as np

import burn
from burn.host.flex.binding import PtrList, Struct
from burn.host.flex.runtime import _base_name, _BufferCopy, _Replay, use_flex

ARENA_DTYPES = ("int8", "int16", "int32", "float32")  # the arenas' order in the C arena


class CompileError(ValueError):
    """The model cannot be compiled to C (an op without a C kernel, an unreadable file)."""


@dataclass(frozen=True)
class ArenaRef:
    """`nbytes` bytes at byte `offset` of arena `dtype`."""
    dtype: str
    offset: int
    nbytes: int


@dataclass
class Outside:
    """A buffer outside the arenas: its values when traced (after a reset) and its dtype."""
    values: np.ndarray
    uses: list = field(default_factory=list)  # (step, argument) pairs that pass it


@dataclass
class Call:
    """One kernel call: flex_c function `name` and its arguments, each an int, a float, None,
    an ArenaRef or Outside, a Struct or a list of those (a PtrList)."""
    name: str
    args: list


@dataclass
class Copy:
    """`nbytes` bytes copied from one arena place to another."""
    src: ArenaRef
    dst: ArenaRef
    nbytes: int


@dataclass
class Clamp:
    """`size` int8 values clamped to [lo, hi] from one arena place to another (the int8 clamp
    that burn runs in Python: RELU, RELU6 on their own)."""
    src: ArenaRef
    dst: ArenaRef
    size: int
    lo: int
    hi: int


@dataclass
class Trace:
    """What the C code needs: steps in order, arena sizes, inputs and outputs (ArenaRef,
    dtype, shape) and the self-test vectors ([(input arrays, output arrays)])."""
    steps: list
    arena_bytes: dict
    inputs: list
    outputs: list
    tests: list
    outside: list


def _address(buf):
    a = np.frombuffer(buf, np.uint8) if not isinstance(buf, np.ndarray) else buf
    return a.__array_interface__["data"][0], a.nbytes


class _Places:
    """Maps buffers to arena places or Outside records (one record per distinct buffer)."""

    def __init__(self, model):
        self.arenas = {}
        for dtype in ARENA_DTYPES:
            base, nbytes = _address(model._arena[dtype])
            self.arenas[dtype] = (base, nbytes)
        self.outside = {}

    def arena(self, buf):
        """The ArenaRef of a buffer inside an arena, or None."""
        addr, nbytes = _address(buf)
        for dtype, (base, size) in self.arenas.items():
            if size and base <= addr < base + size:
                if addr + nbytes > base + size:
                    raise CompileError("a buffer runs past the end of the %s arena" % dtype)
                return ArenaRef(dtype, addr - base, nbytes)
        return None

    def place(self, arr):
        """The ArenaRef of array `arr`, or its Outside record (one per distinct buffer)."""
        ref = self.arena(arr)
        if ref is not None:
            return ref
        key = (_address(arr), arr.dtype.str)
        if key not in self.outside:
            self.outside[key] = Outside(np.array(arr, copy=True).reshape(-1))
        return self.outside[key]


def _arg(places, a):
    if isinstance(a, np.ndarray):
        return places.place(a)
    if isinstance(a, PtrList):
        return [places.place(x) for x in a.arrays]
    if isinstance(a, (Struct, int, float)) or a is None:
        return a
    raise CompileError("an argument of type %s has no C form" % type(a).__name__)


def _unsupported(step):
    return CompileError("op %d (%s) has no C kernel: it runs in Python in burn's runtime "
                        "(%s), so the model cannot be compiled to C for any target"
                        % (step.index, step.kind, getattr(step.k, "__name__", "?")))


def trace(source, tests=4):
    """The Trace of a .bst (path or bytes); CompileError when an op has no C kernel."""
    try:
        model = use_flex(burn.load(source))
    except (OSError, ValueError) as exc:
        raise CompileError(str(exc)) from None
    if not model._bst.tests:
        raise CompileError("the model has no self-test vectors (import it with --tests N, or "
                           "export it with reference outputs)")
    model.reset()
    for k, blob in enumerate(model._bst.tests[0][0]):
        model._load_blob(blob, k)
    for s in model._steps:  # the first run prepares each kernel's C arguments
        s.k(*s.a)
    model.reset()
    places = _Places(model)
    steps = []
    for s in model._steps:
        if isinstance(s.k, _Replay):
            steps.append(Call(s.k.name, [_arg(places, a) for a in s.k.kernel_args]))
        elif _base_name(s.k) == "clamp_s8":
            src, dst, size, lo, hi = s.a
            steps.append(Clamp(places.arena(src), places.arena(dst), size, lo, hi))
            if steps[-1].src is None or steps[-1].dst is None:
                raise _unsupported(s)
        elif isinstance(s.k, _BufferCopy):
            src, dst, size = s.a
            n = size * memoryview(src).itemsize
            steps.append(Copy(places.arena(src), places.arena(dst), n))
            if steps[-1].src is None or steps[-1].dst is None:
                raise _unsupported(s)
        else:
            raise _unsupported(s)
    bst = model._bst
    io = []
    for views, specs in ((model._inputs, bst.inputs), (model._out_views, bst.outputs)):
        io.append([(places.arena(v[0] if isinstance(v, tuple) else v), model.tensors[t][1],
                    tuple(shape)) for v, (t, shape) in zip(views, specs)])
    odd = [dtype for side in io for _ref, dtype, _shape in side if dtype not in ARENA_DTYPES]
    if odd:  # int64, uint8, uint32 (burn.bst.PLAIN_INTS): Python only in burn's runtime
        raise CompileError("the model's inputs or outputs are %s, which no C kernel takes, so "
                           "it cannot be compiled to C" % odd[0])
    vectors = [([bst.blob_array(b) for b in ins], [bst.blob_array(b) for b in outs])
               for ins, outs in bst.tests[:tests]]
    arena_bytes = {dtype: places.arenas[dtype][1] for dtype in ARENA_DTYPES}
    return Trace(steps, arena_bytes, io[0], io[1], vectors, list(places.outside.values()))
