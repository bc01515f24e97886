"""Importers: models of other frameworks converted to the `.bst` graph (`burn.host.bst_writer`)."""

MAX_TESTS = 100  # reference tests an import may store (each holds a full input and output)
