"""The Cortex-M0+ and Cortex-M4F builds of flex_c, run in the unicorn emulator, give every
int8 kernel's output equal to the host build's and to TFLM's on random shapes and data."""

import numpy as np
import pytest
from s8_cases import make_cases

from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.graph_kernels import GraphKernels


@pytest.mark.parametrize("target", ["cortex-m0plus", "cortex-m4f"])
def test_emulated_int8_kernels_equal_host_and_tflm(target):
    host, emulated = GraphKernels(), GraphKernels(EmulatedLib(target))
    failures = []
    for case in make_cases(seed=7, count=4):
        ours, theirs = case.run(emulated), case.run(host)
        if not (np.array_equal(ours, theirs) and np.array_equal(ours, case.want)):
            failures.append("%s: emulated %s, host %s, tflm %s" % (
                case.name, ours[:8], theirs[:8], case.want[:8]))
    assert not failures, "\n".join(failures)


def test_emulated_status_codes_equal_host():
    emulated = GraphKernels(EmulatedLib("cortex-m0plus"))
    x, y = np.zeros(12, np.int8), np.zeros(12, np.int8)
    with pytest.raises(ValueError, match="flex_s8_softmax: bad shape"):
        emulated.softmax_s8(x, y, 0, 12, 1 << 30, 1, -10)
    with pytest.raises(ValueError, match="flex_s8_requantize: parameter out of range"):
        emulated.requantize_s8(x, y, 12, 0, 0, 1 << 30, 40)
