"""Hostile files given to the real CLI end in one clear line on stderr that names the file
and the problem, with exit status 1, never a traceback: a safetensors tensor of a type
numpy lacks (F8_E4M3, written by torch), `burn run --input` with an .npz file or a .npy
whose header promises 1 TiB, and `burn train --resume` on a checkpoint whose payload.json
nests 200,000 deep, whose member .npy promises 2**40 elements, or that lacks its optimizer.
Then a bounded, seeded fuzz of checkpoint files (payload.json and the members' .npy
headers) and of `--input` files: every case either succeeds or fails in one such line."""

import ast
import io
import json
import os
import re
import shutil
import struct
import sys
import zipfile

import numpy as np
import pytest

from burn.host.cli import main as burn_main

sys.path.insert(0, os.path.dirname(__file__))
import flash_models

TRAIN = ["train", "resnet8", "--width", "0.125", "--limit", "8", "--epochs", "1",
         "--dashboard", "plain"]
CHECKPOINT = "epoch-0001.ckpt"
FUZZ_CHECKPOINTS = 80
FUZZ_INPUTS = 160


def _error_line(capsys, prefix):
    """The one line on stderr, which must start with `prefix`."""
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix), lines[0]
    return lines[0]


def _npy_promising(shape, descr="<f4", data=bytes(64)):
    """A .npy file's bytes whose header promises `shape` but holds only `data`."""
    header = "{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (descr, tuple(shape))
    header = header.encode("latin1")
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return flash_models.small(tmp_path_factory.mktemp("hostile") / "small.bst")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    run = tmp_path_factory.mktemp("trained") / "run"
    assert burn_main(TRAIN + ["--run-dir", str(run)]) == 0
    return run


def _run_copy(trained, folder):
    run = folder / "run"
    shutil.copytree(trained, run)
    return run


def _members(path):
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def _rewrite(path, members):
    """Write the checkpoint `path` anew with `members` ({name: bytes}, in order)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    path.write_bytes(out.getvalue())


def _resume(run):
    return burn_main(TRAIN + ["--run-dir", str(run), "--resume"])


# -- each hostile file ---------------------------------------------------------------------


def test_a_float8_safetensors_tensor_is_one_line(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save_file

    src = tmp_path / "f8.safetensors"
    save_file({"w": torch.ones(2, 3, dtype=torch.float8_e4m3fn)}, str(src))
    out = tmp_path / "out.safetensors"
    assert burn_main(["import", str(src), "-o", str(out)]) == 1
    line = _error_line(capsys, "burn import: %s: " % src)
    assert "tensor 'w' is F8_E4M3, which numpy cannot hold" in line
    assert line.count(str(src)) == 1 and not out.exists()


def test_an_npz_input_of_one_array_or_a_named_one_runs(model, tmp_path, capsys):
    x = np.arange(64, dtype=np.int8).reshape(1, 8, 8, 1)
    np.save(tmp_path / "x.npy", x)
    assert burn_main(["run", model, "--input", str(tmp_path / "x.npy")]) == 0
    want = capsys.readouterr().out
    np.savez(tmp_path / "one.npz", anything=x)
    np.savez(tmp_path / "named.npz", other=x[..., ::-1], input=x)
    for name in ("one.npz", "named.npz"):
        assert burn_main(["run", model, "--input", str(tmp_path / name)]) == 0
        assert capsys.readouterr().out == want, name


def test_an_npz_input_that_names_no_array_is_one_line(model, tmp_path, capsys):
    x = np.zeros((1, 8, 8, 1), np.int8)
    for name, arrays, reason in (("two.npz", {"a": x, "b": x}, "holds 2 arrays (a, b)"),
                                 ("none.npz", {}, "holds 0 arrays (none)")):
        np.savez(tmp_path / name, **arrays)
        assert burn_main(["run", model, "--input", str(tmp_path / name)]) == 1
        line = _error_line(capsys, "burn run: %s: cannot read the input: " % model)
        assert str(tmp_path / name) in line and reason in line and "'input'" in line


def test_an_input_promising_a_tebibyte_is_refused_before_allocating(model, tmp_path, capsys):
    huge = tmp_path / "huge.npy"
    huge.write_bytes(_npy_promising((1 << 40,), "|i1"))
    assert burn_main(["run", model, "--input", str(huge)]) == 1
    line = _error_line(capsys, "burn run: %s: cannot read the input: %s: " % (model, huge))
    assert "promises int8 values of shape (1099511627776,)" in line
    assert "only 64 bytes follow" in line


def test_resume_from_json_nested_200000_deep_is_one_line(trained, tmp_path, capsys):
    run = _run_copy(trained, tmp_path)
    members = _members(run / CHECKPOINT)
    members["payload.json"] = b"[" * 200000 + b"]" * 200000
    _rewrite(run / CHECKPOINT, members)
    assert _resume(run) == 1
    line = _error_line(capsys, "burn train: error: cannot resume: ")
    assert str(run / CHECKPOINT) in line and "payload.json nests too deeply" in line


def test_resume_from_a_member_promising_2_40_elements_is_one_line(trained, tmp_path, capsys):
    run = _run_copy(trained, tmp_path)
    members = _members(run / CHECKPOINT)
    members["a0.npy"] = _npy_promising((1 << 40,))
    _rewrite(run / CHECKPOINT, members)
    assert _resume(run) == 1
    line = _error_line(capsys, "burn train: error: cannot resume: ")
    assert str(run / CHECKPOINT) in line and "member 'a0.npy'" in line
    assert "promises float32 values of shape (1099511627776,)" in line


def test_resume_from_a_checkpoint_without_its_optimizer_is_one_line(trained, tmp_path,
                                                                     capsys):
    run = _run_copy(trained, tmp_path)
    members = _members(run / CHECKPOINT)
    payload = json.loads(members["payload.json"])
    del payload["optimizer"]
    members["payload.json"] = json.dumps(payload).encode()
    _rewrite(run / CHECKPOINT, members)
    assert _resume(run) == 1
    line = _error_line(capsys, "burn train: error: cannot resume: ")
    assert str(run / CHECKPOINT) in line and "it has no optimizer" in line


# -- the fuzz ------------------------------------------------------------------------------

_JSON_BYTES = b'{}[]",:-.0123456789eEtfn \\'
_NUMBERS = (b"0", b"-1", b"2147483648", b"18446744073709551616", b"1e308", b"-0.5", b"3")
_TOKENS = (b'"x"', b"null", b"[]", b"{}", b"1", b'"a0.npy"', b'"__array__"')
_DESCRS = ("<f8", "|O", "<i4", ">f4", "<c8", "|V0", "<U3", "|b1", "<f2", "|S0", "x")


def _mutate_bytes(rng, data):
    """`data` with one random flip, substitution, deletion, insertion or duplication."""
    data = bytearray(data)
    pos = int(rng.integers(len(data)))
    kind = int(rng.integers(5))
    if kind == 0:
        data[pos] ^= 1 << int(rng.integers(8))
    elif kind == 1:
        data[pos] = _JSON_BYTES[int(rng.integers(len(_JSON_BYTES)))]
    elif kind == 2:
        del data[pos:pos + int(rng.integers(1, 9))]
    elif kind == 3:
        data.insert(pos, _JSON_BYTES[int(rng.integers(len(_JSON_BYTES)))])
    else:
        data[pos:pos] = data[pos:pos + int(rng.integers(1, 17))]
    return bytes(data)


def _mutate_payload(rng, text):
    """payload.json with a mutated byte, number, key or string."""
    kind = int(rng.integers(3))
    if kind == 0:
        return _mutate_bytes(rng, text)
    pattern = rb"-?\d+(\.\d+)?" if kind == 1 else rb'"[^"]*"'
    found = list(re.finditer(pattern, text))
    hit = found[int(rng.integers(len(found)))]
    choices = _NUMBERS if kind == 1 else _TOKENS
    new = choices[int(rng.integers(len(choices)))]
    return text[:hit.start()] + new + text[hit.end():]


def _mutate_npy(rng, data):
    """A .npy's bytes with a mutated header: its bytes, shape or dtype, or cut short."""
    end = data.index(b"\n") + 1
    kind = int(rng.integers(4))
    if kind == 0:
        return _mutate_bytes(rng, data[:end]) + data[end:]
    if kind == 1:
        shape = [int(rng.choice([0, 1, 3, -1, 2**31, 2**40, 2**62]))
                 for _ in range(int(rng.integers(0, 4)))]
        return _npy_promising(shape, "<f4", data[end:])
    if kind == 2:
        descr = _DESCRS[int(rng.integers(len(_DESCRS)))]
        header = data[:end].decode("latin1")
        shape = ast.literal_eval(re.search(r"'shape': (\([^)]*\))", header).group(1))
        return _npy_promising(shape, descr, data[end:])
    return data[:int(rng.integers(len(data)))]


