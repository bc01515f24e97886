"""Where quantization-aware training reaches into a model's own forward pass: every module
call, and every functional tensor operation (elementwise, clamp, reduction, concatenation,
padding) that a module's own code runs, each under a key that names it the same way in
every pass of the same forward (so a value found once on a calibration batch is found again
while training)."""

# The backend primitives a custom forward's tensor expressions run (x + y, x.relu(),
# x.mean(...), burn.cat(...), ...); layers compute through others, seen as module calls.
FUNCTIONAL = ("unary", "binary", "clamp", "reduce", "cat", "pad")


class ForwardHooks:
    """For one forward pass of `model`: each module call runs `on_module(module, key,
    original_forward, args, kwargs)` instead of the module's forward, and each functional
    primitive of `backend` (None: none) returns `on_primitive(key, handle)` instead of its
    handle. Keys: ("m", id(module), k) for the k-th call of a module, ("p", id(module), k,
    j) for the j-th functional primitive run by that call's own code (not by the modules it
    calls). While `paused` is set, primitives are neither counted nor hooked."""

    def __init__(self, model, backend, on_module, on_primitive):
        self.modules = list(model.modules())
        self.backend = backend
        self.on_module = on_module
        self.on_primitive = on_primitive
        self.count = {}
        self.stack = []
        self.paused = False

    def __enter__(self):
        for m in self.modules:
            object.__setattr__(m, "forward", self._module(m, type(m).forward.__get__(m)))
        if self.backend is not None:
            for name in FUNCTIONAL:
                original = getattr(type(self.backend), name).__get__(self.backend)
                object.__setattr__(self.backend, name, self._primitive(original))
        return self

    def __exit__(self, *exc):
        for m in self.modules:
            object.__delattr__(m, "forward")
        if self.backend is not None:
            for name in FUNCTIONAL:
                object.__delattr__(self.backend, name)
        return False

    def _module(self, m, original):
        def forward(*args, **kwargs):
            k = self.count.get(id(m), 0)
            self.count[id(m)] = k + 1
            key = ("m", id(m), k)
            self.stack.append([key, 0])
            try:
                return self.on_module(m, key, original, args, kwargs)
            finally:
                self.stack.pop()
        return forward

    def _primitive(self, original):
        def primitive(*args, **kwargs):
            h = original(*args, **kwargs)
            if self.paused or not self.stack:
                return h
            frame = self.stack[-1]
            frame[1] += 1
            return self.on_primitive(("p",) + frame[0][1:] + (frame[1] - 1,), h)
        return primitive
