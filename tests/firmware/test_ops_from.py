"""`burn firmware build --ops-from MODEL.bst`: the kernels a model binds, what the firmware
keeps of the frozen core for them, the recipe and cache key of a selection, the board's
error for a model with a left-out op (on the MicroPython unix port, with the frozen subset
staged as the firmware stages it), and one real build for the MLPerf Tiny KWS model, run on
the emulated RP2040 (cached by its inputs, like the full build)."""

import ast
import sys
from pathlib import Path

import numpy as np
import pytest

import burn
from burn import bst_ops
from burn.graph import ops as op_table
from burn.host.bst_writer import encode_bst
from burn.host.cli import main
from burn.host.firmware import FirmwareError, inputs, ops_select
from burn.host.firmware.recipe import FLASH_BASE, load_recipe
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import unix as mp_unix

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))
import flash_models
from reference_models import model_path
from tflite_models import float_cnn


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """small: conv, max pool, fully connected; wide: conv alone; kws: the MLPerf Tiny KWS
    model (conv, depthwise conv, average pool, fully connected, softmax)."""
    folder = tmp_path_factory.mktemp("models")
    kws = folder / "kws.bst"
    kws.write_bytes(encode_bst(import_tflite(model_path("kws_ref_model.tflite").read_bytes(),
                                             tests=0)))
    return {"small": Path(flash_models.small(folder / "small.bst")),
            "wide": Path(flash_models.wide(folder / "wide.bst", 20)), "kws": kws}


def test_the_kernels_of_a_model_are_those_the_runtime_checks(models, monkeypatch):
    seen = set()
    monkeypatch.setattr(bst_ops, "_check_built", lambda step, name: seen.add(name))
    for path in models.values():
        burn.load(str(path), variant="plain")
    assert seen == set(ops_select.kernels_of(models.values()))
    assert ops_select.kernels_of([models["kws"]]) == (
        "avg_pool_s8", "conv_s8", "depthwise_conv_s8", "fully_connected_s8", "softmax_s8")


def test_every_op_kind_maps_to_one_of_its_kernels():
    for kind, _rule, _tflite, kernels in op_table.OPS:
        for dtype in ("int8", "float32", "int16"):
            name = ops_select.step_kernel(kind, dtype)
            assert name in kernels.split()
            assert op_table.kernel_args(name)  # its module is known
    with pytest.raises(ValueError, match="unknown op"):
        ops_select.step_kernel("fft", "int8")


def test_the_frozen_core_keeps_the_kernels_modules_and_their_imports(models):
    every = inputs.core_files()
    kept = inputs.core_files(ops_select.kernels_of([models["kws"]]))
    assert set(kept) < set(every)
    assert {f for f in every if not f.startswith("graph/")} <= set(kept)
    assert {"graph/s8_conv.py", "graph/s8_softmax.py", "graph/layout.py"} <= set(kept)
    assert "graph/fixedpoint_math.py" in kept  # imported by s8_softmax (relative import)
    assert not {"graph/f32_conv.py", "graph/s8_add.py", "graph/s8_tanh.py"} & set(kept)


def test_the_selection_is_part_of_the_flavor_and_the_cache_key():
    full = load_recipe("rp2040")
    a = load_recipe("rp2040", ops=("softmax_s8", "conv_s8"))
    b = load_recipe("rp2040", ops=("conv_s8",))
    debug = load_recipe("rp2040", debug=True, ops=("conv_s8",))
    assert a.ops == ("conv_s8", "softmax_s8")
    # a default firmware leaves the optional kernels out (the int16 ones at least)
    assert full.ops == ops_select.default_kernels() and "conv_s16" not in full.ops
    assert a.flavor.startswith("burn-ops-") and a.flavor != full.flavor
    assert a.flavor != b.flavor and debug.flavor.startswith("burn-debug-ops-")
    # one work folder for every selection: switching recompiles the binding, not the firmware
    assert a.base_flavor == b.base_flavor == full.base_flavor == "burn"
    assert debug.base_flavor == "burn-debug"
    keys = {inputs.cache_key(r, "1.28.0", "gcc") for r in (full, a, b, debug)}
    assert len(keys) == 4
    with pytest.raises(FirmwareError, match="stock"):
        load_recipe("rp2040", stock=True, ops=("conv_s8",))


