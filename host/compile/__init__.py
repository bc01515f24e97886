"""`burn compile`: a model as C code for any firmware (package.compile_model)."""
