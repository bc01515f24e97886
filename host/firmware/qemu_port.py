"""Building burn's firmware with MicroPython's qemu port (a make port): the board folder under
firmware/boards/ names the port's board it extends, burn's core is frozen by
firmware/manifest_bare.py and the flex module is a user C module (micropython/micropython.mk),
built for the board's core with its FPU. The image is an ELF that QEMU loads into RAM."""

import hashlib
import shutil

from burn.host.firmware import inputs
from burn.host.firmware.tree_patch import replace_once

IMAGE = "firmware.elf"
ARTIFACTS = (IMAGE, "firmware.elf.map")


def make_argv(recipe, tree, work):
    """The make command that builds `recipe`'s firmware from prepared tree `tree` into
    `work`/build (the core staged under `work`/frozen)."""
    stage = inputs.stage_core(work / "frozen", recipe.ops)
    argv = ["make", "-C", str(tree / "ports" / "qemu"), "-j2",
            "BOARD=" + recipe.board.firmware_board, "BOARD_DIR=%s" % recipe.board_dir,
            "BUILD=%s" % (work / "build"), "FROZEN_MANIFEST=%s" % recipe.manifest,
            "MICROPY_MANIFEST_BURN_FROZEN=%s" % stage]
    if inputs.has_flex_module():
        argv.append("USER_C_MODULES=%s" % inputs.FLEX_MODULE.parent.parent)
    return argv


FLAGS_STAMP = ".burn-flags"


def _flag_files(recipe):
    """The files that set a make build's flags: the board folder, the boards' shared folder
    (firmware/qemu) and the flex module's micropython.mk."""
    board = recipe.board_dir
    folders = () if board is None else (board, board.parent.parent / "qemu")
    files = sorted(p for folder in folders if folder.is_dir() for p in folder.iterdir()
                   if p.is_file() and p.suffix in (".mk", ".ld", ".h"))
    return files + [inputs.FLEX_MODULE.parent / "micropython.mk"]


def flags_digest(recipe):
    """Hash of the files that set `recipe`'s compiler flags (_flag_files), by their full
    paths: make names an object after its source's name alone, so a build of another
    checkout's sources must not find this one's objects newer than its sources."""
    h = hashlib.sha256()
    for path in _flag_files(recipe):
        if path.is_file():
            h.update(str(path.resolve()).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def keep_or_clean(recipe, build):
    """Empty the make build folder `build` when the files that set its flags changed since
    it was used: make rebuilds an object when its sources change, not its flags. Marks the
    folder with the flags it is built with."""
    digest = flags_digest(recipe)
    stamp = build / FLAGS_STAMP
    if stamp.is_file() and stamp.read_text() == digest:
        return
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True)
    stamp.write_text(digest)


UART_C = ("ports", "qemu", "uart.c")
# uart.c (v1.28.0) puts the MPS2 boards' UART0 at the AN385/AN500 address; a board of burn's
# own on another MPS2 machine (qemu-m33: AN505) names its address with QEMU_SOC_MPS2_UART0
_MPS2_UART = ("#if defined(QEMU_SOC_MPS3)\n#define UART0 ((UART_t *)(0x49303000))\n#else\n")
_WITH_ADDRESS = ("#if defined(QEMU_SOC_MPS3)\n#define UART0 ((UART_t *)(0x49303000))\n"
                 "#elif defined(QEMU_SOC_MPS2_UART0)\n"
                 "#define UART0 ((UART_t *)(QEMU_SOC_MPS2_UART0))\n#else\n")


def name_the_uart(tree):
    """Let an MPS2 board of the qemu port name its UART0 address (QEMU_SOC_MPS2_UART0): a
    change to the firmware build's private copy of MicroPython, as native_align's.
    Idempotent; FirmwareError when uart.c is not the expected one."""
    replace_once(tree.joinpath(*UART_C), _MPS2_UART, _WITH_ADDRESS,
                 "does not place the MPS2 UART as MicroPython v1.28.0 does; burn's qemu-m33 "
                 "board would have no console")


MAIN_C = ("ports", "qemu", "main.c")
# main.c (v1.28.0) runs no boot script; burn's boards (BURN_QEMU_BOOT, firmware/qemu) run the
# frozen _boot.py that mounts their filesystem and ROMFS partition
_INIT = "        mp_init();\n"
_WITH_BOOT = ('        mp_init();\n        #if BURN_QEMU_BOOT\n'
              '        pyexec_frozen_module("_boot.py", false);\n        #endif\n')
CONFIG_H = ("ports", "qemu", "mpconfigport.h")
# mpconfigport.h (v1.28.0) turns vfs.rom_ioctl off outright; burn's boards provide it
_ROM_IOCTL_OFF = "#define MICROPY_VFS_ROM_IOCTL       (0)\n"
_ROM_IOCTL_DEFAULT = ("#ifndef MICROPY_VFS_ROM_IOCTL\n#define MICROPY_VFS_ROM_IOCTL       (0)\n"
                      "#endif\n")


MPHAL_C = ("ports", "qemu", "mphalport.c")
# mphalport.c (v1.28.0) polls the UART without pause; burn's boards sleep while it is idle
_RX = ("        int c = uart_rx_chr();\n        if (c >= 0) {\n            return c;\n"
       "        }\n        #endif\n")
_RX_IDLE = ("        int c = uart_rx_chr();\n        if (c >= 0) {\n"
            "            #if BURN_QEMU_BOOT\n            burn_qemu_rx_seen();\n"
            "            #endif\n"
            "            return c;\n        }\n        #if BURN_QEMU_BOOT\n"
            "        burn_qemu_rx_idle();\n        #endif\n        #endif\n")
_RX_DECLARED = '#include "uart.h"\n'
_WITH_IDLE_DECLARED = ('#include "uart.h"\n\nvoid burn_qemu_rx_seen(void);\n'
                       'void burn_qemu_rx_idle(void);\n')


def boot_with_flash(tree):
    """Let a board of the qemu port run a frozen _boot.py at start, provide vfs.rom_ioctl
    (burn's boards keep a filesystem and a ROMFS partition in RAM: firmware/qemu/ram_flash.c)
    and sleep while its console is idle (firmware/qemu/uart_idle.c). Idempotent;
    FirmwareError when the files are not the expected ones."""
    replace_once(tree.joinpath(*MAIN_C), _INIT, _WITH_BOOT,
                 "does not start MicroPython as v1.28.0 does; burn's qemu boards would mount "
                 "no filesystem")
    replace_once(tree.joinpath(*CONFIG_H), _ROM_IOCTL_OFF, _ROM_IOCTL_DEFAULT,
                 "does not configure vfs.rom_ioctl as MicroPython v1.28.0 does; burn's qemu "
                 "boards would have no ROMFS partition")
    replace_once(tree.joinpath(*MPHAL_C), _RX, _RX_IDLE,
                 "does not read the console as MicroPython v1.28.0 does; burn's qemu boards "
                 "could not sleep while idle")
    replace_once(tree.joinpath(*MPHAL_C), _RX_DECLARED, _WITH_IDLE_DECLARED,
                 "does not include uart.h as MicroPython v1.28.0 does")


def finish(build):
    """Name the linker map as the rp2 build does (firmware.elf.map), for the size report."""
    if (build / "firmware.map").is_file():
        (build / "firmware.map").replace(build / "firmware.elf.map")
