"""A PlatformIO project around a compiled model (`burn compile --platformio-project`), and
PlatformIO 6 run without its registry (`OfflinePlatformIO`, for machines that reach only
PyPI: the tests and CI).

Every project has a `native` environment: the self-test as a host program, and the library's
Unity tests (`pio test -e native`) under AddressSanitizer and UBSan: the self-test, and an
inference in a caller's arena of exactly the size the library states, so a read or write
past it stops the test. `--board pico` (the RP2040) or `nucleo_g071rb` (an STM32G0) adds an
environment with no framework (`burn.host.compile.bare_metal`); the pico image boots from
flash (boot2 first) and prints its self-test's result and an inference's cycles on UART0.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from burn.host import vendor
from burn.host.cache import cache_dir
from burn.host.compile.bare_metal import BARE, write_environment
from burn.host.compile.trace import CompileError

BOARDS = ("native",) + tuple(BARE)
INSTALL = "pip install platformio==6.2.0 scons==4.11.1"
ARCHIVE = "platformio-offline-2026.12.tar.xz"
SANITIZE = "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

INI = """; A PlatformIO project around the %(name)s library that burn compile wrote.
;   pio run -e native && .pio/build/native/program   the self-test, as a host program
;   pio test -e native                               the library's Unity tests, sanitized
[env:native]
platform = native
lib_deps = symlink://%(lib)s
test_framework = unity
build_flags = -std=gnu99 -Wall -Werror %(sanitize)s -lm
"""

MAIN = """/* The self-test of %(name)s as a program: exit status 0 when it passes. */
#include <stdio.h>
#include "%(name)s.h"

int main(void) {
    int failed = %(name)s_selftest();
    printf("%(name)s self-test: %%s (%%d)\\n", failed ? "FAILED" : "passed", failed);
    return failed != 0;
}
"""

TEST = """/* Unity tests of the %(name)s library (pio test -e native, under ASan and UBSan). */
#include <stdlib.h>
#include <string.h>
#include <unity.h>
#include "%(name)s.h"

%(buffers)s

void setUp(void) {}
void tearDown(void) {}

static void test_the_self_test_passes(void) {
    TEST_ASSERT_EQUAL_INT(0, %(name)s_selftest());
}

/* An arena of exactly %(up)s_ARENA_BYTES from malloc: ASan stops any access past it. */
static void test_an_inference_stays_inside_an_arena_of_the_stated_size(void) {
    void *arena = malloc(%(up)s_ARENA_BYTES);
    TEST_ASSERT_NOT_NULL(arena);
    TEST_ASSERT_EQUAL_INT(0, %(name)s_run_in(arena, %(args_a)s));
    TEST_ASSERT_EQUAL_INT(0, %(name)s_run(%(args_b)s));
%(compare)s
    free(arena);
}

static void test_a_misaligned_arena_is_refused(void) {
    char *arena = malloc(%(up)s_ARENA_BYTES + 4);
    TEST_ASSERT_NOT_NULL(arena);
    TEST_ASSERT_EQUAL_INT(-5, %(name)s_run_in(arena + 1, %(args_a)s));
    free(arena);
}

