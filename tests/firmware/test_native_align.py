"""A change the firmware build makes to its private MicroPython copy: mpy-tool.py freezes
ARMv6-M (Cortex-M0+) and RV32IMC native code word aligned. Applied to the real v1.28.0 tool
when the vendor tree is here; refused, with a clear message, on a tool it does not recognise."""

from pathlib import Path

import pytest

from burn.host import vendor
from burn.host.firmware import FirmwareError
from burn.host.firmware.native_align import MPY_TOOL, word_align_native_code


def _tool_copy(tmp_path, text):
    path = tmp_path.joinpath(*MPY_TOOL)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def _word_aligned_archs(tool_text):
    """The architectures of the tool's `if config.native_arch in (...)` rule that gives
    native code `aligned (4)`."""
    rule = tool_text.index('" __attribute__ ((aligned (4)))"')
    opening = tool_text.rindex("if config.native_arch in (", 0, rule)
    names = tool_text[opening:tool_text.index(")", opening)]
    return {n.strip() for n in names.split("(")[1].split(",") if n.strip()}


def test_the_real_tool_aligns_armv6m_and_rv32_code_to_four_bytes(tmp_path):
    try:
        source = vendor.micropython_source(allow_clone=False)
    except vendor.VendorError as e:
        pytest.skip("no MicroPython source tree: %s" % e)
    original = Path(source).joinpath(*MPY_TOOL).read_text()
    new = {"MP_NATIVE_ARCH_ARMV6M", "MP_NATIVE_ARCH_RV32IMC"}
    assert not new & _word_aligned_archs(original)  # v1.28.0's rule
    path = _tool_copy(tmp_path, original)
    word_align_native_code(tmp_path)
    patched = path.read_text()
    assert _word_aligned_archs(patched) == _word_aligned_archs(original) | new
    word_align_native_code(tmp_path)  # a second time changes nothing
    assert path.read_text() == patched
    assert len(patched) - len(original) == sum(len("            %s,\n" % n) for n in new)


def test_an_unknown_tool_is_refused(tmp_path):
    path = _tool_copy(tmp_path, "# some other mpy-tool\n")
    with pytest.raises(FirmwareError, match="misaligned"):
        word_align_native_code(tmp_path)
    assert path.read_text() == "# some other mpy-tool\n"
