# burn's Cortex-M7 board for MicroPython's qemu port: the port's MPS2_AN500 (QEMU machine
# mps2-an500), with a 1 MB heap (the machine has 4 MB of RAM, which also holds the image).
include $(TOP)/ports/qemu/boards/MPS2_AN500/mpconfigboard.mk
MICROPY_HEAP_SIZE = 1048576

# flex's Cortex-M0+ kernels (Thumb-1 code, which every M-profile core runs) until kernels
# for this core's DSP extension exist: about 1.4-1.6x fewer instructions than the reference
BURNFLEX_OPT = cortex_m0plus
