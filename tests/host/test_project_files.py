"""burn.host.project_files: the checkout's trees in a checkout, the shipped copies in an
installed package, and the one rule of which files are sources."""

from pathlib import Path

import pytest

from burn.host import boards, mpy, project_files
from burn.host.firmware import recipe
from burn.host.flex import targets
from burn.host.mpy import natmod

REPO = Path(__file__).resolve().parents[2]


def _touch(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_checkout_reads_its_own_trees():
    assert project_files.checkout_root() == REPO
    for name in project_files.TREES:
        assert project_files.tree(name) == REPO / name
    assert boards.BOARDS_DIR == REPO / "boards"
    assert recipe.FIRMWARE_DIR == REPO / "firmware"
    assert natmod.BINDINGS == REPO / "micropython" and natmod.FLEX_C == REPO / "flex_c"
    assert targets.FLEX_C == str(REPO / "flex_c")


def test_an_installed_package_reads_the_shipped_copies(tmp_path):
    here = tmp_path / "site-packages" / "burn" / "host"
    here.mkdir(parents=True)
    assert project_files.checkout_root(here) is None
    assert project_files.tree("flex_c", here) == here / "_project" / "flex_c"


def test_a_folder_named_host_elsewhere_is_no_checkout(tmp_path):
    here = tmp_path / "host"
    here.mkdir()
    _touch(tmp_path / "setup.py")
    assert project_files.checkout_root(here) is None  # no core/ beside it
    (tmp_path / "core").mkdir()
    assert project_files.checkout_root(here) == tmp_path


def test_an_unknown_tree_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown project tree 'docs'; known: flex_c"):
        project_files.tree("docs")


def test_source_files_leave_out_build_outputs(tmp_path):
    for rel in ("a.c", "inc/a.h", "natmod/Makefile", "build/x.mpy", "build-rp2/y.c",
                "__pycache__/m.cpython-311.pyc", "k.o", "libk.a", "m.so", "w.tmp", "z.mpy"):
        _touch(tmp_path / rel)
    assert project_files.source_files(tmp_path) == ["a.c", "inc/a.h", "natmod/Makefile"]
    assert project_files.source_files(tmp_path, (".h",)) == ["inc/a.h"]


def test_core_files_leave_out_the_host_package_an_install_holds(tmp_path):
    for rel in ("__init__.py", "nn/__init__.py", "host/__init__.py", "host/cli/x.py",
                "hosted.py", "_flex.abi3.so"):
        _touch(tmp_path / rel)
    assert project_files.core_files(tmp_path) == ["__init__.py", "hosted.py", "nn/__init__.py"]
    # what mpy-cross compiles for a board: an installed burn's host code would not compile
    assert mpy.source_files(tmp_path) == [Path("__init__.py"), Path("hosted.py"),
                                          Path("nn/__init__.py")]
