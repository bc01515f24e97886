"""The flex backend's host side: flex_c kernels through cffi (`burn._flex`), wrapped so that
status codes become Python exceptions, plus cross-target builds and the Cortex-M emulator."""
