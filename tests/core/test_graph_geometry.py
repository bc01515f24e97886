"""burn.graph.geometry: TFLite's output sizes and padding, worked out by hand."""

from burn.graph.geometry import out_size, pad_before


def test_geometry():
    assert out_size(5, 3, 2, 1, True) == 3 and out_size(5, 3, 2, 1, False) == 2
    assert pad_before(5, 3, 2, 1, 3) == 1
    assert out_size(7, 3, 1, 2, False) == 3 and pad_before(7, 3, 1, 2, 7) == 2
