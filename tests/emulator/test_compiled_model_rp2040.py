"""`burn compile --target cortex-m0plus` on the RP2040 without MicroPython: the library added
to a pico-sdk program with its CMakeLists.txt (add_subdirectory), built with the firmware's
toolchain, run on the emulated RP2040; it prints its self-test result, one inference's
outputs and its time over UART0."""

import subprocess
import sys

import numpy as np
import pytest
from emulator_support import emulator_or_skip
from reference_models import model_path

import burn
from burn.host.bst_writer import encode_bst
from burn.host.emulator.program import run_program
from burn.host.firmware import FirmwareError
from burn.host.firmware.sdk_program import build_sdk_program
from burn.host.importers.tflite import import_tflite

CLI = [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())"]
CMAKE = """cmake_minimum_required(VERSION 3.13)
include(${PICO_SDK_PATH}/pico_sdk_init.cmake)
project(kws_pico C CXX ASM)
pico_sdk_init()
add_subdirectory(kws)
add_executable(kws_pico main.c)
target_compile_options(kws_pico PRIVATE -Wall -Wextra -Werror)
target_link_libraries(kws_pico pico_stdlib kws)
pico_enable_stdio_uart(kws_pico 1)
pico_enable_stdio_usb(kws_pico 0)
"""
MAIN = r"""#include <stdio.h>
#include "pico/stdlib.h"
#include "kws.h"

static int8_t in[KWS_INPUT0_SIZE], out[KWS_OUTPUT0_SIZE];

int main(void) {
    stdio_init_all();
    printf("selftest %d\n", kws_selftest());
    for (int i = 0; i < KWS_INPUT0_SIZE; i++)
        in[i] = (int8_t)(i * 37);
    uint64_t t0 = time_us_64();
    int status = kws_run(in, out);
    uint64_t t1 = time_us_64();
    printf("run %d us %u\nout", status, (unsigned)(t1 - t0));
    for (int i = 0; i < KWS_OUTPUT0_SIZE; i++)
        printf(" %d", out[i]);
    printf("\n");
    return 0;
}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    emulator_or_skip()
    root = tmp_path_factory.mktemp("program")
    bst = root / "kws.bst"
    bst.write_bytes(encode_bst(import_tflite(model_path("kws_ref_model.tflite").read_bytes(),
                                             tests=2)))
    app = root / "kws_pico"
    app.mkdir()
    proc = subprocess.run(CLI + ["compile", str(bst), "-o", str(app / "kws"), "--name", "kws",
                                 "--tests", "2", "--target", "cortex-m0plus"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (app / "CMakeLists.txt").write_text(CMAKE)
    (app / "main.c").write_text(MAIN)
    try:
        program = build_sdk_program(app)
    except FirmwareError as exc:
        pytest.skip("the pico-sdk program cannot be built: %s" % exc)
    return run_program(program, timeout=300), bst


def test_it_runs_its_self_test_and_an_inference_on_the_emulated_rp2040(run):
    result, bst = run
    lines = dict(line.split(" ", 1) for line in result.output.replace("\r", "").splitlines()
                 if " " in line)
    assert (result.reason, result.code) == ("breakpoint", 0), result.output
    assert lines["selftest"] == "0"
    status, _us, micros = lines["run"].split()
    assert status == "0"
    x = np.array([(i * 37 + 128) % 256 - 128 for i in range(490)], np.int8)
    assert [int(v) for v in lines["out"].split()] == list(burn.load(str(bst)).run(x))
    # the emulated clock runs at 125 MHz: one KWS inference in the M0+ kernels takes
    # about 16 M cycles (docs/compile.md gives the measured figure)
    assert 5e6 < int(micros) * 125 < 40e6
