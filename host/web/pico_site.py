"""The emulated Pico of `burn web build`: burn's RP2040 firmware on rp2040js, in the page.

Everything the board needs is made here, at build time, and shipped as data under pico/:

- `rp2040js/`: rp2040js's ES modules (the pinned npm package of burn.host.emulator, from
  burn's cache), loaded by the browser as they are; `emulator/`: burn's own emulator modules
  (pico_machine.mjs and what it imports), the same files the Node board runs;
- `xterm.js`, `xterm.css`: the terminal widget (the npm package @xterm/xterm, pinned,
  installed into burn's cache with npm on first use);
- `bootrom.bin` (the RP2040 mask ROM, burn.host.vendor), `firmware.bin` (the UF2's bytes
  as they lie in flash, from pico.json's firmware_offset: burn.host.emulator.flash_image's
  ranges, laid out by burn.host.uf2.to_bin);
- `models/NAME.romfs`: for each shipped model, the start of a ROMFS partition holding it as
  model.bst (burn.host.romfs.build_image), and in pico.json the board code that loads
  /rom/model.bst, runs its self-test and times it (board program `measure`, as `burn flash`
  sends it);
- `burn_romfs.py`: burn.host.romfs itself (it runs unchanged on MicroPython), with which the
  page makes the image of a model file the user picks, on MicroPython's WebAssembly port;
- the page's side: pico_page.js (the section of index.html), pico_worker.js (the board, in
  a Web Worker), pico_repl.js (the raw REPL over any byte transport), pico_serial.js (a real
  board through Web Serial).
"""

import json
import shutil
from pathlib import Path

from burn.host import board_programs, romfs, uf2, vendor
from burn.host.boards import load_board
from burn.host.cache import cache_dir
from burn.host.emulator import flash_image
from burn.host.emulator.runtime import EmulatorError, ensure_rp2040js

HERE = Path(__file__).resolve().parent
EMULATOR = HERE.parent / "emulator"
EMULATOR_MODULES = ("pico_machine.mjs", "dual_core.mjs", "dual_sio.mjs", "sio_fifo.mjs",
                    "thumb_dispatch.mjs")
PAGE_FILES = ("pico_page.js", "pico_worker.js", "pico_repl.js", "pico_serial.js")
XTERM_PACKAGE = "@xterm/xterm"
XTERM_VERSION = "5.5.0"
BOARD = "rp2040"
MEASURE_RUNS = 3  # timed inferences on the board (the fewest the measure program runs)
ROM_NAME = "model.bst"  # the model's name in the board's ROMFS, as `burn flash` names it
HOW_TO_GET = ("build one with `burn firmware build --board rp2040` (then `burn web build` "
              "finds it) or pass --pico FILE.uf2")


class PicoBuildError(ValueError):
    """The emulated Pico cannot be added to the site; the message says why."""


def default_firmware():
    """The cached UF2 of `burn firmware build --board rp2040` for the current inputs, or None."""
    from burn.host.firmware.build import cached_image

    return cached_image(BOARD)


def _xterm(log):
    from burn.host import node

    folder = cache_dir("web") / ("xterm-" + XTERM_VERSION)
    found = node.ensure_package(XTERM_PACKAGE, XTERM_VERSION, folder, "lib/xterm.js",
                                PicoBuildError, log)
    return found.parent.parent  # the package folder


def firmware_bytes(firmware, board):
    """(flash offset, bytes) of what UF2 file `firmware` writes, from its lowest offset to
    its highest (erased bytes in its gaps); PicoBuildError for a bad file or one that reaches
    the ROMFS partition."""
    try:
        offset, data = uf2.to_bin(flash_image.firmware_ranges(firmware, board))
    except (EmulatorError, uf2.UF2Error) as exc:
        raise PicoBuildError(str(exc)) from None
    if offset + len(data) > romfs_offset(board):
        raise PicoBuildError("firmware %s runs to flash offset 0x%x, into the ROMFS partition "
                             "at 0x%x: it is not burn's rp2040 firmware"
                             % (firmware, offset + len(data), romfs_offset(board)))
    return offset, data


