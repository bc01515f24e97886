"""The make build folder of a QEMU board is emptied when the files that set its compiler
flags change (make rebuilds an object when its sources change, not its flags), and kept
otherwise."""

from burn.host.firmware import qemu_port
from burn.host.firmware.recipe import load_recipe


def test_a_build_folder_is_kept_until_its_flags_change(tmp_path):
    recipe = load_recipe("qemu-rv32", False, False, None)
    build = tmp_path / "build"
    qemu_port.keep_or_clean(recipe, build)
    (build / "uart.o").write_bytes(b"an object")
    qemu_port.keep_or_clean(recipe, build)  # the same flags: the objects stay
    assert (build / "uart.o").is_file()
    names = [p.name for p in qemu_port._flag_files(recipe)]
    assert "mpconfigboard.mk" in names and "ram_flash.mk" in names
    assert "micropython.mk" in names
    (build / qemu_port.FLAGS_STAMP).write_text("the flags of an earlier board folder")
    qemu_port.keep_or_clean(recipe, build)
    assert not (build / "uart.o").exists()
    assert (build / qemu_port.FLAGS_STAMP).read_text() == qemu_port.flags_digest(recipe)
