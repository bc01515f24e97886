# ruff: noqa: F821  (include, package and options are the manifest language's own names)
# Frozen manifest of burn's firmware: the port's own frozen modules, then the package `burn`.
# `burn firmware build` copies the .py files of core/ into $(BURN_FROZEN)/burn/ (the folder is
# named core/ in the repository) and passes BURN_FROZEN as a manifest variable.
# The release build freezes burn at -O3, without line numbers (about 7 KB less flash);
# manifest_debug.py includes this file with debug=True to keep them.
options.defaults(debug=False)
include("$(PORT_DIR)/boards/manifest.py")
package("burn", base_path="$(BURN_FROZEN)", opt=None if options.debug else 3)
