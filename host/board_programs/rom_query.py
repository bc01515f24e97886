"""Board program: the board's ROMFS partition, printed as (bytes, block size) or None."""


def _rom_query():
    """Print (size, block size) of ROMFS partition 0, or None when there is none."""
    import vfs

    try:
        rd = vfs.rom_ioctl(2, 0)
        print(repr((len(memoryview(rd)), rd.ioctl(5, 0))))
    except Exception:
        print(repr(None))
