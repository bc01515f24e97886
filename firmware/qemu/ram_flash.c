/* Flash for burn's QEMU boards, kept in RAM: QEMU's machines give MicroPython's qemu port no
 * flash it can write, so these boards hold a littlefs filesystem (qemu_flash.fs, mounted at
 * / by _boot.py) and a ROMFS partition (qemu_flash.rom, vfs.rom_ioctl's one segment,
 * mounted at /rom) in static RAM. Both behave as the NOR flash of a real board does: a block
 * reads as 0xff once erased, programming only clears bits, writeblocks without an offset
 * erases first. The contents outlive a soft reset, not QEMU.
 *
 * Set by the board: BURN_QEMU_FS_BYTES and BURN_QEMU_ROMFS_BYTES (multiples of 4 KB). */
#include <string.h>

#include "extmod/vfs.h"
#include "py/mperrno.h"
#include "py/mphal.h"
#include "py/runtime.h"

#define BLOCK_BYTES 4096

typedef struct {
    mp_obj_base_t base;
    uint8_t *bytes;
    uint32_t size;
} ram_flash_obj_t;

static uint8_t fs_area[BURN_QEMU_FS_BYTES] __attribute__((aligned(BLOCK_BYTES)));
static uint8_t rom_area[BURN_QEMU_ROMFS_BYTES] __attribute__((aligned(BLOCK_BYTES)));
static bool erased; /* both areas start as erased flash, once per power-on */

static void erase_all_once(void) {
    if (!erased) {
        memset(fs_area, 0xff, sizeof(fs_area));
        memset(rom_area, 0xff, sizeof(rom_area));
        erased = true;
    }
}

/* The byte range [offset, offset + len) of the area, or a ValueError. */
static uint8_t *range(ram_flash_obj_t *self, mp_int_t offset, size_t len) {
    erase_all_once();
    if (offset < 0 || (size_t)offset > self->size || len > self->size - (size_t)offset) {
        mp_raise_ValueError(MP_ERROR_TEXT("outside the flash area"));
    }
    return self->bytes + offset;
}

static mp_int_t ram_flash_get_buffer(mp_obj_t self_in, mp_buffer_info_t *bufinfo,
                                     mp_uint_t flags) {
    ram_flash_obj_t *self = MP_OBJ_TO_PTR(self_in);
    if (flags != MP_BUFFER_READ) {
        return 1; /* read only, as flash mapped in place is */
    }
    bufinfo->buf = range(self, 0, 0);
    bufinfo->len = self->size;
    bufinfo->typecode = 'B';
    return 0;
}

