"""Importers: models of other frameworks converted to the `.bst` graph (`burn.host.bst_writer`)."""
