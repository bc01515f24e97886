"""PyTorch checkpoints made by the real torch.save (zip and legacy formats) load into burn.nn
models without torch being imported, and the models then compute what torch computes; hostile
pickles are refused and run nothing (test_hostile_pickles.py has the fuzz of the reader)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from burn.host.importers import torch_checkpoint as tc
from burn.host.importers.state_load import close_gaps, load_state
from burn.host.importers.torch_pickle import CheckpointError

torch = pytest.importorskip("torch", reason="torch is the oracle: pip install torch")

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")
sys.path.insert(0, SCRIPTS)
import imported_models  # noqa: E402

MLP_REMAP = [[r"^fc1\.", "0."], [r"^fc2\.", "2."]]


def _trained_bn(model):
    """A few training-mode passes so BatchNorm's running statistics are not the defaults."""
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(8, 1, 8, 8))
    return model.eval()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The checkpoints, the inputs and torch's outputs for them."""
    folder = tmp_path_factory.mktemp("torch_ckpt")
    torch.manual_seed(0)
    cnn = _trained_bn(imported_models.torch_cnn())
    mlp = imported_models.torch_mlp().eval()
    opt = torch.optim.Adam(mlp.parameters())
    mlp(torch.randn(4, 10)).sum().backward()
    opt.step()
    x = {"cnn": torch.randn(3, 1, 8, 8), "mlp": torch.randn(5, 10)}
    with torch.no_grad():
        expected = {"cnn": cnn(x["cnn"]).numpy(), "mlp": mlp(x["mlp"]).numpy()}
    legacy = {"_use_new_zipfile_serialization": False}
    torch.save(cnn.state_dict(), folder / "cnn.pt")
    torch.save(cnn.state_dict(), folder / "cnn_legacy.pt", **legacy)
    torch.save({"state_dict": mlp.state_dict(), "epoch": 3, "optimizer": opt.state_dict()},
               folder / "mlp.pth")
    torch.save({"model": {"module." + k: v for k, v in mlp.state_dict().items()}, "epoch": 3},
               folder / "mlp_legacy.pth", **legacy)
    np.savez(folder / "inputs.npz", **{k: v.numpy() for k, v in x.items()})
    return folder, expected


CASES = [("cnn", "cnn.pt", "burn_cnn", {}),
         ("cnn", "cnn_legacy.pt", "burn_cnn", {}),
         ("mlp", "mlp.pth", "burn_mlp", {"remap": MLP_REMAP}),
         ("mlp", "mlp_legacy.pth", "burn_mlp", {"remap": MLP_REMAP})]

_CHILD = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import imported_models
from burn.host.convert import to_numpy, to_tensor
from burn.host.importers import torch_checkpoint
folder, cases = sys.argv[2], json.loads(sys.argv[3])
inputs = np.load(folder + "/inputs.npz")
outputs, reports = {}, {}
for net, name, build, kw in cases:
    model = getattr(imported_models, build)().eval()
    r = torch_checkpoint.load(model, folder + "/" + name, strict=True, **kw)
    reports[name] = {"applied": r.applied, "missing": r.missing, "unexpected": r.unexpected,
                     "renamed": r.renamed, "adapted": r.adapted}
    outputs[name] = to_numpy(model(to_tensor(inputs[net])))
