"""Node.js and the npm packages burn pins: finding `node`, installing a package once.

A package (at a pinned version) is installed with npm into a folder of the cache
(`burn.host.cache`), through a temporary folder renamed into place when complete, so an
interrupted install leaves nothing half-done, and under a lock beside that folder, so that
processes asking at once (test workers on a fresh machine) install it once: the others wait
and find it installed. Two packages use it: rp2040js for the emulated
board (burn.host.emulator.runtime) and MicroPython's WebAssembly port
(burn.host.mpy.webassembly).
"""

import re
import shutil
import subprocess
import sys

from burn.host.cache import held_lock

NODE_MIN = 18
NODE_INSTALL = "apt-get install -y nodejs npm (or a Node.js >= %d release from nodejs.org)" % (
    NODE_MIN)


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


def find_node(needed_by, error=RuntimeError):
    """Path of a `node` that is at least version NODE_MIN; `error` (an exception class) saying
    that `needed_by` (e.g. "the emulated board") needs it, and how to get it."""
    node = shutil.which("node")
    version = node_version(node)
    if version is None:
        raise error("%s needs Node.js (command `node`), which is not installed; install it "
                    "with: %s" % (needed_by, NODE_INSTALL))
    if version[0] < NODE_MIN:
        raise error("%s needs Node.js >= %d, found %s at %s; install a newer one: %s"
                    % (needed_by, NODE_MIN, ".".join(map(str, version)), node, NODE_INSTALL))
    return node


def install_command(package, version, folder):
    """The npm command line that installs `package`@`version` into `folder`."""
    return ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder),
            "%s@%s" % (package, version)]


def package_file(folder, package, rel):
    """Path of file `rel` of `package` as npm installs it into `folder`."""
    return folder.joinpath("node_modules", *package.split("/"), *rel.split("/"))


def installed(package, folder, rel):
    """Path of file `rel` of `package` installed in `folder`, or None when it is not."""
    path = package_file(folder, package, rel)
    return path if path.is_file() else None


def ensure_package(package, version, folder, rel, error=RuntimeError, log=None):
    """Path of file `rel` of `package`@`version` in `folder`, installing it with npm first
    if needed. `log(text)` sees progress (default: stderr). `error` (an exception class) when
    npm is missing or fails, with the command to run by hand."""
    found = installed(package, folder, rel)
    if found is not None:
        return found
    log = log or (lambda text: print(text, file=sys.stderr, flush=True))
    npm = shutil.which("npm")
    if npm is None:
        raise error("installing %s needs npm, which is not installed; install it with: %s"
                    % (package, NODE_INSTALL))
    folder.parent.mkdir(parents=True, exist_ok=True)
    with held_lock(folder.with_name(".%s.lock" % folder.name),
                   lambda: log("waiting for another process installing %s ..." % package)):
        found = installed(package, folder, rel)
        return found if found is not None else _install(npm, package, version, folder, rel,
                                                        error, log)


def _install(npm, package, version, folder, rel, error, log):
    """ensure_package's npm run, under its lock."""
    tmp = folder.with_name(".%s.partial" % folder.name)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    log("installing %s %s with npm into %s ..." % (package, version, folder))
    argv = [npm] + install_command(package, version, tmp)[1:]
    try:
        proc = subprocess.run(argv, stdout=sys.stderr, timeout=600, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise error("npm install %s@%s failed: %s" % (package, version, exc)) from None
    if proc.returncode != 0 or installed(package, tmp, rel) is None:
        shutil.rmtree(tmp, ignore_errors=True)
        raise error("npm install %s@%s failed (exit status %d, see above); run it yourself "
                    "with: %s" % (package, version, proc.returncode,
                                  " ".join(install_command(package, version, folder))))
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)
    log("%s %s installed" % (package, version))
    return package_file(folder, package, rel)
