"""burn.host.mpy: the core compiled to .mpy files by the real mpy-cross, cached on disk."""

import re
import shutil

import pytest

import burn
from burn.host import mpy
from burn.host.mpy import unix as mp_unix


def test_every_core_file_compiles_for_armv6m(tmp_path):
    build = mpy.compile_core("armv6m", cache_dir=tmp_path)
    sources = sorted(p.relative_to(mp_unix.core_dir()).with_suffix(".mpy").as_posix()
                     for p in mp_unix.core_dir().rglob("*.py") if "__pycache__" not in p.parts)
    assert [name for name, _ in build.files] == ["burn/" + s for s in sources]
    for name, size in build.files:
        data = (build.root / name).read_bytes()
        assert size == len(data) > 4
        assert data[:2] == b"M\x06"  # mpy file, format version 6
        assert data[2] in (0, mp_unix.NATIVE_ARCHES.index("armv6m") << 2 | 3)
    assert build.total_size == sum(size for _, size in build.files)
    assert not build.cached


def test_second_build_comes_from_the_cache(tmp_path):
    first = mpy.compile_core("armv6m", cache_dir=tmp_path)
    stamps = [(first.root / name).stat().st_mtime_ns for name, _ in first.files]
    again = mpy.compile_core("armv6m", cache_dir=tmp_path)
    assert again.cached and again.root == first.root and again.files == first.files
    assert stamps == [(first.root / name).stat().st_mtime_ns for name, _ in first.files]
    other = mpy.compile_core("x64", cache_dir=tmp_path)
    assert other.root != first.root and not other.cached
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.root.name,
                                                               other.root.name])


def test_changed_source_gets_a_new_build(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(mp_unix.core_dir(), source, ignore=shutil.ignore_patterns("__pycache__"))
    before = mpy.compile_core("armv6m", cache_dir=tmp_path / "cache", source=source)
    with open(source / "__init__.py", "a") as f:
        f.write("\nEXTRA = 1\n")
    after = mpy.compile_core("armv6m", cache_dir=tmp_path / "cache", source=source)
    assert after.root != before.root and not after.cached
    assert dict(after.files)["burn/__init__.mpy"] > dict(before.files)["burn/__init__.mpy"]


def test_x64_build_imports_on_the_unix_port(tmp_path):
    build = mpy.compile_core("x64", cache_dir=tmp_path)
    proc = mp_unix.run_code("import burn; print(burn.__version__, burn.__file__)", [build.root])
    assert proc.returncode == 0, proc.stderr
    version, path = proc.stdout.split()
    assert version == burn.__version__
    assert path == str(build.root / "burn" / "__init__.mpy")


def test_bad_input_is_a_clear_error_and_leaves_no_partial_build(tmp_path):
    with pytest.raises(ValueError, match="compile_core: unknown arch 'cortex-m0'"):
        mpy.compile_core("cortex-m0", cache_dir=tmp_path)
    source = tmp_path / "src"
    source.mkdir()
    (source / "__init__.py").write_text("def broken(:\n")
    with pytest.raises(ValueError, match=r"mpy-cross failed on .*__init__\.py"):
        mpy.compile_core("armv6m", cache_dir=tmp_path / "cache", source=source)
    assert list((tmp_path / "cache").iterdir()) == []


def test_tracebacks_from_the_mpy_core_name_their_lines():
    binary = mp_unix.find_micropython()
    if binary is None:
        pytest.skip("micropython (the MicroPython unix port) not found")
    arch = mp_unix.port_info(binary)[2]
    code = "import burn\nburn.tensor([1.0]).reshape((3,))\n"
    frames = {}
    for opt in (mpy.DEFAULT_OPT, 3):
        build = mpy.compile_core(arch, opt=opt)
        proc = mp_unix.run_code(code, [build.root], binary=binary)
        text = proc.stdout + proc.stderr  # the unix port prints tracebacks on stdout
        assert proc.returncode == 1 and "ValueError: reshape" in text, text
        found = re.search(r'File "burn/tensor\.py", line (\d+), in reshape', text)
        assert found, text
        frames[opt] = int(found.group(1)), build.total_size
    line, with_lines = frames[mpy.DEFAULT_OPT]
    source = (mp_unix.core_dir() / "tensor.py").read_text().splitlines()
    assert line > 1 and "raise" in source[line - 1]
    assert frames[3][0] == 1  # -O3 drops the line numbers: every frame says line 1
    assert 0 < with_lines - frames[3][1] < with_lines // 10  # what they cost in .mpy bytes
