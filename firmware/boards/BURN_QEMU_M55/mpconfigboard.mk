# burn's Cortex-M55 board for MicroPython's qemu port: the port's MPS3_AN547 (QEMU machine
# mps3-an547, the Cortex-M55 with the Helium vector extension), its floats single precision:
# the port's double-precision build needs a libm that Debian's toolchain lacks (double_t in
# lib/libm_dbl), and burn's kernels are float32. A 1 MB heap.
MICROPY_FLOAT_IMPL = float
SUPPORTS_HARDWARE_FP_SINGLE = 1
include $(TOP)/ports/qemu/boards/MPS3_AN547/mpconfigboard.mk
SUPPORTS_HARDWARE_FP_DOUBLE = 0
MPY_CROSS_FLAGS := -march=armv7emsp
MICROPY_HEAP_SIZE = 1048576

# flex's Helium (MVE) kernels (flex_c/src/opt/cortex_m_mve: convolution, depthwise, fully
# connected), standing on the DSP-extension ones and those on the Cortex-M0+ ones for the
# ops they leave; the port's -mcpu=cortex-m55 gives gcc MVE
BURNFLEX_OPT = cortex_m_mve

# a littlefs filesystem and a ROMFS partition in RAM (firmware/qemu/ram_flash.c), as much
# as the 2 MB of RAM beside the heap holds
BURN_QEMU_FS_BYTES = 131072
BURN_QEMU_ROMFS_BYTES = 262144
include $(BOARD_DIR)/../../qemu/ram_flash.mk