def _outcome(status, capsys, prefix):
    """'ok' or 'error' for a CLI exit status; an error must be one line after `prefix`."""
    if status == 0:
        capsys.readouterr()
        return "ok"
    assert status == 1
    _error_line(capsys, prefix)
    return "error"


def test_fuzzed_checkpoints_resume_or_fail_in_one_line(trained, tmp_path, capsys):
    rng = np.random.default_rng(9)
    base = _members(trained / CHECKPOINT)
    arrays = [name for name in base if name != "payload.json"]
    outcomes = {"ok": 0, "error": 0}
    for case in range(FUZZ_CHECKPOINTS):
        run = _run_copy(trained, tmp_path / str(case))
        members = dict(base)
        if case % 2:
            members["payload.json"] = _mutate_payload(rng, base["payload.json"])
        else:
            name = arrays[int(rng.integers(len(arrays)))]
            members[name] = _mutate_npy(rng, base[name])
        _rewrite(run / CHECKPOINT, members)
        outcomes[_outcome(_resume(run), capsys, "burn train: error: ")] += 1
    print("checkpoint fuzz: %d cases, %s" % (FUZZ_CHECKPOINTS, outcomes))
    assert sum(outcomes.values()) == FUZZ_CHECKPOINTS and outcomes["error"] > 0


def test_fuzzed_inputs_run_or_fail_in_one_line(model, tmp_path, capsys):
    rng = np.random.default_rng(10)
    x = np.arange(64, dtype=np.int8).reshape(1, 8, 8, 1)
    buf = io.BytesIO()
    np.save(buf, x)
    npy = buf.getvalue()
    outcomes = {"ok": 0, "error": 0}
    for case in range(FUZZ_INPUTS):
        path = tmp_path / ("x%d.npz" % case if case % 4 == 3 else "x%d.npy" % case)
        mutated = _mutate_npy(rng, npy)
        if path.suffix == ".npz":
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
                z.writestr("input.npy", mutated)
            mutated = out.getvalue()
            if case % 8 == 7:
                mutated = _mutate_bytes(rng, mutated)
        path.write_bytes(mutated)
        status = burn_main(["run", model, "--input", str(path)])
        outcomes[_outcome(status, capsys, "burn run: %s: " % model)] += 1
    print("input fuzz: %d cases, %s" % (FUZZ_INPUTS, outcomes))
    assert sum(outcomes.values()) == FUZZ_INPUTS and outcomes["error"] > 0
