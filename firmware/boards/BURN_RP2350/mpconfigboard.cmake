# Raspberry Pi Pico 2 (RP2350, Arm cores) running burn: the port's RPI_PICO2 board, its
# default (Arm) platform and pin names; the flash split comes from boards/rp2350.json through
# BURN_FS_BYTES and BURN_ROMFS_BYTES, set by `burn firmware build`.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO2/mpconfigboard.cmake)
include(${MICROPY_PORT_DIR}/boards/RPI_PICO2/mpconfigvariant.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO2/pins.csv)
list(APPEND MICROPY_DEF_BOARD
    MICROPY_HW_FLASH_STORAGE_BYTES=${BURN_FS_BYTES}
    MICROPY_HW_ROMFS_BYTES=${BURN_ROMFS_BYTES}
)
