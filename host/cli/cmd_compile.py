"""`burn compile MODEL -o DIR`: the model as a C library for any firmware (no interpreter)."""

import sys
from pathlib import Path

TARGET_HELP = "; ".join(["host: portable C99, any compiler",
                         "cortex-m0plus: RP2040, SAMD21, STM32G0",
                         "cortex-m4f: M4F/M7 with DSP",
                         "cortex-m33: RP2350, STM32U5, nRF5340",
                         "riscv32: ESP32-C3/C6"])


def register(subparsers):
    p = subparsers.add_parser(
        "compile", help="compile a model to a C library (PlatformIO, CMake, Arduino)",
        description="Write a self-contained C library of MODEL into DIR: NAME.c/NAME.h "
        "calling flex_c's kernels in plan order with const weights and parameters, a static "
        "arena (or the caller's), the model's self-test as NAME_selftest(), only the flex_c "
        "files its kernels need, and library.json (PlatformIO), CMakeLists.txt (pico-sdk, "
        "Zephyr, ESP-IDF) and library.properties (Arduino). See docs/compile.md.")
    p.add_argument("model", help="a .bst file, or a .tflite file (imported first)")
    p.add_argument("-o", "--out", required=True, metavar="DIR",
                   help="the folder to write (new, empty, or an earlier burn compile output)")
    p.add_argument("--target", default="host", help="the kernels' core (%s); default host"
                   % TARGET_HELP)
    p.add_argument("--name", default=None, help="the C prefix of every symbol and file "
                   "(default: the model file's name)")
    p.add_argument("--tests", type=int, default=4, metavar="N",
                   help="self-test vectors to embed (a .tflite gets N made on import; "
                   "default 4)")
    p.add_argument("--platformio-project", metavar="PDIR", default=None,
                   help="also write a PlatformIO project in PDIR around the library: "
                   "platformio.ini, src/main.c (the self-test as a program) and "
                   "test/test_NAME (Unity tests under ASan and UBSan: pio test -e native)")
    p.add_argument("--board", default="native", choices=["native", "pico", "nucleo_g071rb"],
                   help="the PlatformIO project's board: native (the host; always there "
                   "for the tests), pico (the RP2040, no framework; boots from flash through the "
                   "pico-sdk's boot2 and prints its self-test and cycles on UART0) or "
                   "nucleo_g071rb (an STM32G0, no framework)")
    p.add_argument("--micropython", metavar="DIR", default=None,
                   help="MicroPython v1.28.0 source tree (or its .tar.xz) whose pico-sdk "
                   "gives --board pico its boot2; default $BURN_MICROPYTHON_SRC, the cache "
                   "or the vendor archive")
    p.set_defaults(run=run)


def _name_of(path):
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in Path(path).stem)
    return stem if stem and not stem[0].isdigit() else "model_" + stem


def _source(path, tests):
    data = Path(path).read_bytes()
    if path.lower().endswith(".tflite"):
        from burn.host.bst_writer import encode_bst
        from burn.host.importers.tflite import import_tflite
        return encode_bst(import_tflite(data, tests=tests))
    return data


def run(args):
    """Write the library; exit status 1 with one line for a bad model, name or folder."""
    from burn.host.compile.package import compile_model

    name = args.name or _name_of(args.model)
    say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    if args.tests < 1:
        print("burn compile: --tests must be at least 1", file=sys.stderr)
        return 1
    try:
        source = _source(args.model, args.tests)
        result = compile_model(source, args.out, args.target, name, args.tests, say=say)
        if args.platformio_project:
            from burn.host.compile.platformio import write_project
            write_project(args.platformio_project, args.out, name, result, args.board,
                          args.micropython)
            say("wrote the PlatformIO project %s (pio test -e %s)"
                % (args.platformio_project, args.board))
    except (OSError, ValueError) as exc:  # CompileError is a ValueError
        print("burn compile: %s: %s" % (args.model, exc), file=sys.stderr)
        return 1
    print("wrote %s: %s.c/.h, %d flex_c files, arena %d bytes, kernels %s, %d self-tests"
          % (result["dir"], name, result["c_files"] - 1, result["arena_bytes"],
             ", ".join(result["kernels"]), result["tests"]))
    return 0
