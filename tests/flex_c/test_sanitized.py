"""The kernel tests again, against the AddressSanitizer + UndefinedBehaviorSanitizer build of
flex_c (a child process with the ASan runtime preloaded and BURN_FLEX_SANITIZE=1), in one process:
xdist workers of their own would cost more than they save beside the suite's."""

import os
import subprocess
import sys

from burn.host.flex.sanitize import build_sanitized, sanitizer_env

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = ["test_s8_vs_tflm.py", "test_host_fast_paths.py", "test_f32_kernels.py",
          "test_f32_graph_kernels.py", "test_fuzz_validation.py", "test_flex_plan.py",
          "test_fast_plan.py"]


def test_kernel_suites_pass_under_asan_and_ubsan():
    build_sanitized()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider", "-x"] +
        [os.path.join(HERE, s) for s in SUITES], env=sanitizer_env(), capture_output=True,
        text=True, cwd=HERE)
    report = proc.stdout[-4000:] + proc.stderr[-4000:]
    assert proc.returncode == 0, report
    assert " passed" in proc.stdout and "failed" not in proc.stdout


def test_sanitized_build_is_the_one_loaded():
    code = ("from burn.host.flex.binding import host; import numpy as np; h = host(); "
            "x = np.zeros(4, np.int8); print(h.name, h.call('flex_s8_requantize', "
            "[4, x, 0, 1 << 30, 0, 0, x]))")
    proc = subprocess.run([sys.executable, "-c", code], env=sanitizer_env(),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["host-sanitized", "0"]