np.savez(folder + "/burn_outputs.npz", **outputs)
print(json.dumps({"torch_imported": "torch" in sys.modules, "reports": reports}))
"""


@pytest.fixture(scope="module")
def loaded(files):
    """What a process without torch made of the checkpoints: reports and model outputs."""
    folder, _ = files
    proc = subprocess.run([sys.executable, "-c", _CHILD, SCRIPTS, str(folder),
                           json.dumps(CASES)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    return result, np.load(folder / "burn_outputs.npz")


def test_loading_does_not_import_torch(loaded):
    assert loaded[0]["torch_imported"] is False


@pytest.mark.parametrize("net,name", [(c[0], c[1]) for c in CASES])
def test_burn_outputs_match_torch(files, loaded, net, name):
    np.testing.assert_allclose(loaded[1][name], files[1][net], rtol=0, atol=1e-5)


def test_report_of_the_cnn_names_the_closed_gap_and_the_int64_counter(loaded):
    for name in ("cnn.pt", "cnn_legacy.pt"):
        r = loaded[0]["reports"][name]
        assert r["missing"] == [] and r["unexpected"] == [] and len(r["applied"]) == 11
        assert ["5.weight", "4.weight"] in r["renamed"]
        assert ["8.bias", "7.bias"] in r["renamed"]
        assert ["1.num_batches_tracked", "int64 -> int32"] in r["adapted"]


def test_report_of_the_mlp_shows_the_remap_and_the_module_prefix(loaded):
    assert ["fc1.weight", "0.weight"] in loaded[0]["reports"]["mlp.pth"]["renamed"]
    assert ["module.fc2.bias", "2.bias"] in loaded[0]["reports"]["mlp_legacy.pth"]["renamed"]


def test_nested_checkpoint_keeps_its_other_entries(files):
    obj = tc.read(files[0] / "mlp.pth")
    assert obj["epoch"] == 3
    moments = obj["optimizer"]["state"][0]["exp_avg"]
    assert isinstance(moments, np.ndarray) and moments.shape == (16, 10)


def test_views_dtypes_and_parameters_come_out_as_torch_saved_them(tmp_path):
    t = torch.arange(12.0).reshape(3, 4)
    saved = {"transposed": t.t(), "slice": t[1:, 2:], "param": torch.nn.Parameter(t[0]),
             "half": t.half(), "bf16": t.bfloat16(), "long": torch.arange(5),
             "flag": torch.tensor([True, False]), "empty": torch.zeros(0, 3)}
    for fmt, protocol in ((True, 2), (False, 2), (True, 4), (False, 4)):
        torch.save(saved, tmp_path / "v.pt", _use_new_zipfile_serialization=fmt,
                   pickle_protocol=protocol)
        got = tc.read(tmp_path / "v.pt")
        for k, v in saved.items():
            np.testing.assert_array_equal(got[k], v.detach().float().numpy()
                                          if k == "bf16" else v.detach().numpy())


def test_shape_mismatch_names_the_key_and_changes_nothing(files):
    model = imported_models.burn_mlp()
    before = model.state_dict()["0.weight"].tolist()
    state = tc.state_dict(tc.read(files[0] / "mlp.pth"))
    with pytest.raises(ValueError, match=r"size mismatch for 0\.weight"):
        load_state(model, {**state, "fc1.weight": np.zeros((4, 4))}, remap=MLP_REMAP)
    assert model.state_dict()["0.weight"].tolist() == before


def test_strict_lists_missing_and_unexpected_keys(files):
    state = tc.state_dict(tc.read(files[0] / "mlp.pth"))
    report = load_state(imported_models.burn_mlp(), state)
    assert set(report.missing) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    assert "fc1.weight" in report.unexpected and "missing: 0.weight" in str(report)
    with pytest.raises(ValueError, match=r"unexpected: fc1\.weight"):
        load_state(imported_models.burn_mlp(), state, strict=True)


def test_a_1x1_convolution_weight_loads_into_a_linear():
    model = imported_models.burn_mlp()
    w = np.arange(160, dtype=np.float64).reshape(16, 10, 1, 1)
    report = load_state(model, {"0.weight": w})
    assert ("0.weight", "reshaped (16, 10, 1, 1) -> (16, 10)") in report.adapted
    assert model.state_dict()["0.weight"].tolist()[1][:2] == [10.0, 11.0]


def test_gaps_close_level_by_level():
    moved = close_gaps(["0.weight", "3.0.weight", "3.2.bias", "6.bias"],
                       ["0.weight", "1.0.weight", "1.1.bias", "2.bias"])
    assert moved == {"0.weight": "0.weight", "3.0.weight": "1.0.weight",
                     "3.2.bias": "1.1.bias", "6.bias": "2.bias"}


def test_a_bad_remap_pattern_is_a_clear_error():
    with pytest.raises(ValueError, match="bad regular expression"):
        load_state(imported_models.burn_mlp(), {}, remap=[("(", "")])


class _System:
    """Pickles as a call of os.system (posix.system) that creates `marker`."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, ("touch %s" % self.marker,))


