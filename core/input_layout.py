"""The layout in which a caller passes a model's inputs, and the error of an input of the
wrong shape.

`burn.load(source, input_layout="NCHW")` takes the 4-D inputs of a model whose file records
`input_layout` NHWC (the metadata of every graph that burn's exporter and ONNX importer
write) in the NCHW layout of PyTorch and ONNX: each one is transposed into the arena as it
is set, and a flat input then lists its values in NCHW order too. `input_layout="NHWC"`
states the file's own layout and changes nothing. This module is imported only for the
option or for an error, so a board's heap does not carry it otherwise.
"""

LAYOUTS = ("NCHW", "NHWC")


def takes(inputs, recorded, layout):
    """For each input (tensor index, shape in the file) of a model whose metadata records
    input layout `recorded` (None if it records none): (the shape the caller passes, the
    (n, c, h, w) to transpose from NCHW, or None), as the caller asks with `layout` (None
    or one of LAYOUTS). ValueError when the model cannot take that layout."""
    if layout is None:
        return [(shape, None) for _t, shape in inputs]
    if layout not in LAYOUTS:
        raise ValueError("input_layout must be 'NCHW' or 'NHWC', got %s" % repr(layout)[:40])
    if recorded is None:
        raise ValueError("input_layout=%r: the model records no input layout (its metadata "
                         "has no input_layout), so its input cannot be converted" % layout)
    if recorded != "NHWC":
        raise ValueError("input_layout=%r: the model's inputs are %s; only NHWC inputs are "
                         "converted" % (layout, repr(recorded)[:40]))
    if layout == "NHWC":
        return takes(inputs, None, None)
    out = []
    for _t, shape in inputs:
        if len(shape) == 4:
            n, h, w, c = shape
            out.append(((n, c, h, w), (n, c, h, w)))
        else:
            out.append((shape, None))
    if not [t for t in out if t[1] is not None]:
        raise ValueError("input_layout='NCHW' converts 4-D inputs; this model takes %s"
                         % ", ".join([str(shape) for _t, shape in inputs]))
    return out


def nchw_to_nhwc(src, dst, n, c, h, w):
    """dst[b, y, x, ch] = src[b, ch, y, x] for flat buffers of an [n, c, h, w] tensor."""
    plane = h * w
    for b in range(n):
        base = b * c * plane
        for ch in range(c):
            s = base + ch * plane
            d = base + ch
            for _ in range(plane):
                dst[d] = src[s]
                s += 1
                d += c


def shape_error(k, dtype, shape, got_dtype, got_shape, file_shape, recorded, nchw):
    """The ValueError of input `k`, which takes `dtype` of `shape` (`file_shape` in the file,
    whose metadata records input layout `recorded`; `nchw` as `takes` gives it), given
    `got_dtype` (None: not known) of `got_shape`. Where the two shapes are the NCHW and NHWC
    forms of each other, it says how to pass the other one."""
    got = "shape" if got_dtype is None else got_dtype + " of shape"
    msg = "input %d: expected %s of shape %s, got %s %s" % (k, dtype, shape, got, got_shape)
    if len(shape) == 4 and recorded == "NHWC":
        n, h, w, c = file_shape
        if nchw is None and got_shape == (n, c, h, w):
            msg += ("; the model takes NHWC: transpose the input to NHWC, or load the model "
                    "with burn.load(..., input_layout='NCHW') to pass it NCHW")
        elif nchw is not None and got_shape == file_shape:
            msg += ("; the model was loaded with input_layout='NCHW': pass the input NCHW, or "
                    "load it without input_layout to pass it NHWC")
    return ValueError(msg)
