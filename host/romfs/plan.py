"""What a ROMFS update writes where, decided on the host before anything is written.

`plan_update` takes what the board's partition holds (its directory slots, or None when it
is not in burn's layout, and the files MicroPython finds in it now) and the files wanted
there, and returns a RomfsPlan: which files are kept, where each new one goes, which old
ones must first be kept on the filesystem, and whether the directory block is rewritten.

The rule it keeps: every file MicroPython finds in /rom stays readable, as it is, until its
replacement is written, verified and committed. New data goes into blocks that hold no live
file. Where the partition cannot hold old and new side by side, the old files in the way are
first copied to the filesystem (`EVICT_DIR`); a directory block that must be rewritten (not
burn's layout yet, or no free slot left) hides every file while it is erased and
programmed, so all of them are copied first. When the filesystem cannot take the copies, the
update is refused before anything is written.
"""

import hashlib
from dataclasses import dataclass, field

from burn.host import romfs
from burn.host.romfs import RomfsError

EVICT_DIR = "/rom.old"  # on the filesystem: old ROMFS files kept while the new ones are written
_FS_OVERHEAD_BLOCKS = 2  # littlefs blocks a file takes besides its data (metadata pair)


@dataclass
class LiveFile:
    """A file MicroPython finds in /rom now: where its data lies and its SHA-256 (hex)."""

    offset: int
    length: int
    sha256: str


@dataclass
class RomfsPlan:
    """What `romfs_write.deploy` does: `writes` [(name, offset, data)], `kept` names left as
    they are, `removed` names that go, `evict` names copied to EVICT_DIR first, `rewrite`
    (a new directory block, with `entries` [(name, offset, length)]) or, without it, the
    FREE `slots` that the new entries take; `invalidate`: the old directory is made
    unreadable before the data goes over the files it names; `why` the directory block is
    rewritten, or the old files evicted."""

    writes: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    evict: list = field(default_factory=list)
    rewrite: bool = False
    invalidate: bool = False
    entries: list = field(default_factory=list)
    slots: list = field(default_factory=list)
    why: str = ""

    @property
    def changes(self):
        """Whether anything is written at all."""
        return bool(self.writes or self.removed)


def plan_update(size, block, slots, live, files, fs_free, fs_block=4096):
    """The RomfsPlan that puts `files` ({name: bytes}) into a partition of `size` bytes and
    erase blocks of `block` bytes whose directory holds `slots` (romfs.read_slots; None: not
    burn's layout) and where MicroPython now finds `live` ({name: LiveFile}). `fs_free`:
    bytes free on the board's filesystem (for the copies of old files). RomfsError when the
    files cannot fit, or cannot fit safely."""
    for name in files:
        romfs.check_name(name)
    need = romfs.bytes_needed([len(d) for d in files.values()], block)
    if need > size:
        raise RomfsError("the files take %s bytes in ROMFS (a %s-byte directory block and "
                         "whole blocks of data); the partition holds %s"
                         % (_n(need), _n(block), _n(size)))
    plan = RomfsPlan()
    changed = sorted(n for n in files if n not in live or live[n].length != len(files[n])
                     or live[n].sha256 != hashlib.sha256(files[n]).hexdigest())
    plan.removed = sorted(n for n in live if n not in files)
    if not changed and not plan.removed:
        plan.kept = sorted(files)
        return plan
    free = [s.index for s in slots or () if s.state == romfs.FREE and s.erased]
    plan.rewrite = slots is None or len(free) < len(changed)
    if slots is None:  # another layout's data may lie in block 0: every file is written anew
        changed = sorted(files)
        plan.why = "the partition is not in burn's layout yet"
    elif plan.rewrite:
        plan.why = "its directory block has no free entry slot left"
    plan.kept = sorted(n for n in files if n not in changed)
    order = sorted(changed, key=lambda n: (-len(files[n]), n))
    busy = {0} | _blocks(live.values(), block)
    places = _place(order, files, busy, size // block, block)
    overlapped = []
    if places is None:  # not side by side: the old versions of changed and removed files may go
        busy = {0} | _blocks([live[n] for n in plan.kept], block)
        places = _place(order, files, busy, size // block, block)
        if places is None:
            raise RomfsError("the files take %s bytes in ROMFS, but %s of the %s-byte "
                             "partition hold files kept as they are"
                             % (_n(need), _n(len(busy) * block), _n(size)))
        taken = _blocks([_Region(places[n], len(files[n])) for n in order], block)
        overlapped = sorted(n for n, f in live.items() if _blocks([f], block) & taken)
        plan.why = plan.why or "it cannot hold the old files and the new ones side by side"
    plan.writes = [(n, places[n], files[n]) for n in changed]
    # A removed file is not kept anywhere: its entry just goes first.
    plan.evict = sorted(n for n in (live if plan.rewrite else overlapped) if n in files)
    plan.invalidate = plan.rewrite and bool(overlapped)
    if plan.rewrite:
        plan.entries = sorted([(n, live[n].offset, live[n].length) for n in plan.kept] +
                              [(n, places[n], len(files[n])) for n in changed])
    else:
        plan.slots = free[:len(changed)]
    _check_room(plan, live, fs_free, fs_block)
    return plan


@dataclass
class _Region:
    offset: int
    length: int


def _blocks(regions, block):
    """The set of partition blocks that `regions` (with offset and length) touch."""
    found = set()
    for r in regions:
        found.update(range(r.offset // block, romfs.blocks_for(r.offset + r.length, block)))
    return found


def _place(names, files, busy, count, block):
    """{name: offset} placing each file first-fit in runs of blocks not in `busy` (and
    marking them busy), or None when one does not fit."""
    busy = set(busy)
    places = {}
    for name in names:
        need = romfs.blocks_for(len(files[name]), block)
        start = next((b for b in range(1, count - need + 1)
                      if not busy.intersection(range(b, b + need))), None)
        if start is None:
            return None
        busy.update(range(start, start + need))
        places[name] = start * block
    return places


def _check_room(plan, live, fs_free, fs_block):
    """RomfsError unless the filesystem can hold the copies of the evicted files."""
    if not plan.evict:
        return
    need = fs_block * (1 + sum(romfs.blocks_for(live[n].length, fs_block) + _FS_OVERHEAD_BLOCKS
                               for n in plan.evict))
    if need > fs_free:
        raise RomfsError(
            "not written: the ROMFS partition's current files (%s, %s bytes) would not stay "
            "readable while the new ones are written, because %s; keeping them on the "
            "filesystem meanwhile needs about %s bytes free there, and %s are: free space "
            "on the filesystem, or make the files smaller"
            % (", ".join(plan.evict), _n(sum(live[n].length for n in plan.evict)), plan.why,
               _n(need), _n(fs_free)))


def _n(value):
    return "{:,}".format(value)

