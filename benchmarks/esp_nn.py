"""esp-nn as the peer of flex's RISC-V kernels: Espressif's int8 convolution, depthwise
convolution and fully connected as an ESP32-C3 or C6 runs them (its generic optimisations:
CONFIG_NN_OPTIMIZED on a target that is neither the S3 nor the P4), built with the
compiler and flags of flex's riscv32 build beside benchmarks/esp_nn_peer.c, and loaded into
the same unicorn emulator (benchmarks/peer_build.py).

esp-nn is not part of burn: point --esp-nn or $BURN_ESP_NN at a checkout of
github.com/espressif/esp-nn (its include/ and src/ are what is read).
"""

import os

import peer_build

HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "esp_nn_peer.c")
# what esp-nn's CMakeLists compiles for such a target, of the three ops
SOURCES = ("convolution/esp_nn_conv_ansi.c", "convolution/esp_nn_conv_opt.c",
           "convolution/esp_nn_depthwise_conv_ansi.c",
           "convolution/esp_nn_depthwise_conv_opt.c",
           "fully_connected/esp_nn_fully_connected_ansi.c")


def find(path=None):
    """The esp-nn folder from `path` or $BURN_ESP_NN; PeerMissing says what to do."""
    return peer_build.locate(path, "BURN_ESP_NN", os.path.join("include", "esp_nn.h"),
                             ("esp-nn", "clone https://github.com/espressif/esp-nn and pass "
                                        "--esp-nn DIR"))


def build(root, target="riscv32", opt="-Os"):
    """Path of the linked ELF of esp-nn and the harness for `target`, built once per
    sources and flags."""
    srcs = [HARNESS] + [os.path.join(root, "src", s) for s in SOURCES]
    includes = [os.path.join(root, "include"), os.path.join(root, "src", "common")]
    return peer_build.build("esp-nn", srcs, includes, target, opt,
                            defines=["-DCONFIG_NN_OPTIMIZED=1"])


def emulated(root, target="riscv32", opt="-Os"):
    """esp-nn and the harness in a fresh unicorn instance (an EmulatedLib)."""
    return peer_build.emulated(build(root, target, opt), target, opt)
