"""Counting the GPU work of a function: kernels launched, copies and fills, as the CUDA
profiling interface (CUPTI, driven by PyTorch's profiler) records them for the whole
process, CuPy's kernels included."""

import json
import os
import tempfile


def count_gpu_work(fn, repeat=1):
    """Run `fn()` `repeat` times under the profiler; returns a dict of counts per call:
    `kernels`, `memcpy` and `memset`. Needs PyTorch with CUDA."""
    counts = {"kernels": 0, "memcpy": 0, "memset": 0}
    kinds = {"kernel": "kernels", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
    for event in _gpu_events(fn, repeat):
        counts[kinds[event["cat"]]] += 1
    return {k: v / repeat for k, v in counts.items()}


def gpu_time_by_kernel(fn, repeat=1, top=12):
    """The `top` kernels by GPU time of one call of `fn`: (name, launches, microseconds)."""
    total = {}
    for event in _gpu_events(fn, repeat):
        count, us = total.get(event["name"], (0, 0.0))
        total[event["name"]] = (count + 1, us + float(event.get("dur", 0.0)))
    rows = sorted(total.items(), key=lambda kv: -kv[1][1])[:top]
    return [(name[:60], count / repeat, us / repeat) for name, (count, us) in rows]


def _gpu_events(fn, repeat):
    """The kernel, copy and fill events of `repeat` calls of `fn`."""
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        raise RuntimeError("counting GPU kernels uses PyTorch's profiler: pip install torch "
                           "(a CUDA build)") from None

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
    return [e for e in events if e.get("ph") == "X" and
            e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
