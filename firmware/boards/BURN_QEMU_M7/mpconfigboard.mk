# burn's Cortex-M7 board for MicroPython's qemu port: the port's MPS2_AN500 (QEMU machine
# mps2-an500), with a 1 MB heap (the machine has 4 MB of RAM, which also holds the image).
include $(TOP)/ports/qemu/boards/MPS2_AN500/mpconfigboard.mk
MICROPY_HEAP_SIZE = 1048576

# flex's kernels for the DSP extension (flex_c/src/opt/cortex_m_dsp), standing on the
# Cortex-M0+ ones for the ops they leave (Thumb-1 code, which every M-profile core runs)
BURNFLEX_OPT = cortex_m_dsp

# a littlefs filesystem and a ROMFS partition in RAM (firmware/qemu/ram_flash.c)
BURN_QEMU_FS_BYTES = 262144
BURN_QEMU_ROMFS_BYTES = 524288
include $(BOARD_DIR)/../../qemu/ram_flash.mk
