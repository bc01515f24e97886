"""Which `.mpy` files a MicroPython can load: the architecture and version fields of a
`.mpy` header and of `sys.implementation._mpy`, named for messages. Imported only when a
message needs it (a board's RAM pays for every module it imports)."""

import sys

# The native architectures, by their number in a .mpy header (MicroPython's MP_NATIVE_ARCH).
ARCHES = ("no native code", "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em",
          "armv7emsp", "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc")


def abi_name(value):
    """'<arch> .mpy v<version>.<sub-version>' of a `sys.implementation._mpy`-style value."""
    arch = value >> 10
    name = ARCHES[arch] if arch < len(ARCHES) else "arch %d" % arch
    return "%s .mpy v%d.%d" % (name, value & 0xff, (value >> 8) & 3)


def mismatch(module):
    """Why `<module>.mpy` on sys.path cannot load here ('burnflex.mpy is built for armv6m
    .mpy v6.3, this board runs x64 .mpy v6.3'), or None when none is found or it fits."""
    here = getattr(sys.implementation, "_mpy", 0)
    name = module + ".mpy"
    for folder in sys.path:
        try:
            with open((folder or ".") + "/" + name, "rb") as f:
                head = f.read(4)
        except OSError:
            continue
        if len(head) < 3 or head[0] != 77:
            return "%s in %s is not a .mpy file" % (name, folder or ".")
        got = head[1] | (head[2] << 8)
        if (got & 0xff) == (here & 0xff) and ((got >> 8) & 3) == ((here >> 8) & 3) and (
                (got >> 10) == (here >> 10) or not here >> 10):
            return None
        return "%s is built for %s, this board runs %s" % (name, abi_name(got),
                                                           abi_name(here))
    return None