class _Eval:
    """Pickles as a call of builtins.eval that creates `marker`."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (eval, ("open(%r, 'w').close()" % self.marker,))


EVIL = [(payload, zip_format) for payload in (_System, _Eval) for zip_format in (True, False)]


@pytest.fixture(scope="module")
def evil_files(tmp_path_factory):
    """{(payload, zip_format): (file, marker)}: hostile checkpoints, each shown to run its
    command under an unrestricted torch.load, the markers then removed."""
    folder = tmp_path_factory.mktemp("evil")
    made = {}
    for payload, zip_format in EVIL:
        stem = "%s_%s" % (payload.__name__.strip("_"), "zip" if zip_format else "legacy")
        marker, path = folder / (stem + ".ran"), folder / (stem + ".pt")
        torch.save({"fc.weight": torch.ones(2), "x": payload(str(marker))}, path,
                   _use_new_zipfile_serialization=zip_format)
        made[payload, zip_format] = (path, marker)
    for path, _ in made.values():
        torch.load(path, weights_only=False)
    for _, marker in made.values():
        assert marker.exists()  # the file is truly hostile
        marker.unlink()
    return made


@pytest.mark.parametrize("payload,zip_format", EVIL)
def test_a_pickle_that_runs_code_is_refused_and_runs_nothing(evil_files, payload, zip_format):
    path, marker = evil_files[payload, zip_format]
    name = "posix.system" if payload is _System else "__builtin__.eval"  # protocol 2 names
    with pytest.raises(CheckpointError, match="refused: the pickle asks for the global " +
                       name.replace(".", r"\.")):
        tc.read(path)
    assert not marker.exists()


def test_a_pickled_whole_model_is_refused_with_a_hint(tmp_path):
    torch.save(imported_models.torch_cnn(), tmp_path / "whole.pt")
    with pytest.raises(CheckpointError, match=r"save model\.state_dict"):
        tc.read(tmp_path / "whole.pt")


def _burn_import(*argv):
    return subprocess.run([sys.executable, "-c", "import sys; from burn.host.cli import main; "
                           "sys.exit(main())", "import", *map(str, argv)],
                          capture_output=True, text=True, timeout=120, check=False)


def test_cli_loads_a_checkpoint_into_the_model_and_writes_safetensors(files, tmp_path):
    out = tmp_path / "cnn.safetensors"
    proc = _burn_import(files[0] / "cnn_legacy.pt", "--model",
                        os.path.join(SCRIPTS, "imported_models.py") + ":burn_cnn", "-o", out,
                        "--strict")
    assert proc.returncode == 0, proc.stderr
    assert "applied 11 tensors, 0 missing, 0 unexpected" in proc.stderr
    assert "5.weight -> 4.weight" in proc.stderr and "wrote %s" % out in proc.stdout
    from burn.host.importers import safetensors_file

    state, meta = safetensors_file.read(out)
    assert "4.weight" in state and meta == {"source": "cnn_legacy.pt"}
    np.testing.assert_array_equal(state["7.bias"], tc.read(files[0] / "cnn.pt")["8.bias"])


def test_cli_refuses_a_hostile_checkpoint_in_one_line(evil_files, tmp_path):
    path, marker = evil_files[_System, True]
    proc = _burn_import(path, "-o", tmp_path / "w.safetensors", "--remap", "^x=y")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "refused: the pickle asks for the global posix.system" in proc.stderr
    assert not marker.exists() and not (tmp_path / "w.safetensors").exists()


def _ops(value):
    """The pickle opcodes that push `value` (protocol 2, without header and STOP)."""
    import pickle

    return pickle.dumps(value, protocol=2)[2:-1]


def _crafted(path, size, stride, offset=0, numel=4, stored=16):
    """A zip checkpoint holding one tensor "w" with the given view of a FloatStorage of
    `numel` elements, whose member holds `stored` bytes."""
    import zipfile

    pkl = (b"\x80\x02}(X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00"
           b"\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpu" +
           _ops(numel) + b"tQ" + _ops(offset) + _ops(tuple(size)) + _ops(tuple(stride)) +
           b"\x89ccollections\nOrderedDict\n)RtRu.")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("w/data.pkl", pkl)
        z.writestr("w/data/0", b"\0" * stored)
    return path


def test_a_crafted_checkpoint_reads_when_it_is_sound(tmp_path):
    got = tc.read(_crafted(tmp_path / "ok.pt", (2, 2), (1, 2)))
    assert got["w"].shape == (2, 2) and not got["w"].flags.writeable


@pytest.mark.parametrize("view,message", [
    ({"size": (2 ** 40, 2 ** 40), "stride": (1, 1)}, "reaches element"),
    ({"size": (10 ** 6, 10 ** 6), "stride": (0, 0)}, "over a storage of 4 elements"),
    ({"size": (2, 2), "stride": (1, 2), "offset": 1}, "reaches element 4 of a storage of 4"),
    ({"size": (2, -2), "stride": (1, 1)}, "not a non-negative int"),
    ({"size": (2,), "stride": (1, 1)}, "but stride"),
    ({"size": (1,) * 65, "stride": (1,) * 65}, "at most 64"),
    ({"size": (4,), "stride": (1,), "numel": 2 ** 50}, "needs 4503599627370496"),
    ({"size": (4,), "stride": (1,), "stored": 8}, "8 bytes, needs 16"),
])
def test_absurd_shapes_and_storages_are_refused_before_allocation(tmp_path, view, message):
    with pytest.raises(CheckpointError, match=message):
        tc.read(_crafted(tmp_path / "bad.pt", **view))


def test_rebuild_tensor_v3_reads_the_storage_bytes_as_its_dtype(tmp_path):
    import zipfile

    pkl = (b"\x80\x02}(X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v3\n((X\x07\x00\x00"
           b"\x00storagectorch\nUntypedStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpu" +
           _ops(8) + b"tQ" + _ops(1) + _ops((1,)) + _ops((1,)) +
           b"\x89ccollections\nOrderedDict\n)Rctorch\nfloat32\ntRu.")
    with zipfile.ZipFile(tmp_path / "v3.pt", "w") as z:
        z.writestr("w/data.pkl", pkl)
        z.writestr("w/data/0", np.array([1.5, -2.0], np.float32).tobytes())
    assert tc.read(tmp_path / "v3.pt")["w"].tolist() == [-2.0]


def test_cli_without_a_model_converts_the_state_dict_with_its_remaps(files, tmp_path, capsys):
    from burn.host.cli import main
    from burn.host.importers import safetensors_file

    out = tmp_path / "mlp.safetensors"
    assert main(["import", str(files[0] / "mlp.pth"), "-o", str(out),
                 "--remap", r"^fc(\d)\.=layer\1."]) == 0
    state, _ = safetensors_file.read(out)
    assert sorted(state) == ["layer1.bias", "layer1.weight", "layer2.bias", "layer2.weight"]
    assert main(["import", str(files[0] / "mlp.pth"), "-o", str(out), "--remap", r"^fc\d\.="]) == 1
    assert "two keys become" in capsys.readouterr().err
