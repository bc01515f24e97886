"""CMSIS-NN as the peer of flex's Cortex-M kernels: its int8 convolution, depthwise
convolution and fully connected built with the compiler and flags of flex's emulated build
for the same core, beside benchmarks/cmsis_nn_peer.c, and loaded into the same unicorn
emulator (benchmarks/peer_build.py).

CMSIS-NN is not part of burn: point --cmsis-nn or $BURN_CMSIS_NN at a checkout of
github.com/ARM-software/CMSIS-NN (its Include/ and Source/ are what is read).
"""

import os

import peer_build
from peer_build import PeerMissing  # noqa: F401 (the error callers catch)

HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cmsis_nn_peer.c")
FOLDERS = ("ConvolutionFunctions", "FullyConnectedFunctions", "NNSupportFunctions",
           "TransposeFunctions")  # the MVE depthwise path transposes its weights


def find(path=None):
    """The CMSIS-NN folder from `path` or $BURN_CMSIS_NN; PeerMissing says what to do."""
    return peer_build.locate(path, "BURN_CMSIS_NN", os.path.join("Include", "arm_nnfunctions.h"),
                             ("CMSIS-NN", "clone https://github.com/ARM-software/CMSIS-NN "
                                          "and pass --cmsis-nn DIR"))


def build(root, target="cortex-m33", opt="-Os"):
    """Path of the linked ELF of CMSIS-NN and the harness for `target`, built once per
    sources and flags."""
    srcs = [HARNESS]
    for folder in FOLDERS:
        srcs += peer_build.c_files(os.path.join(root, "Source", folder),
                                   lambda f: not f.endswith(("_f16.c", "_f32.c")))
    return peer_build.build("cmsis-nn", srcs, [os.path.join(root, "Include")], target, opt)


def emulated(root, target="cortex-m33", opt="-Os"):
    """CMSIS-NN and the harness in a fresh unicorn instance (an EmulatedLib)."""
    return peer_build.emulated(build(root, target, opt), target, opt)
