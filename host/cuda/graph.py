"""Whole-step CUDA graphs: `graph(step, state)` records a function of burn tensors on the
cupy backend (forward, backward and optimizer update) once per input shape, and replays
it as one CUDA graph launch.

The first call with a new input shape runs `step` as it is (which also compiles every
kernel it needs); the second records it on a capture stream, with a memory pool of its
own, and replays it; later calls copy the inputs into the recorded input buffers and
replay. The outputs are the recorded output tensors, overwritten by every replay.

State tensors (parameters, running statistics) keep one storage for the life of the
wrapper: where a step, run or recorded, rebinds one to new storage, the new values are
copied back into it (inside the graph when recording), so every graph and every direct
run reads and writes the same arrays. A state tensor rebound from outside (a checkpoint
loaded, say) is copied back before the next call.
"""

from ..backends.dlpack import storage
from .cublas import direct_blas, shared


def training_step(model, optimizer, loss_fn, capture=False):
    """The step `(x, y) -> loss` that runs `loss_fn(model(x), y)`, its backward pass and
    the optimizer's update; with `capture`, a `graph` of it over the model's parameters and
    buffers (which the caller may keep, e.g. for `memory_bytes`)."""

    def step(x, y):
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return graph(step, list(model.parameters()) + list(model.buffers())) if capture else step


def device_array(t):
    """The CuPy array under a burn tensor of the cupy backend, through Autodiff and Fusion
    (running a pending Fusion chain)."""
    return storage(t)[1]


class graph:
    """`step(*inputs)` -> a tensor or a tuple of tensors, replayed as a CUDA graph per
    input shape. `state`: the tensors the step updates (model parameters and buffers);
    `key()`: more that the recorded step depends on (a learning rate, say): a new value
    records again."""

    def __init__(self, step, state=(), key=None):
        import cupy

        self.cupy = cupy
        self.step = step
        self.state = list(state)
        self.key = key
        self.recorded = {}
        self.seen = set()
        self.homes = None

    def __call__(self, *inputs):
        key = tuple((t.shape, t.dtype.name, t.device.name) for t in inputs)
        if self.key is not None:
            key += (self.key(),)
        if self.homes is None:
            self.homes = [(t, t.handle, device_array(t)) for t in self.state]
        self._go_home()
        entry = self.recorded.get(key)
        if entry is None:
            if key not in self.seen:  # first sight: run directly, compiling the kernels
                self.seen.add(key)
                outputs = self.step(*inputs)
                self._go_home()
                return outputs
            entry = self.recorded[key] = self._record(inputs)
        static, outputs, launch = entry
        for s, t in zip(static, inputs):
            device_array(s)[...] = device_array(t)
        launch()
        return outputs

    def _record(self, inputs):
        """(input buffers, outputs, launch) of `step` recorded over copies of `inputs`."""
        cp = self.cupy
        static = [t.detach().clone() for t in inputs]
        for s in static:
            device_array(s)
        pool = cp.cuda.MemoryPool()
        stream = cp.cuda.Stream(non_blocking=True)
        mode = getattr(cp.cuda.runtime, "streamCaptureModeRelaxed", None)
        shared(cp)
        cp.cuda.Device().synchronize()
        with cp.cuda.using_allocator(pool.malloc), stream, direct_blas():
            stream.begin_capture(mode) if mode is not None else stream.begin_capture()
            try:
                outputs = self.step(*static)
                for t in _tensors(outputs):
                    device_array(t)
                self._go_home()
            finally:
                cuda_graph = stream.end_capture()
        cuda_graph.upload(stream)

        def launch():
            stream.wait_event(cp.cuda.get_current_stream().record())
            cuda_graph.launch(stream)
            cp.cuda.get_current_stream().wait_event(stream.record())

        launch.pool = pool  # the graph's memory lives as long as it does
        return static, outputs, launch


    def memory_bytes(self):
        """GPU memory held by the recorded graphs' own pools."""
        return sum(launch.pool.total_bytes() for _s, _o, launch in self.recorded.values())

    def _go_home(self):
        """Copy every rebound state tensor back into its own storage, and rebind it there."""
        for t, handle, array in self.homes:
            if t.handle is not handle:
                array[...] = device_array(t).reshape(array.shape)
                t.handle = handle


def _tensors(outputs):
    return outputs if isinstance(outputs, (tuple, list)) else (outputs,)
