"""A ROMFS image whose file data runs past its record is refused, not read out of bounds;
every truncation of a valid image is a RomfsError."""

import pytest

from burn.host.romfs import RomfsError, build_image, read_image


def test_data_past_its_record_is_refused():
    image = bytearray(build_image({"model.bst": b"abcdefgh"}))
    at = bytes(image).index(b"abcdefgh")
    assert image[at - 1] == 8  # the data chunk's length
    image[at - 1] = 0x7F
    with pytest.raises(RomfsError, match="runs past"):
        read_image(bytes(image))


def test_every_truncation_is_a_romfs_error():
    image = build_image({"a.bst": bytes(range(40)), "b.txt": b"hi"})
    assert read_image(image)["b.txt"][1] == 2
    for n in range(len(image) - 1):
        with pytest.raises(RomfsError):
            read_image(image[:n])
