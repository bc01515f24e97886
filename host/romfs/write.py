"""Writing files into a board's ROMFS partition so that a cut anywhere (power, reset, a
killed host) leaves each file's old version or its new one, never neither.

    from burn.host.romfs import write as romfs_write
    romfs_write.deploy(link, {"model.bst": data})   # True if written, False if unchanged

The steps (the layout is romfs's, the choices burn.host.romfs.plan's):

1. Ask the board what its partition holds: the directory block, and each file MicroPython
   finds there now with the offset, length and SHA-256 of its data.
2. Keep on the filesystem (`/rom.old/<name>`, written as a part file and renamed once its
   hash is checked) the old files the plan cannot keep readable in ROMFS meanwhile.
3. Write each new file's data into blocks that no readable file uses, then hash it on the
   board; a mismatch stops here with the old files untouched.
4. Commit. Normally per file, in the directory block, by programming bytes that are still
   erased and then clearing bits: the new entry's payload into a FREE slot, its kind byte
   FREE -> LIVE (the old entry still wins the lookup: it comes first), then the old entry's
   kind LIVE -> DEAD, which hands the name to the new one. Each of these is one byte changing
   by cleared bits, which a NOR flash does in one program operation. When the directory
   block must be rewritten instead (another layout, or no FREE slot left), it is erased and
   programmed in one board command, with the old files already kept on the filesystem.
5. Remount /rom, check every file's hash through the mount, remove /rom.old.

The board runs burn.host.board_programs' rom_query and rom_write, one command a step.
"""

import base64
import hashlib

from burn.host import romfs
from burn.host.board_programs import call, forget, once, source
from burn.host.romfs import ROM_MOUNT, RomfsError
from burn.host.romfs import plan as romfs_plan
from burn.host.romfs.plan import EVICT_DIR, LiveFile


def partition(link):
    """(bytes, block size) of the board's ROMFS partition, or None when it has none."""
    return link.exec_literal(once("rom_query", "_rom_query"), timeout=30.0)


def board_state(link, block):
    """(directory block bytes, {name: LiveFile}, bytes free on the filesystem, its block
    size) of the board's ROMFS partition; also defines the steps that follow (board
    program rom_write, forgotten by _clean)."""
    code = source("rom_write") + call("_rom_state", block)
    header, live, fs_free, fs_block = link.exec_literal(code, 120.0)
    return (base64.b64decode(header), {n: LiveFile(*f) for n, f in live.items()},
            fs_free, fs_block)


def deploy(link, files, progress=None, say=None):
    """Write `files` ({name: bytes}) into the board's ROMFS partition as its only files and
    mount it at /rom; see the module docstring. Returns False when the partition held them
    already (nothing written). `progress(sent, total)` follows the data; `say(text)` hears
    the steps. RomfsError when the board has no partition, the files do not fit (safely),
    or what was written reads back wrong (the old files are then still there)."""
    say = say or (lambda text: None)
    found = partition(link)
    if found is None:
        raise RomfsError("the board's firmware has no ROMFS partition (MicroPython 1.25+ "
                         "built with one: `burn firmware build`)")
    size, block = found
    header, live, fs_free, fs_block = board_state(link, block)
    slots = romfs.read_slots(header, size, block)
    plan = romfs_plan.plan_update(size, block, slots, live, files, fs_free, fs_block)
    if not plan.changes:
        _clean(link)  # copies a cut update left
        return False
    for name in plan.evict:
        say("keeping %s on the filesystem as %s/%s while the new files are written (%s)"
            % (name, EVICT_DIR, name, plan.why))
        _evict(link, name, live[name])
    if plan.rewrite:
        if plan.invalidate:
            link.exec(call("_rom_umount", ROM_MOUNT), timeout=30.0)
            _program(link, 0, b"\x00")  # its first byte's bits cleared: no ROMFS header
        _write_data(link, plan, block, progress)
        if live:
            say("rewriting the ROMFS directory block (%s)" % plan.why)
        image = romfs.header_block(size, block, plan.entries)
        _write_block(link, 0, image)
    else:
        old = {s.index: s for s in slots if s.state == romfs.LIVE}
        _kill(link, [s for s in old.values() if s.name in plan.removed or
                     s.name in plan.evict or _hidden(s, old)])
        _write_data(link, plan, block, progress)
        for (name, offset, data), index in zip(plan.writes, plan.slots):
            _commit(link, index, romfs.entry(name, offset, len(data)),
                    [s for s in old.values() if s.name == name and s.name not in plan.evict
                     and not _hidden(s, old)])
    _check_mounted(link, files)
    _clean(link)
    return True


