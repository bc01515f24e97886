"""Where the third-party inputs of firmware builds and the emulator come from.

The MicroPython source tree (v1.28.0 with the rp2 submodules), the picotool sources and the
RP2040 bootrom are never part of this project. Each is found, in order, through an explicit
argument, an environment variable, or a vendor folder (`$BURN_VENDOR_DIR`, else
`../shared/vendor` beside a source checkout, which tests and CI use). Archives are unpacked
once into the cache (`burn.host.cache`).
"""

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

from burn.host import project_files
from burn.host.cache import cache_dir, held_lock

MICROPYTHON_VERSION = "1.28.0"
MICROPYTHON_GIT = "https://github.com/micropython/micropython.git"
PICOTOOL_VERSION = "2.2.0"
BOOTROM_NAME = "rp2040-bootrom-b1.bin"


class VendorError(RuntimeError):
    """A third-party input is missing or wrong; the message says what to do."""


def vendor_dir():
    """The vendor folder: $BURN_VENDOR_DIR, or ../shared/vendor beside a checkout; None."""
    env = os.environ.get("BURN_VENDOR_DIR")
    if env:
        return Path(env)
    root = project_files.checkout_root()
    beside = root.parent / "shared" / "vendor" if root is not None else None
    return beside if beside is not None and beside.is_dir() else None


def _tree_lock(name):
    """The lock file beside the cache's source tree `name`, held while it is made."""
    return cache_dir("src") / (".%s.lock" % name)


def _unpack(archive, name):
    """Unpack `archive` (a .tar.xz holding one top folder `name`) into the cache, once: under
    a lock, so that a process never removes or replaces a tree another one is reading
    (test workers on a fresh machine all ask for it at once)."""
    root = cache_dir("src")
    final = root / name
    if (final / ".unpacked").exists():
        return final
    with held_lock(_tree_lock(name)):
        if not (final / ".unpacked").exists():
            _unpack_into(archive, name, root, final)
    return final


def _unpack_into(archive, name, root, final):
    """_unpack's work, under its lock: a temporary folder renamed into place when complete."""
    tmp = root / (".%s.%d" % (name, os.getpid()))
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
    except (OSError, tarfile.TarError) as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise VendorError("cannot unpack %s: %s" % (archive, e)) from None
    inner = tmp / name
    if not inner.is_dir():
        shutil.rmtree(tmp, ignore_errors=True)
        raise VendorError("%s does not hold the folder %s" % (archive, name))
    (inner / ".unpacked").touch()
    shutil.rmtree(final, ignore_errors=True)
    os.replace(inner, final)
    shutil.rmtree(tmp, ignore_errors=True)


def micropython_version(tree):
    """The version string of a MicroPython source tree ('1.28.0'), read from py/mpconfig.h."""
    header = Path(tree, "py", "mpconfig.h")
    try:
        text = header.read_text(errors="replace")
    except OSError:
        raise VendorError("%s is not a MicroPython source tree (no py/mpconfig.h)" % tree) \
            from None
    parts = []
    for key in ("MAJOR", "MINOR", "MICRO"):
        tag = "#define MICROPY_VERSION_%s " % key
        at = text.find(tag)
        if at < 0:
            raise VendorError("%s: no MICROPY_VERSION_%s in py/mpconfig.h" % (tree, key))
        parts.append(text[at + len(tag):].split()[0])
    return ".".join(parts)


def _check_tree(tree):
    tree = Path(tree)
    version = micropython_version(tree)
    if version != MICROPYTHON_VERSION:
        raise VendorError("%s is MicroPython %s; burn needs v%s (check out that tag)"
                          % (tree, version, MICROPYTHON_VERSION))
    return tree


def _from_path(path):
    path = Path(path)
    if path.is_dir():
        return _check_tree(path)
    if path.is_file():
        return _check_tree(_unpack(path, "micropython-" + MICROPYTHON_VERSION))
    raise VendorError("MicroPython source %s does not exist" % path)


