"""setup.py keeps the built `burn._flex` in the user cache, keyed by the flex_c sources,
the compiler and flags, the Python ABI and cffi: an unchanged tree is a cache hit (no
compile), and any change of a source, a header or a flag is a new key (a rebuild)."""

import importlib.util
import shutil
from pathlib import Path

import pytest
from setuptools import Extension

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def setup_py():
    spec = importlib.util.spec_from_file_location("burn_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # setup() itself runs only as __main__
    return module


@pytest.fixture
def tree(tmp_path):
    """A copy of the flex_c sources and of the two host modules setup.py loads, and an
    extension over them with a generated C file, as cffi makes it."""
    shutil.copytree(ROOT / "flex_c", tmp_path / "flex_c",
                    ignore=shutil.ignore_patterns("__pycache__", "build*"))
    (tmp_path / "host").mkdir()
    for name in ("project_files.py", "cache.py"):
        shutil.copy(ROOT / "host" / name, tmp_path / "host" / name)
    generated = tmp_path / "_flex.c"
    generated.write_text('#include "flex.h"\n')
    ext = Extension("burn._flex", sources=[str(generated)], include_dirs=["flex_c/include"],
                    extra_compile_args=["-O3"])
    return tmp_path, ext


def test_a_source_change_changes_the_key(setup_py, tree):
    base, ext = tree
    key = setup_py.extension_key(ext, ["gcc"], base)
    assert setup_py.extension_key(ext, ["gcc"], base) == key
    source = next((base / "flex_c" / "src").rglob("*.c"))
    text = source.read_bytes()
    source.write_bytes(text + b"\n")
    assert setup_py.extension_key(ext, ["gcc"], base) != key
    source.write_bytes(text)
    assert setup_py.extension_key(ext, ["gcc"], base) == key
    (base / "flex_c" / "include" / "flex.h").write_text("/* changed */\n", "utf-8")
    changed = {setup_py.extension_key(ext, ["gcc"], base)}
    (base / "_flex.c").write_text('#include "flex.h"\nint x;\n')
    changed.add(setup_py.extension_key(ext, ["gcc"], base))
    changed.add(setup_py.extension_key(ext, ["clang"], base))
    ext.extra_compile_args = ["-O2"]
    changed.add(setup_py.extension_key(ext, ["gcc"], base))
    assert len(changed) == 4 and key not in changed


def test_an_unchanged_tree_is_a_cache_hit(setup_py, tree, tmp_path, monkeypatch):
    base, ext = tree
    monkeypatch.setenv("BURN_CACHE_DIR", str(tmp_path / "cache"))
    target = tmp_path / "build" / "burn" / "_flex.abi3.so"
    builds = []

    def build():
        builds.append(1)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"built %d" % len(builds))

    key = setup_py.extension_key(ext, ["gcc"], base)
    assert setup_py.cached_build(key, str(target), build, base) is False
    target.unlink()
    again = setup_py.extension_key(ext, ["gcc"], base)
    assert setup_py.cached_build(again, str(target), build, base) is True
    assert builds == [1] and target.read_bytes() == b"built 1"
    ext.extra_compile_args = ["-O0"]
    other = setup_py.extension_key(ext, ["gcc"], base)
    assert setup_py.cached_build(other, str(target), build, base) is False
    assert builds == [1, 1] and target.read_bytes() == b"built 2"
    assert sorted(p.name for p in (tmp_path / "cache" / "flex-ext").iterdir()) == \
        sorted([key, other])
