# ruff: noqa: F821  (package and options are the manifest language's own names)
# Frozen manifest of burn's firmware for ports without frozen modules of their own (qemu):
# the package `burn`, from $(BURN_FROZEN) as in manifest.py, and the boot script that mounts
# the boards' filesystem and ROMFS partition (firmware/qemu).
options.defaults(debug=False)
package("burn", base_path="$(BURN_FROZEN)", opt=None if options.debug else 3)
module("_boot.py", base_path="$(BOARD_DIR)/../../qemu")
