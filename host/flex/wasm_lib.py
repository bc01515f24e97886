"""flex_c's wasm32 build executed: `WasmLib()` links the kernels into one WebAssembly module
and runs it in Node.js (wasm_runner.mjs, one process per WasmLib), with the same
`call(name, args)` as the host library, so `GraphKernels(WasmLib())` runs the kernels as a
web page would and the tests compare them with the host build bit for bit.

Each call places its buffers in the module's linear memory above `__heap_base`
(burn.host.flex.placement), calls the export and copies the writable buffers back. The
module is linked from the cached wasm32 build (burn.host.flex.targets), every kernel that
flex.h declares exported, and cached beside it.
"""

import base64
import json
import os
import subprocess
import sys

from burn.host.flex.placement import Placement, copy_back
from burn.host.flex.targets import build, header_text

STACK_BYTES = 1 << 20
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wasm_runner.mjs")


class WasmError(RuntimeError):
    """The module trapped, lacks the function, or its runner ended."""


def kernel_names():
    """The functions flex.h declares: the module exports those the wasm32 build defines."""
    import re

    return sorted(set(re.findall(r"\b(flex_\w+)\s*\(", header_text())))


def module_path(opt="-Os", strip=False):
    """Path of flex.wasm: the wasm32 build's kernels at optimisation `opt` linked with every
    kernel exported and a 1 MiB stack (the host kernels that wasm32 compiles keep their
    patches and widened weights there, up to about 100 KB); with `strip`, without the
    function names (a quarter of the size at -O2; a trap then names no function); linked
    once per build, beside its objects."""
    built = build("wasm32", opt)
    path = os.path.join(built.folder, "flex.stripped.wasm" if strip else "flex.wasm")
    if not os.path.exists(path):
        tmp = path + ".tmp%d" % os.getpid()
        exports = ["--export-if-defined=" + n for n in kernel_names()]
        cmd = [sys.executable, "-m", "ziglang", "wasm-ld", "--no-entry",
               "--export=__heap_base", "-z", "stack-size=%d" % STACK_BYTES] + exports + [
                   "--strip-all"] * strip + ["--whole-archive", built.library, "-o", tmp]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            raise WasmError("linking flex.wasm failed:\n" + proc.stdout + proc.stderr)
        os.replace(tmp, path)
    return path


class WasmLib:
    """The wasm32 build of flex_c running in Node.js (`node`, found as the emulated board
    finds it)."""

    def __init__(self, node=None):
        from burn.host.emulator.runtime import find_node

        self.target = "wasm32"
        self.name = "wasm32 (Node.js)"
        self.proc = subprocess.Popen([node or find_node(), RUNNER, module_path()],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        hello = self._answer()
        self.heap_base = hello["heap_base"]
        self.functions = set(hello["exports"])

    def _answer(self):
        line = self.proc.stdout.readline()
        if not line:
            raise WasmError("the wasm runner ended: " + self.proc.stderr.read()[-2000:])
        return json.loads(line)

    def call(self, name, args):
        """Call `name` with binding-style `args`; returns the int32 status."""
        top = [self.heap_base]

        def alloc(nbytes):
            addr = top[0]
            top[0] = (addr + max(nbytes, 1) + 7) & ~7
            return addr

        writes = []
        placement = Placement(alloc, lambda addr, data: writes.append(
            [addr, base64.b64encode(data).decode("ascii")]))
        words, floats = [], []
        for i, a in enumerate(args):
            if isinstance(a, float):
                floats.append(i)
                words.append(a)
            else:
                w = placement.word(a)
                words.append(w - (1 << 32) if w & 0x80000000 else w)  # i32 as JS numbers
        request = {"call": name, "args": words, "floats": floats, "writes": writes,
                   "reads": [[addr, arr.nbytes] for addr, arr in placement.written],
                   "top": top[0]}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = self._answer()
        if "error" in reply:
            raise WasmError("%s on wasm32: %s" % (name, reply["error"]))
        data = iter(base64.b64decode(d) for d in reply["reads"])
        copy_back(placement.written, lambda addr, n: next(data))
        return reply["status"]

    def close(self):
        """End the Node.js process."""
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the pipes may be gone already
            pass
