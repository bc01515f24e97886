"""Pickles that set the state of what the restricted unpickler hands them (the BUILD opcode)
are refused by both of its readers, the `--trust` converter of old burn checkpoints and the
PyTorch checkpoint reader; nothing one file does changes how the next reads; arrays are
made only from checked (dtype, shape, bytes); a fuzz of both readers, under a subprocess so
that a crash fails it, ends every case in a read or one clear error."""

import collections
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from burn.host.importers import torch_checkpoint, torch_pickle
from burn.host.importers.restricted_pickle import CheckpointError
from burn.host.train import checkpoint, pickled_checkpoint

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")
sys.path.insert(0, SCRIPTS)
import hostile_pickles as H  # noqa: E402
import imported_models  # noqa: E402

OLD_PAYLOAD = {"model": collections.OrderedDict(w=np.arange(6, dtype=np.float32).reshape(2, 3),
                                                n=np.array(7, dtype=np.int64)),
               "optimizer": {"lr": np.float32(0.5), "steps": np.int64(3),
                             "flags": np.array([True, False])},
               "epoch": 2, "history": [{"loss": 1.5}]}


def _converter(*argv):
    """`python -m burn.host.train.checkpoint ARGV` in a child, so a crash is an exit status."""
    return subprocess.run([sys.executable, "-m", "burn.host.train.checkpoint", *map(str, argv)],
                          capture_output=True, text=True, timeout=120, check=False)


def _old(data):
    return pickled_checkpoint.read(io.BytesIO(data))


@pytest.mark.parametrize("elsize", [4096, 100_000_000])
def test_a_dtype_rebuilt_after_its_array_is_refused(tmp_path, elsize):
    old = tmp_path / "old.ckpt"
    old.write_bytes(H.dtype_rebuilt_after_array(elsize))
    proc = _converter("--trust", old, tmp_path / "new.ckpt")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "refused: the pickle sets the state of the numpy dtype f4 again or after an " \
           "array used it" in proc.stderr
    assert not (tmp_path / "new.ckpt").exists() and "converted" not in proc.stdout


def test_the_same_dtype_set_before_its_array_converts(tmp_path):
    """The genuine order (the dtype's state, then the array's) of the file above."""
    dtype = H.numpy_dtype("f4", ">")
    data = np.array([1.5, -2.0], ">f4").tobytes()
    payload = _old(H.pickle(H.dict_of(model=H.numpy_array(dtype, (2,), data)), protocol=4))
    assert payload["model"].dtype == np.dtype(">f4")
    assert payload["model"].tolist() == [1.5, -2.0] and payload["model"].flags.writeable


@pytest.mark.parametrize("body,message", [
    (H.numpy_dtype("f4") + H.build(H.tup(H.num(3), H.text("<"), H.NONE, H.NONE, H.NONE,
                                        H.num(-1), H.num(-1), H.num(0))),
     "numpy dtype f4 again"),
    (H.call(H.glob("numpy", "dtype"), H.text("f4"), pickle.NEWFALSE, pickle.NEWTRUE) +
     H.build(H.tup(H.num(3), H.text("<"), H.NONE, H.tup(H.text("a")), H.NONE, H.num(8),
                   H.num(1), H.num(0))), "not that of a plain number type"),
    (H.numpy_dtype("V8"), "numpy dtype 'V8'"),
    (H.numpy_dtype("U5"), "numpy dtype 'U5'"),
    (H.numpy_dtype("O8"), "numpy dtype 'O8'"),
    (H.numpy_array(H.numpy_dtype("f4"), (3,), bytes(8)), "holds 8 bytes, not 12"),
    (H.numpy_array(H.numpy_dtype("f4"), (2 ** 40, 2 ** 40), bytes(8)),
     "holds 8 bytes, not 4835703278458516698824704"),
    (H.numpy_array(H.numpy_dtype("f4"), (1,), bytes(4)) + H.build(H.tup(
        H.num(1), H.tup(H.num(1)), H.numpy_dtype("f8"), pickle.NEWFALSE, H.raw(bytes(8)))),
     "state of a numpy array twice"),
    (H.call(H.glob(H.NUMPY_CORE, "_reconstruct"), H.glob("numpy", "ndarray"),
            H.tup(H.num(0)), H.raw(b"b")), "data the pickle never gives"),
    (H.call(H.glob(H.NUMPY_CORE, "scalar"), H.numpy_dtype("f8"), H.raw(bytes(4))),
     "scalar of 4 bytes"),
    (H.glob("numpy", "dtype"), "holds <numpy.dtype>, which is not data"),
    (H.raw(b"abc"), "holds a bytes"),
])
def test_the_converter_refuses_numpy_objects_numpy_never_writes(body, message):
    with pytest.raises(CheckpointError) as err:
        _old(H.pickle(H.dict_of(model=body), protocol=4))
    assert message in str(err.value)