static mp_obj_t ram_flash_readblocks(size_t n_args, const mp_obj_t *args) {
    ram_flash_obj_t *self = MP_OBJ_TO_PTR(args[0]);
    mp_buffer_info_t buf;
    mp_int_t offset = mp_obj_get_int(args[1]) * BLOCK_BYTES;
    mp_get_buffer_raise(args[2], &buf, MP_BUFFER_WRITE);
    if (n_args == 4) {
        offset += mp_obj_get_int(args[3]);
    }
    memcpy(buf.buf, range(self, offset, buf.len), buf.len);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(ram_flash_readblocks_obj, 3, 4, ram_flash_readblocks);

static mp_obj_t ram_flash_writeblocks(size_t n_args, const mp_obj_t *args) {
    ram_flash_obj_t *self = MP_OBJ_TO_PTR(args[0]);
    mp_buffer_info_t buf;
    mp_int_t offset = mp_obj_get_int(args[1]) * BLOCK_BYTES;
    uint8_t *dst;
    size_t i;
    mp_get_buffer_raise(args[2], &buf, MP_BUFFER_READ);
    if (n_args == 4) {
        offset += mp_obj_get_int(args[3]);
        dst = range(self, offset, buf.len);
    } else { /* erase the whole blocks first */
        dst = range(self, offset, (buf.len + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES);
        memset(dst, 0xff, (buf.len + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES);
    }
    for (i = 0; i < buf.len; i++) {
        dst[i] &= ((const uint8_t *)buf.buf)[i]; /* programming clears bits only */
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(ram_flash_writeblocks_obj, 3, 4,
                                           ram_flash_writeblocks);

static mp_obj_t ram_flash_ioctl(mp_obj_t self_in, mp_obj_t cmd_in, mp_obj_t arg_in) {
    ram_flash_obj_t *self = MP_OBJ_TO_PTR(self_in);
    switch (mp_obj_get_int(cmd_in)) {
        case MP_BLOCKDEV_IOCTL_INIT:
        case MP_BLOCKDEV_IOCTL_DEINIT:
        case MP_BLOCKDEV_IOCTL_SYNC:
            return MP_OBJ_NEW_SMALL_INT(0);
        case MP_BLOCKDEV_IOCTL_BLOCK_COUNT:
            return MP_OBJ_NEW_SMALL_INT(self->size / BLOCK_BYTES);
        case MP_BLOCKDEV_IOCTL_BLOCK_SIZE:
            return MP_OBJ_NEW_SMALL_INT(BLOCK_BYTES);
        case MP_BLOCKDEV_IOCTL_BLOCK_ERASE:
            memset(range(self, mp_obj_get_int(arg_in) * BLOCK_BYTES, BLOCK_BYTES), 0xff,
                   BLOCK_BYTES);
            return MP_OBJ_NEW_SMALL_INT(0);
        default:
            return mp_const_none;
    }
}
static MP_DEFINE_CONST_FUN_OBJ_3(ram_flash_ioctl_obj, ram_flash_ioctl);

static const mp_rom_map_elem_t ram_flash_locals_dict_table[] = {
    {MP_ROM_QSTR(MP_QSTR_readblocks), MP_ROM_PTR(&ram_flash_readblocks_obj)},
    {MP_ROM_QSTR(MP_QSTR_writeblocks), MP_ROM_PTR(&ram_flash_writeblocks_obj)},
    {MP_ROM_QSTR(MP_QSTR_ioctl), MP_ROM_PTR(&ram_flash_ioctl_obj)},
};
static MP_DEFINE_CONST_DICT(ram_flash_locals_dict, ram_flash_locals_dict_table);

static MP_DEFINE_CONST_OBJ_TYPE(ram_flash_type, MP_QSTR_RamFlash, MP_TYPE_FLAG_NONE, buffer,
                                ram_flash_get_buffer, locals_dict, &ram_flash_locals_dict);

static const ram_flash_obj_t fs_obj = {{&ram_flash_type}, fs_area, sizeof(fs_area)};
static const ram_flash_obj_t rom_obj = {{&ram_flash_type}, rom_area, sizeof(rom_area)};

/* littlefs stamps files with the time; these machines have no clock but the one since
 * start. */
uint64_t mp_hal_time_ns(void) {
    return (uint64_t)mp_hal_ticks_us() * 1000;
}

mp_obj_t mp_vfs_rom_ioctl(size_t n_args, const mp_obj_t *args) {
    switch (mp_obj_get_int(args[0])) {
        case MP_VFS_ROM_IOCTL_GET_NUMBER_OF_SEGMENTS:
            return MP_OBJ_NEW_SMALL_INT(1);
        case MP_VFS_ROM_IOCTL_GET_SEGMENT:
            return MP_OBJ_FROM_PTR(&rom_obj);
        default:
            return MP_OBJ_NEW_SMALL_INT(-MP_EINVAL);
    }
}

static const mp_rom_map_elem_t qemu_flash_globals_table[] = {
    {MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR_qemu_flash)},
    {MP_ROM_QSTR(MP_QSTR_fs), MP_ROM_PTR(&fs_obj)},
    {MP_ROM_QSTR(MP_QSTR_rom), MP_ROM_PTR(&rom_obj)},
};
static MP_DEFINE_CONST_DICT(qemu_flash_globals, qemu_flash_globals_table);

const mp_obj_module_t qemu_flash_module = {
    .base = {&mp_type_module},
    .globals = (mp_obj_dict_t *)&qemu_flash_globals,
};

MP_REGISTER_MODULE(MP_QSTR_qemu_flash, qemu_flash_module);