int main(void) {
    UNITY_BEGIN();
    RUN_TEST(test_the_self_test_passes);
    RUN_TEST(test_an_inference_stays_inside_an_arena_of_the_stated_size);
    RUN_TEST(test_a_misaligned_arena_is_refused);
    return UNITY_END();
}
"""


def write_project(project, library, name, io, board="native", micropython=None):
    """Write a PlatformIO project in `project` around the compiled `library` folder; `io` is
    compile_model's {"inputs": [ctype], "outputs": [ctype]}; `micropython`: the MicroPython
    source (a folder or .tar.xz) whose pico-sdk gives the pico board its boot2 (None: where
    burn.host.vendor finds it)."""
    if board not in BOARDS:
        raise CompileError("unknown --board %r for the PlatformIO project; known: %s"
                           % (board, ", ".join(BOARDS)))
    project = Path(project)
    lib = os.path.relpath(Path(library).resolve(), project.resolve())
    up = name.upper()
    inputs, outputs, results, args_a, args_b, compare = [], [], [], [], [], []
    for k, ctype in enumerate(io["inputs"]):
        inputs.append("static %s in%d[%s_INPUT%d_SIZE];" % (ctype, k, up, k))
        args_a.append("in%d" % k)
        args_b.append("in%d" % k)
    for k, ctype in enumerate(io["outputs"]):
        outputs.append("static %s a%d[%s_OUTPUT%d_SIZE], b%d[%s_OUTPUT%d_SIZE];"
                       % (ctype, k, up, k, k, up, k))
        results.append("static %s b%d[%s_OUTPUT%d_SIZE];" % (ctype, k, up, k))
        args_a.append("a%d" % k)
        args_b.append("b%d" % k)
        compare.append("    TEST_ASSERT_EQUAL_MEMORY(a%d, b%d, sizeof a%d);" % (k, k, k))
    values = {"name": name, "up": up, "lib": lib, "sanitize": SANITIZE,
              "buffers": "\n".join(inputs + outputs), "args_a": ", ".join(args_a),
              "args_b": ", ".join(args_b), "compare": "\n".join(compare),
              # one inference's buffers (in0.., b0..), for a board's main
              "run_buffers": "\n".join(inputs + results)}
    (project / "src").mkdir(parents=True, exist_ok=True)
    (project / "test" / ("test_" + name)).mkdir(parents=True, exist_ok=True)
    ini = INI % values
    if board in BARE:  # the native environment too: its tests run on the host
        ini = ini.replace("[env:native]", "[env:native]\nbuild_src_filter = +<main.c>")
        ini += write_environment(project, board, values, micropython)
    (project / "platformio.ini").write_text(ini)
    (project / "src" / "main.c").write_text(MAIN % values)
    (project / "test" / ("test_" + name) / "test_main.c").write_text(TEST % values)
    return project


class PlatformIOMissing(RuntimeError):
    """PlatformIO, SCons or the vendored platforms are not here; the message says how."""


class OfflinePlatformIO:
    """PlatformIO 6 whose downloads are given locally, as ../shared/PLATFORMIO.md records:
    its core folder in the cache, SCons from PyPI as `tool-scons`, the platforms and Unity
    from the vendor archive."""

    def __init__(self):
        for module in ("platformio", "SCons"):
            if importlib.util.find_spec(module) is None:
                raise PlatformIOMissing("PlatformIO 6 is not installed; install it with: "
                                        + INSTALL)
        folder = vendor.vendor_dir()
        archive = folder / ARCHIVE if folder is not None else None
        if archive is None or not archive.is_file():
            raise PlatformIOMissing("the PlatformIO platforms (%s) are not in the vendor "
                                    "folder; set BURN_VENDOR_DIR" % ARCHIVE)
        self.root = cache_dir("platformio")
        self.core = self.root / "core"
        self.packages = self._unpack(archive)
        self.env = {**os.environ, "PLATFORMIO_CORE_DIR": str(self.core),
                    "PLATFORMIO_DISABLE_UPGRADE_CHECK": "true",
                    "PLATFORMIO_SETTING_ENABLE_TELEMETRY": "No"}
        self._install_once()

    def _unpack(self, archive):
        done = self.root / "vendor" / ".unpacked"
        if not done.exists():
            with tarfile.open(archive) as tar:
                tar.extractall(self.root / "vendor", filter="data")
            unity = self.root / "vendor" / "unity"
            (unity / ".piopm").write_text(json.dumps({
                "type": "library", "name": "Unity", "version": "2.7.0",
                "spec": {"owner": "throwtheswitch", "id": None, "name": "Unity",
                         "requirements": None, "uri": None}}))
            done.touch()
        return self.root / "vendor"

    def _package(self, name, version, kind="tool", system=None, folder=None):
        """A local package folder (default: `name`) holding package.json and the .piopm that
        PlatformIO wants before it takes a package as the registry's."""
        folder = self.root / (folder or name)
        folder.mkdir(exist_ok=True)
        meta = {"name": name, "version": version}
        if system:
            meta["system"] = system
        (folder / "package.json").write_text(json.dumps(meta))
        (folder / ".piopm").write_text(json.dumps({
            "type": kind, "name": name, "version": version,
            "spec": {"owner": "platformio", "id": None, "name": name, "requirements": None,
                     "uri": None}}))
        return folder

    def _scons(self):
        tool = self._package("tool-scons", "4.41101.0")
        link = tool / "SCons"
        if not link.exists():
            link.symlink_to(Path(importlib.util.find_spec("SCons").origin).parent)
        (tool / "scons.py").write_text("import sys\nfrom SCons.Script.Main import main\n\n"
                                       "if __name__ == '__main__':\n    sys.exit(main())\n")
        return tool

    def _arm_toolchain(self, version, folder):
        """The installed arm-none-eabi toolchain as PlatformIO's package (its bin/ links)
        under `version` (each platform wants its own range), in the packages folder."""
        gcc = shutil.which("arm-none-eabi-gcc")
        (self.core / "packages").mkdir(parents=True, exist_ok=True)
        tool = self._package("toolchain-gccarmnoneeabi", version, "toolchain",
                             ["linux_x86_64"], Path("core", "packages", folder))
        bin_dir = tool / "bin"
        bin_dir.mkdir(exist_ok=True)
        for path in Path(gcc).parent.glob("arm-none-eabi-*"):
            link = bin_dir / path.name
            if not link.exists():
                link.symlink_to(path)
        return tool

    def _rp2040tools(self):
        """tool-rp2040tools with an elf2uf2 that is burn's UF2 writer (`burn uf2 convert`)."""
        tool = self._package("tool-rp2040tools", "1.0.2", "uploader")
        script = tool / "elf2uf2"
        script.write_text("#!/bin/sh\nexec %s -c 'import sys; from burn.host.cli import main; "
                          "sys.exit(main())' uf2 convert \"$1\" -o \"$2\" --family rp2040\n"
                          % sys.executable)
        script.chmod(0o755)
        return tool

    def _install_once(self):
        done = self.core / ".burn-offline"
        if done.exists():
            return
        self.core.mkdir(parents=True, exist_ok=True)
        self.pio(["pkg", "install", "-g", "--tool", "symlink://%s" % self._scons()])
        platforms = ["platform-native"]
        if shutil.which("arm-none-eabi-gcc"):  # the Arm platforms' packages first
            # raspberrypi wants toolchain ~1.90201, ststm32 without a framework <1.8
            # written straight into the packages folder as two registry installs would be
            # (PlatformIO links one version of a package name, and marks a copy its own)
            self._arm_toolchain("1.90201.0", "toolchain-gccarmnoneeabi")
            self._arm_toolchain("1.70201.0", "toolchain-gccarmnoneeabi@1.70201.0")
            self.pio(["pkg", "install", "-g", "--tool", "symlink://%s" % self._rp2040tools()])
            platforms += ["platform-raspberrypi", "platform-ststm32"]
        for platform in platforms:
            self.pio(["pkg", "install", "-g", "--platform",
                      "file://%s" % (self.packages / platform)])
        done.touch()

    def pio(self, args, cwd=None, timeout=600):
        """Run `pio ARGS`; CompletedProcess (text), RuntimeError with the output on failure."""
        proc = subprocess.run([sys.executable, "-m", "platformio"] + list(args), cwd=cwd,
                              env=self.env, capture_output=True, text=True, timeout=timeout)
        if proc.returncode:
            raise RuntimeError("pio %s failed (exit status %d):\n%s" % (
                " ".join(args), proc.returncode, (proc.stdout + proc.stderr)[-4000:]))
        return proc

    def project(self, command, project, env="native"):
        """`pio COMMAND -e ENV` (run or test) in `project`, with Unity given locally first
        (an environment with a test framework wants it for either); its output."""
        self.pio(["pkg", "install", "-e", env, "--no-save", "-l",
                  "symlink://%s" % (self.packages / "unity")], cwd=project)
        return self.pio([command, "-e", env], cwd=project).stdout
