"""Builds the flex_c extension `burn._flex` with cffi and lists the packages; all other
metadata lives in pyproject.toml."""

import os

from setuptools import setup

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


if __name__ == "__main__":
    setup(cffi_modules=["flex_c/build_ffi.py:ffibuilder"], packages=find_packages())
