"""The int8 kernel cases that run on the emulated RP2040's burnflex module
(tests/emulator/test_burnflex_kernels.py): layers with a model's channel counts, each with
its output placed over its input where the .bst arena planner would place it."""

import numpy as np
from kernel_cases import INT8, conv_s8, fully_connected_s8

from burn.graph.geometry import out_size, pad_before
from burn.host.arena_plan import overlap_delta
from burn.host.bst_writer import GraphOp, GraphTensor

# The op kinds of the .bst graph whose arena plan these kernels' in-place cases follow
OP_KINDS = {"conv_s8": "conv2d", "depthwise_conv_s8": "depthwise_conv2d",
            "fully_connected_s8": "fully_connected", "avg_pool_s8": "avg_pool2d",
            "max_pool_s8": "max_pool2d", "add_s8": "add", "softmax_s8": "softmax"}


def in_place(kernel, args):
    """`args` of `kernel` (an OP_KINDS key) with the output placed over the first input as
    the .bst arena planner would place it (its "below" field), or unchanged when the planner
    would not overlap them."""
    at = next(i for i, a in enumerate(args) if isinstance(a, dict) and "out" in a)
    n_in, n_out = len(bytes.fromhex(args[0]["hex"])), args[at]["out"]
    ints = args[at + 1:]
    consts, params = {}, {}
    if kernel in ("conv_s8", "depthwise_conv_s8", "avg_pool_s8", "max_pool_s8"):
        n, ih, iw, ic, oh, ow = ints[:6]
        x, y = (n, ih, iw, ic), (n, oh, ow, n_out // (n * oh * ow))
        window = ints[-10:-4] if kernel.endswith("conv_s8") else ints[8:12]
        params = dict(zip(("stride_h", "stride_w", "pad_top", "pad_left"),
                          window[:2] + window[-2:]))
    elif kernel == "fully_connected_s8":
        batches, fin, fout = ints[:3]
        x, y, consts = (batches, fin), (batches, fout), {"w": np.zeros((fout, fin))}
    else:  # add, softmax: the shapes only count elements (and softmax rows)
        rows = ints[0] if kernel == "softmax_s8" else 1
        x, y = (rows, n_in // rows), (rows, n_out // rows)
    op = GraphOp(OP_KINDS[kernel], [0], [1], params=params, consts=consts)
    delta = overlap_delta(op, 0, [GraphTensor("x", x, "int8"), GraphTensor("y", y, "int8")])
    if delta is None:
        return args
    placed = dict(args[at], below=int(delta))
    return args[:at] + [placed] + args[at + 1:]


def _geometry(size, k, stride):
    """A square-kernel SAME window over a size x size input."""
    o = out_size(size, k, stride, 1, True)
    p = pad_before(size, k, stride, 1, o)
    return size, size, o, o, k, k, stride, stride, 1, 1, p, p


def board_cases(seed=0):
    """[kernel, module, plain, args] cases of the int8 kernels with a model layer's channel
    counts (small images, since the plain kernels run on the board too): pointwise and 3x3
    convolutions whose output channels span several of the Cortex-M0+ kernels' channel
    blocks, 3x3 depthwise on channel groups, a fully connected layer of several rows and
    blocks, ADD, pools and softmax; each marked `in_place` where the planner would overlap
    its output with its input."""
    rng = np.random.default_rng(seed)
    made = []
    for ic, oc in [(64, 64), (16, 72), (3, 40), (40, 8)]:
        made.append(("conv_s8", conv_s8(rng, geometry=_geometry(2, 1, 1), channels=(ic, oc))))
    for ic, oc, size, stride in [(8, 48, 3, 1), (12, 36, 4, 2)]:
        made.append(("conv_s8", conv_s8(rng, geometry=_geometry(size, 3, stride),
                                        channels=(ic, oc))))
    for c, size in [(64, 4), (12, 5)]:
        made.append(("depthwise_conv_s8", conv_s8(rng, True, _geometry(size, 3, 1), (c, 1))))
    made.append(("fully_connected_s8", fully_connected_s8(rng, (3, 40, 70))))
    made += [(name, INT8[name][2](rng)) for name in ("add_s8", "avg_pool_s8", "max_pool_s8",
                                                      "softmax_s8") for _ in range(2)]
    return [[kernel, *INT8[kernel][:2], in_place(kernel, args)] for kernel, args in made]
