"""The README.md of a compiled model's folder: its API, and a short main.c for each build
system."""

from burn.host.compile.emit_c import CTYPES


def _io_lines(name, t):
    up = name.upper()
    lines = []
    for kind, items in (("input", t.inputs), ("output", t.outputs)):
        for k, (_ref, dtype, shape) in enumerate(items):
            lines.append("- %s %d: `%s[%s_%s%d_SIZE]`, shape %s" % (
                kind, k, CTYPES[dtype], up, kind.upper(), k, "x".join(map(str, shape))))
    return lines


def _call(name, t):
    args = ["in%d" % k for k in range(len(t.inputs))] + \
        ["out%d" % k for k in range(len(t.outputs))]
    return "%s_run(%s)" % (name, ", ".join(args))


def _buffers(name, t):
    up = name.upper()
    lines = []
    for kind, items, qual in (("in", t.inputs, "static "), ("out", t.outputs, "static ")):
        for k, (_ref, dtype, _shape) in enumerate(items):
            lines.append("%s%s %s%d[%s_%sPUT%d_SIZE];" % (
                qual, CTYPES[dtype], kind, k, up, "IN" if kind == "in" else "OUT", k))
    return lines


def text(name, target, what, t):
    """README.md of library `name` built for `target` (described by `what`) from Trace `t`."""
    up = name.upper()
    main = ["#include <stdio.h>", '#include "%s.h"' % name, ""] + _buffers(name, t) + [
        "", "int main(void) {",
        '    printf("self-test: %%d\\n", %s_selftest());   /* 0: every output matches */'
        % name,
        "    /* ... fill in0 from a sensor ... */",
        '    printf("run: %%d\\n", %s);' % _call(name, t), "    return 0;", "}"]
    return "\n".join([
        "# %s: a model compiled to C" % name, "",
        "Written by `burn compile` for **%s**: %s. The code calls flex_c's kernels in the "
        "model's order with their parameters as `static const` data (weights and parameters "
        "go to flash); there is no interpreter and nothing is parsed at run time." % (
            target, what), "",
        "## API (`src/%s.h`)" % name, "",
        "- `int %s_run(...)`: one inference in a static arena of `%s_ARENA_BYTES` bytes; 0, "
        "or the failing kernel's negative `flex_status`." % (name, up),
        "- `int %s_run_in(void *arena, ...)`: the same in your buffer (4-byte aligned, "
        "`%s_ARENA_BYTES` long)." % (name, up),
        "- `void %s_reset(void)`: ops with memory back to their start." % name,
        "- `int %s_selftest(void)`: the model's reference vectors; 0 when every output "
        "matches bit for bit (float outputs within 1e-4 + 1e-3 of the reference)." % name,
        ""] + _io_lines(name, t) + [
        "", "## main.c", "", "```c"] + main + ["```", "",
        "## PlatformIO", "",
        "Put this folder beside your project (or in `lib/`) and add to `platformio.ini`:", "",
        "```ini", "lib_deps = symlink://../%s" % name, "```", "",
        "The `main.c` above builds as it is (`src/main.c`).", "",
        "## pico-sdk", "",
        "```cmake", "add_subdirectory(%s)" % name,
        "target_link_libraries(app pico_stdlib %s)" % name, "```", "",
        "```c", "#include <stdio.h>", '#include "pico/stdlib.h"', '#include "%s.h"' % name,
        ""] + _buffers(name, t) + [
        "", "int main(void) {", "    stdio_init_all();",
        '    printf("self-test: %%d\\n", %s_selftest());' % name,
        '    printf("run: %%d\\n", %s);' % _call(name, t), "    return 0;", "}", "```", "",
        "## ESP-IDF", "",
        "Copy the folder into `components/`; its CMakeLists.txt registers the component.", "",
        "```c", "#include <stdio.h>", '#include "%s.h"' % name, ""] + _buffers(name, t) + [
        "", "void app_main(void) {",
        '    printf("self-test: %%d\\n", %s_selftest());' % name,
        '    printf("run: %%d\\n", %s);' % _call(name, t), "}", "```", "",
        "## Zephyr", "",
        "`add_subdirectory(%s)` from the application's CMakeLists.txt (it becomes a Zephyr "
        "library); the `main.c` above is a Zephyr `main` as it is." % name, "",
        "## Arduino", "",
        "Copy the folder into `~/Arduino/libraries/`.", "",
        "```cpp", "#include <%s.h>" % name, ""] + _buffers(name, t) + [
        "", "void setup() {", "    Serial.begin(115200);",
        '    Serial.print("self-test: ");', "    Serial.println(%s_selftest());" % name,
        "}", "", "void loop() {", "    /* ... fill in0 from a sensor ... */",
        "    %s;" % _call(name, t), "    delay(1000);", "}", "```", ""])
