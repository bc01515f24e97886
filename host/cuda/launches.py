"""Counting the GPU work of a function: kernels launched, copies and fills, as the CUDA
profiling interface (CUPTI, driven by PyTorch's profiler) records them for the whole
process, CuPy's kernels included."""

import json
import os
import tempfile


def count_gpu_work(fn, repeat=1):
    """Run `fn()` `repeat` times under the profiler; returns a dict of counts per call:
    `kernels`, `memcpy` and `memset`. Needs PyTorch with CUDA."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeat):
            fn()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f).get("traceEvents", [])
    finally:
        os.unlink(path)
    counts = {"kernels": 0, "memcpy": 0, "memset": 0}
    kinds = {"kernel": "kernels", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
    for event in events:
        key = kinds.get(event.get("cat"))
        if key is not None and event.get("ph") == "X":
            counts[key] += 1
    return {k: v / repeat for k, v in counts.items()}
