"""A ROMFS write cut anywhere leaves the old model or the new one, never neither: burn's
firmware on the emulated RP2040, the write (romfs_write.deploy, and once the burn-flash
command) cut at points spread over it, each cut followed by a fresh boot from the saved flash
image, where the model must load, pass its self-test and be byte for byte the old or the new.

Two kinds of cut: the emulator killed (SIGKILL) at fractions of a measured write, a power cut
whose flash is what the emulator last saved (it saves 300 ms after a change); and the flash
as it stands right after a chosen board command, to land on each step of the commit: one
uncut write has the emulator save its flash image after every command (what it does when
stopped there), and each of those images is booted afresh. The models are 21 KB (six flash
blocks), so that a write takes seconds; each cut starts from the same flash image with the
old model. Besides the usual write beside the old model: a partition too full for both (the
old model waits on the filesystem) and a directory block without a free slot (it is
rewritten)."""

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


def _killed_write(image, files, kill_at):
    """Deploy `files` on a board booted from `image`, the emulator killed `kill_at` seconds
    in; whether the write finished first."""
    with open_board(emulated=Emulated(None, image)) as s:
        threading.Timer(kill_at, s.virtual_board.proc.kill).start()
        try:
            romfs_write.deploy(s.link, files)
            return True
        except (LinkError, RomfsError):
            return False


def _write_saving_steps(image, files):
    """Deploy `files` on a board booted from `image`, the emulator saving its flash after
    each command the board answers. Returns ([flash bytes after command 1, after 2, ...],
    the seconds the write took less those the saves took)."""
    with open_board(emulated=Emulated(None, image)) as s:
        board, real = s.virtual_board, s.link.exec
        steps, saving = [], [0.0]

        def exec_then_save(code, timeout=10.0, on_output=None):
            out = real(code, timeout, on_output)
            start = time.monotonic()
            board.save_flash()
            steps.append(image.read_bytes())
            saving[0] += time.monotonic() - start
            return out

        s.link.exec = exec_then_save
        start = time.monotonic()
        romfs_write.deploy(s.link, files)
        return steps, time.monotonic() - start - saving[0]


def _outcome(image, models, cut):
    """Where a fresh boot from `image` (after cut `cut`) finds the model and which it is
    ("old" or "new"), checked to be one of the two and to pass its self-test."""
    names = {_sha(models["old"]): "old", _sha(models["new"]): "new"}
    found = held(image)
    assert found is not None, "no model after a cut at %r" % (cut,)
    path, tests, sha = found
    assert tests == 3 and sha in names, (cut, found)
    assert path == "/rom/model.bst" or names[sha] == "old", found
    print("cut %r: %s holds the %s model" % (cut, path, names[sha]))
    return path, names[sha]


def _step_cuts(image, start, files, models, cuts):
    """The write of `files` from flash bytes `start`, uncut, must leave the new model; then
    for each cut (the commands answered, negative: counted from the end) what a fresh boot
    from the flash as it stood there finds: [(path, "old" or "new")]. Also returns the
    flash bytes after each command and the write's seconds."""
    image.write_bytes(start)
    steps, seconds = _write_saving_steps(image, files)
    assert held(image) == ("/rom/model.bst", 3, _sha(models["new"]))
    outcomes = []
    for n in cuts:
        image.write_bytes(steps[n - 1 if n > 0 else len(steps) + n - 1])
        outcomes.append(_outcome(image, models, n))
    return outcomes, steps, seconds


def test_a_cut_anywhere_in_a_rom_write_leaves_the_old_model_or_the_new(models, base,
                                                                        tmp_path):
    image = tmp_path / "flash.img"
    # The commit's commands come last but two (the remount and check, the cleanup): the data
    # hash, the new entry's payload, its kind FREE -> LIVE, the old entry's LIVE -> DEAD.
    outcomes, _steps, seconds = _step_cuts(image, base, {NAME: models["new"]}, models,
                                           (-5, -4, -3, -2))
    assert [o for _p, o in outcomes] == ["old", "old", "old", "new"]
    killed = []
    for fraction in (0.1, 0.3, 0.5, 0.7):
        image.write_bytes(base)
        finished = _killed_write(image, {NAME: models["new"]}, fraction * seconds)
        killed.append((finished, _outcome(image, models, fraction)[1]))
    assert [o for f, o in killed if not f].count("old") >= 2  # cut mid-write


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
    new_files = {"filler.bin": filler, NAME: models["new"]}
    # After: the copy renamed into place, the old entry DEAD, some data, the new entry LIVE.
    outcomes, _steps, _s = _step_cuts(tmp_path / "flash.img", start, new_files, models,
                                  (5, 6, 8, -2))
    assert outcomes == [
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
    # After: the copy renamed into place, the data's hash, the new directory block.
    outcomes, steps, _s = _step_cuts(image, start, {NAME: models["new"]}, models, (5, -3, -2))
    assert outcomes == [
        ("/rom/model.bst", "old"), ("/rom/model.bst", "old"), ("/rom/model.bst", "new")]
    # A cut inside that one command, between the erase of the directory block and its
    # programming: the state after the cut before it, with block 0 erased.
    flash = bytearray(steps[-4])
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
