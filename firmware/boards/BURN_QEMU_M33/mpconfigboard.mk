# burn's Cortex-M33 board for MicroPython's qemu port, which has none: QEMU's mps2-an505 (the
# SSE-200 subsystem of Arm's AN505 FPGA image), run in the secure state it boots in. The
# single-precision FPU and the DSP extension of the RP2350's cores; a 1 MB heap.
QEMU_ARCH = arm
QEMU_MACHINE = mps2-an505

CFLAGS += -mthumb -mcpu=cortex-m33 -mfloat-abi=hard -mfpu=fpv5-sp-d16
# the CMSDK UART of the MPS2 boards, at UART0's secure address on this one (the prepared
# tree's uart.c takes QEMU_SOC_MPS2_UART0: burn.host.firmware.qemu_port)
CFLAGS += -DQEMU_SOC_MPS2 -DQEMU_SOC_MPS2_UART0=0x50200000
CFLAGS += -DMICROPY_HW_MCU_NAME='"Cortex-M33"'
CFLAGS += -DCPU_FREQ_HZ=20000000

LDSCRIPT = $(BOARD_DIR)/an505.ld
SRC_BOARD_O = shared/runtime/gchelper_generic.o
MPY_CROSS_FLAGS += -march=armv7emsp

MICROPY_FLOAT_IMPL = float
SUPPORTS_HARDWARE_FP_SINGLE = 1
MICROPY_HEAP_SIZE = 1048576

# flex's kernels for the DSP extension (flex_c/src/opt/cortex_m_dsp), standing on the
# Cortex-M0+ ones for the ops they leave (Thumb-1 code, which every M-profile core runs)
BURNFLEX_OPT = cortex_m_dsp

# a littlefs filesystem and a ROMFS partition in RAM (firmware/qemu/ram_flash.c)
BURN_QEMU_FS_BYTES = 262144
BURN_QEMU_ROMFS_BYTES = 524288
include $(BOARD_DIR)/../../qemu/ram_flash.mk
