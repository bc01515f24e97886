"""The `.bst` runtime: `burn.load(source)` returns a Model; `model(x)` runs one inference.

All activations live in one preplanned arena per dtype, allocated at load time, and every
op is bound to its kernel once (`burn.bst_ops`), so an int8 inference after the first one
allocates nothing. The output tensor is owned by the model and overwritten by the next
call: `.clone()` it to keep it.

Weights: from bytes, or a path to a file whose bytes are addressable in place (a ROMFS file
in flash, `burn.load("/rom/model.bst")`), int8 constants are used in place (int32 and
float32 ones are copied once); from a path or an open file, each op's constants are read
before the op runs into one reusable buffer per dtype sized to the largest op, so RAM =
arena + largest layer. `m.run(x)` returns the output array instead of a Tensor and never
loads the Tensor backend: the leanest way on a board.
"""

import gc
import sys
from array import array

from burn.bst import HEADER_ARENAS, ITEMSIZE, TYPECODE, BstFile, zeros
from burn.device import device
from burn.dtype import dtype_of
from burn.shape import numel
from burn.tensor import Tensor

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython
    from time import perf_counter_ns

    def ticks_us():
        """Microseconds of a monotonic clock."""
        return perf_counter_ns() // 1000

    def ticks_diff(a, b):
        """a - b of two ticks_us() readings."""
        return a - b

_STREAMED = ("int8", "float32", "int32")
_FLAT = (list, tuple, array)
_CAN_CAST = hasattr(memoryview, "cast")  # CPython; MicroPython's memoryview cannot cast
_ON_BOARD = sys.implementation.name == "micropython"


def _cores_of(flex):
    """burnflex.cores() (built, usable, why, launches, core-1 stack bytes), or what a
    burnflex without it would say."""
    if flex is not None and hasattr(flex, "cores"):
        return flex.cores()
    return (1, 1, None, 0, 0)


def _default_max_arena():
    if _ON_BOARD:
        # collected first: garbage counts as used until a collection, and a file must not be
        # refused for what the heap would free
        gc.collect()
        return gc.mem_free()
    return 64 << 20


def load(source, variant=None, max_arena=None, input_layout=None, cores=None):
    """Load a `.bst` model from bytes / bytearray / memoryview, a path or an open binary
    file. A relative path not found from the current folder is looked for in /rom too, so
    `burn.load("model.bst")` finds what burn-flash put on any board. `variant` picks the
    kernels: None (fastest available: the flex C module, then viper, then plain), "flex",
    "fast" (viper) or "plain"; `model.backend` says which ran. `max_arena` caps the arena
    bytes (default: 64 MiB, or the free heap on MicroPython). `input_layout="NCHW"` takes
    the 4-D inputs of a model that records NHWC ones (its metadata's input_layout) in NCHW
    and transposes them (burn.input_layout). `cores=1` keeps a flex model on one core where
    the firmware would split its large ops between both (burn.cores)."""
    return Model(source, variant, max_arena, input_layout, cores)


def _flat(x, raw="b"):
    """(a flat, indexable view of a buffer of values, the buffer's shape if it has more than
    one dim, else None): multi-dim buffers (numpy arrays on the host) are flattened, in
    C order, and raw bytes read as typecode `raw` (int8; "B" for a uint8 tensor), where
    the interpreter can cast."""
    if not _CAN_CAST or isinstance(x, _FLAT):
        return x, None
    try:
        mv = memoryview(x)
    except TypeError:
        return x, None
    fmt = raw if mv.format in ("B", "c") else mv.format
    if mv.ndim == 1 and fmt == mv.format:
        return mv, None
    dims = None if mv.ndim == 1 else mv.shape
    if not mv.c_contiguous:  # a strided view (a transposed numpy array): copied in C order
        mv = memoryview(mv.tobytes())
    return mv.cast("B").cast(fmt), dims


def _settle():
    """On MicroPython, collect the garbage of a load step before the next one: what the next
    step keeps then fills the holes at the bottom of the heap instead of being scattered
    between garbage, which would leave the free heap in pieces too small for the modules
    that `model(x)` imports on its first call (the Tensor backend). One collection per op
    costs about 8 ms on an RP2040 (the KWS model loads in 0.42 s instead of 0.31 s); asking
    the heap whether it is tight (gc.mem_free) would cost more than collecting."""
    if _ON_BOARD:
        gc.collect()


