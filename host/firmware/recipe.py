"""What one board's firmware is made of: its board description (boards/<name>.json), the
MicroPython board folder under firmware/boards/ and the flash split, all read from data."""

from dataclasses import dataclass

from burn.host import boards, project_files
from burn.host.firmware import FirmwareError, ops_select

FIRMWARE_DIR = project_files.tree("firmware")
FLASH_BASE = 0x10000000


@dataclass(frozen=True)
class Recipe:
    """A firmware recipe. `stock` recipes build the port's own board with nothing of burn;
    `debug` ones keep the line numbers of burn's frozen bytecode; `ops`, a sorted tuple of
    kernel names (burn.host.firmware.ops_select), keeps only those kernels (None: all)."""

    board: boards.Board
    stock: bool = False
    debug: bool = False
    ops: tuple = None

    @property
    def board_name(self):
        """MicroPython's name of the board folder (BURN_RP2040, or RPI_PICO when stock)."""
        return self.board.micropython_board if self.stock else self.board.firmware_board

    @property
    def board_dir(self):
        """The MicroPython board folder; None for a stock build (the port's own)."""
        return None if self.stock else FIRMWARE_DIR / "boards" / self.board.firmware_board

    @property
    def manifest(self):
        """The frozen manifest; None for a stock build (the port's default)."""
        if self.stock:
            return None
        if self.board.micropython_port == "qemu":  # a port with no frozen modules of its own
            return FIRMWARE_DIR / "manifest_bare.py"
        return FIRMWARE_DIR / ("manifest_debug.py" if self.debug else "manifest.py")

    @property
    def flavor(self):
        """The base flavor ('burn', 'burn-debug' or 'stock'), then '-ops-<label of the
        selection>' when it keeps some kernels for given models, or '-all-ops' when it
        keeps the optional ones too: part of the cache folder names and of the input key."""
        if ops_select.lists_kernels(self.ops):
            return "%s-ops-%s" % (self.base_flavor, ops_select.label(self.ops))
        if self.ops is None and not self.stock and ops_select.default_kernels() is not None:
            return self.base_flavor + "-all-ops"
        return self.base_flavor

    @property
    def base_flavor(self):
        """The flavor less the kernel selection. Builds of every selection share one work
        folder per base flavor: switching selections recompiles only the flex module's
        binding (micropython.cmake) and the frozen core, not the whole firmware."""
        return "stock" if self.stock else "burn-debug" if self.debug else "burn"

    @property
    def code_limit(self):
        """First flash address the firmware image must stay below (ROMFS, then littlefs);
        None on a QEMU board, whose image QEMU loads into RAM (flash_bytes: its share)."""
        if self.board.micropython_port == "qemu":
            return None
        romfs = 0 if self.stock else self.board.romfs_bytes
        return FLASH_BASE + self.board.flash_bytes - self.board.fs_bytes - romfs


def recipe_boards():
    """Names of the boards that have a firmware recipe, sorted."""
    return [b.name for b in boards.all_boards()
            if b.firmware_board and (FIRMWARE_DIR / "boards" / b.firmware_board).is_dir()]


ALL_OPS = "all"
PORTS = ("rp2", "qemu")  # the MicroPython ports burn builds firmware for


def load_recipe(name, stock=False, debug=False, ops=None):
    """The `Recipe` of board `name` (`stock`, `debug`: see Recipe); FirmwareError naming the
    boards that have one if none. `ops`: kernel names to keep; None, the default selection
    (ops_select.default_kernels: every op but the optional ones); ALL_OPS, every kernel."""
    try:
        board = boards.load_board(name)
    except ValueError as e:
        raise FirmwareError(str(e)) from None
    known = ", ".join(recipe_boards()) or "none"
    if board.micropython_port not in PORTS or not board.firmware_board:
        raise FirmwareError("board %r has no firmware recipe; boards with one: %s"
                            % (name, known))
    if not stock and not (FIRMWARE_DIR / "boards" / board.firmware_board).is_dir():
        raise FirmwareError("%s is missing (a broken checkout or install of burn); "
                            "boards with a recipe: %s"
                            % (FIRMWARE_DIR / "boards" / board.firmware_board, known))
    if stock and debug:
        raise FirmwareError("a stock build has no burn to debug: choose --stock or --debug")
    if stock and ops is not None:
        raise FirmwareError("a stock build has no burn ops to choose: choose --stock or "
                            "--ops-from")
    if board.micropython_port == "qemu":
        if stock or debug or ops not in (None, ALL_OPS):
            raise FirmwareError("a QEMU board's firmware is burn's build with every kernel: "
                                "--stock, --debug and --ops-from are for the rp2 boards")
        ops = ALL_OPS  # the qemu port is a make port: the kernel selection is cmake's
    if ops is None and not stock:
        ops = ops_select.default_kernels()
    elif ops == ALL_OPS:
        ops = None
    return Recipe(board, stock, debug, None if ops is None else tuple(sorted(set(ops))))
