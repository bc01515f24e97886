# burn's RISC-V board for MicroPython's qemu port: the port's VIRT_RV32 (QEMU machine virt,
# rv32imac with no FPU, as the ESP32-C3's and the RP2350's Hazard3 cores), with a 1 MB heap.
include $(TOP)/ports/qemu/boards/VIRT_RV32/mpconfigboard.mk
MICROPY_HEAP_SIZE = 1048576
MPY_CROSS_FLAGS := -march=rv32imc

# Debian's riscv64-unknown-elf-gcc 12 picks its rv32imac/ilp32 libraries only for
# -march=rv32imac: with the port's rv32imac_zicsr it links the 64-bit ones ("file in wrong
# format"). ISA spec 2.2 keeps the CSR instructions in the base ISA, so the port's startup
# code assembles under rv32imac.
RV32_ARCH = rv32imac
CFLAGS += -misa-spec=2.2
AFLAGS += -misa-spec=2.2
LDFLAGS += -misa-spec=2.2

# no FPU: flex's int8 kernels only, its RISC-V ones (opt/riscv32)
BURNFLEX_OPT = riscv32
BURNFLEX_FLOAT = 0

# Frozen viper code is byte arrays in .text, word aligned by the build's mpy-tool (see
# host/firmware/native_align.py). With linker relaxation on, the linker cannot keep that
# padding after an array of odd length; without it the assembler pads as asked.
CFLAGS += -mno-relax

# a littlefs filesystem and a ROMFS partition in RAM (firmware/qemu/ram_flash.c)
BURN_QEMU_FS_BYTES = 262144
BURN_QEMU_ROMFS_BYTES = 524288
include $(BOARD_DIR)/../../qemu/ram_flash.mk
