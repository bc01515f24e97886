"""The arena planner's overlap deltas (burn.graph.in_place) are computed in closed form (a
constant number of points per op), so a hostile window cannot make planning loop; they must
equal the pixel-by-pixel definition."""

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from burn.graph.in_place import ITEMSIZE, rows_delta, window_delta
from burn.host.bst_writer import GraphOp, GraphTensor


def _window_delta(op, x, y):
    return window_delta(x.shape, y.shape, ITEMSIZE[x.dtype], op.params)


def window_delta_by_pixel(op, x, y):
    """The definition: every output pixel in raster order, the smallest input pixel it or
    any later pixel reads."""
    n, ih, iw, ic = x.shape
    oh, ow, oc = y.shape[1:]
    sh, sw = op.params["stride_h"], op.params["stride_w"]
    pt, pl = op.params["pad_top"], op.params["pad_left"]
    in_pix, out_pix = ic * ITEMSIZE[x.dtype], oc * ITEMSIZE[y.dtype]
    still_needed = n * ih * iw
    delta = None
    for p in range(n * oh * ow - 1, -1, -1):
        b, rest = divmod(p, oh * ow)
        oy, ox = divmod(rest, ow)
        row = min(max(0, oy * sh - pt), ih - 1)
        col = min(max(0, ox * sw - pl), iw - 1)
        still_needed = min(still_needed, (b * ih + row) * iw + col)
        d = (p + 1) * out_pix - still_needed * in_pix
        delta = d if delta is None else max(delta, d)
    return delta


def _op(n, ih, iw, ic, oh, ow, oc, sh, sw, pt, pl, dtype="int8"):
    x = GraphTensor("x", (n, ih, iw, ic), dtype)
    y = GraphTensor("y", (n, oh, ow, oc), dtype)
    op = GraphOp("conv2d", [0], [1], params={"stride_h": sh, "stride_w": sw, "pad_top": pt,
                                             "pad_left": pl})
    return op, x, y


dims = st.integers(1, 9)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 3), ih=dims, iw=dims, ic=st.integers(1, 4), oh=dims, ow=dims,
       oc=st.integers(1, 4), sh=st.integers(1, 4), sw=st.integers(1, 4),
       pt=st.integers(0, 6), pl=st.integers(0, 6), dtype=st.sampled_from(["int8", "float32"]))
def test_window_delta_matches_the_pixel_definition(n, ih, iw, ic, oh, ow, oc, sh, sw, pt, pl,
                                                   dtype):
    op, x, y = _op(n, ih, iw, ic, oh, ow, oc, sh, sw, pt, pl, dtype)
    assert _window_delta(op, x, y) == window_delta_by_pixel(op, x, y)


@given(rows=st.integers(1, 50), a=st.integers(1, 64), b=st.integers(1, 64))
def test_rows_delta_matches_its_definition(rows, a, b):
    assert rows_delta(rows, a, b) == max((r + 1) * b - r * a for r in range(rows))


def test_huge_windows_plan_at_once():
    # 2**24 x 2**24 output pixels: the pixel loop would never end.
    op, x, y = _op(4, 1 << 24, 1 << 24, 3, 1 << 24, 1 << 24, 8, 1, 1, 1, 1)
    t0 = time.monotonic()
    assert _window_delta(op, x, y) > 0
    assert rows_delta(1 << 40, 7, 9) == (1 << 40) * 9 - ((1 << 40) - 1) * 7
    assert time.monotonic() - t0 < 0.1
