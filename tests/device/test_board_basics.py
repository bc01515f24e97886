# Runs ON the board (MicroPython-safe): the board itself, before any burn code.
import gc
import os
import sys


def test_runs_micropython():
    assert sys.implementation.name == "micropython"


def test_flash_file_roundtrip():
    data = bytes(range(256)) * 8
    with open("/roundtrip.bin", "wb") as f:
        f.write(data)
    try:
        assert os.stat("/roundtrip.bin")[6] == len(data)
        with open("/roundtrip.bin", "rb") as f:
            assert f.read() == data
    finally:
        os.remove("/roundtrip.bin")


def test_flash_reports_free_space():
    stat = os.statvfs("/")
    block, total, free = stat[0], stat[2], stat[3]
    assert block > 0 and 0 < free <= total


def test_heap_fits_a_quarter_of_free_memory():
    gc.collect()
    buf = bytearray(gc.mem_free() // 4)
    buf[-1] = 7
    assert buf[-1] == 7


def test_allocation_larger_than_heap_raises_memory_error():
    gc.collect()
    heap = gc.mem_free() + gc.mem_alloc()
    try:
        bytearray(heap * 2)
    except MemoryError:
        return
    raise AssertionError("allocating twice the heap did not raise MemoryError")
