"""The generated regions (burn.host.codegen): the checkout's are what the op table and flex.h
give (CI fails otherwise), the generator finds and rewrites a stale or edited region, and it
refuses a file whose markers are missing or doubled. The generated C itself is compiled and
run by the flex_c, burnflex and firmware tests."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from burn.graph.ops import PLAN_STEPS, kernels, needs_fpu
from burn.host.codegen import REGIONS, generate, kernel_lists, plan_glue, regions

ROOT = Path(__file__).resolve().parents[2]


def _copy(tmp_path):
    """The files the generator reads and writes, copied into tmp_path."""
    for path in {p for p, _n, _m in REGIONS} | {"flex_c/sources.py"}:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, tmp_path / path)
    shutil.copytree(ROOT / "flex_c" / "include", tmp_path / "flex_c" / "include",
                    dirs_exist_ok=True)
    return tmp_path


def _codegen(*args):
    return subprocess.run([sys.executable, "-m", "burn.host.codegen", *args],
                          capture_output=True, text=True)


def test_the_checkouts_generated_regions_are_up_to_date():
    proc = _codegen("--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr + \
        "\nrun `python -m burn.host.codegen` and commit what it writes"


def test_an_edited_region_is_found_and_written_back(tmp_path):
    root = _copy(tmp_path)
    path = root / "micropython" / "burnflex.c"
    original = path.read_text()
    path.write_text(original.replace("    X(MP_QSTR_mul_s8, mul_s8)", "", 1))
    proc = _codegen("--check", "--root", str(root))
    assert proc.returncode == 1 and "would change: micropython/burnflex.c" in proc.stdout
    assert path.read_text() != original  # --check writes nothing
    proc = _codegen("--root", str(root))
    assert proc.returncode == 0 and "wrote micropython/burnflex.c" in proc.stdout
    assert path.read_text() == original and generate(root) == {}


def test_a_file_without_its_markers_is_refused(tmp_path):
    root = _copy(tmp_path)
    path = root / "flex_c" / "src" / "common" / "plan.c"
    begin, end = regions.markers("plan.c", "step-sizes")
    path.write_text(path.read_text().replace(end, ""))
    proc = _codegen("--check", "--root", str(root))
    assert proc.returncode == 2 and "step-sizes" in proc.stderr and "Traceback" not in \
        proc.stderr
    text = "%s\n%s\n%s\n%s\n" % (begin, end, begin, end)
    with pytest.raises(regions.RegionError, match="found 2"):
        regions.replace(text, "plan.c", "step-sizes", ["x"])


def test_plan_steps_follow_flex_h():
    """Each step holds its kernel's parameters in order; the word and pointer counts are
    what flex_plan_run checks steps against (a conv: 4 + 4 lengths + window 10 + groups +
    quant 4 + dims 4 = 28 words, 6 pointers)."""
    steps = plan_glue.steps()
    assert [s.function.name for s in steps] == [row[0] for row in PLAN_STEPS]
    conv = steps[0]
    assert (conv.words, conv.ptrs, conv.code) == (28, 6, 1)
    pad = next(s for s in steps if s.function.name == "flex_pad")
    assert [s.kind for s in pad.slots] == ["w", "b", "p", "n", "d", "d", "p", "n"]
    assert (pad.words, pad.ptrs) == (7, 4)
    for step in steps:
        assert step.words + step.ptrs <= 48  # burnflex_plan.c's STEP_WORDS
        assert set(step.kernels) <= set(kernels())


def test_kernel_lists_hold_every_bound_kernel_once():
    lists = [kernel_lists.bound(fpu, optional) for fpu in (False, True)
             for optional in (False, True)]
    names = [k for group in lists for k in group]
    assert len(names) == len(set(names))
    assert "conv_s8" in lists[0] and "lstm_s8" in lists[1] and "conv_f32" in lists[2]
    assert all(needs_fpu(k) for k in lists[2] + lists[3])
    assert "copy" not in names and "clamp_s8" not in names


def _hand_written(path):
    """The text of `path` less its generated regions."""
    text = path.read_text()
    for name in {n for p, n, _m in REGIONS if ROOT / p == path}:
        begin, end = regions.markers(str(path), name)
        text = text[:text.index(begin)] + text[text.index(end) + len(end):]
    return text


def test_the_worked_example_names_every_hand_written_file_of_its_kernel():
    """docs/adding-an-op.md's worked example (int16 MEAN and SUM, `reduce_s16`) lists the
    hand-written files it touched, at most eight; outside their generated regions, no other
    file of the checkout names the kernel or its flex_c function."""
    doc = (ROOT / "docs" / "adding-an-op.md").read_text()
    example = doc[doc.index("### Worked example"):doc.index("`python -m burn.host.codegen` "
                                                             "then wrote")]
    listed = set(re.findall(r"^\d+\. ([\w/.]+):", example, re.M))
    assert len(listed) <= 8 and all((ROOT / f).is_file() for f in listed), listed
    naming = set()
    for folder in ("core", "host", "flex_c", "micropython", "firmware", "tests", "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".c", ".h", ".md") and re.search(
                    r"\b(reduce_s16|flex_s16_reduce_sum)\b", _hand_written(path)):
                naming.add(path.relative_to(ROOT).as_posix())
    naming -= {"docs/adding-an-op.md", "tests/host/test_codegen.py"}
    assert naming and naming <= listed, sorted(naming - listed)
