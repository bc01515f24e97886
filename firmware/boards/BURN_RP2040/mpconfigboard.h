// Raspberry Pi Pico with burn. The storage and ROMFS sizes are compile definitions from
// mpconfigboard.cmake; the board name stays the stock one so hosts recognise the board.
#define MICROPY_HW_BOARD_NAME "Raspberry Pi Pico"
