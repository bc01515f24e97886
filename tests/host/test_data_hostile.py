"""Hostile dataset files give a clear ValueError in bounded memory: a gzip IDX file that
expands without end, an IDX header promising too much, corrupt gzip, non-integer CSV
labels, and image files PIL cannot read."""

import gzip
import struct
import tracemalloc

import numpy as np
import pytest

from burn.host.data import sources
from burn.host.data.sources import load_csv, load_image_folder, read_idx


def test_gzip_bomb_idx_reads_only_what_the_header_promises(tmp_path):
    path = tmp_path / "bomb.idx.gz"
    with gzip.open(path, "wb") as f:
        f.write(bytes([0, 0, 0x08, 1]) + struct.pack(">I", 16))
        for _ in range(64):  # 64 MiB of zeros behind a 16-byte promise
            f.write(bytes(1 << 20))
    assert path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="promises 16 elements"):
            read_idx(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak


def test_idx_header_promising_too_much(tmp_path):
    path = tmp_path / "huge.idx"
    path.write_bytes(bytes([0, 0, 0x0E, 3]) + struct.pack(">III", 1 << 20, 1 << 20, 1 << 20))
    with pytest.raises(ValueError, match="more than the %d allowed" % sources.MAX_IDX_BYTES):
        read_idx(path)


def test_corrupt_gzip_idx(tmp_path):
    path = tmp_path / "bad.idx.gz"
    path.write_bytes(gzip.compress(bytes([0, 0, 8, 1, 0, 0, 0, 9]) + bytes(9))[:-12] + b"x")
    with pytest.raises(ValueError, match="cannot read"):
        read_idx(path)


@pytest.mark.parametrize("label", ["nan", "1e400", "2.5", "-inf"])
def test_csv_label_must_be_an_integer(tmp_path, label):
    (tmp_path / "d.csv").write_text("1,2,0\n3,4,%s\n" % label)
    with pytest.raises(ValueError, match="row 2: label '%s' is not an integer" % label):
        load_csv(tmp_path / "d.csv")


def test_unreadable_image(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    (tmp_path / "cat").mkdir()
    pil.fromarray(np.zeros((4, 4), np.uint8)).save(tmp_path / "cat" / "good.png")
    (tmp_path / "cat" / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(ValueError, match=r"bad\.png: not a readable image"):
        load_image_folder(tmp_path)
