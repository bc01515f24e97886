"""A ROMFS write cut anywhere leaves the old model or the new one, never neither: burn's
firmware on the emulated RP2040, the write (romfs_write.deploy, and once the burn-flash
command) cut at points spread over it, each cut followed by a fresh boot from the saved flash
image, where the model must load, pass its self-test and be byte for byte the old or the new.

Two kinds of cut: the emulator killed (SIGKILL) at fractions of a measured write, a power cut
whose flash is what the emulator last saved (it saves 300 ms after a change); and the
emulator stopped (SIGTERM: it saves the flash as it is, then exits) right after a chosen board
command, to land on each step of the commit. The models are 21 KB (six flash blocks), so that
a write takes seconds; each cut starts from the same flash image with the old model. Besides
the usual write beside the old model: a partition too full for both (the old model waits on
the filesystem) and a directory block without a free slot (it is rewritten)."""

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from emulator_support import emulator_or_skip, firmware_or_skip

from burn.host import romfs
from burn.host.board_session import Emulated, open_board
from burn.host.boards import load_board
from burn.host.firmware.recipe import FLASH_BASE, load_recipe
from burn.host.link import LinkError
from burn.host.romfs import RomfsError
from burn.host.romfs import write as romfs_write

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))
import flash_models

NAME = "model.bst"
BLOCK = 4096
# Where a fresh boot finds the model (ROMFS first, then the copy a cut write keeps on the
# filesystem), its self-test count and its SHA-256.
_HELD = """
import burn, hashlib, binascii
_r = None
for _p in ('/rom/model.bst', '/rom.old/model.bst'):
    try:
        _m = burn.load(_p)
    except OSError:
        continue
    with open(_p, 'rb') as _f:
        _h = binascii.hexlify(hashlib.sha256(_f.read()).digest()).decode()
    _r = (_p, _m.self_test(), _h)
    _m.close()
    break
print(repr(_r))
"""


@pytest.fixture(scope="module")
def firmware():
    emulator_or_skip()
    return firmware_or_skip()


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    old = Path(flash_models.medium(folder / "old.bst")).read_bytes()
    new = Path(flash_models.medium(folder / "new.bst", "one-weight")).read_bytes()
    assert len(old) == len(new) and old != new
    return {"old": old, "new": new}


@pytest.fixture(scope="module")
def base(firmware, models, tmp_path_factory):
    """Bytes of a flash image with the firmware and the old model in ROMFS."""
    image = tmp_path_factory.mktemp("base") / "flash.img"
    with open_board(emulated=Emulated(firmware, image)) as s:
        assert romfs_write.deploy(s.link, {NAME: models["old"]})
    return image.read_bytes()


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def held(image):
    """(path, self-tests passed, SHA-256) of the model a fresh boot from `image` finds."""
    with open_board(emulated=Emulated(None, image)) as s:
        return s.link.exec_literal(_HELD, timeout=120)


def _counted(link, proc, stop_after=None):
    """Count the commands the board answers on `link` (the count in a list); stop the
    emulator (SIGTERM) once it has answered `stop_after` of them."""
    real = link.exec
    answered = [0]

    def exec_then_cut(code, timeout=10.0, on_output=None):
        out = real(code, timeout, on_output)
        answered[0] += 1
        if answered[0] == stop_after:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
        return out

    link.exec = exec_then_cut
    return answered


def _write(image, files, stop_after=None, kill_at=None):
    """Deploy `files` on a board booted from `image`, cut after `stop_after` commands or
    killed `kill_at` seconds in. Returns (seconds, whether it finished, commands)."""
    with open_board(emulated=Emulated(None, image)) as s:
        proc = s.virtual_board.proc
        answered = _counted(s.link, proc, stop_after)
        if kill_at is not None:
            threading.Timer(kill_at, proc.kill).start()
        start = time.monotonic()
        try:
            romfs_write.deploy(s.link, files)
            finished = True
        except (LinkError, RomfsError):
            finished = False
        return time.monotonic() - start, finished, answered[0]


def _cut_runs(image, start, files, cuts, models):
    """For each cut (stop_after, kill_at): the write of `files` from flash bytes `start`,
    cut so, then what a fresh boot holds, checked to be the old model or the new; returns
    [(cut, finished, where, "old" or "new")]."""
    names = {_sha(models["old"]): "old", _sha(models["new"]): "new"}
    outcomes = []
    for stop_after, kill_at in cuts:
        image.write_bytes(start)
        _s, finished, _n = _write(image, files, stop_after, kill_at)
        found = held(image)
        assert found is not None, "no model after a cut at %r" % ((stop_after, kill_at),)
        path, tests, sha = found
        assert tests == 3 and sha in names, (stop_after, kill_at, found)
        assert path == "/rom/model.bst" or names[sha] == "old", found
        outcomes.append(((stop_after, kill_at), finished, path, names[sha]))
    print("\n".join("cut %r: %s, %s holds the %s model" % (c, "finished" if f else "cut", p, o)
                    for c, f, p, o in outcomes))
    return outcomes


