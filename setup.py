"""Builds the flex_c extension `burn._flex` with cffi; all metadata lives in pyproject.toml."""

from setuptools import setup

setup(cffi_modules=["flex_c/build_ffi.py:ffibuilder"])
