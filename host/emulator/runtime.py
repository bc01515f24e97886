"""Node.js and rp2040js for the emulated board: finding Node, installing rp2040js once.

rp2040js (pinned) is installed with npm into the cache (`burn.host.cache`) by
`burn.host.node.ensure_package`, which leaves nothing half-done when interrupted.
"""

from pathlib import Path

from burn.host import node
from burn.host.cache import cache_dir
from burn.host.node import NODE_INSTALL, NODE_MIN, node_version  # noqa: F401 (re-exported)

RP2040JS_VERSION = "1.4.1"
BOARD_SCRIPT = Path(__file__).with_name("rp2040_board.mjs")
_ENTRY = "dist/esm/index.js"  # rp2040js's ESM entry point, in its package folder


class EmulatorError(RuntimeError):
    """The emulated board cannot start or stopped answering; the message says why and what to
    do."""


def find_node():
    """Path of a `node` that is at least version NODE_MIN; EmulatorError saying how to get it."""
    return node.find_node("the emulated board", EmulatorError)


def install_dir():
    """The cache folder that holds (or will hold) the pinned rp2040js."""
    return cache_dir("emulator") / ("rp2040js-" + RP2040JS_VERSION)


def installed():
    """Path of rp2040js's ESM entry point in the cache, or None when it is not installed."""
    return node.installed("rp2040js", install_dir(), _ENTRY)


def ensure_rp2040js(log=None):
    """Path of rp2040js's ESM entry point, installing rp2040js with npm first if needed.

    `log(text)` sees progress (default: stderr). EmulatorError when npm is missing or fails.
    """
    return node.ensure_package("rp2040js", RP2040JS_VERSION, install_dir(), _ENTRY,
                               EmulatorError, log)
