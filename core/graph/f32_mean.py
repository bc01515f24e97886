"""float32 mean over one contiguous block of axes."""


def mean_f32(inp, out, outer, reduce, inner):
    """inp viewed as [outer, reduce, inner] -> out [outer, inner]."""
    o = 0
    for a in range(outer):
        base = a * reduce * inner
        for k in range(inner):
            acc = 0.0
            for r in range(reduce):
                acc += inp[base + r * inner + k]
            out[o] = acc / reduce
            o += 1
