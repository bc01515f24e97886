"""Builds a peer library (CMSIS-NN, esp-nn) for the emulator: its C sources and a harness
of flat entry points, compiled with the compiler and flags of flex's emulated build for the
same core (burn.host.flex.targets) and linked for the emulator's memory map
(flex_c/emulated.ld), beside flex_c's own memory functions; cached under burn's cache,
keyed by the sources, headers and flags."""

import hashlib
import os
import shutil
import subprocess
import sys

from burn.host.cache import cache_dir
from burn.host.flex import targets
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.qemu_lib import MACHINES as QEMU_MACHINES
from burn.host.flex.qemu_lib import QemuLib

# The C library declarations the peers include; flex_c/src/freestanding defines them. The
# compiler's builtins are named, as a hosted build would have them: the peers read unaligned
# words through memcpy, one load when the builtin sees the constant size (zig's freestanding
# targets imply -fno-builtin).
STRING_H = """#include <stddef.h>
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#define memcpy(d, s, n) __builtin_memcpy(d, s, n)
#define memmove(d, s, n) __builtin_memmove(d, s, n)
#define memset(d, c, n) __builtin_memset(d, c, n)
"""
ENTRY_POINTS = ("peer_conv_s8", "peer_depthwise_s8", "peer_fully_connected_s8",
                "peer_fully_connected_prepare_s8")


class PeerMissing(RuntimeError):
    """No checkout of the peer was named, or the named folder is not one."""


def locate(path, variable, marker, what):
    """The peer's folder from `path` or $`variable`, checked for file `marker`; PeerMissing
    says what to do (`what`: the peer's name and where to clone it, the option to pass)."""
    path = path or os.environ.get(variable)
    if not path:
        raise PeerMissing("%s is not on this machine: %s (or set %s)" % (
            what[0], what[1], variable))
    if not os.path.isfile(os.path.join(path, marker)):
        raise PeerMissing("%s is not a %s checkout (no %s)" % (path, what[0], marker))
    return os.path.abspath(path)


def c_files(folder, keep=lambda name: True):
    """Sorted paths of the .c files in `folder` whose names `keep` accepts."""
    return [os.path.join(folder, f) for f in sorted(os.listdir(folder))
            if f.endswith(".c") and keep(f)]


def build(name, sources, include_dirs, target, opt="-Os", defines=()):
    """Path of the linked ELF of `sources` (the peer's and its harness), compiled for
    `target` (a flex target with an emulator) with `include_dirs` and `defines`."""
    triple, cpu, _opt_dir, _link = targets.TARGETS[target]
    srcs = list(sources) + c_files(os.path.join(targets.FLEX_C, "src", "freestanding"))
    flags = ["-target", triple] + cpu + [opt, "-ffunction-sections"] + list(defines)
    h = hashlib.sha256((" ".join(flags) + STRING_H).encode())
    for path in srcs:
        with open(path, "rb") as f:
            h.update(path.encode() + f.read())
    folder = os.path.join(cache_dir(name), "%s%s-%s" % (target, opt, h.hexdigest()[:16]))
    image = os.path.join(folder, "peer.elf")
    if os.path.exists(image):
        return image
    tmp = folder + ".tmp%d" % os.getpid()
    os.makedirs(os.path.join(tmp, "include"), exist_ok=True)
    with open(os.path.join(tmp, "include", "string.h"), "w") as f:
        f.write(STRING_H)
    includes = ["-I" + os.path.join(tmp, "include")] + ["-I" + d for d in include_dirs]
    objects = [os.path.join(tmp, "%03d.o" % i) for i in range(len(srcs))]
    link = ["-g", "-nostartfiles", "-Wl,-T," + os.path.join(targets.FLEX_C, "emulated.ld"),
            "-Wl,--gc-sections", "-Wl,-e,peer_conv_s8"]
    link += ["-Wl,-u," + entry for entry in ENTRY_POINTS]
    try:
        for src, obj in zip(srcs, objects):
            _zig(name, ["cc"] + flags + includes + ["-c", src, "-o", obj])
        _zig(name, ["cc", "-target", triple] + cpu + [opt] + link +
             ["-o", os.path.join(tmp, "peer.elf")] + objects)
    except RuntimeError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if os.path.isdir(folder):  # another process built the same meanwhile
        shutil.rmtree(tmp)
    else:
        os.replace(tmp, folder)
    return image


def _zig(name, args):
    proc = subprocess.run([sys.executable, "-m", "ziglang"] + args, capture_output=True,
                          text=True)
    if proc.returncode:
        raise RuntimeError("building %s failed: %s\n%s%s" % (
            name, " ".join(args[:4]), proc.stdout, proc.stderr[-4000:]))


def emulated(image, target, opt="-Os"):
    """The peer's ELF `image` in a fresh emulator: QEMU for the cores unicorn lacks
    (a QemuLib), else unicorn (an EmulatedLib)."""
    if target in QEMU_MACHINES:
        return QemuLib(target, opt, image=image)
    return EmulatedLib(target, opt, image=image)
