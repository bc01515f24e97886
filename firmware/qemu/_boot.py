# Runs at every start of burn's QEMU boards (firmware/qemu/ram_flash.c): the littlefs
# filesystem in RAM at / (formatted when it holds none yet), the ROMFS partition at /rom.
import qemu_flash
import vfs

try:
    vfs.mount(qemu_flash.fs, "/")
except OSError:
    vfs.VfsLfs2.mkfs(qemu_flash.fs)
    vfs.mount(qemu_flash.fs, "/")
try:
    vfs.mount(vfs.VfsRom(qemu_flash.rom), "/rom")
except OSError:
    pass  # an empty partition
del vfs, qemu_flash