def test_cmake_gets_the_kernels_and_an_empty_selection_keeps_none():
    from burn.host.firmware.build import _cmake_ops

    assert _cmake_ops(None) == ""  # every kernel
    assert _cmake_ops(("conv_s8", "softmax_s8")) == "conv_s8;softmax_s8"
    assert _cmake_ops(()) == "none"


def test_a_file_that_is_no_model_is_refused_before_building(tmp_path, capsys):
    bad = tmp_path / "bad.bst"
    bad.write_bytes(b"not a model")
    assert main(["firmware", "build", "--ops-from", str(bad)]) == 1
    assert "bad.bst is not a model burn can load" in capsys.readouterr().err
    assert main(["firmware", "build", "--ops-from", str(tmp_path / "none.bst")]) == 1
    assert "cannot read" in capsys.readouterr().err


_LOAD_BOTH = """
import burn
m = burn.load(%r)
print(repr(m.self_test()))
try:
    burn.load(%r)
    print("loaded")
except ValueError as e:
    print(repr(str(e)))
"""


def test_the_staged_subset_runs_its_model_and_names_a_missing_op(tmp_path, models):
    """The frozen core of a conv-only firmware, staged as the build stages it, on the unix
    port: its model passes its self-test, a model with more ops is refused clearly."""
    inputs.stage_core(tmp_path, ops_select.kernels_of([models["wide"]]))
    assert not (tmp_path / "burn" / "graph" / "s8_pool.py").exists()
    proc = mp_unix.run_code(_LOAD_BOTH % (str(models["wide"]), str(models["small"])),
                            paths=[tmp_path], heap="2m")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    tests, refusal = [ast.literal_eval(x) for x in proc.stdout.strip().splitlines()[-2:]]
    assert tests == 1  # wide's one reference test passes
    assert "this firmware was built without op" in refusal and "--ops-from" in refusal


def test_a_firmware_for_a_streaming_model_keeps_control_flow(tmp_path):
    """A model with resource variables and CALL_ONCE (the converter's streaming wake-word
    model, tests/tflite_tf_models.py) selects burn.graph.control besides its kernels, and
    no float kernels; its staged core runs it on the unix port (its TFLM references pass),
    where a selection without it is refused by name."""
    import tflite_tf_models

    made = tflite_tf_models.models()
    if made is None:
        pytest.skip("TensorFlow is not installed (the tensorflow-cpu of the dev extra)")
    path = tmp_path / "wakeword.bst"
    path.write_bytes(encode_bst(import_tflite(made["wakeword_stream"], tests=2)))
    kernels = ops_select.kernels_of([path])
    assert ops_select.CONTROL in kernels and not ops_select.has_float_kernels(kernels)
    assert ops_select.CONTROL_FILE in inputs.core_files(kernels)
    assert ops_select.CONTROL_FILE not in inputs.core_files(
        [k for k in kernels if k != ops_select.CONTROL])
    inputs.stage_core(tmp_path / "core", kernels)
    proc = mp_unix.run_code(_LOAD_BOTH % (str(path), str(path)), paths=[tmp_path / "core"],
                            heap="2m")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert ast.literal_eval(proc.stdout.strip().splitlines()[-2]) == 2


_ON_BOARD = """
import burn
from array import array
m = burn.load('/rom/kws.bst')
out = list(m.run(array('b', bytes(%d))))
try:
    burn.load('/rom/small.bst')
    refusal = None
except ValueError as e:
    refusal = str(e)
import burnflex
gone = [n for n in ('add_s8', 'mean_s8', 'max_pool_s8') if hasattr(burnflex, n)]
try:
    import burn.graph.s8_add
    gone.append('burn.graph.s8_add')
except ImportError:
    pass
print(repr((m.backend, m.info()['mode'], out, refusal, gone)))
"""


def _flash_with_romfs(path, recipe, uf2, files):
    """A flash image at `path` holding the firmware `uf2` and a ROMFS of `files` in the
    recipe's ROMFS partition (what burn-flash would write there, without the slow link)."""
    from burn.host import romfs
    from burn.host.emulator import flash_image

    flash_image.prepare(path, recipe.board, uf2)
    data = bytearray(path.read_bytes())
    rom = romfs.build_image({name: Path(f).read_bytes() for name, f in files.items()},
                            recipe.board.romfs_bytes, recipe.board.fs_block_bytes)
    at = recipe.code_limit - FLASH_BASE
    data[at:at + len(rom)] = rom
    path.write_bytes(bytes(data))
    return path