def romfs_offset(board):
    """Flash offset of the ROMFS partition of burn's firmware: MicroPython's rp2 port puts it
    just below the littlefs filesystem, which ends the flash."""
    return board.flash_bytes - board.fs_bytes - board.romfs_bytes


def _copy_tree_js(src, dst):
    for path in sorted(src.rglob("*.js")):
        target = dst / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)


def add_pico(root, firmware, models, log):
    """Write pico/ and pico.json into site folder `root` for UF2 file `firmware` and the
    shipped `models` (site.json's entries; their .bst files already under `root`); returns
    pico.json's contents. PicoBuildError (or EmulatorError from npm) when a part is missing.
    A model whose ROMFS image does not fit the partition is left off the board (pico.json's
    "left_out" says why, and so does `log`)."""
    board = load_board(BOARD)
    try:
        rom = vendor.bootrom()
    except vendor.VendorError as exc:
        raise PicoBuildError(str(exc)) from None
    at, flash = firmware_bytes(firmware, board)
    index = Path(ensure_rp2040js(log))
    xterm = _xterm(log)
    pico = root / "pico"
    _copy_tree_js(index.parent, pico / "rp2040js")
    (pico / "emulator").mkdir()
    for name in EMULATOR_MODULES:
        shutil.copy(EMULATOR / name, pico / "emulator" / name)
    shutil.copy(xterm / "lib" / "xterm.js", pico / "xterm.js")
    shutil.copy(xterm / "css" / "xterm.css", pico / "xterm.css")
    shutil.copy(rom, pico / "bootrom.bin")
    (pico / "firmware.bin").write_bytes(flash)
    (pico / "models").mkdir()
    shutil.copy(Path(romfs.__file__), pico / "burn_romfs.py")
    shipped, left_out = {}, {}
    for model in models:
        data = (root / model["url"]).read_bytes()
        try:
            image = romfs.build_image({ROM_NAME: data}, board.romfs_bytes,
                                      board.fs_block_bytes)
        except romfs.RomfsError as exc:
            left_out[model["url"]] = "it does not fit the board's ROMFS: %s" % exc
            log("%s is left off the emulated Pico: %s" % (model["url"], left_out[model["url"]]))
            continue
        shipped[model["url"]] = "pico/models/%s.romfs" % model["name"]
        (root / shipped[model["url"]]).write_bytes(image)
    path = romfs.ROM_MOUNT + "/" + ROM_NAME
    info = {"board": board.name, "firmware": Path(firmware).name, "firmware_offset": at,
            "flash_bytes": board.flash_bytes, "romfs_offset": romfs_offset(board),
            "romfs_bytes": board.romfs_bytes, "romfs_block": board.fs_block_bytes,
            "rom_name": ROM_NAME, "rom_path": path,
            "measure": board_programs.once("measure", "_measure", path, MEASURE_RUNS, 0),
            "xterm": XTERM_VERSION, "models": shipped, "left_out": left_out}
    (root / "pico.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


def add_to_site(root, firmware, models, log):
    """Add the emulated Pico to site folder `root` as `burn web build` chooses: `firmware`
    False leaves it out; a path (--pico FILE.uf2) must work (PicoBuildError or EmulatorError
    otherwise); None takes the cached firmware build, and without one, or when a part is
    missing, the site is built without the board and `log` says why and how to get it.
    The page's side (pico_*.js) and pico.json are written in every case: index.html loads
    them, and a site without the board has {"board": null, "why": the reason} there, which
    the page shows. Returns pico.json's contents."""
    for name in PAGE_FILES:
        shutil.copy(HERE / name, root / name)
    if firmware is not None and firmware is not False:
        return add_pico(root, firmware, models, log)
    if firmware is False:
        why = "it was built with --no-pico"
    else:
        found = default_firmware()
        if found is None:
            why = "no RP2040 firmware is cached; " + HOW_TO_GET
        else:
            try:
                return add_pico(root, found, models, log)
            except (PicoBuildError, EmulatorError) as exc:
                shutil.rmtree(root / "pico", ignore_errors=True)
                why = str(exc)
        log("the site has no emulated Pico: " + why)
    info = {"board": None, "why": why}
    (root / "pico.json").write_text(json.dumps(info, indent=1) + "\n")
    return info
