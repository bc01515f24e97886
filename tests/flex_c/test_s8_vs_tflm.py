"""Every int8 flex_c kernel on the host against the tflite-micro interpreter, bit for bit."""

import numpy as np
from s8_cases import make_cases

from burn.host.flex.graph_kernels import GraphKernels


def test_every_int8_kernel_matches_tflm():
    k = GraphKernels()
    failures = []
    for case in make_cases(seed=3, count=12):
        got = case.run(k)
        if not np.array_equal(got, case.want):
            bad = int(np.nonzero(got != case.want)[0][0])
            failures.append("%s: first difference at %d: flex %r tflm %r" % (
                case.name, bad, got[bad], case.want[bad]))
    assert not failures, "\n".join(failures)