def _alloc(typecode, count):
    if _ON_BOARD and count > 256:
        gc.collect()  # a big buffer needs one free block: collect the garbage first
    try:
        return zeros(typecode, count)
    except MemoryError:
        raise ValueError("not enough memory for a buffer of %d elements" % count) from None


_RUNTIMES = ("flex", "viper", "plain")


def _cpu_mhz():
    """The CPU clock in MHz where MicroPython's machine.freq() tells it, else None."""
    try:
        import machine
        return machine.freq() // 1000000
    except (ImportError, AttributeError, OSError):
        return None


def _backend_name(steps):
    """The runtimes the steps use, fastest first, joined by '+' ('flex', 'flex+plain')."""
    used = [s.runtime for s in steps]
    return "+".join([r for r in _RUNTIMES if r in used]) or "plain"


class Model:
    """A loaded `.bst` model (see the module docstring)."""

    def __init__(self, source, variant=None, max_arena=None, input_layout=None, cores=None):
        if cores not in (None, 1, 2):
            raise ValueError("cores must be None, 1 or 2, not %r" % (cores,))
        self._cores = cores
        self._split = None
        # the cap on the arena, less the op states (svdf) made so far: they share it
        self.room = max_arena = max_arena or _default_max_arena()
        self._bst = BstFile(source, max_arena)
        try:
            self._build(variant, input_layout)
        except BaseException:
            self._bst.close()
            raise

    def _build(self, variant, input_layout):
        bst = self._bst
        from burn import bst_ops
        if variant is None or variant == "flex":
            bst_ops.flex_module()  # a native module's code is one large block: load it first
        # The big buffers first, largest first, then code, then the many small objects of
        # the header: on MicroPython this order keeps the heap from fragmenting.
        self.layer_bytes = 0
        self._layer = {}
        for dtype in _STREAMED:
            n = 0 if bst.file is None else bst.layer[dtype]
            self.layer_bytes += n
            self._layer[dtype] = memoryview(_alloc(TYPECODE[dtype], n // ITEMSIZE[dtype]))
        self._arena = {"int8": memoryview(_alloc("b", bst.arena["int8"])),
                       "float32": memoryview(_alloc("f", bst.arena["float32"] // 4))}
        bst.parse()
        self.arena_bytes = bst.arena["int8"] + bst.arena["float32"]
        for dt in HEADER_ARENAS:  # their sizes are in the JSON header (bst-format.md)
            self._arena[dt] = memoryview(_alloc(TYPECODE[dt], bst.arena[dt] // ITEMSIZE[dt]))
            self.arena_bytes += bst.arena[dt]
        _settle()
        self.tensors = bst.tensors
        self.variant = variant
        self._tables = {}
        steps = [bst_ops.Step(i, *op) for i, op in enumerate(bst.ops)]
        # subgraphs and resource variables (burn.graph.control), in few files
        self.graphs = self.variables = self.once = ()
        control = None
        if bst.subgraphs or bst.variables:
            try:
                control = __import__("burn.graph.control", None, None, ["setup"])
            except ImportError:
                raise ValueError("this model has subgraphs or variables, which this firmware "
                                 "leaves out (burn firmware build --all-ops)") from None
            control.setup(self, bst)
        params = [op[4] for op in bst.ops]  # prepare checks them, then drops them
        sub_params = [[op[4] for op in g[0]] for g in bst.subgraphs]
        bst.ops = None  # the steps hold what is needed
        flex = None
        if bst.mapped is not None and (variant is None or variant == "flex"):
            flex = bst_ops.flex_module()
        for step in steps + (control.all_steps(self) if control else []):
            self._plan_streams(step)
            self._read_layer(step)  # prepare checks the per-channel tables' values
            bst_ops.prepare(step, self, variant)
            _settle()
            if flex is not None and step.runtime == "flex":
                self._tables_in_place(step, flex)
        self._check_plan(steps, params, bst.inputs, bst.outputs)
        for g, gparams in zip(self.graphs, sub_params):
            self._check_plan(g.steps, gparams, [(t, None) for t in g.inputs],
                             [(t, None) for t in g.outputs])
        if control:
            control.check_frames(self, steps, self.tensors)
        params = sub_params = None
        self._steps = steps
        self.backend = _backend_name(steps)
        self.last_us = -1  # the last inference's time, set by invoke()
        self._plan = None  # burnflex's plan of the whole model: None untried, False none
        self._inputs = [(self.view(t), shape, t) for t, shape in bst.inputs]
        # per input: (the shape the caller passes, the NCHW dims to transpose it from or None)
        self._takes = [(shape, None) for _t, shape in bst.inputs]
        self._layout = None  # burn.input_layout, once input_layout or an error needs it
        if input_layout is not None:
            self._takes = self._layouts().takes(bst.inputs, bst.metadata.get("input_layout"),
                                                input_layout)
        self._out_views = [self.view(t) for t, _shape in bst.outputs]
        self._outputs = [_alloc(TYPECODE[self.tensors[t][1]], numel(s)) for t, s in bst.outputs]
        self._raw = self._outputs[0] if len(self._outputs) == 1 else tuple(self._outputs)
        self._result = None
        layout = __import__("burn.graph.layout", None, None, ["copy"])
        self._copy = [getattr(layout, "copy_s8" if self.tensors[t][1] == "int8" else "copy")
                      for t, _s in bst.inputs + bst.outputs]

    def _check_plan(self, steps, params, inputs, outputs):
        """Refuse an arena plan that overwrites a tensor still needed (burn.graph.in_place);
        `params`: each op's parameters, checked by bst_ops.prepare; `inputs`, `outputs`:
        the graph's (tensor id, shape) pairs."""
        from burn.graph import in_place

        tensors = self.tensors

        def delta(i, k):
            s = steps[i]
            x, y = tensors[s.ins[k]], tensors[s.outs[0]]
            if x[1] != y[1]:
                return None
            w = s.consts.get("w")
            return in_place.overlap_delta(s.kind, params[i], x[0], y[0], ITEMSIZE[x[1]],
                                          None if w is None else self._bst.blob(w)[3])

        in_place.check_plan(tensors, [(s.kind, s.ins, s.outs) for s in steps],
                            [t for t, _s in inputs], [t for t, _s in outputs], delta)

    # -- the context bst_ops.prepare reads ------------------------------------------------
    def view(self, tid):
        """The arena memoryview of tensor `tid`."""
        shape, dtype, off, _scale, _zp, _name = self.tensors[tid]
        start = off // ITEMSIZE[dtype]
        return self._arena[dtype][start:start + numel(shape)]

    def const(self, step, name):
        """(buffer, dtype, shape) of constant `name` of `step`."""
        index = step.consts[name]
        off, nbytes, dtype, shape = self._bst.blob(index)
        stream = step.streams.get(dtype)
        if stream is not None:
            begin = (off - stream[0]) // ITEMSIZE[dtype]
            return self._layer[dtype][begin:begin + nbytes // ITEMSIZE[dtype]], dtype, shape
        if dtype == "int8" and self._bst.mem is not None:
            return self._bst.blob_bytes(index), dtype, shape
        table = self._tables.get(index)
        if table is None:
            table = self._bst.blob_array(index)
            self._tables[index] = table
        return table, dtype, shape

    def _tables_in_place(self, step, flex):
        """A flex step of a model mapped from flash (ROMFS): its int32 tables (bias,
        multipliers, shifts) are used where they lie, as the C kernels read little-endian
        words, and their RAM copies go. A table that is not word aligned keeps its copy."""
        for index in step.consts.values():
            table = self._tables.get(index)
            if table is None or self._bst.blob(index)[2] != "int32":
                continue
            view = self._bst.blob_bytes(index)
            if not flex.aligned(view):
                continue
            step.a = tuple([view if a is table else a for a in step.a])
            del self._tables[index]

    def _plan_streams(self, step):
        """In file mode, give `step` the span of its blobs of each dtype, which must fit the
        reusable buffer of that dtype, and the reads that fill it."""
        step.streams = {}
        step.reads = []
        if self._bst.file is None:
            return
        for dtype in _STREAMED:
            spans = [self._bst.blob(b) for b in step.consts.values()
                     if self._bst.blob(b)[2] == dtype]
            if spans:
                lo = min([s[0] for s in spans])
                hi = max([s[0] + s[1] for s in spans])
                if hi - lo > self._bst.layer[dtype]:
                    step.fail("constants span %d bytes, more than the %s layer buffer "
                              "of %d" % (hi - lo, dtype, self._bst.layer[dtype]))
                step.streams[dtype] = (lo, hi - lo)
                step.reads.append((self._bst.data_offset + lo,
                                   self._layer[dtype][:(hi - lo) // ITEMSIZE[dtype]], hi - lo))

    def _read_layer(self, step):
        """File mode: read the constants of `step` into the layer buffers."""
        f = self._bst.file
        for pos, buf, n in step.reads:
            f.seek(pos)
            if f.readinto(buf) != n:
                raise ValueError("op %d: the model file ended early" % step.index)

    def _tensors(self):
        """The output Tensors, made once around the output arrays."""
        pure = device("pure")
        out = [Tensor(buf, shape, dtype_of(self.tensors[t][1]), pure)
               for buf, (t, shape) in zip(self._outputs, self._bst.outputs)]
        return out[0] if len(out) == 1 else tuple(out)

    # -- inference ------------------------------------------------------------------------
    def _layouts(self):
        if self._layout is None:
            self._layout = __import__("burn.input_layout", None, None, ["takes"])
        return self._layout

    def _shape_error(self, k, got_dtype, got_shape):
        _view, shape, tid = self._inputs[k]
        given, nchw = self._takes[k]
        return self._layouts().shape_error(k, self.tensors[tid][1], given, got_dtype,
                                           got_shape, shape, self._bst.metadata.get(
                                               "input_layout"), nchw)

    def _set_input(self, k, x):
        # An input with a shape (a Tensor or buffer of more than one dim) must have the one
        # the model takes; a flat one (a list, array, bytes, a 1-D buffer or Tensor) lists
        # the values in that shape's order and must have their count.
        view, _shape, tid = self._inputs[k]
        given, nchw = self._takes[k]
        dtype = self.tensors[tid][1]
        n = len(view)
        if isinstance(x, Tensor):
            dims = x.shape
            if x.dtype.name != dtype or (len(dims) > 1 and dims != given) or x.numel() != n:
                raise self._shape_error(k, x.dtype.name, dims)
            x = x.handle if x.backend.name == "pure" else x.backend.to_flat(
                x.handle, n, x.dtype)
        else:
            dims = None
            if _CAN_CAST and not isinstance(x, _FLAT):  # no tuple to allocate on a board
                x, dims = _flat(x, "B" if dtype == "uint8" else "b")
            if dims is not None and dims != given:
                raise self._shape_error(k, None, dims)
            if len(x) != n:
                raise ValueError("input %d: expected %d %s values for shape %s, got %d" % (
                    k, n, dtype, given, len(x)))
        if nchw is None:
            self._copy[k](x, view, n)
        else:
            self._layout.nchw_to_nhwc(x, view, nchw[0], nchw[1], nchw[2], nchw[3])

    def invoke(self):
        """Run every op on the current arena contents (inputs already set)."""
        if self._plan:  # bound once: nothing to convert or check; the call times itself
            self.last_us = self._run_plan(self._plan)
            return
        start = ticks_us()
        if self._plan is None and self._first_plan():
            pass  # making the plan ran the model
        else:
            for s in self._steps:
                self._read_layer(s)
                s.k(*s.a)
            self._copy_outputs()
        self.last_us = ticks_diff(ticks_us(), start)

    def reset(self, init=False):
        """Set the state that ops with memory (svdf, lstm) and resource variables keep
        between inferences to its rest value (`step.rest`), as TFLM's Reset() does: a
        CALL_ONCE that ran stays done (its init subgraph does not run again). With
        `init=True` CALL_ONCE is re-armed too: the model is as at load."""
        steps = self._steps
        for g in self.graphs:
            steps = steps + g.steps
        for s in steps:
            if hasattr(s, "state"):
                for i in range(len(s.state)):
                    s.state[i] = s.rest
        if self.variables or self.once:
            __import__("burn.graph.control", None, None, ["reset"]).reset(self, init)

    def run_graph(self, graph):
        """Run the steps of subgraph `graph` (burn.graph.control), reading each one's
        constants first in file mode."""
        for s in graph.steps:
            if s.reads:
                self._read_layer(s)
            s.k(*s.a)

    def _first_plan(self):
        from burn import bst_ops
        self._plan = bst_ops.flex_plan(self) or False
        if self._plan:
            flex = bst_ops.flex_module()
            p = self._plan
            if self._cores != 1 and _cores_of(flex)[0] > 1:
                from burn.cores import plan_args
                args = plan_args(self, p)
            else:
                args = (p[0], p[1], 1)
            self._plan_args = args  # the buffers the bound plan points at stay alive
            self._plan = flex.bind_plan(*args)
            self._run_plan = flex.run_plan
        return self._plan

    def _cores_info(self, ops):
        """model.info()'s `cores`; burn.cores.describe on a firmware with two."""
        from burn import bst_ops
        flex = bst_ops.flex_module()
        state = _cores_of(flex)
        if state[0] > 1:
            from burn.cores import describe
            return describe(self, ops, state)
        for op in ops:
            op["split"] = None
        why = state[2] or "this firmware runs flex on one core"
        return {"used": 1, "built": 1, "why": "no flex module" if flex is None else why,
                "core1_stack_bytes": 0}

    def _copy_outputs(self):
        first = len(self._inputs)
        for k in range(len(self._outputs)):
            self._copy[first + k](self._out_views[k], self._outputs[k],
                                  len(self._out_views[k]))

    def __call__(self, x):
        """Run one inference; `x` is a Tensor or a buffer (a numpy array) of the input's
        shape (`input_shape`), a flat array / buffer / list of its values in that shape's
        order, in the input's dtype (int8, int16, int32, float32, int64, uint8 or uint32),
        or a list of those for a model of several inputs. Returns the output Tensor (a
        tuple for several outputs)."""
        self.run(x)
        if self._result is None:
            self._result = self._tensors()
        return self._result

    def run(self, x):
        """Like calling the model, but returns the output array (a tuple for several
        outputs) and never loads the Tensor machinery: the leanest way on a board."""
        if len(self._inputs) == 1:
            self._set_input(0, x)
        else:
            if len(x) != len(self._inputs):
                raise ValueError("expected %d inputs, got %d" % (len(self._inputs), len(x)))
            for k in range(len(x)):
                self._set_input(k, x[k])
        self.invoke()
        return self._raw

    # -- description and self-test -------------------------------------------------------
    def _io_info(self, items):
        out = []
        for tid, shape in items:
            _s, dtype, _off, scale, zp, name = self.tensors[tid]
            out.append({"name": name, "shape": shape, "dtype": dtype, "scale": scale,
                        "zero_point": zp})
        return out

    def info(self):
        """A dict describing the model: `ops` (index, op, dtype, input and output shapes,
        parameter count, MACs), totals `params` and `macs`, `arena_bytes`, `layer_bytes`
        (the streaming buffers, file mode), `flash_bytes` (the file), `inputs` / `outputs`
        (shape, dtype, quantization), `labels`, `metadata`, the number of `tests`, and
        `backend` (the kernels' runtimes: flex, viper, plain; each op has its `runtime`),
        `table_bytes` (constants copied into RAM when the model is read from memory), and
        `latency` of the last inference: `us`, and on a board that reports its clock the
        `cycles`, `cpu_mhz`, `ms_at_125mhz` and `ms_at_133mhz` (None before the first);
        `cores` (burn.cores.describe: the cores the last inference used, and why not two),
        with each op's `split` between them."""
        ops = []
        params = macs = 0
        for s in self._steps:
            n = 0
            for name, b in s.consts.items():
                if name in ("w", "bias"):
                    n += numel(self._bst.blob(b)[3])
            ends = s.ins or s.outs
            ops.append({"index": s.index, "op": s.kind,
                        "dtype": self.tensors[ends[0]][1] if ends else None,
                        "inputs": [self.tensors[t][0] for t in s.ins],
                        "outputs": [self.tensors[t][0] for t in s.outs],
                        "params": n, "macs": s.macs, "runtime": s.runtime})
            params += n
            macs += s.macs
        latency = None
        if self.last_us >= 0:
            latency = {"us": self.last_us}
            mhz = _cpu_mhz()
            if mhz:
                cycles = self.last_us * mhz
                latency.update({"cycles": cycles, "cpu_mhz": mhz,
                                "ms_at_125mhz": cycles / 125000,
                                "ms_at_133mhz": cycles / 133000})
        return {"ops": ops, "params": params, "macs": macs, "backend": self.backend,
                "latency": latency, "cores": self._cores_info(ops),
                "arena_bytes": self.arena_bytes,
                "layer_bytes": self.layer_bytes, "table_bytes": self._table_bytes(),
                "flash_bytes": self._bst.size,
                "inputs": self._io_info(self._bst.inputs),
                "outputs": self._io_info(self._bst.outputs), "labels": self._bst.labels,
                "metadata": self._bst.metadata, "tests": len(self._bst.tests),
                "mode": "file" if self._bst.file is not None else (
                    "mapped" if self._bst.mapped is not None else "bytes")}

    def _table_bytes(self):
        """Bytes of the constants copied into RAM (bytes mode), each table at its type's width."""
        n = 0
        for index, t in self._tables.items():
            n += len(t) * ITEMSIZE[self._bst.blob(index)[2]]
        return n

    def input_shape(self, k=0):
        """The shape input `k` takes: the file's (NHWC for images), or its NCHW form when
        the model was loaded with input_layout="NCHW"."""
        return self._takes[k][0]

    def input_buffer(self, k=0):
        """The arena slice of input `k` (a flat memoryview of int8 or float32 values): fill
        it in place (e.g. with `file.readinto`) and call `invoke()` to skip the input copy."""
        return self._inputs[k][0]

    def outputs(self):
        """The output arrays (a tuple for several outputs) that `invoke()` fills."""
        return self._raw

    def _load_blob(self, index, k):
        """Put reference blob `index` into input `k` without a large temporary."""
        view = self._inputs[k][0]
        if self._bst.file is not None:
            self._bst.file.seek(self._bst.data_offset + self._bst.blob(index)[0])
            if self._bst.file.readinto(view) != self._bst.blob(index)[1]:
                raise ValueError("the model file ended early")
        elif self._bst.blob(index)[2] == "int8":
            self._copy[k](_flat(self._bst.blob_bytes(index))[0], view, len(view))
        else:
            self._copy[k](self._bst.blob_array(index), view, len(view))

    def self_test(self):
        """Run the file's reference tests in order, from a reset state (`reset`); return
        how many ran. Raises ValueError at the first output element that differs (int8: at
        all; float32: beyond 1e-4 + 1e-3 of the reference's magnitude) or that is not a
        finite number (NaN or infinite, in the output or the reference)."""
        self.reset(init=True)
        for i, (ins, outs) in enumerate(self._bst.tests):
            for k, b in enumerate(ins):
                self._load_blob(b, k)
            self.invoke()
            for j, b in enumerate(outs):
                ref = self._bst.blob_array(b)
                exact = self._bst.blob(b)[2] != "float32"  # MicroPython arrays lack .typecode
                got = self._outputs[j]
                for e in range(len(ref)):
                    diff = abs(got[e] - ref[e])
                    # diff is NaN when either side is NaN or both are infinite, and `bad` is
                    # then false; NaN is the one value unequal to itself (no float('nan'))
                    bad = diff > 0 and (exact or diff > 1e-4 + 1e-3 * abs(ref[e]))
                    if bad or diff != diff:
                        raise ValueError("self-test %d: output %d element %d is %r, the "
                                         "reference is %r%s" % (
                                             i, j, e, got[e], ref[e],
                                             "" if diff - diff == 0 else " (not finite)"))
        return len(self._bst.tests)

    def close(self):
        """Close the model file (file mode); the model cannot run afterwards."""
        self._bst.close()
