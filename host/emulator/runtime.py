"""Node.js and rp2040js for the emulated board: finding Node, installing rp2040js once.

rp2040js (pinned) is installed with npm into the cache (`burn.host.cache`), in a temporary
folder renamed into place when complete, so an interrupted install leaves nothing half-done.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

from burn.host.cache import cache_dir

RP2040JS_VERSION = "1.4.1"
NODE_MIN = 18
NODE_INSTALL = "apt-get install -y nodejs npm (or a Node.js >= %d release from nodejs.org)" % (
    NODE_MIN)
BOARD_SCRIPT = Path(__file__).with_name("rp2040_board.mjs")


class EmulatorError(RuntimeError):
    """The emulated board cannot start or stopped answering; the message says why and what to
    do."""


def node_version(node=None):
    """Node's version as a tuple such as (20, 20, 2), or None when `node` is not on PATH."""
    node = node or shutil.which("node")
    if node is None:
        return None
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30,
                             check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.match(r"v(\d+)\.(\d+)\.(\d+)", out.strip())
    return tuple(int(x) for x in found.groups()) if found else None


def find_node():
    """Path of a `node` that is at least version NODE_MIN; EmulatorError saying how to get it."""
    node = shutil.which("node")
    version = node_version(node)
    if version is None:
        raise EmulatorError("the emulated board needs Node.js (command `node`), which is not "
                            "installed; install it with: " + NODE_INSTALL)
    if version[0] < NODE_MIN:
        raise EmulatorError("the emulated board needs Node.js >= %d, found %s at %s; install "
                            "a newer one: %s" % (NODE_MIN, ".".join(map(str, version)), node,
                                                 NODE_INSTALL))
    return node


def install_dir():
    """The cache folder that holds (or will hold) the pinned rp2040js."""
    return cache_dir("emulator") / ("rp2040js-" + RP2040JS_VERSION)


def _index(folder):
    return folder / "node_modules" / "rp2040js" / "dist" / "esm" / "index.js"


def installed():
    """Path of rp2040js's ESM entry point in the cache, or None when it is not installed."""
    index = _index(install_dir())
    return index if index.is_file() else None


def ensure_rp2040js(log=None):
    """Path of rp2040js's ESM entry point, installing rp2040js with npm first if needed.

    `log(text)` sees progress (default: stderr). EmulatorError when npm is missing or fails.
    """
    found = installed()
    if found is not None:
        return found
    log = log or (lambda text: print(text, file=sys.stderr, flush=True))
    npm = shutil.which("npm")
    if npm is None:
        raise EmulatorError("installing rp2040js needs npm, which is not installed; install it "
                            "with: " + NODE_INSTALL)
    final = install_dir()
    tmp = final.with_name(".%s.partial" % final.name)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    log("installing rp2040js %s with npm into %s ..." % (RP2040JS_VERSION, final))
    try:
        proc = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(tmp),
             "rp2040js@" + RP2040JS_VERSION],
            stdout=sys.stderr, timeout=600, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise EmulatorError("npm install rp2040js@%s failed: %s" % (RP2040JS_VERSION, exc)) \
            from None
    if proc.returncode != 0 or not _index(tmp).is_file():
        shutil.rmtree(tmp, ignore_errors=True)
        raise EmulatorError("npm install rp2040js@%s failed (exit status %d, see above); run it "
                            "yourself with: npm install --no-audit --no-fund --prefix %s "
                            "rp2040js@%s" % (RP2040JS_VERSION, proc.returncode, final,
                                             RP2040JS_VERSION))
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    log("rp2040js %s installed" % RP2040JS_VERSION)
    return _index(final)
