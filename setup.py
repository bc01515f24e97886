"""Builds the flex_c extension `burn._flex` with cffi, lists the packages and ships the
project trees the host tools read at run time; all other metadata lives in pyproject.toml."""

import importlib.util
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

# The one place where folders become import packages: core/ is `burn`, host/ is `burn.host`.
ROOTS = (("core", "burn"), ("host", "burn.host"))
HERE = os.path.dirname(os.path.abspath(__file__))


def find_packages(base=HERE):
    """Every folder with an __init__.py under core/ and host/, as its package name."""
    found = []
    for folder, name in ROOTS:
        top = os.path.join(base, folder)
        for root, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            if "__init__.py" in files:
                rel = os.path.relpath(root, top)
                found.append(name if rel == "." else name + "." + rel.replace(os.sep, "."))
    return found


def project_files(base=HERE):
    """host/project_files.py, loaded by path: its tree names and file rule decide what the
    wheel ships and where (burn can't be imported before it is built)."""
    path = os.path.join(base, "host", "project_files.py")
    spec = importlib.util.spec_from_file_location("burn_project_files", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_project_trees(build_lib, base=HERE):
    """Copy each project tree's source files to <build_lib>/burn/host/_project/<tree>/;
    returns the paths written."""
    files = project_files(base)
    written = []
    for name in files.TREES:
        source = os.path.join(base, name)
        target = os.path.join(build_lib, "burn", "host", files.SHIPPED, name)
        shutil.rmtree(target, ignore_errors=True)
        for rel in files.source_files(source):
            dest = os.path.join(target, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(os.path.join(source, rel), dest)
            written.append(dest)
    return written


class BuildPy(build_py):
    """build_py that also ships the project trees (flex_c, micropython, firmware, boards)
    inside burn.host; an editable install reads the checkout's own folders instead."""

    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):
            self.project_outputs = copy_project_trees(self.build_lib)

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + getattr(self, "project_outputs", [])


if __name__ == "__main__":
    setup(cffi_modules=["flex_c/build_ffi.py:ffibuilder"], packages=find_packages(),
          cmdclass={"build_py": BuildPy})
