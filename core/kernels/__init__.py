"""Hot-loop kernels of the pure backend (plain Python, with viper twins on MicroPython)."""
