# Raspberry Pi Pico (RP2040) running burn: the port's RPI_PICO board and its pin names; the
# flash split (littlefs and ROMFS sizes) comes from boards/rp2040.json through
# BURN_FS_BYTES and BURN_ROMFS_BYTES, set by `burn firmware build`.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO/pins.csv)
list(APPEND MICROPY_DEF_BOARD
    MICROPY_HW_FLASH_STORAGE_BYTES=${BURN_FS_BYTES}
    MICROPY_HW_ROMFS_BYTES=${BURN_ROMFS_BYTES}
)

# Core 1 gets a stack bank of its own for burnflex's worker (micropython/burnflex_cores.c):
# the port's linker layout, rewritten here, moves core 0's 8 KB stack down to SRAM bank 4
# and the top 4 KB of the striped banks, leaving bank 5 (pico-sdk's SCRATCH_X) to core 1;
# the heap is 4 KB smaller.
set(_burn_ld_in ${MICROPY_PORT_DIR}/memmap_mp_rp2040.ld)
file(READ ${_burn_ld_in} _burn_ld)
foreach(_pair
        "RAM(rwx) : ORIGIN =  0x20000000, LENGTH = 256k|RAM(rwx) : ORIGIN =  0x20000000, LENGTH = 252k"
        "SCRATCH_X(rwx) : ORIGIN = 0x20040000, LENGTH = 0k|SCRATCH_X(rwx) : ORIGIN = 0x20041000, LENGTH = 4k"
        "SCRATCH_Y(rwx) : ORIGIN = 0x20040000, LENGTH = 8k|SCRATCH_Y(rwx) : ORIGIN = 0x2003f000, LENGTH = 8k")
    string(REPLACE "|" ";" _pair "${_pair}")
    list(GET _pair 0 _from)
    list(GET _pair 1 _to)
    string(FIND "${_burn_ld}" "${_from}" _at)
    if(_at EQUAL -1)
        message(FATAL_ERROR "BURN_RP2040: ${_burn_ld_in} has no line '${_from}'")
    endif()
    string(REPLACE "${_from}" "${_to}" _burn_ld "${_burn_ld}")
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/memmap_burn_rp2040.ld CONTENT "${_burn_ld}" @ONLY)
set(MICROPY_BOARD_LINKER_SCRIPT ${CMAKE_BINARY_DIR}/memmap_burn_rp2040.ld)
list(APPEND MICROPY_DEF_BOARD BURNFLEX_CORES=1)
