"""Cache entries that several processes ask for at once (test workers on a fresh machine)
are filled once: burn.host.cache.held_lock, and the MicroPython source tree unpacked from
its archive (burn.host.vendor), which a second unpacker once removed under a reader."""

import io
import multiprocessing
import tarfile
import time

from burn.host import cache, vendor


def _hold(path, held, release):
    with cache.held_lock(path):
        held.set()
        release.wait(30)


def test_a_second_process_waits_for_the_lock_and_is_told(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    held, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(tmp_path / "x.lock", held, release))
    holder.start()
    try:
        assert held.wait(30)
        told = []

        def waiting():
            told.append(time.monotonic())
            release.set()

        with cache.held_lock(tmp_path / "x.lock", waiting):
            got = time.monotonic()
        assert len(told) == 1 and got >= told[0]
    finally:
        release.set()
        holder.join(30)
    with cache.held_lock(tmp_path / "x.lock", lambda: told.append("again")):
        pass  # free now: no wait
    assert len(told) == 1


def _archive(path, name, files):
    with tarfile.open(path, "w:xz") as tar:
        for rel, size in files:
            data = bytes(range(256)) * (size // 256)
            info = tarfile.TarInfo("%s/%s" % (name, rel))
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _unpack_and_read(cache_root, archive, name, files, out):
    import os

    os.environ["BURN_CACHE_DIR"] = cache_root
    tree = vendor._unpack(archive, name)
    sizes = [(tree / rel).stat().st_size for rel, _ in files]
    out.put((str(tree), sizes))


def test_processes_unpacking_one_archive_at_once_all_get_the_whole_tree(tmp_path):
    name = "tree-1"
    files = [("dir%d/file%d.bin" % (i % 7, i), 256 * (1 + i % 40)) for i in range(300)]
    archive = tmp_path / "tree.tar.xz"
    _archive(archive, name, files)
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_unpack_and_read,
                         args=(str(tmp_path / "cache"), archive, name, files, out))
             for _ in range(4)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    want = [size for _, size in files]
    assert all(sizes == want for _, sizes in results)
    assert {tree for tree, _ in results} == {str(tmp_path / "cache" / "src" / name)}
    left = sorted(p.name for p in (tmp_path / "cache" / "src").iterdir())
    assert left == [".%s.lock" % name, name]
