"""Fixtures of the flex_c tests."""

import pytest

from burn.host.flex.binding import host

# flex_s8_vector_width caps: AVX-512 VNNI, AVX2, the portable loops (a CPU without a path
# runs the next one down, so every cap runs on any host).
S8_WIDTHS = (64, 32, 1)


@pytest.fixture(params=S8_WIDTHS, ids=lambda w: "s8w%d" % w)
def s8_width(request):
    """The host int8 kernels capped at each vector width in turn, the cap lifted after."""
    lib = host().lib
    lib.flex_s8_vector_width(request.param)
    yield lib.flex_s8_vector_width(0)
    lib.flex_s8_vector_width(64)
