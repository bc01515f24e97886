"""`burn compile`: the C library it writes, built with real compilers and run: on the host
with gcc (the self-test, and outputs equal to burn's runtime on random inputs), for the
Cortex-M0+ with arm-none-eabi-gcc in the Cortex-M emulator, and through CMake; bad input
gets one line."""

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tflite_models
from reference_models import model_path

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex import targets
from burn.host.importers.tflite import import_tflite

CLI = [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())"]
MAIN = r"""
#include <stdio.h>
#include "kws.h"
static int8_t in[KWS_INPUT0_SIZE], out[KWS_OUTPUT0_SIZE];
int main(int argc, char **argv) {
    (void)argc;
    FILE *f = fopen(argv[1], "rb"), *g = fopen(argv[2], "wb");
    printf("selftest %d\n", kws_selftest());
    while (fread(in, 1, sizeof in, f) == sizeof in) {
        if (kws_run(in, out) != 0) return 2;
        fwrite(out, 1, sizeof out, g);
    }
    fclose(g);
    return 0;
}
"""


def _compile(tmp, model, *extra):
    out = tmp / "kws"
    proc = subprocess.run(CLI + ["compile", str(model), "-o", str(out), "--name", "kws",
                                 "--tests", "3"] + list(extra),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def kws_bst(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "kws.bst"
    path.write_bytes(encode_bst(import_tflite(model_path("kws_ref_model.tflite").read_bytes(),
                                              tests=3)))
    return path


def _tool(name, install):
    path = shutil.which(name)
    if path is None:
        pytest.skip("%s not found; install it with: %s" % (name, install))
    return path


def test_host_library_passes_its_self_test_and_equals_burn(kws_bst, tmp_path):
    gcc = _tool("gcc", "apt-get install -y gcc")
    lib = _compile(tmp_path, kws_bst)
    assert (lib / "library.json").is_file() and (lib / "library.properties").is_file()
    sources = sorted(str(p) for p in (lib / "src").rglob("*.c"))
    # only what the kernels need: no float, training or plan runner files
    assert not any("f32" in s or "optim" in s or "plan" in s for s in sources)
    (tmp_path / "main.c").write_text(MAIN)
    exe = tmp_path / "kws_host"
    subprocess.run([gcc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I", str(lib / "src"),
                    str(tmp_path / "main.c")] + sources + ["-o", str(exe)], check=True)
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (5, 490), dtype=np.int8)
    (tmp_path / "in.bin").write_bytes(x.tobytes())
    proc = subprocess.run([str(exe), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.split() == ["selftest", "0"], proc.stdout
    got = np.frombuffer((tmp_path / "out.bin").read_bytes(), np.int8).reshape(5, 12)
    model = burn.load(str(kws_bst))
    want = np.array([list(model.run(row)) for row in x], np.int8)
    assert np.array_equal(got, want)


def test_a_changed_reference_output_fails_the_self_test(kws_bst, tmp_path):
    gcc = _tool("gcc", "apt-get install -y gcc")
    lib = _compile(tmp_path, kws_bst)
    code = (lib / "src" / "kws.c").read_text()
    first = code.index("kws_t1_out0[12] = {") + len("kws_t1_out0[12] = {\n    ")
    end = code.index(",", first)
    value = int(code[first:end])
    (lib / "src" / "kws.c").write_text(code[:first] + str(value ^ 1) + code[end:])
    (tmp_path / "main.c").write_text('#include "kws.h"\nint main(void) { '
                                     'return kws_selftest(); }\n')
    exe = tmp_path / "kws_host"
    subprocess.run([gcc, "-std=c99", "-I", str(lib / "src"), str(tmp_path / "main.c")] +
                   [str(p) for p in (lib / "src").rglob("*.c")] + ["-o", str(exe)], check=True)
    assert subprocess.run([str(exe)]).returncode == 2  # test 2 (from 1) differs


def test_cortex_m0plus_library_runs_in_the_emulator(kws_bst, tmp_path):
    gcc = _tool("arm-none-eabi-gcc",
                "apt-get install -y gcc-arm-none-eabi libnewlib-arm-none-eabi")
    from burn.host.flex.emulator import EmulatedLib

    lib = _compile(tmp_path, kws_bst, "--target", "cortex-m0plus")
    sources = [str(p) for p in (lib / "src").rglob("*.c")]
    assert any("cortex_m0plus" in s for s in sources)  # the M0+ kernels, not the reference
    elf = tmp_path / "kws.elf"
    ld = Path(targets.FLEX_C) / "emulated.ld"
    subprocess.run([gcc, "-mcpu=cortex-m0plus", "-mthumb", "-Os", "-std=c99", "-Wall",
                    "-Werror", "-ffunction-sections", "-I", str(lib / "src")] + sources +
                   ["-nostartfiles", "-Wl,-T," + str(ld), "-Wl,-e,kws_selftest",
                    "-Wl,--gc-sections", "-Wl,--undefined=kws_run", "-o", str(elf)], check=True)
    m0 = EmulatedLib("cortex-m0plus", image=str(elf))
    assert m0.call("kws_selftest", []) == 0
    x = np.random.default_rng(1).integers(-128, 128, 490, dtype=np.int8)
    y = np.zeros(12, np.int8)
    assert m0.call("kws_run", [x, y]) == 0
    assert list(y) == list(burn.load(str(kws_bst)).run(x))


def test_a_cmake_project_builds_it_with_add_subdirectory(kws_bst, tmp_path):
    cmake = _tool("cmake", "apt-get install -y cmake")
    _tool("gcc", "apt-get install -y gcc")
    _compile(tmp_path, kws_bst)
    (tmp_path / "main.c").write_text('#include "kws.h"\nint main(void) { '
                                     'return kws_selftest(); }\n')
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(app C)\nadd_subdirectory(kws)\n"
        "add_executable(app main.c)\ntarget_link_libraries(app kws)\n")
    build = tmp_path / "build"
    subprocess.run([cmake, "-S", str(tmp_path), "-B", str(build)], check=True,
                   capture_output=True)
    subprocess.run([cmake, "--build", str(build)], check=True, capture_output=True)
    assert subprocess.run([str(build / "app")]).returncode == 0


def test_a_float_model_compiles_and_passes_its_self_test(tmp_path):
    gcc = _tool("gcc", "apt-get install -y gcc")
    lib = _compile(tmp_path, model_path("kws_ref_model_float32.tflite"))
    assert "float *input0" in (lib / "src" / "kws.h").read_text()
    (tmp_path / "main.c").write_text('#include "kws.h"\nint main(void) { '
                                     'return kws_selftest(); }\n')
    exe = tmp_path / "kws_float"
    subprocess.run([gcc, "-std=c99", "-O2", "-I", str(lib / "src"), str(tmp_path / "main.c")] +
                   [str(p) for p in (lib / "src").rglob("*.c")] + ["-o", str(exe), "-lm"],
                   check=True)
    assert subprocess.run([str(exe)]).returncode == 0


@pytest.mark.parametrize("args, message", [
    (["--name", "2fast"], "is not a C identifier"),
    (["--name", "int"], "is not a C identifier"),
    (["--target", "z80"], "unknown --target 'z80'"),
])
def test_bad_arguments_get_one_line(kws_bst, tmp_path, args, message):
    proc = subprocess.run(CLI + ["compile", str(kws_bst), "-o", str(tmp_path / "o")] + args,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and message in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "o").exists()


def test_a_folder_it_did_not_write_is_left_alone(kws_bst, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    proc = subprocess.run(CLI + ["compile", str(kws_bst), "-o", str(mine)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "was not written by burn compile" in proc.stderr
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_a_corrupt_model_gets_one_line(tmp_path):
    bad = tmp_path / "bad.bst"
    bad.write_bytes(b"BST\x00" + bytes(40))
    proc = subprocess.run(CLI + ["compile", str(bad), "-o", str(tmp_path / "o")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1].startswith("burn compile: %s: not a .bst file" % bad)
    assert "Traceback" not in proc.stderr and not (tmp_path / "o").exists()


def _relu_alone():
    """x (int8) -> RELU -> y: an int8 clamp, which burn's runtime runs in Python."""
    from tflite_builder import ModelBuilder

    mb = ModelBuilder()
    x = mb.tensor("x", (1, 40), "int8", scale=0.1, zero_point=-5)
    y = mb.tensor("y", (1, 40), "int8", scale=0.1, zero_point=-5)
    mb.op("RELU", [x], [y])
    return mb.finish([x], [y])


@pytest.mark.parametrize("make", [
    tflite_models.two_inputs,                        # two inputs, ADD with a fused ReLU, MUL
    lambda: tflite_models.svdf_model((1, 8, 4, 2, 3)),  # state kept between inferences
    _relu_alone,                                     # the clamp written into the C
], ids=["two-inputs", "svdf-state", "relu-alone"])
def test_other_models_pass_their_self_tests(make, tmp_path):
    gcc = _tool("gcc", "apt-get install -y gcc")
    model = tmp_path / "m.bst"
    model.write_bytes(encode_bst(import_tflite(make(), tests=3)))
    lib = _compile(tmp_path, model)
    (tmp_path / "main.c").write_text('#include "kws.h"\nint main(void) { '
                                     'return kws_selftest(); }\n')
    exe = tmp_path / "m"
    subprocess.run([gcc, "-std=c99", "-Wall", "-Werror", "-I", str(lib / "src"),
                    str(tmp_path / "main.c")] +
                   [str(p) for p in (lib / "src").rglob("*.c")] + ["-o", str(exe)], check=True)
    assert subprocess.run([str(exe)]).returncode == 0


def test_the_readmes_main_c_builds_and_runs(kws_bst, tmp_path):
    gcc = _tool("gcc", "apt-get install -y gcc")
    lib = _compile(tmp_path, kws_bst)
    readme = (lib / "README.md").read_text()
    assert all(s in readme for s in ("## pico-sdk", "## ESP-IDF", "## Zephyr", "## Arduino",
                                     "## PlatformIO", "void app_main(void)", "void setup()"))
    main = readme.split("## main.c")[1].split("```c\n")[1].split("```")[0]
    (tmp_path / "main.c").write_text(main)
    exe = tmp_path / "readme_main"
    subprocess.run([gcc, "-std=c99", "-Wall", "-Werror", "-I", str(lib / "src"),
                    str(tmp_path / "main.c")] +
                   [str(p) for p in (lib / "src").rglob("*.c")] + ["-o", str(exe)], check=True)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.splitlines() == ["self-test: 0", "run: 0"]
