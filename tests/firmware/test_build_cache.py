"""The firmware image cache keeps the images used most recently: an image another run keeps
taking from the cache outlives newer builds of other sources (two checkouts sharing one
cache lost an image mid-run while it was kept by build time alone)."""

import json
import os
import time

from burn.host.firmware import build


def _image(folder, name, age):
    entry = folder / name
    entry.mkdir()
    (entry / "sizes.json").write_text(json.dumps({"total": {}}))
    then = time.time() - age
    os.utime(entry / "sizes.json", (then, then))
    return entry


def test_an_image_in_use_outlives_newer_builds(tmp_path):
    in_use = _image(tmp_path, "rp2040-burn-aaaa", 400)
    others = [_image(tmp_path, "rp2040-burn-%d" % k, 300 - 100 * k) for k in range(3)]
    _image(tmp_path, "rp2350-burn-bbbb", 1000)  # another board: never pruned from here
    assert build._cached(in_use).cached  # taken from the cache: marked as used now
    build._prune(others[-1], keep=3)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["rp2040-burn-1", "rp2040-burn-2", "rp2040-burn-aaaa", "rp2350-burn-bbbb"]
