"""Time the int8 graph kernels, plain vs viper, on MLPerf-Tiny-like layer sizes.

Run on the MicroPython unix port (or a board) with `burn` importable, for example
    micropython benchmarks/graph_kernels.py      (with MICROPYPATH pointing at a folder
                                                  where `burn` links to core/)
Under CPython only the plain kernels exist, so only they are timed.
"""

import sys
from array import array

from mp_clock import elapsed_us, now_us

from burn.graph.s8_conv import conv_s8_fast, conv_s8_plain
from burn.graph.s8_depthwise_conv import depthwise_conv_s8_fast, depthwise_conv_s8_plain
from burn.graph.s8_fully_connected import fully_connected_s8_fast, fully_connected_s8_plain


def _buf(n, seed):
    return array("b", [((i * 37 + seed) % 251) - 125 for i in range(n)])


def _requant(count):
    return (array("i", [100] * count), array("i", [1518500250] * count),
            array("i", [-8] * count))


def layers():
    """(name, MACs, plain, fast, args) for each benchmarked layer."""
    out = []
    # DS-CNN (KWS) first conv: 49x10x1 -> 25x5x64, 10x4 kernel, stride 2, SAME.
    b, m, s = _requant(64)
    out.append(("kws conv 10x4 s2 1->64", 25 * 5 * 64 * 40, conv_s8_plain, conv_s8_fast,
                (_buf(490, 1), bytes(_buf(64 * 40, 2)), b, m, s, array("b", bytes(8000)),
                 1, 49, 10, 1, 25, 5, 64, 10, 4, 1, 2, 2, 1, 1, 4, 1, -3, 5, -128, 127)))
    # DS-CNN depthwise 3x3 on 25x5x64.
    out.append(("kws depthwise 3x3 64ch", 25 * 5 * 64 * 9, depthwise_conv_s8_plain,
                depthwise_conv_s8_fast,
                (_buf(8000, 3), bytes(_buf(576, 4)), b, m, s, array("b", bytes(8000)),
                 1, 25, 5, 64, 25, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, -3, 5, -128, 127)))
    # DS-CNN pointwise 1x1 64->64 on 25x5.
    out.append(("kws pointwise 1x1 64->64", 25 * 5 * 64 * 64, conv_s8_plain, conv_s8_fast,
                (_buf(8000, 5), bytes(_buf(4096, 6)), b, m, s, array("b", bytes(8000)),
                 1, 25, 5, 64, 25, 5, 64, 1, 1, 1, 1, 1, 1, 1, 0, 0, -3, 5, -128, 127)))
    # ResNet-8 first conv: 32x32x3 -> 32x32x16, 3x3, SAME.
    b16, m16, s16 = _requant(16)
    out.append(("resnet conv 3x3 3->16 32x32", 32 * 32 * 16 * 27, conv_s8_plain, conv_s8_fast,
                (_buf(3072, 7), bytes(_buf(432, 8)), b16, m16, s16, array("b", bytes(16384)),
                 1, 32, 32, 3, 32, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, -3, 5, -128, 127)))
    # DS-CNN classifier: fully connected 64 -> 12.
    b12, m12, s12 = _requant(12)
    out.append(("kws fc 64->12", 64 * 12, fully_connected_s8_plain, fully_connected_s8_fast,
                (_buf(64, 9), bytes(_buf(768, 10)), b12, m12, s12, array("b", bytes(12)),
                 1, 64, 12, -3, 5, -128, 127)))
    return out


def _time(fn, args, repeat):
    fn(*args)
    t0 = now_us()
    for _ in range(repeat):
        fn(*args)
    return elapsed_us(t0) / repeat


def main():
    print("int8 graph kernels on", sys.implementation.name)
    print("layer                          MACs      plain ms   fast ms   speed-up")
    for name, macs, plain, fast, args in layers():
        repeat = 1 if macs > 100000 else 20
        tp = _time(plain, args, repeat)
        line = "%-28s %8d %10.3f" % (name, macs, tp / 1000)
        if fast is not None:
            tf = _time(fast, args, repeat * 3)
            line += " %9.3f %9.1fx" % (tf / 1000, tp / tf)
        print(line)


main()
