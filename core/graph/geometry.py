"""Output sizes and padding of windowed ops (conv, pools), as TFLite computes them."""


def out_size(in_size, k, stride, dilation, same):
    """TFLite ComputeOutSize: SAME keeps ceil(in / stride), VALID only full windows."""
    if stride < 1 or dilation < 1 or k < 1:
        raise ValueError("out_size: kernel, stride and dilation must be >= 1")
    if same:
        return (in_size + stride - 1) // stride
    eff = (k - 1) * dilation + 1
    return max(0, (in_size + stride - eff) // stride)


def pad_before(in_size, k, stride, dilation, out):
    """TFLite ComputePadding: rows/columns of padding before the input (SAME: half of the
    total, the odd one after)."""
    eff = (k - 1) * dilation + 1
    pad = ((out - 1) * stride + eff - in_size) // 2
    return pad if pad > 0 else 0
