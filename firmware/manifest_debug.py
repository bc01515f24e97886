# ruff: noqa: F821  (include is the manifest language's own function)
# `burn firmware build --debug`: the release manifest with burn's line numbers kept, so board
# tracebacks name the real line of each frame.
include("manifest.py", debug=True)
