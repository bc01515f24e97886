"""Would a `.bst` model fit each board of boards/*.json? The figures `burn-flash` checks,
computed on the host without a board.

    fits = board_fits(bst_facts(data))      # [Fit], one or two per board

Two ways of putting a model on a board are planned, as `burn-flash` would:
- "stock": stock MicroPython, burn's core sent as `.mpy` files and the model as a file on the
  filesystem (its layer buffers in RAM);
- "rom": burn's firmware for the board (`burn firmware build`, boards with `firmware_board`),
  the core frozen in it and the model in its ROMFS partition, read in place.

Heap: what loading the model takes (burn.host.deploy.fit.ModelFacts.heap_needed) against
the board's MicroPython heap less what importing the runtime takes (fit.heap_available).
Flash: the model (and the core's `.mpy` files, block-rounded) against the filesystem, or the
ROMFS partition (the directory block and the model in whole blocks: burn.host.romfs).
"""

from dataclasses import dataclass

from burn.host import mpy, romfs
from burn.host.boards import all_boards
from burn.host.deploy.fit import heap_available, on_flash


@dataclass(frozen=True)
class Fit:
    """One board and placement: heap and flash needed and free, in bytes. `flash_needed` is
    None when the core's size is unknown (mpy-cross missing)."""

    board: str
    placement: str  # "stock" or "rom"
    heap_needed: int
    heap_free: int
    flash_needed: int
    flash_free: int

    @property
    def fits(self):
        """Whether both the heap and the flash suffice (None when the flash is unknown)."""
        if self.heap_needed > self.heap_free:
            return False
        return None if self.flash_needed is None else self.flash_needed <= self.flash_free


def _core_flash(board, cores):
    """Filesystem bytes of the core's `.mpy` files for `board` (cached per mpy arch), or
    None without mpy-cross."""
    if board.mpy_arch not in cores:
        try:
            build = mpy.compile_core(board.mpy_arch)
            cores[board.mpy_arch] = sum(on_flash(size, board.fs_block_bytes)
                                        for _rel, size in build.files)
        except FileNotFoundError:
            cores[board.mpy_arch] = None
    return cores[board.mpy_arch]


def board_fits(facts, boards=None):
    """[Fit] of the model `facts` (burn.host.deploy.fit.ModelFacts) on every board of `boards`
    (default: all of boards/*.json): a "stock" fit for each, and a "rom" fit for each that
    has a burn firmware with a ROMFS partition."""
    fits, cores = [], {}
    for board in boards if boards is not None else all_boards():
        core = _core_flash(board, cores)
        fits.append(Fit(board.name, "stock", facts.heap_needed(mapped=False),
                        heap_available(None, board, core_frozen=False),
                        None if core is None else on_flash(facts.size, board.fs_block_bytes)
                        + core, board.fs_bytes))
        if board.firmware_board and board.romfs_bytes:
            fits.append(Fit(board.name, "rom", facts.heap_needed(mapped=True),
                            heap_available(None, board, core_frozen=True),
                            romfs.bytes_needed([facts.size], board.fs_block_bytes),
                            board.romfs_bytes))
    return fits
