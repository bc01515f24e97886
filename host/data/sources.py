"""Data sources: the built-in digits set, MNIST-format IDX files, CSV and image folders."""

import csv
import gzip
import os
import struct

import numpy as np

from .dataset import ArrayDataset


def load_digits(transform=None):
    """The 8x8 handwritten digits (1,797 samples, 10 classes) shipped with scikit-learn,
    as float32 images [N, 1, 8, 8] scaled to [0, 1] and int labels."""
    from sklearn.datasets import load_digits as _sk_digits

    d = _sk_digits()
    x = (d.images.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)
    return ArrayDataset(x, d.target.astype(np.int64), transform)


MAX_IDX_BYTES = 1 << 31  # what one IDX file may promise: a compressed file cannot grow past it
_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4",
              0x0E: ">f8"}


def read_idx(path):
    """An ndarray from an IDX file (the MNIST format), gzip-compressed or not. Only the
    bytes its header promises are read (at most MAX_IDX_BYTES), so a compressed file that
    expands without end costs no more."""
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            data = f.read(4)
            if len(data) < 4 or data[0] != 0 or data[1] != 0:
                raise ValueError(str(path) + ": not an IDX file (bad magic)")
            kind, ndim = data[2], data[3]
            if kind not in _IDX_TYPES:
                raise ValueError(str(path) + ": unknown IDX element type 0x%02x" % kind)
            dims = f.read(4 * ndim)
            if len(dims) < 4 * ndim:
                raise ValueError(str(path) + ": truncated IDX header")
            shape = struct.unpack(">" + "I" * ndim, dims)
            dtype = np.dtype(_IDX_TYPES[kind])
            count = 1
            for d in shape:
                count *= d
            if count * dtype.itemsize > MAX_IDX_BYTES:
                raise ValueError("%s: IDX header promises %d bytes, more than the %d allowed"
                                 % (path, count * dtype.itemsize, MAX_IDX_BYTES))
            body = f.read(count * dtype.itemsize + 1)  # one more: extra data is an error
    except (OSError, EOFError) as e:  # gzip's errors for a corrupt stream included
        raise ValueError("%s: cannot read: %s" % (path, e)) from None
    if len(body) != count * dtype.itemsize:
        raise ValueError(str(path) + ": IDX header promises " + str(count) +
                         " elements but the file holds " + str(len(body) // dtype.itemsize))
    return np.frombuffer(body, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))


def load_idx(images_path, labels_path, transform=None):
    """Images [N, H, W] and labels [N] from IDX files, as float32 [N, 1, H, W] in [0, 1]."""
    images = read_idx(images_path)
    labels = read_idx(labels_path)
    if images.ndim != 3:
        raise ValueError(str(images_path) + ": expected [N, H, W] images, got shape " +
                         repr(images.shape))
    x = images.astype(np.float32)[:, None] / (255.0 if images.dtype == np.uint8 else 1.0)
    return ArrayDataset(x, labels.astype(np.int64), transform)


def load_csv(path, label_column=-1, skip_header=None, transform=None):
    """Numeric CSV rows: features as float32 and one integer label column."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    if not rows:
        raise ValueError(str(path) + ": empty CSV file")
    if skip_header is None:
        skip_header = not _numeric(rows[0])
    rows = rows[1:] if skip_header else rows
    width = len(rows[0])
    feats, labels = [], []
    for i, r in enumerate(rows):
        if len(r) != width or not _numeric(r):
            raise ValueError(str(path) + ": row " + str(i + 1 + skip_header) +
                             " is not " + str(width) + " numbers: " + repr(r))
        values = [float(v) for v in r]
        label = values.pop(label_column)
        if not (label == label and abs(label) < 1 << 53 and label == int(label)):
            raise ValueError("%s: row %d: label %r is not an integer" % (
                path, i + 1 + skip_header, r[label_column]))
        labels.append(int(label))
        feats.append(values)
    return ArrayDataset(np.asarray(feats, np.float32), np.asarray(labels, np.int64), transform)


def _numeric(row):
    try:
        [float(v) for v in row]
    except ValueError:
        return False
    return True


def _read_image(image_module, path, size, grayscale):
    """One image as a float32 array in [0, 1]; ValueError for a file PIL cannot read or a
    decompression bomb (PIL's own pixel limit)."""
    try:
        with image_module.open(path) as img:
            img = img.convert("L" if grayscale else "RGB")
            if size is not None:
                img = img.resize((size[1], size[0]))
            return np.asarray(img, dtype=np.float32) / 255.0
    except (OSError, image_module.DecompressionBombError) as e:
        raise ValueError("%s: not a readable image: %s" % (path, e)) from None


def load_image_folder(root, size=None, grayscale=True, transform=None):
    """Images in `root/<class name>/*.png|jpg|bmp`, labels by sorted class name.

    Returns (dataset, class_names); images are float32 [C, H, W] in [0, 1], resized to
    `size` (h, w) when given (all images must otherwise share one size).
    """
    from PIL import Image

    if not os.path.isdir(root):
        raise ValueError(str(root) + ": not a directory")
    classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    if not classes:
        raise ValueError(str(root) + ": no class sub-folders found")
    xs, ys = [], []
    for label, name in enumerate(classes):
        folder = os.path.join(root, name)
        for fname in sorted(os.listdir(folder)):
            if not fname.lower().endswith((".png", ".jpg", ".jpeg", ".bmp")):
                continue
            a = _read_image(Image, os.path.join(folder, fname), size, grayscale)
            xs.append(a[None] if grayscale else a.transpose(2, 0, 1))
            ys.append(label)
    if not xs:
        raise ValueError(str(root) + ": no images found")
    shapes = {x.shape for x in xs}
    if len(shapes) > 1:
        raise ValueError(str(root) + ": images differ in size " + repr(sorted(shapes)) +
                         "; pass size=(h, w)")
    return ArrayDataset(np.stack(xs), np.asarray(ys, np.int64), transform), classes
