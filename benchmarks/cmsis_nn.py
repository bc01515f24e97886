"""CMSIS-NN as the peer of flex's Cortex-M kernels: its int8 convolution, depthwise
convolution and fully connected built with the compiler and flags of flex's emulated build
for the same core (burn.host.flex.targets), beside benchmarks/cmsis_nn_peer.c, and loaded
into the same unicorn emulator (burn.host.flex.emulator.EmulatedLib).

CMSIS-NN is not part of burn: point --cmsis-nn or $BURN_CMSIS_NN at a checkout of
github.com/ARM-software/CMSIS-NN (its Include/ and Source/ are what is read). Builds are
cached under burn's cache, keyed by the sources and flags.
"""

import hashlib
import os
import shutil
import subprocess
import sys

from burn.host.cache import cache_dir
from burn.host.flex import targets
from burn.host.flex.emulator import EmulatedLib

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(HERE, "cmsis_nn_peer.c")
FOLDERS = ("ConvolutionFunctions", "FullyConnectedFunctions", "NNSupportFunctions")
# The C library declarations CMSIS-NN includes; flex_c/src/freestanding defines them. The
# compiler's builtins are named, as a hosted build would have them: CMSIS-NN reads unaligned
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
    """No CMSIS-NN checkout was named, or the named folder is not one."""


def find(path=None):
    """The CMSIS-NN folder from `path` or $BURN_CMSIS_NN; PeerMissing says what to do."""
    path = path or os.environ.get("BURN_CMSIS_NN")
    if not path:
        raise PeerMissing("CMSIS-NN is not on this machine: clone "
                          "https://github.com/ARM-software/CMSIS-NN and pass --cmsis-nn DIR "
                          "(or set BURN_CMSIS_NN)")
    if not os.path.isfile(os.path.join(path, "Include", "arm_nnfunctions.h")):
        raise PeerMissing("%s is not a CMSIS-NN checkout (no Include/arm_nnfunctions.h)" % path)
    return os.path.abspath(path)


def _sources(root):
    paths = [HARNESS] + [os.path.join(targets.FLEX_C, "src", "freestanding", f)
                         for f in sorted(os.listdir(os.path.join(targets.FLEX_C, "src",
                                                                 "freestanding")))]
    for folder in FOLDERS:
        base = os.path.join(root, "Source", folder)
        paths += [os.path.join(base, f) for f in sorted(os.listdir(base))
                  if f.endswith(".c") and not f.endswith(("_f16.c", "_f32.c"))]
    return paths


def build(root, target="cortex-m33", opt="-Os"):
    """Path of the linked ELF of CMSIS-NN and the harness for `target` (a flex target with
    an emulator), built once per sources and flags."""
    triple, cpu, _opt_dir, _link = targets.TARGETS[target]
    srcs = _sources(root)
    flags = ["-target", triple] + cpu + [opt, "-ffunction-sections"]
    h = hashlib.sha256((" ".join(flags) + STRING_H).encode())
    for path in srcs:
        with open(path, "rb") as f:
            h.update(path.encode() + f.read())
    folder = os.path.join(cache_dir("cmsis-nn"), "%s%s-%s" % (target, opt, h.hexdigest()[:16]))
    image = os.path.join(folder, "peer.elf")
    if os.path.exists(image):
        return image
    tmp = folder + ".tmp%d" % os.getpid()
    os.makedirs(os.path.join(tmp, "include"), exist_ok=True)
    with open(os.path.join(tmp, "include", "string.h"), "w") as f:
        f.write(STRING_H)
    includes = ["-I" + os.path.join(tmp, "include"), "-I" + os.path.join(root, "Include")]
    objects = [os.path.join(tmp, "%03d.o" % i) for i in range(len(srcs))]
    link = ["-g", "-nostartfiles", "-Wl,-T," + os.path.join(targets.FLEX_C, "cortex_m.ld"),
            "-Wl,--gc-sections", "-Wl,-e,peer_conv_s8"]
    link += ["-Wl,-u," + name for name in ENTRY_POINTS]
    try:
        for src, obj in zip(srcs, objects):
            _zig(["cc"] + flags + includes + ["-c", src, "-o", obj])
        _zig(["cc", "-target", triple] + cpu + [opt] + link +
             ["-o", os.path.join(tmp, "peer.elf")] + objects)
    except RuntimeError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if os.path.isdir(folder):  # another process built the same meanwhile
        shutil.rmtree(tmp)
    else:
        os.replace(tmp, folder)
    return image


def _zig(args):
    proc = subprocess.run([sys.executable, "-m", "ziglang"] + args, capture_output=True,
                          text=True)
    if proc.returncode:
        raise RuntimeError("building CMSIS-NN failed: %s\n%s%s" % (
            " ".join(args[:4]), proc.stdout, proc.stderr[-4000:]))


def emulated(root, target="cortex-m33", opt="-Os"):
    """CMSIS-NN and the harness in a fresh unicorn instance (an EmulatedLib)."""
    return EmulatedLib(target, opt, image=build(root, target, opt))
