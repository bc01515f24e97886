"""Datasets, loaders and the file formats they read (files made by the tests)."""

import gzip
import struct

import numpy as np
import pytest
from PIL import Image

import burn
from burn.host.convert import to_numpy
from burn.host.data import (
    ArrayDataset,
    DataLoader,
    load_csv,
    load_digits,
    load_idx,
    load_image_folder,
    random_split,
)


def _idx(path, array, code, compress=False):
    header = bytes([0, 0, code, array.ndim]) + struct.pack(">" + "I" * array.ndim,
                                                           *array.shape)
    body = array.astype(array.dtype.newbyteorder(">")).tobytes()
    opener = gzip.open if compress else open
    with opener(path, "wb") as f:
        f.write(header + body)


def test_digits_shapes_and_range():
    ds = load_digits()
    assert len(ds) == 1797
    x, _ = ds[0]
    assert x.shape == (1, 8, 8) and x.dtype == np.float32
    assert 0.0 <= ds.x.min() and ds.x.max() <= 1.0
    assert sorted(set(ds.y.tolist())) == list(range(10))


def test_loader_batches_shuffle_and_resume_order():
    ds = ArrayDataset(np.arange(10, dtype=np.float32).reshape(10, 1), np.arange(10))
    loader = DataLoader(ds, 4, shuffle=True, seed=3)
    assert len(loader) == 3
    first = [to_numpy(y).tolist() for _, y in loader]
    second = [to_numpy(y).tolist() for _, y in loader]
    assert sorted(v for batch in first for v in batch) == list(range(10)) and first != second
    again = DataLoader(ds, 4, shuffle=True, seed=3)
    again.set_epoch(1)
    assert [to_numpy(y).tolist() for _, y in again] == second
    x, y = next(iter(DataLoader(ds, 4)))
    assert x.dtype is burn.float32 and y.dtype is burn.int32 and x.shape == (4, 1)
    assert len(DataLoader(ds, 4, drop_last=True)) == 2
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        DataLoader(ds, 0)


def test_transform_and_split():
    ds = ArrayDataset(np.ones((6, 2), np.float32), np.zeros(6), transform=lambda v: v * 3)
    assert ds[0][0].tolist() == [3.0, 3.0]
    a, b = random_split(ds, [0.5, 0.5], seed=1)
    assert len(a) == 3 and len(b) == 3
    assert sorted(a.indices.tolist() + b.indices.tolist()) == list(range(6))
    x, _ = next(iter(DataLoader(a, 3)))
    assert to_numpy(x).tolist() == [[3.0, 3.0]] * 3
    with pytest.raises(ValueError, match="fractions must be"):
        random_split(ds, [0.5, 0.6])
    with pytest.raises(ValueError, match="6 inputs but 5 labels"):
        ArrayDataset(np.zeros((6, 1)), np.zeros(5))


@pytest.mark.parametrize("compress", [False, True])
def test_idx_files(tmp_path, compress):
    images = np.random.default_rng(0).integers(0, 256, (5, 4, 3)).astype(np.uint8)
    labels = np.array([1, 0, 4, 4, 2], np.uint8)
    suffix = ".gz" if compress else ""
    _idx(tmp_path / ("img" + suffix), images, 0x08, compress)
    _idx(tmp_path / ("lab" + suffix), labels, 0x08, compress)
    ds = load_idx(tmp_path / ("img" + suffix), tmp_path / ("lab" + suffix))
    assert len(ds) == 5 and ds[2][0].shape == (1, 4, 3) and ds[2][1] == 4
    np.testing.assert_allclose(ds.x[:, 0] * 255.0, images, atol=1e-3)


def test_bad_idx_files(tmp_path):
    (tmp_path / "bad").write_bytes(b"\x01\x02\x08\x01")
    with pytest.raises(ValueError, match="not an IDX file"):
        load_idx(tmp_path / "bad", tmp_path / "bad")
    _idx(tmp_path / "short", np.zeros((3, 2, 2), np.uint8), 0x08)
    data = (tmp_path / "short").read_bytes()
    (tmp_path / "short").write_bytes(data[:-2])
    with pytest.raises(ValueError, match="promises 12 elements"):
        load_idx(tmp_path / "short", tmp_path / "short")


def test_csv(tmp_path):
    (tmp_path / "d.csv").write_text("a,b,label\n0.5,1,2\n1.5,-2,0\n")
    ds = load_csv(tmp_path / "d.csv")
    assert len(ds) == 2 and ds[0][0].tolist() == [0.5, 1.0] and ds[0][1] == 2
    (tmp_path / "first.csv").write_text("3,0.5,1\n1,1.5,-2\n")
    assert load_csv(tmp_path / "first.csv", label_column=0)[1][1] == 1
    (tmp_path / "ragged.csv").write_text("1,2,3\n4,5\n")
    with pytest.raises(ValueError, match="row 2 is not 3 numbers"):
        load_csv(tmp_path / "ragged.csv")


def test_image_folder(tmp_path):
    rng = np.random.default_rng(1)
    for name in ("cat", "dog"):
        (tmp_path / name).mkdir()
        for i in range(3):
            pixels = rng.integers(0, 256, (6, 5), dtype=np.uint8)
            Image.fromarray(pixels).save(tmp_path / name / ("%d.png" % i))
    ds, classes = load_image_folder(tmp_path)
    assert classes == ["cat", "dog"] and len(ds) == 6
    assert ds[0][0].shape == (1, 6, 5) and ds.y.tolist() == [0, 0, 0, 1, 1, 1]
    Image.fromarray(np.zeros((3, 3), np.uint8)).save(tmp_path / "dog" / "small.png")
    with pytest.raises(ValueError, match="images differ in size"):
        load_image_folder(tmp_path)
    resized, _ = load_image_folder(tmp_path, size=(4, 4))
    assert resized[0][0].shape == (1, 4, 4)