def _clone():
    """Clone the pinned tag with its rp2 submodules into the cache (once, under _unpack's
    lock); None without git/network."""
    if not shutil.which("git"):
        return None
    name = "micropython-" + MICROPYTHON_VERSION
    final = cache_dir("src") / name
    with held_lock(_tree_lock(name)):
        if (final / ".unpacked").exists():
            return final
        tmp = final.with_name(final.name + ".clone%d" % os.getpid())
        try:
            subprocess.run(["git", "clone", "--depth", "1", "--branch",
                            "v" + MICROPYTHON_VERSION, MICROPYTHON_GIT, str(tmp)], check=True,
                           capture_output=True, timeout=600)
            subprocess.run(["make", "-C", str(tmp / "ports" / "rp2"), "submodules"],
                           check=True, capture_output=True, timeout=1200)
        except (OSError, subprocess.SubprocessError):
            shutil.rmtree(tmp, ignore_errors=True)
            return None
        (tmp / ".unpacked").touch()
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
    return final


def cached_micropython():
    """The MicroPython tree already unpacked (or cloned) into the cache, or None."""
    cached = cache_dir("src") / ("micropython-" + MICROPYTHON_VERSION)
    return cached if (cached / ".unpacked").exists() else None


def micropython_location():
    """Where micropython_source() takes the tree from, found without unpacking, cloning or
    checking it: (how, path) with how one of '$BURN_MICROPYTHON_SRC', 'cache' and 'vendor
    archive'; None when only a git clone of the tag is left."""
    chosen = os.environ.get("BURN_MICROPYTHON_SRC")
    if chosen:
        return "$BURN_MICROPYTHON_SRC", Path(chosen)
    cached = cached_micropython()
    if cached is not None:
        return "cache", cached
    vendor = vendor_dir()
    archive = vendor / ("micropython-%s.tar.xz" % MICROPYTHON_VERSION) if vendor else None
    if archive is not None and archive.is_file():
        return "vendor archive", archive
    return None


MICROPYTHON_MISSING = (
    "pass --micropython DIR (a checkout of tag v%s with `make -C ports/rp2 submodules` done), "
    "set BURN_MICROPYTHON_SRC, or put micropython-%s.tar.xz in $BURN_VENDOR_DIR"
    % (MICROPYTHON_VERSION, MICROPYTHON_VERSION))


def micropython_source(explicit=None, allow_clone=True):
    """The MicroPython v1.28.0 source tree: `explicit` (a folder or .tar.xz), else
    $BURN_MICROPYTHON_SRC, else the cache's, else the vendor archive, else a git clone of
    the tag."""
    if explicit:
        return _from_path(explicit)
    found = micropython_location()
    if found is not None:
        return _from_path(found[1])
    tree = _clone() if allow_clone else None
    if tree is not None:
        return tree
    raise VendorError("no MicroPython v%s source tree: %s"
                      % (MICROPYTHON_VERSION, MICROPYTHON_MISSING))


def picotool_archive():
    """The vendor archive of the picotool sources, or None when there is none."""
    vendor = vendor_dir()
    archive = vendor / ("picotool-%s.tar.xz" % PICOTOOL_VERSION) if vendor else None
    return archive if archive is not None and archive.is_file() else None


def picotool_source():
    """The picotool source tree from the vendor archive, or None when there is none."""
    archive = picotool_archive()
    return _unpack(archive, "picotool-" + PICOTOOL_VERSION) if archive else None


def bootrom(explicit=None):
    """Path of the RP2040 B1 bootrom: `explicit`, $BURN_RP2040_BOOTROM, or the vendor one."""
    chosen = explicit or os.environ.get("BURN_RP2040_BOOTROM")
    if not chosen:
        vendor = vendor_dir()
        chosen = vendor / BOOTROM_NAME if vendor else None
    if chosen is None or not Path(chosen).is_file():
        raise VendorError(
            "no RP2040 bootrom: pass --bootrom FILE, set BURN_RP2040_BOOTROM to a 16 KiB "
            "dump of the RP2040 B1 mask ROM (built from raspberrypi/pico-bootrom), or put "
            "it in $BURN_VENDOR_DIR as %s" % BOOTROM_NAME)
    data = Path(chosen).read_bytes()
    if len(data) != 16384:
        raise VendorError("bootrom %s is %d bytes; an RP2040 mask ROM is 16384" %
                          (chosen, len(data)))
    return Path(chosen)
