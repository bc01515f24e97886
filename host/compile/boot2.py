"""The RP2040's second-stage boot (boot2) for a program without a framework: the pico-sdk's
boot2_w25q080.S from the MicroPython source tree (`burn.host.vendor`), assembled with the Arm
toolchain, padded to 252 bytes and followed by the CRC32 that the bootrom checks before it
runs the 256 bytes from SRAM. boot2 sets the flash up for execute-in-place and enters the
program through the vector table at 0x10000100.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from burn.host import vendor
from burn.host.compile.trace import CompileError

SOURCE = "boot2_w25q080.S"
CODE_BYTES = 252  # then the 4-byte CRC32: 256 bytes in all
# the pico-sdk folders (under src/) whose headers the boot2 sources include
INCLUDES = ("rp2040/boot_stage2/asminclude", "rp2040/boot_stage2/include",
            "rp2040/hardware_regs/include", "rp2040/pico_platform/include",
            "common/pico_base_headers/include", "rp2_common/pico_platform_compiler/include",
            "rp2_common/pico_platform_sections/include",
            "rp2_common/pico_platform_panic/include",
            "rp2_common/pico_platform_common/include")
# headers the pico-sdk's CMake generates; boot2 needs nothing from them
GENERATED = ("pico/version.h", "pico/config_autogen.h")

C_SOURCE = """/* The RP2040's second-stage boot at 0x10000000: the pico-sdk's %(source)s (from
 * MicroPython %(version)s's pico-sdk), assembled by burn compile and padded to %(code)d bytes,
 * then its CRC32, which the bootrom checks before running it. It enters the program through
 * the vector table at 0x10000100. */
#include <stdint.h>

__attribute__((section(".boot2"), used)) static const uint8_t boot2[256] = {
%(bytes)s
};
"""


def crc32(data):
    """The CRC-32 the RP2040 bootrom checks boot2 with: polynomial 0x04C11DB7, initial value
    0xFFFFFFFF, bits taken most significant first (no reflection), no final XOR."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
    return crc


def padded(code):
    """`code` (boot2's bytes) padded with zeros to 252 bytes, then its CRC32 (little-endian):
    the 256 bytes that go at the start of flash."""
    if len(code) > CODE_BYTES:
        raise CompileError("boot2 is %d bytes; at most %d fit before its checksum"
                           % (len(code), CODE_BYTES))
    body = bytes(code) + bytes(CODE_BYTES - len(code))
    return body + crc32(body).to_bytes(4, "little")


def arm_tool(name):
    """Path of arm-none-eabi-NAME: on PATH, else in PlatformIO's toolchain package."""
    found = shutil.which("arm-none-eabi-" + name)
    if found:
        return found
    core = Path(os.environ.get("PLATFORMIO_CORE_DIR", Path.home() / ".platformio"))
    packaged = core / "packages" / "toolchain-gccarmnoneeabi" / "bin" / ("arm-none-eabi-" + name)
    if packaged.is_file():
        return str(packaged)
    raise CompileError("--board pico assembles the RP2040's boot2 with arm-none-eabi-%s, which "
                       "is neither on PATH nor in PlatformIO's packages; install it with: "
                       "apt-get install -y gcc-arm-none-eabi" % name)


def assemble(sdk):
    """boot2's code (at most 252 bytes) assembled from pico-sdk folder `sdk`."""
    source = Path(sdk, "src", "rp2040", "boot_stage2", SOURCE)
    if not source.is_file():
        raise CompileError("%s is not in the pico-sdk at %s" % (SOURCE, sdk))
    with tempfile.TemporaryDirectory(prefix="burn-boot2-") as folder:
        work = Path(folder)
        for header in GENERATED:
            (work / "gen" / header).parent.mkdir(parents=True, exist_ok=True)
            (work / "gen" / header).touch()
        includes = ["-I" + str(work / "gen")] + ["-I" + str(Path(sdk, "src", d))
                                                 for d in INCLUDES]
        script = source.with_name("boot_stage2.ld")
        elf, binary = work / "boot2.elf", work / "boot2.bin"
        for argv in ([arm_tool("gcc"), "-mcpu=cortex-m0plus", "-mthumb", "-nostdlib",
                      "-nostartfiles", "-Wl,--script=%s" % script] + includes
                     + [str(source), "-o", str(elf)],
                     [arm_tool("objcopy"), "-O", "binary", str(elf), str(binary)]):
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            if proc.returncode:
                raise CompileError("assembling boot2 failed: %s\n%s"
                                   % (" ".join(argv), proc.stderr[-2000:]))
        return binary.read_bytes()


def c_source(micropython=None):
    """src/boot2.c of the pico environment: the padded, checksummed boot2 as a constant in
    section .boot2, assembled now from the pico-sdk of the MicroPython source `micropython`
    (a folder or .tar.xz; None: where burn.host.vendor finds it)."""
    try:
        tree = vendor.micropython_source(micropython, allow_clone=False)
    except vendor.VendorError as exc:
        raise CompileError("--board pico takes the RP2040's boot2 from the pico-sdk in "
                           "MicroPython's source: %s" % exc) from None
    data = padded(assemble(tree / "lib" / "pico-sdk"))
    rows = ("    " + ", ".join("0x%02x" % b for b in data[at:at + 12]) + ","
            for at in range(0, len(data), 12))
    return C_SOURCE % {"source": SOURCE, "version": vendor.MICROPYTHON_VERSION,
                       "code": CODE_BYTES, "bytes": "\n".join(rows)}
