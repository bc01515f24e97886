"""burn: a tensor core and nn modules that run unchanged on CPython and MicroPython."""

__version__ = "0.1.0"
