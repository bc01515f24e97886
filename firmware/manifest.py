# ruff: noqa: F821  (include and package are the manifest language's own functions)
# Frozen manifest of burn's firmware: the port's own frozen modules, then the package `burn`.
# `burn firmware build` copies the .py files of core/ into $(BURN_FROZEN)/burn/ (the folder is
# named core/ in the repository) and passes BURN_FROZEN as a manifest variable.
include("$(PORT_DIR)/boards/manifest.py")
package("burn", base_path="$(BURN_FROZEN)")
