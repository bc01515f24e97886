"""MicroPython's WebAssembly port, run under Node.js: the pinned npm package installed into
the cache, and code run on it with the core package importable as `burn`.

The port is the one a web page loads (npm package @micropython/micropython-webassembly-pyscript).
It compiles no native code, so burn's viper twins do not compile there and the core runs its
plain kernels. `run_code` copies core's .py files to /lib/burn in the port's in-memory
filesystem, with any other files, runs one script (webassembly_run.mjs) and returns its
CompletedProcess, like burn.host.mpy.unix.run_code.
"""

import json
import os
import subprocess
import tempfile
from pathlib import Path

from burn.host import node, project_files
from burn.host.cache import cache_dir
from burn.host.mpy.unix import core_dir

PACKAGE = "@micropython/micropython-webassembly-pyscript"
VERSION = "1.27.0"
ENTRY = "micropython.mjs"  # the port's ES module, in its package folder
RUNNER = Path(__file__).with_name("webassembly_run.mjs")
CORE_ROOT = "/lib/burn"  # where the core goes in the port's filesystem (/lib is on sys.path)
DEFAULT_HEAP = "1m"


class WebAssemblyError(RuntimeError):
    """The WebAssembly port cannot be installed or run; the message says why and what to do."""


def install_dir():
    """The cache folder that holds (or will hold) the pinned port."""
    return cache_dir("webassembly") / ("micropython-webassembly-" + VERSION)


def install_line():
    """The command that installs the pinned port into the cache by hand."""
    return " ".join(node.install_command(PACKAGE, VERSION, install_dir()))


def installed():
    """Path of the port's micropython.mjs in the cache, or None when it is not installed."""
    return node.installed(PACKAGE, install_dir(), ENTRY)


def ensure_port(log=None):
    """Path of the port's micropython.mjs, installing the package with npm first if needed;
    `log(text)` sees progress. WebAssemblyError when npm is missing or fails."""
    return node.ensure_package(PACKAGE, VERSION, install_dir(), ENTRY, WebAssemblyError, log)


def find_node():
    """Path of a recent enough `node`; WebAssemblyError saying how to get one."""
    return node.find_node("MicroPython's WebAssembly port", WebAssemblyError)


def heap_bytes(heap):
    """A heap size such as 1048576, '512k' or '1m' in bytes."""
    text = str(heap).strip().lower()
    scale = {"k": 1024, "m": 1024 * 1024}.get(text[-1:], 1)
    return int(text[:-1] if scale > 1 else text) * scale


def core_files(core=None):
    """[(file on this machine, path in the port)] of the core package's .py files."""
    core = Path(core or core_dir())
    return [(str(core / rel), "%s/%s" % (CORE_ROOT, Path(rel).as_posix()))
            for rel in project_files.core_files(core)]


def run_code(code, files=(), heap=DEFAULT_HEAP, port=None, node_path=None, timeout=120,
             core=None):
    """Run `code` on the WebAssembly port with the core as `burn` (from `core`, default the
    package's folder) and `files` ([(file here, absolute path in the port)]) in its
    filesystem; return the CompletedProcess (stdout, stderr as text). `port`: the port's
    micropython.mjs (default: installed in the cache, npm installing it on first use).
    WebAssemblyError when Node.js or the port is missing."""
    spec = {"port": str(port or ensure_port()), "heap": heap_bytes(heap),
            "files": core_files(core) + [(str(src), dst) for src, dst in files],
            "code": code}
    fd, spec_path = tempfile.mkstemp(suffix=".json", prefix="burn-wasm-")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(spec, f)
        return subprocess.run([node_path or find_node(), str(RUNNER), spec_path],
                              capture_output=True, text=True, timeout=timeout, check=False)
    finally:
        os.unlink(spec_path)
