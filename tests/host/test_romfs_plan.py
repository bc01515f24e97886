"""romfs_plan.plan_update: new data never goes over a file that stays readable; old files in
the way, or all of them when the directory block is rewritten, are kept on the filesystem
first; what cannot be done safely is refused before anything is written."""

import hashlib
import random

import pytest

from burn.host import romfs
from burn.host.romfs import RomfsError
from burn.host.romfs.plan import LiveFile, plan_update

SIZE, BLOCK = 32 * 4096, 4096
ROOMY = 1 << 20  # filesystem bytes free


def _state(files):
    """(slots, live) of a partition holding `files` as build_image lays them out."""
    image = romfs.build_image(files, SIZE, BLOCK)
    slots = romfs.read_slots(image[:BLOCK], SIZE, BLOCK)
    live = {s.name: LiveFile(s.offset, s.length, hashlib.sha256(files[s.name]).hexdigest())
            for s in slots if s.state == romfs.LIVE}
    return slots, live


def _blocks(offset, length):
    return set(range(offset // BLOCK, -(-(offset + length) // BLOCK)))


def test_an_erased_partition_is_formatted_with_nothing_to_keep():
    plan = plan_update(SIZE, BLOCK, None, {}, {"m.bst": b"x" * 5000}, 0)
    assert plan.rewrite and not plan.evict and not plan.invalidate
    assert plan.entries == [("m.bst", BLOCK, 5000)]


def test_a_new_version_goes_beside_the_old_and_takes_a_free_slot():
    slots, live = _state({"m.bst": b"a" * 9000})
    plan = plan_update(SIZE, BLOCK, slots, live, {"m.bst": b"b" * 9000}, 0)
    assert not plan.rewrite and not plan.evict and plan.slots == [1]
    [(_name, offset, _data)] = plan.writes
    assert not _blocks(offset, 9000) & _blocks(live["m.bst"].offset, 9000) and offset >= BLOCK


def test_an_unchanged_file_writes_nothing():
    files = {"m.bst": b"a" * 9000}
    slots, live = _state(files)
    plan = plan_update(SIZE, BLOCK, slots, live, files, 0)
    assert not plan.changes and plan.kept == ["m.bst"]


def test_a_partition_too_full_for_both_evicts_the_old_version_only():
    filler = b"f" * (BLOCK * 26)
    slots, live = _state({"filler": filler, "m.bst": b"a" * 12000})  # 3 blocks free
    plan = plan_update(SIZE, BLOCK, slots, live, {"filler": filler, "m.bst": b"b" * 12000},
                       ROOMY)
    assert plan.evict == ["m.bst"] and plan.kept == ["filler"] and not plan.rewrite
    [(_name, offset, _data)] = plan.writes
    assert not _blocks(offset, 12000) & _blocks(live["filler"].offset, len(filler))
    with pytest.raises(RomfsError, match=r"needs about [\d,]+ bytes free there, and 1,000 are"):
        plan_update(SIZE, BLOCK, slots, live, {"filler": filler, "m.bst": b"b" * 12000}, 1000)


def test_a_directory_block_without_a_free_slot_is_rewritten_with_every_file_evicted():
    slots, live = _state({"m.bst": b"a" * 9000, "k": b"kept"})
    for s in slots[2:]:
        s.state = romfs.DEAD
    plan = plan_update(SIZE, BLOCK, slots, live, {"m.bst": b"b" * 9000, "k": b"kept"}, ROOMY)
    assert plan.rewrite and plan.evict == ["k", "m.bst"] and plan.kept == ["k"]
    assert "no free entry slot" in plan.why
    assert sorted(n for n, _o, _l in plan.entries) == ["k", "m.bst"]


def test_another_layout_is_rewritten_around_its_files():
    live = {"m.bst": LiveFile(40, 9000, "0" * 64)}  # a single-image ROMFS, data in block 0
    plan = plan_update(SIZE, BLOCK, None, live, {"m.bst": b"b" * 9000}, ROOMY)
    assert plan.rewrite and plan.evict == ["m.bst"] and not plan.invalidate
    assert plan.writes[0][1] >= 3 * BLOCK  # past the old image's blocks 0 to 2


def test_what_cannot_fit_is_refused_with_both_sizes():
    with pytest.raises(RomfsError, match=r"the files take 135,168 bytes in ROMFS.*holds 131,072"):
        plan_update(SIZE, BLOCK, None, {}, {"m.bst": bytes(SIZE)}, ROOMY)


def test_placements_never_touch_what_stays_readable():
    rng = random.Random(3)
    for case in range(300):
        names = ["f%d" % i for i in range(rng.randrange(1, 5))]
        old = {n: bytes([i]) * rng.randrange(1, 7 * BLOCK) for i, n in enumerate(names)}
        try:
            slots, live = _state(old)
        except RomfsError:
            continue
        new = {n: (d if rng.random() < 0.4 else bytes([200]) * rng.randrange(1, 9 * BLOCK))
               for n, d in old.items() if rng.random() < 0.8}
        try:
            plan = plan_update(SIZE, BLOCK, slots, live, new, ROOMY)
        except RomfsError:
            continue
        taken = set()
        for _name, offset, data in plan.writes:
            blocks = _blocks(offset, len(data))
            assert 0 not in blocks and max(blocks) < SIZE // BLOCK and not blocks & taken
            taken |= blocks
        for name, f in live.items():
            if name in plan.kept or (name not in plan.evict and name not in plan.removed):
                assert not _blocks(f.offset, f.length) & taken, (case, name)
