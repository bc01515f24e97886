"""`.bst` inference on flex_c: rebind a loaded model's kernels (int8 and float32) to C ones.

    model = use_flex(burn.load("kws.bst"))                      # host build, through cffi
    model = use_flex(burn.load(data), EmulatedLib("cortex-m0plus"))   # emulated Cortex-M0+

The int8 and float32 kernels (and pad / concat) move to C; the rest stay as they were, except
that copies (the input and output copies, reshapes) become single buffer assignments. On
the host each op's C arguments are converted on its first run and replayed afterwards: a
step always passes the same arena views, weights and parameters.
"""

from burn.bst import PLAIN_INTS
from burn.graph.ops import KERNELS, kernel_args
from burn.host.flex.binding import raise_for_status
from burn.host.flex.fast_plan import FastPlan
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.plan import Plan
from burn.model import Model


def _flex_kernels():
    """burn.graph kernel name -> (GraphKernels method, argument count): every kernel of
    burn.graph.ops that the binding has; an int8 layout kernel (pad_s8) shares the method of
    its generic twin (pad)."""
    kernels = {}
    for module, names, _args in KERNELS:
        for name in names.split():
            method = name[:-3] if module == "layout" and name.endswith("_s8") else name
            if hasattr(GraphKernels, method):
                kernels[name] = (method, len(kernel_args(name)[1]))
    return kernels


_FLEX_KERNELS = _flex_kernels()


def _base_name(fn):
    name = getattr(fn, "__name__", "")
    for suffix in ("_plain", "_fast"):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


class _Recorder:
    """A library stand-in that prepares the first call it sees (the host library's
    `prepare`), keeps it and makes it."""

    def __init__(self, lib):
        self.lib = lib
        self.prepared = self.args = None

    def call(self, name, args):
        self.prepared = (name, *self.lib.prepare(name, args))
        self.args = args
        return self.prepared[1](*self.prepared[2])


class _Replay:
    """One step's kernel: converted on the first run, replayed on later runs as `fn(*args)`
    (`keep` holds what the converted arguments point into)."""

    def __init__(self, lib, method):
        self.lib = lib
        self.method = method
        self.name = self.fn = self.args = self.keep = self.kernel_args = None

    def __call__(self, *args):
        if self.fn is None:
            recorder = _Recorder(self.lib)
            getattr(GraphKernels(recorder), self.method)(*args)
            self.name, self.fn, self.args, self.keep = recorder.prepared
            self.kernel_args = recorder.args
            return
        status = self.fn(*self.args)
        if status:
            raise_for_status(self.name, status)


def _plan(model, lib):
    """The model's steps and output copies as one flex_c plan (burn.host.flex.plan), or None
    when a step has no plan op (a Python kernel, an optional op's). A CALL_ONCE before every
    other step stays out: it ran on the first inference, which is the generic loop's, and
    runs again at a reset that re-arms it (burn.graph.control.reset)."""
    plan = Plan(lib)
    for s in model._steps:
        if s.kind == "call_once" and not plan.names:
            continue
        if isinstance(s.k, _Replay):
            if not plan.kernel(s.k.name, s.k.kernel_args):
                return None
        elif isinstance(s.k, _BufferCopy):
            src, dst, size = s.a
            plan.copy(src, dst, size * memoryview(src).itemsize)
        else:
            return None
    for view, out in zip(model._out_views, model._outputs):
        plan.copy(view, out, len(view) * memoryview(view).itemsize)
    plan.finish()
    return plan


def _input_error(model, x, error):
    """The ValueError for input `x` of a one-input `model` that its conversion refused with
    TypeError `error` (a value of the wrong type, where a wrong size is a ValueError)."""
    view, _shape, tid = model._inputs[0]
    shape = model.input_shape(0)
    kind = type(x).__name__
    if hasattr(x, "dtype"):
        kind = "%s %s" % (x.dtype, kind)
    return ValueError("input 0: expected %d %s values for shape %s, got %s (%s)" % (
        len(view), model.tensors[tid][1], shape, kind, error))


