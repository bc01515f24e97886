"""Builds MicroPython firmware for a board with burn inside: the core package frozen in as
bytecode, the flex C module compiled in, and a ROMFS partition for models.

`recipe` says what a board's firmware is made of, `toolchain` finds the Arm compiler and
picotool, `tree` prepares a private copy of the MicroPython source (with the one change of
`native_align`), `inputs` keys the cache,
`build` runs the build and `sizes` reports where the flash and RAM go.
"""


class FirmwareError(RuntimeError):
    """A firmware build cannot start or failed; the message says why and what to do."""


class BuildFailed(FirmwareError):
    """The build ran and failed, or made an image that does not fit: the sources or the
    recipe are at fault, not a missing tool."""