OLD_GLOBALS = H.NUMPY_GLOBALS + H.SHARED_GLOBALS
TORCH_GLOBALS = H.TORCH_GLOBALS + H.SHARED_GLOBALS
STATES = {"attributes": H.dict_of(dtype=H.num(1), itemsize=H.num(4096)),
          "setattr": H.tup(H.NONE, H.dict_of(dtype=H.num(1), name=H.text("x")))}


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("module,name", OLD_GLOBALS)
def test_the_converter_refuses_a_state_on_each_global(module, name, state):
    genuine = pickle.dumps(OLD_PAYLOAD, protocol=4)
    before = _old(genuine)
    with pytest.raises(CheckpointError, match=r"refused: the pickle sets the state of <"):
        _old(H.state_of_global(module, name, STATES[state]))
    after = _old(genuine)
    assert checkpoint.encode(after) == checkpoint.encode(before)


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("module,name", TORCH_GLOBALS)
def test_the_torch_reader_refuses_a_state_on_each_global(tmp_path, module, name, state):
    torch = pytest.importorskip("torch")
    torch.save({"w": torch.arange(4.0), "n": torch.tensor([3])}, tmp_path / "good.pt")
    with zipfile.ZipFile(tmp_path / "kind.pt", "w") as z:
        z.writestr("kind/data.pkl", H.state_of_global(module, name, STATES[state]))
    with pytest.raises(CheckpointError, match=r"refused: the pickle sets the state of <"):
        torch_checkpoint.read(tmp_path / "kind.pt")
    got = torch_checkpoint.read(tmp_path / "good.pt")
    assert got["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and got["n"].dtype == np.int64


def test_an_ordered_dicts_attributes_are_dropped_and_only_a_dict_of_them_is_taken():
    od = H.call(H.glob("collections", "OrderedDict"))
    got = torch_pickle.unpickle_bytes(H.pickle(od + H.build(H.dict_of(_metadata=H.num(2)))))
    assert got == {} and not vars(got)
    with pytest.raises(CheckpointError, match="OrderedDict to a tuple"):
        torch_pickle.unpickle_bytes(H.pickle(od + H.build(H.tup(H.NONE, H.dict_of(x=H.NONE)))))
    with pytest.raises(CheckpointError, match="OrderedDict built from arguments"):
        torch_pickle.unpickle_bytes(H.pickle(H.call(H.glob("collections", "OrderedDict"),
                                                    pickle.EMPTY_LIST)))


def test_stand_ins_give_a_pickle_nothing_to_change():
    """torch.Size takes only ints, so iterating a stand-in cannot hand its insides to
    the pickle; a storage type's insides are strings."""
    with pytest.raises(CheckpointError, match=r"torch\.Size"):
        torch_pickle.unpickle_bytes(H.pickle(H.call(H.glob("torch", "Size"),
                                                    H.glob("torch._utils", "_rebuild_tensor"))))
    kind = torch_pickle.unpickle_bytes(H.pickle(H.glob("torch", "FloatStorage")))
    assert all(isinstance(part, str) for part in kind) and kind.dtype == np.float32


def test_burn_import_of_a_hostile_kind_then_a_genuine_checkpoint_in_one_process(
        tmp_path, capsys):
    torch = pytest.importorskip("torch")
    from burn.host.cli import main

    torch.save({"w": torch.ones(3)}, tmp_path / "good.pt")
    with zipfile.ZipFile(tmp_path / "kind.pt", "w") as z:
        z.writestr("kind/data.pkl", H.state_of_global("torch", "FloatStorage",
                                                      H.dict_of(dtype=H.num(1))))
    out = tmp_path / "w.safetensors"
    assert main(["import", str(tmp_path / "kind.pt"), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "refused: the pickle sets the state of <torch.FloatStorage>" in err
    assert "Traceback" not in err and not out.exists()
    assert main(["import", str(tmp_path / "good.pt"), "-o", str(out)]) == 0
    from burn.host.importers import safetensors_file

    assert safetensors_file.read(out)[0]["w"].tolist() == [1.0, 1.0, 1.0]


FUZZ_CASES = 600


@pytest.fixture(scope="module")
def fuzz_files(tmp_path_factory):
    """Genuine files for the fuzz: PyTorch checkpoints of both formats made by torch.save,
    and old burn checkpoints pickled (protocols 2 and 4) by pickle itself."""
    torch = pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("fuzz")
    torch.manual_seed(0)
    cnn, mlp = imported_models.torch_cnn(), imported_models.torch_mlp()
    torch.save(cnn.state_dict(), folder / "cnn.pt")
    torch.save({"state_dict": mlp.state_dict(), "epoch": 3}, folder / "mlp_legacy.pth",
               _use_new_zipfile_serialization=False)
    for protocol in (2, 4):
        (folder / ("old%d.ckpt" % protocol)).write_bytes(pickle.dumps(OLD_PAYLOAD, protocol))
    return folder


def test_the_fuzz_of_both_readers_ends_every_case_cleanly(fuzz_files):
    f = fuzz_files
    proc = subprocess.run(
        [sys.executable, os.path.join(SCRIPTS, "checkpoint_fuzz.py"), "--cases",
         str(FUZZ_CASES), "--seed", "7", "--old", str(f / "old2.ckpt"), "--old",
         str(f / "old4.ckpt"), str(f / "cnn.pt"), str(f / "mlp_legacy.pth")],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]  # a crash is a negative status
    counts = json.loads(proc.stdout.splitlines()[-1])
    assert counts["cases"] == FUZZ_CASES and counts["read"] + counts["clean"] == FUZZ_CASES
    assert counts["traceback"] == counts["hang"] == counts["changed"] == 0, proc.stderr[-3000:]
    assert min(counts["kinds"].values()) > FUZZ_CASES // 8 and len(counts["kinds"]) == 5
    assert counts["read"] > 0 and counts["clean"] > FUZZ_CASES // 2