def test_a_cut_anywhere_in_a_rom_write_leaves_the_old_model_or_the_new(models, base,
                                                                        tmp_path):
    image = tmp_path / "flash.img"
    image.write_bytes(base)
    seconds, finished, commands = _write(image, {NAME: models["new"]})
    assert finished and held(image) == ("/rom/model.bst", 3, _sha(models["new"]))
    kills = [(None, f * seconds) for f in (0.1, 0.3, 0.5, 0.7)]
    # The commit's commands come last but two (the remount and check, the cleanup): the data
    # hash, the new entry's payload, its kind FREE -> LIVE, the old entry's LIVE -> DEAD.
    steps = [(commands - k, None) for k in (5, 4, 3, 2)]
    outcomes = _cut_runs(image, base, {NAME: models["new"]}, kills + steps, models)
    assert [o for _c, f, _p, o in outcomes[:4] if not f].count("old") >= 2  # cut mid-write
    assert [o for _c, _f, _p, o in outcomes[4:]] == ["old", "old", "old", "new"]


def _partition_offset():
    return load_recipe("rp2040").code_limit - FLASH_BASE


def _with_partition(base, partition):
    """Flash image bytes `base` with the ROMFS partition starting with `partition`."""
    at = _partition_offset()
    return base[:at] + partition + base[at + len(partition):]


def test_a_partition_too_full_for_both_keeps_the_old_model_on_the_filesystem(models, base,
                                                                             tmp_path):
    size = load_board("rp2040").romfs_bytes
    # A file that stays, leaving five free blocks: fewer than the new model's six.
    filler = bytes(range(256)) * ((size // BLOCK - 1 - 6 - 5) * BLOCK // 256)
    files = {"filler.bin": filler, NAME: models["old"]}
    start = _with_partition(base, romfs.build_image(files, size, BLOCK))
    image = tmp_path / "flash.img"
    image.write_bytes(start)
    new_files = {"filler.bin": filler, NAME: models["new"]}
    _s, finished, commands = _write(image, new_files)
    assert finished and held(image) == ("/rom/model.bst", 3, _sha(models["new"]))
    # After: the copy renamed into place, the old entry DEAD, some data, the new entry LIVE.
    outcomes = _cut_runs(image, start, new_files,
                         [(n, None) for n in (5, 6, 8, commands - 2)], models)
    assert [(p, o) for _c, _f, p, o in outcomes] == [
        ("/rom/model.bst", "old"), ("/rom.old/model.bst", "old"),
        ("/rom.old/model.bst", "old"), ("/rom/model.bst", "new")]


def test_a_full_directory_block_is_rewritten_with_the_old_model_kept_meanwhile(models, base,
                                                                               tmp_path):
    size = load_board("rp2040").romfs_bytes
    partition = bytearray(romfs.build_image({NAME: models["old"]}, size, BLOCK))
    for index in range(1, romfs.slot_count(BLOCK)):  # as after 62 earlier writes
        partition[romfs.slot_offset(index)] = romfs.DEAD
    start = _with_partition(base, bytes(partition))
    image = tmp_path / "flash.img"
    image.write_bytes(start)
    _s, finished, commands = _write(image, {NAME: models["new"]})
    assert finished and held(image) == ("/rom/model.bst", 3, _sha(models["new"]))
    # After: the copy renamed into place, the data's hash, the new directory block.
    outcomes = _cut_runs(image, start, {NAME: models["new"]},
                         [(n, None) for n in (5, commands - 3, commands - 2)], models)
    assert [(p, o) for _c, _f, p, o in outcomes] == [
        ("/rom/model.bst", "old"), ("/rom/model.bst", "old"), ("/rom/model.bst", "new")]
    # A cut inside that one command, between the erase of the directory block and its
    # programming: the state after the cut before it, with block 0 erased.
    image.write_bytes(start)
    _write(image, {NAME: models["new"]}, stop_after=commands - 3)
    flash = bytearray(image.read_bytes())
    at = _partition_offset()
    flash[at:at + BLOCK] = b"\xff" * BLOCK
    image.write_bytes(bytes(flash))
    assert held(image) == ("/rom.old/model.bst", 3, _sha(models["old"]))


def test_killing_burn_flash_mid_write_leaves_the_old_model_or_the_new(firmware, models, base,
                                                                       tmp_path):
    image = tmp_path / "flash.img"
    image.write_bytes(base)
    model = tmp_path / "new.bst"
    model.write_bytes(models["new"])
    proc = subprocess.Popen(
        [sys.executable, "-u", "-c", "import sys; from burn.host.cli.flash_main import main; "
         "sys.exit(main())", "--board", "rp2040", "--emulated", "--firmware", str(firmware),
         "--flash-image", str(image), "--no-self-test", str(model)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    said = []
    for line in proc.stdout:
        said.append(line)
        if "writing the model into the ROMFS partition" in line:
            time.sleep(1.0)  # about a third of the write
            proc.kill()
            break
    proc.wait(30)
    assert proc.returncode == -signal.SIGKILL, "".join(said)
    path, tests, sha = held(image)
    assert path == "/rom/model.bst" and tests == 3
    assert sha in (_sha(models["old"]), _sha(models["new"]))