def _plan_class(model, plan):
    """A subclass of Model for one-input `model` whose plan is made: `run(x)` and `model(x)`
    make one cffi call of the validated plan (burn.host.flex.fast_plan), which copies the
    input into the arena itself. The input it copies from is bound once per input object:
    a buffer of the input's format, byte length and shape, or a flat one (a numpy array,
    array.array), is bound as it is unless the model transposes its input (input_layout),
    and a later call with the same object only runs (its buffer stays exported, so its
    owner cannot resize or free it); any other input goes through Model's
    conversion into the arena, which takes or refuses it as always (a value of the wrong
    type with a ValueError too), and the run then copies nothing. What they use are closure
    cells, not attributes: each attribute read would cost about as much as a kernel here,
    and so would a second Python frame, which is why run and __call__ each inline the same
    lines."""
    view = model._inputs[0][0]
    shape, nchw = model._takes[0]
    fast = FastPlan(plan, view)
    fn, handle, check = fast.run, fast.handle, fast.check
    raw, result = model._raw, model._result
    fmt, nbytes = view.format, view.nbytes
    unbound = object()
    bound = unbound

    def bind(self, x):
        nonlocal bound
        try:
            m = memoryview(x)
            direct = m.format == fmt and m.nbytes == nbytes and m.c_contiguous and \
                nchw is None and (m.ndim == 1 or m.shape == shape)
        except TypeError:
            direct = False
        if direct:
            fast.bind(x)
            bound = x
            return
        fast.bind(None)
        bound = unbound
        try:
            self._set_input(0, x)
        except TypeError as e:
            raise _input_error(self, x, e) from None

    class PlanModel(Model):
        def run(self, x):
            """Model.run, by the plan (burn.host.flex.runtime._plan_class)."""
            if x is not bound:
                bind(self, x)
            status = fn(handle)
            if status:
                check(status)
            return raw

        # run's body again, not a call of run: a call is one Python frame (the per-call
        # overhead of a small model is its frames)
        def __call__(self, x):
            """Model.__call__, by the plan (burn.host.flex.runtime._plan_class)."""
            if x is not bound:
                bind(self, x)
            status = fn(handle)
            if status:
                check(status)
            return result

    return PlanModel


class _FastInvoke:
    """`model.invoke` for a model whose steps are all in memory: after the first run, which
    prepares every C call, the whole model runs as one flex_c plan (`flex_plan_run`) when
    every step and output copy has a plan op, else as a list of prepared calls, without the
    generic loop's per-step Python (a file-mode model, which reads layers between its steps,
    keeps the generic loop)."""

    def __init__(self, model, lib):
        self.model = model
        self.lib = lib
        self.plain = model.invoke
        self.calls = None
        self.plan = None

    def __call__(self):
        if self.plan is not None:
            self.plan.run()
            return
        calls = self.calls
        if calls is None:
            self.plain()
            self.calls = [(s.k.name, s.k.fn, s.k.args) if isinstance(s.k, _Replay)
                          else (None, s.k, tuple(s.a)) for s in self.model._steps]
            if hasattr(self.lib.lib, "flex_fast_plan_new"):
                self.plan = _plan(self.model, self.lib)
                if self.plan is not None and len(self.model._inputs) == 1:
                    if self.model._result is None:
                        self.model._result = self.model._tensors()
                    self.model.__class__ = _plan_class(self.model, self.plan)
            return
        # fn(*args) with a tuple allocates nothing, so the loop does not wake the GC
        for name, fn, args in calls:
            status = fn(*args)
            if status and name is not None:
                raise_for_status(name, status)
        self.model._copy_outputs()


class _BufferCopy:
    """burn.graph.layout's copy(src, dst, size) as one buffer assignment where both buffers
    expose `size` elements of the same format; `plain` (the kernel it replaces) otherwise,
    which also reports bad sizes as before."""

    def __init__(self, plain):
        self.plain = plain

    def __call__(self, src, dst, size):
        try:
            memoryview(dst)[:size] = memoryview(src)[:size]
        except (TypeError, ValueError):
            self.plain(src, dst, size)


def use_flex(model, lib=None):
    """Make the int8 and float32 ops of `model` (a burn.load() result) run in flex_c library
    `lib` (the host build by default); returns the model. Returns how many ops moved as
    `model.flex_ops`. The moves of int64, uint8 and uint32 data stay in Python."""
    kernels = GraphKernels(lib)
    moved = 0
    # the main graph's steps, and the subgraphs' (IF, WHILE, CALL_ONCE run them)
    for step in list(model._steps) + [s for g in model.graphs for s in g.steps]:
        base = _base_name(step.k)
        # int64, uint8 and uint32 data stay on the plain kernels (burn.bst.PLAIN_INTS)
        if base in _FLEX_KERNELS and not [t for t in step.ins + step.outs
                                          if model.tensors[t][1] in PLAIN_INTS]:
            name, arity = _FLEX_KERNELS[base]
            # The Python twins may take a trailing argument of their own (multiplier
            # offsets, lookup tables: burn.bst_ops): the C kernels do not.
            step.a = tuple(step.a)[:arity]
            if hasattr(kernels.lib, "prepare"):
                step.k = _Replay(kernels.lib, name)
            else:
                step.k = getattr(kernels, name)
            moved += 1
        elif base in ("copy", "copy_s8"):
            step.k = _BufferCopy(step.k)
    model._copy = [_BufferCopy(copy) for copy in model._copy]
    if hasattr(kernels.lib, "prepare") and not any(s.reads for s in model._steps):
        model.invoke = _FastInvoke(model, kernels.lib)
    model.flex_ops = moved
    return model
