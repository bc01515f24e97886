# Included by burn's QEMU board folders: a littlefs filesystem and a ROMFS partition in RAM
# (ram_flash.c), mounted at / and /rom by the frozen _boot.py (firmware/manifest_bare.py),
# which the prepared tree's main.c runs at start when BURN_QEMU_BOOT is set
# (burn.host.firmware.qemu_port), and a console that sleeps while idle (uart_idle.c). The
# board sets BURN_QEMU_FS_BYTES and BURN_QEMU_ROMFS_BYTES.
BURN_QEMU_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
MICROPY_VFS_LFS2 = 1
SRC_C += $(abspath $(BURN_QEMU_DIR)/ram_flash.c) $(abspath $(BURN_QEMU_DIR)/uart_idle.c)
CFLAGS += -DMICROPY_VFS_ROM_IOCTL=1 -DBURN_QEMU_BOOT=1 \
          -DBURN_QEMU_FS_BYTES=$(BURN_QEMU_FS_BYTES) -DBURN_QEMU_ROMFS_BYTES=$(BURN_QEMU_ROMFS_BYTES)