def _build_tools_or_skip():
    from burn.host import vendor
    from burn.host.emulator import EmulatorError
    from burn.host.emulator.runtime import find_node
    from burn.host.firmware import toolchain

    try:
        find_node()
        vendor.bootrom()
        toolchain.check_build_tools()
        toolchain.find_toolchain()
    except (EmulatorError, vendor.VendorError, FirmwareError) as e:
        pytest.skip("no emulator or no Arm toolchain for firmware builds: %s" % e)


def test_the_kws_firmware_runs_kws_on_the_emulated_rp2040(models, tmp_path):
    """One real build with the KWS model's kernels: its flex module within 24 KB, the model
    runs on its flex kernels from ROMFS with the host's outputs, and a model with a left-out
    op is refused by name."""
    from burn.host.board_session import Emulated, open_board
    from burn.host.firmware.build import build_firmware

    _build_tools_or_skip()
    kernels = ops_select.kernels_of([models["kws"]])
    built = build_firmware("rp2040", ops=kernels)
    assert built.report["ops"] == list(kernels)
    assert built.report["parts"]["flex_module"]["text"] < 24 * 1024
    host = burn.load(str(models["kws"]))
    size = 1
    for d in host.info()["inputs"][0]["shape"]:
        size *= d
    image = _flash_with_romfs(tmp_path / "flash.img", load_recipe("rp2040", ops=kernels),
                              built.uf2, {"kws.bst": models["kws"], "small.bst": models["small"]})
    with open_board(emulated=Emulated(built.uf2, image)) as session:
        backend, mode, out, refusal, kept_anyway = ast.literal_eval(
            session.link.exec(_ON_BOARD % size, timeout=120).strip().splitlines()[-1])
    assert (backend, mode) == ("flex", "mapped")
    assert out == list(host.run(bytes(size)))
    assert "this firmware was built without op" in refusal
    assert kept_anyway == []  # neither their bindings nor their Python kernels are in


_FLOAT_ON_BOARD = """
import burn, burnflex, binascii, gc
m = burn.load('/rom/cnn_f32.bst')
x = m.input_buffer()
def run():  # the input first: an inference may use its memory
    for i in range(len(x)):
        x[i] = ((i * 37) % 19 - 9) / 7.0
    m.invoke()
run()  # the first run makes the plan, the next ones run it
run()
gc.collect()
a = gc.mem_alloc()
m.invoke()
a = gc.mem_alloc() - a
run()
print(repr((m.backend, burnflex.float, bool(m._plan), a, binascii.hexlify(bytes(m.outputs())))))
"""


def test_a_float_model_runs_on_the_c_float_kernels_of_its_firmware(tmp_path):
    """A firmware made for a float CNN (conv, max pool, average pool, fully connected,
    softmax) builds flex's float kernels for the Cortex-M0+, soft-float: the model runs on
    them from ROMFS as one plan, allocating nothing, and gives the host's flex outputs
    within a few float32 ulps."""
    from burn.host.board_session import Emulated, open_board
    from burn.host.firmware.build import build_firmware
    from burn.host.flex.runtime import use_flex

    _build_tools_or_skip()
    model = tmp_path / "cnn_f32.bst"
    model.write_bytes(encode_bst(import_tflite(float_cnn(), tests=0)))
    kernels = ops_select.kernels_of([model])
    assert all(op_table.needs_fpu(k) for k in kernels)
    built = build_firmware("rp2040", ops=kernels)
    image = _flash_with_romfs(tmp_path / "flash.img", load_recipe("rp2040", ops=kernels),
                              built.uf2, {"cnn_f32.bst": model})
    with open_board(emulated=Emulated(built.uf2, image)) as session:
        backend, has_float, planned, allocated, out = ast.literal_eval(
            session.link.exec(_FLOAT_ON_BOARD, timeout=300).strip().splitlines()[-1])
    host = use_flex(burn.load(str(model)))
    x = host.input_buffer()
    for i in range(len(x)):
        x[i] = ((i * 37) % 19 - 9) / 7.0
    host.invoke()
    # the float32 bits (a float's printed digits on MicroPython do not round-trip), within
    # a few units in the last place: the M0+'s soft-float C and the host's differ there
    got = np.frombuffer(bytes.fromhex(out.decode()), np.float32)
    want = np.asarray(host.outputs(), np.float32)
    assert got.shape == want.shape and np.all(got > 0)
    assert np.abs(got.view(np.int32) - want.view(np.int32)).max() <= 16
    assert (backend, has_float, planned, allocated) == ("flex", True, True, 0)
