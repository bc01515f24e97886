"""Building burn's firmware with MicroPython's qemu port (a make port): the board folder under
firmware/boards/ names the port's board it extends, burn's core is frozen by
firmware/manifest_bare.py and the flex module is a user C module (micropython/micropython.mk),
built for the board's core with its FPU. The image is an ELF that QEMU loads into RAM."""

from burn.host.firmware import inputs

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


def finish(build):
    """Name the linker map as the rp2 build does (firmware.elf.map), for the size report."""
    if (build / "firmware.map").is_file():
        (build / "firmware.map").replace(build / "firmware.elf.map")
