"""Board program: load a model, run its self-test, time it and read the heap, after a soft
reset (a fresh heap); the findings printed as a dict."""


def _measure(path, runs, budget_ms):
    """Print the measurements of model `path`: heap figures (gc.mem_alloc() after a
    collection), the self-test, and the latency of at least 3 and at most `runs`
    inferences within about `budget_ms`. One inference runs with the collector off, so that
    what it allocates shows."""
    import gc
    import time

    gc.collect()
    r = {"heap_start": gc.mem_alloc()}
    import burn
    from burn import model as _model  # noqa: F401 (its heap counts as the runtime's)

    gc.collect()
    r["heap_runtime"] = gc.mem_alloc()
    r["heap_free"] = gc.mem_free()
    try:
        m = burn.load(path)
    except (MemoryError, ValueError) as e:
        m = None
        r["load_error"] = "%s: %s" % (type(e).__name__, e)
    if m is None:
        print(repr(r))
        return
    gc.collect()
    r["heap_model"] = gc.mem_alloc()
    r["arena"] = m.arena_bytes
    r["backend"] = m.backend
    try:
        import machine

        r["freq"] = machine.freq()
    except (ImportError, AttributeError):
        pass
    try:
        r["tests"] = m.self_test()
    except (MemoryError, ValueError) as e:
        r["self_test_error"] = "%s: %s" % (type(e).__name__, e)
    m.invoke()
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    m.invoke()
    r["heap_inference"] = gc.mem_alloc() - a
    gc.enable()
    n = 0
    total = 0
    best = None
    t0 = time.ticks_ms()
    while n < 3 or (n < runs and time.ticks_diff(time.ticks_ms(), t0) < budget_ms):
        t = time.ticks_us()
        m.invoke()
        d = time.ticks_diff(time.ticks_us(), t)
        total += d
        best = d if best is None or d < best else best
        n += 1
    r["runs"] = n
    r["latency_us"] = total / n
    r["latency_min_us"] = best
    info = m.info()  # after the timing: it allocates
    r["cores"] = info.get("cores")
    r["splits"] = [(op["op"], op.get("split")) for op in info["ops"]]
    info = None
    # Without the model, what stays is the runtime with the kernel modules it loaded.
    m.close()
    m = None
    gc.collect()
    r["heap_kernels"] = gc.mem_alloc()
    print(repr(r))
