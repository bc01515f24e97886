"""flex_c's source layout: reference kernels under their own names, chosen by name by the
optimised ones (no #include of .c files, no function defined in a header but static inline
helpers), flex.h and its parts, sources.py's selection, and the op groups of the size
report."""

import os
import re

import pytest

from burn.host.flex import op_groups, targets

SRC = os.path.join(targets.FLEX_C, "src")
sources = targets._flex_sources()


def _files(ext):
    for root, _dirs, files in os.walk(SRC):
        for name in sorted(files):
            if name.endswith(ext):
                yield os.path.join(root, name)


def _code(path):
    """The file without comments and preprocessor lines."""
    with open(path) as f:
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", f.read(), flags=re.S)
    return re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)


def _header_functions(code):
    """Heads (the text before the opening brace) of the top-level functions defined."""
    heads, depth, start = [], 0, 0
    for i, ch in enumerate(code):
        if ch == "{":
            head = code[start:i].strip()
            if depth == 0 and head.endswith(")") and "=" not in head:
                heads.append(head)
            depth += 1
        elif ch == "}":
            depth -= 1
        if depth == 0 and ch in ";}":
            start = i + 1
    return heads


def test_no_c_file_is_included():
    included = [(os.path.relpath(p, SRC), m) for p in list(_files(".c")) + list(_files(".h"))
                for m in re.findall(r'#include\s+"([^"]+\.c)"', open(p).read())]
    assert included == []


def test_flex_h_includes_each_of_its_parts_and_header_text_holds_them():
    include = os.path.join(targets.FLEX_C, "include")
    with open(os.path.join(include, "flex.h")) as f:
        included = re.findall(r'^#include "(flex/\w+\.h)"$', f.read(), flags=re.M)
    parts = sorted("flex/" + name for name in os.listdir(os.path.join(include, "flex")))
    assert sorted(included) == parts and len(set(included)) == len(included)
    text = sources.header_text()
    assert '#include "flex/' not in text
    for part in parts:
        with open(os.path.join(include, part)) as f:
            assert f.read() in text, part


def test_headers_define_only_static_inline_functions():
    bad = [(os.path.relpath(p, SRC), head.split("(")[0].split()[-1])
           for p in _files(".h") for head in _header_functions(_code(p))
           if not re.match(r"(FLEX_INLINE|static\s+inline)\b", head)]
    assert bad == []


def test_the_header_scan_finds_a_public_definition():
    assert _header_functions("int f(int x) { return x; }\nFLEX_INLINE int g(void) { }") == [
        "int f(int x)", "FLEX_INLINE int g(void)"]


@pytest.mark.parametrize("opt", [None] + sources.opt_targets())
def test_selection(opt):
    paths = sources.sources(opt)
    names = [sources.object_name(p) for p in paths]
    assert len(set(names)) == len(names)
    ref = {n for n in names if n.startswith("ref/")}
    assert ref == {"ref/" + f[:-2] for f in os.listdir(os.path.join(SRC, "ref"))
                   if f.endswith(".c")}
    for entry in os.listdir(os.path.join(SRC, "entry")):
        stem = entry[:-2]
        chosen = [n for n in names if n.endswith("/" + stem) and not n.startswith("ref/")]
        owner = opt  # the folder, or the nearest of its bases, that has the file
        while owner and not os.path.exists(os.path.join(SRC, "opt", owner, entry)):
            owner = sources.BASES.get(owner)
        assert chosen == ["opt/%s/%s" % (owner, stem) if owner else "entry/" + stem]


def _defined(build):
    """{function: object name} of a cross build."""
    return {fn: name for name, _size, fns in build.sizes() for fn in fns}


def test_reference_kernels_keep_their_names_beside_the_optimised_ones():
    m0 = _defined(targets.build("cortex-m0plus"))
    assert m0["flex__ref_s8_conv2d"] == "ref/s8_conv"
    assert m0["flex_s8_conv2d"] == "opt/cortex_m0plus/s8_conv"
    assert m0["flex_s8_avg_pool2d"] == "entry/s8_pool"
    m4 = _defined(targets.build("cortex-m4f", reference=True))
    assert m4["flex_s8_conv2d"] == "entry/s8_conv"
    assert m4["flex__ref_s8_conv2d"] == "ref/s8_conv"
    dsp = _defined(targets.build("cortex-m33"))  # the DSP kernels stand on the M0+ ones
    assert dsp["flex_s8_conv2d"] == "opt/cortex_m_dsp/s8_conv"
    assert dsp["flex_s8_depthwise_conv2d"] == "opt/cortex_m_dsp/s8_depthwise"
    assert dsp["flex_s8_add"] == "opt/cortex_m0plus/s8_elementwise"
    assert dsp["flex__m0_depthwise_3x3"] == "opt/cortex_m0plus/m0_depthwise"
    assert dsp["flex_s8_avg_pool2d"] == "entry/s8_pool"
    rv = _defined(targets.build("riscv32"))  # RISC-V's stand on the portable helpers
    assert rv["flex_s8_conv2d"] == "opt/riscv32/s8_conv"
    assert rv["flex__patch_gather"] == dsp["flex__patch_gather"] == "opt/portable/patch"
    assert rv["flex_s8_add"] == "entry/s8_elementwise"


@pytest.mark.parametrize("target", ["cortex-m0plus", "cortex-m33", "riscv32"])
def test_every_object_has_an_op_group(target):
    build = targets.build(target)
    assert [n for n in build.objects if op_groups.op_group(n) == "other"] == []
    groups = build.group_sizes()
    assert sum(i + f for _g, i, f in groups) == sum(s for _n, s, _f in build.sizes())
    assert sum(i for _g, i, _f in groups) == build.int8_size()
    assert op_groups.op_group("opt/somewhere/new_kernel") == "other"
