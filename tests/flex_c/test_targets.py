"""Cross builds of flex_c with zig: every target builds, needs no C library, and the size
report and the `burn flex build` command work."""

import os
import re
import subprocess
import sys

import pytest

from burn.host.cli import main
from burn.host.flex import targets


ROM_FLOAT_ONLY = {"opt/cortex_m0plus/f32_rom_dot"}


@pytest.mark.parametrize("target", sorted(targets.TARGETS))
def test_target_builds_without_libc(target):
    result = targets.build(target)
    assert os.path.getsize(result.library) > 1000
    assert result.libc_symbols() == []
    sizes = {name: size for name, size, _fns in result.sizes()}
    assert set(sizes) >= {"ref/s8_conv", "ref/s8_activation", "ref/f32_gemm",
                          "common/fixedpoint"}
    # every object holds code but the RP2040 firmware's own (FLEX_ROM_FLOAT, set by
    # micropython.cmake alone: the bootrom's float routines)
    assert all(size > 0 for name, size in sizes.items() if name not in ROM_FLOAT_ONLY)
    if target != "wasm32":
        functions = {}
        for _name, _size, fns in result.sizes():
            functions.update(fns)
        assert functions["flex_s8_conv2d"] > 0 and functions["flex_f32_gemm"] > 0


@pytest.mark.parametrize("target", ["cortex-m0plus", "wasm32"])
def test_libc_check_catches_a_libc_call(tmp_path, target):
    """An object's libc calls are found; its own functions (f, g) and, on wasm32, a memmove
    that another object of the library defines (as src/freestanding's does) are not."""
    src = tmp_path / "uses_libc.c"
    src.write_text("#include <stddef.h>\nvoid *memcpy(void *, const void *, size_t);\n"
                   "void f(char *d, const char *s) { memcpy(d, s, 3); }\n"
                   "float sqrtf(float);\nfloat g(float x) { return sqrtf(x); }\n")
    (tmp_path / "mover.c").write_text(
        "#include <stddef.h>\nvoid *memmove(void *, const void *, size_t);\n"
        "void h(char *d, const char *s) { memmove(d, s, 5); }\n"
        "void *memmove(void *d, const void *s, size_t n) { return n ? d : (void *)s; }\n")
    triple, cpu, _opt, _link = targets.TARGETS[target]
    objects = {}
    for name in ("uses_libc", "mover"):
        objects[name] = str(tmp_path / (name + ".o"))
        subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target", triple] + cpu +
                       ["-O2", "-c", str(tmp_path / (name + ".c")), "-o", objects[name]],
                       check=True)
    build = targets.Build(target, "-O2", str(tmp_path), objects, None, None)
    assert build.libc_symbols() == ["memcpy", "sqrtf"]


def test_cli_writes_the_library_and_reports_sizes(tmp_path, capsys):
    out = tmp_path / "libflex.a"
    assert main(["flex", "build", "--target", "cortex-m0plus", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert out.read_bytes()[:8] == b"!<arch>\n"
    assert "opt/cortex_m0plus/s8_conv" in text and "int8 kernels" in text
    assert re.search(r"^conv +\d+ +\d+$", text, flags=re.M)  # the op group table
    assert "libc check: no C library symbols needed" in text
