"""Board program: the steps of a ROMFS write (burn.host.romfs.write says which and when).

`_rom_state` comes first: it opens the partition into the globals `_rom_dev` (its block
device), `_rom_mem` (its bytes in place) and `_rom_block` (its erase block size), which the
other steps use; the host forgets them all once `_rom_clean` has run.
"""


def _rom_hash(mv):
    """The SHA-256 (hex) of the bytes `mv`."""
    import binascii
    import hashlib

    return binascii.hexlify(hashlib.sha256(mv).digest()).decode()


def _rom_state(block):
    """Open the partition (blocks of `block` bytes) and print (its directory block in
    base64, {name: (offset, length, SHA-256)} of the files MicroPython finds in it, the
    first of each name as a lookup does, bytes free on the filesystem, its block size)."""
    global _rom_dev, _rom_mem, _rom_block
    import binascii
    import os

    import uctypes
    import vfs

    _rom_dev = vfs.rom_ioctl(2, 0)
    _rom_mem = memoryview(_rom_dev)
    _rom_block = block
    live = {}
    try:
        r = vfs.VfsRom(_rom_dev)
        for e in r.ilistdir("/"):
            if e[1] == 0x8000 and e[0] not in live:
                f = memoryview(r.open("/" + e[0], "rb"))
                live[e[0]] = (uctypes.addressof(f) - uctypes.addressof(_rom_mem), len(f),
                              _rom_hash(f))
    except OSError:
        pass
    s = os.statvfs("/")
    print(repr((binascii.b2a_base64(_rom_mem[:block]).decode(), live, s[0] * s[3], s[0])))


def _rom_program(at, data):
    """Program `data` at partition offset `at` without erasing, in whole 256-byte pages with
    0xff (which leaves a NOR cell as it is) around it; print whether it then reads so."""
    start, rest = at, data
    while rest:
        p = at & ~255
        n = min(len(rest), p + 256 - at)
        b = bytearray(b"\xff" * 256)
        b[at - p:at - p + n] = rest[:n]
        _rom_dev.writeblocks(p // _rom_block, b, p % _rom_block)
        at += n
        rest = rest[n:]
    print(repr(bytes(_rom_mem[start:start + len(data)]) == data))


def _rom_write_block(text, index):
    """Erase block `index` and program the base64 `text` (a whole block) into it; print
    whether it then reads so."""
    import binascii

    b = bytearray(binascii.a2b_base64(text))
    _rom_dev.writeblocks(index, b)
    print(repr(bytes(_rom_mem[index * len(b):(index + 1) * len(b)]) == b))


def _rom_data_hash(start, end):
    """Print the SHA-256 of the partition's bytes `start` to `end`."""
    print(repr(_rom_hash(_rom_mem[start:end])))


def _rom_evict(folder, part, src):
    """Copy ROMFS file `src` to the part file `part` in folder `folder` of the filesystem."""
    import os

    import vfs

    try:
        os.mkdir(folder)
    except OSError:
        pass
    try:
        os.remove(part)
    except OSError:
        pass
    f = memoryview(vfs.VfsRom(_rom_dev).open(src, "rb"))
    with open(part, "wb") as o:
        for i in range(0, len(f), 4096):
            o.write(f[i:i + 4096])


def _rom_umount(mount):
    """Unmount `mount` (fine when nothing is mounted there)."""
    import vfs

    try:
        vfs.umount(mount)
    except OSError:
        pass


def _rom_remount(mount, names):
    """Mount the partition at `mount` afresh; print {name: SHA-256 or None} of `names` read
    through the mount."""
    import vfs

    _rom_umount(mount)
    try:
        vfs.mount(vfs.VfsRom(_rom_dev), mount)
    except OSError:
        pass
    h = {}
    for n in names:
        try:
            h[n] = _rom_hash(memoryview(open(mount + "/" + n, "rb")))
        except OSError:
            h[n] = None
    print(repr(h))


def _rom_clean(folder):
    """Remove folder `folder` of the filesystem and its files: the copies of old files, once
    the new ones are committed (or found there already)."""
    import os

    try:
        for n in os.listdir(folder):
            os.remove(folder + "/" + n)
        os.rmdir(folder)
    except OSError:
        pass