def _clean(link):
    """Remove the copies of old files from the filesystem and forget rom_write's names."""
    link.exec(call("_rom_clean", EVICT_DIR) + forget("rom_write"),
              timeout=60.0)


def _hidden(slot, live_slots):
    """Whether a LIVE slot is not the one MicroPython finds (an earlier one has its name)."""
    return any(s.name == slot.name and s.index < slot.index for s in live_slots.values())


def _evict(link, name, live):
    """Copy ROMFS file `name` to EVICT_DIR on the filesystem: a part file, renamed once the
    board's hash of it is the file's."""
    target = "%s/%s" % (EVICT_DIR, name)
    part = target + ".part"
    link.exec(call("_rom_evict", EVICT_DIR, part, "/" + name), timeout=300.0)
    if link.sha256(part) != live.sha256:
        raise RomfsError("keeping %s on the filesystem failed: its copy %s reads back "
                         "differently; nothing was written to ROMFS" % (name, part))
    link.rename(part, target)


def _write_data(link, plan, block, progress):
    """Erase and program each new file's blocks, then check each file's hash on the board."""
    total = sum(romfs.blocks_for(len(data), block) for _n, _o, data in plan.writes) * block
    done = 0
    for name, offset, data in plan.writes:
        for at in range(0, len(data), block):
            chunk = data[at:at + block]
            _write_block(link, (offset + at) // block, chunk + b"\xff" * (block - len(chunk)))
            done += block
            if progress is not None:
                progress(done, total)
        got = link.exec_literal(call("_rom_data_hash", offset, offset + len(data)), 120.0)
        if got != hashlib.sha256(data).hexdigest():
            raise RomfsError("%s reads back differently from ROMFS after writing; nothing "
                             "was committed, the old files are still there" % name)


def _write_block(link, index, data):
    """Erase block `index` of the partition and program `data` (a whole block) into it."""
    ok = link.exec_literal(call("_rom_write_block", base64.b64encode(data).decode(), index),
                           60.0)
    if not ok:
        raise RomfsError("block %d of the ROMFS partition reads back differently after "
                         "writing" % index)


def _program(link, at, data):
    """Program `data` at partition offset `at` without an erase (clearing bits only);
    RomfsError unless the bytes there then read `data`."""
    if not link.exec_literal(call("_rom_program", at, data), 30.0):
        raise RomfsError("the ROMFS partition at byte %d does not read back as programmed "
                         "(was it written by something else meanwhile?)" % at)


def _commit(link, index, record, old):
    """Make slot `index` the LIVE entry `record`, then the `old` LIVE slots of its name DEAD
    (the one MicroPython finds now last, so that the name passes straight to the new one)."""
    at = romfs.slot_offset(index)
    _program(link, at + 2, record[2:])  # onto erased bytes, behind the FREE kind
    _program(link, at, record[:1])
    _kill(link, old)


def _kill(link, slots):
    """Turn LIVE `slots` DEAD, the highest index first: of two entries of one name the
    later one (which MicroPython does not find) goes first, so it never resurfaces."""
    for slot in sorted(slots, key=lambda s: -s.index):
        _program(link, romfs.slot_offset(slot.index), bytes([romfs.DEAD]))


def _check_mounted(link, files):
    """Remount /rom and check each file's hash through it."""
    found = link.exec_literal(call("_rom_remount", ROM_MOUNT, sorted(files)), 120.0)
    wrong = [n for n in sorted(files) if found.get(n) != hashlib.sha256(files[n]).hexdigest()]
    if wrong:
        raise RomfsError("after writing, %s in %s differ from the files sent"
                         % (", ".join(wrong), ROM_MOUNT))

