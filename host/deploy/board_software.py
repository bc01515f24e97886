"""What burn needs on a board besides the model, and what the board already has.

The core package `burn` is either frozen into the board's firmware (`burn firmware build`)
or sent as `.mpy` files to /lib/burn. The flex kernels are either compiled into the firmware
(the C module `burnflex`) or sent as a native module /lib/burnflex.mpy built for the board's
architecture, when this machine can build one; otherwise the board runs viper kernels.
"""

from dataclasses import dataclass, field
from pathlib import Path

from burn.host import board_programs, mpy

REMOTE_NATMOD = "/lib/burnflex.mpy"

@dataclass
class BoardSoftware:
    """The files to put on the board ({remote path: bytes}), what each part is, in words,
    the core's `.mpy` build (None when the core is frozen in the firmware) and where the
    flex kernels are: `flex` "firmware" (compiled in), "module" (/lib/burnflex.mpy) or None
    (none: the board runs viper kernels)."""

    files: dict = field(default_factory=dict)
    core: object = None
    core_text: str = ""
    flex_text: str = ""
    notes: list = field(default_factory=list)
    flex: str = None

    @property
    def core_bytes(self):
        """Bytes of the core sent as `.mpy` files (0 when frozen)."""
        return self.core.total_size if self.core is not None else 0

    def flash_words(self):
        """What of burn is on the board, in words: 'core 240,289 bytes + flex module 143,999
        bytes', 'core in the firmware + flex module in the firmware', 'core ..., no flex
        module'."""
        core = ("core {:,} bytes".format(self.core_bytes) if self.core is not None
                else "core in the firmware")
        if self.flex == "module":
            return core + " + flex module {:,} bytes".format(len(self.files[REMOTE_NATMOD]))
        if self.flex == "firmware":
            return core + " + flex module in the firmware"
        return core + ", no flex module"


def ask_board(link):
    """{'core': (file, version)?, 'flex': file or '(built in)'?, 'flex_error': text?}: what
    the board imports as `burn` and `burnflex` now."""
    return link.exec_literal(board_programs.once("software", "_software"), timeout=30.0)


def plan_software(link, facts, arch, say):
    """The BoardSoftware for the board on `link` (BoardFacts `facts`; core compiled for
    `arch` where it must be sent); `link` None plans for a board with stock MicroPython."""
    have = {} if link is None else ask_board(link)
    soft = BoardSoftware()
    # A frozen module's __file__ is relative ('burn/__init__.py'); a file's is absolute.
    frozen = "core" in have and not have["core"][0].startswith("/")
    if frozen:
        soft.core_text = "frozen in the firmware (burn %s)" % have["core"][1]
    else:
        soft.core = mpy.compile_core(arch)
        soft.core_text = "%d .mpy files for %s, %d bytes (%s)" % (
            len(soft.core.files), arch, soft.core.total_size,
            "cached" if soft.core.cached else "compiled")
        for rel, _size in soft.core.files:
            remote = "/lib/" + Path(rel).as_posix()
            soft.files[remote] = (soft.core.root / rel).read_bytes()
    if have.get("flex") == "(built in)":
        soft.flex = "firmware"
        soft.flex_text = "burnflex compiled into the firmware"
    else:
        _add_natmod(soft, facts, say)
    say("core: " + soft.core_text)
    say("flex: " + soft.flex_text)
    return soft


def _add_natmod(soft, facts, say):
    """Add /lib/burnflex.mpy for the board's architecture when it can be built here."""
    from burn.host import vendor
    from burn.host.mpy import natmod

    if facts.arch not in natmod.ARCHES:
        soft.flex_text = "none for %s (viper kernels)" % (facts.arch or "this board")
        return
    try:
        if not (natmod.BINDINGS / "natmod" / "Makefile").is_file():
            raise natmod.NatmodError("its sources (micropython/) are not here: a source "
                                     "checkout of burn has them")
        tree = vendor.micropython_source(allow_clone=False)  # never a clone while flashing
        path = natmod.build_natmod(facts.arch, tree, log=lambda text: say("  " + text))
    except (natmod.NatmodError, vendor.VendorError) as exc:
        soft.flex_text = "not installed, viper kernels instead: %s" % exc
        return
    data = path.read_bytes()
    problem = natmod.check_mpy_compatible(natmod.mpy_header(data), facts.mpy)
    if problem:
        soft.flex_text = "not installed, viper kernels instead: burnflex.mpy " + problem
        return
    soft.files[REMOTE_NATMOD] = data
    soft.flex = "module"
    soft.flex_text = "native module burnflex.mpy for %s, %d bytes" % (facts.arch, len(data))
