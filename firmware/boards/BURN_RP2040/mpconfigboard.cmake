# Raspberry Pi Pico (RP2040) running burn: the port's RPI_PICO board and its pin names; the
# flash split (littlefs and ROMFS sizes) comes from boards/rp2040.json through
# BURN_FS_BYTES and BURN_ROMFS_BYTES, set by `burn firmware build`.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO/pins.csv)
list(APPEND MICROPY_DEF_BOARD
    MICROPY_HW_FLASH_STORAGE_BYTES=${BURN_FS_BYTES}
    MICROPY_HW_ROMFS_BYTES=${BURN_ROMFS_BYTES}
)
