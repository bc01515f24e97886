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


def test_a_build_folder_is_emptied_for_another_checkouts_sources(tmp_path, monkeypatch):
    """The same flag files at another path (another checkout) empty the folder: make would
    take that checkout's older sources for built."""
    import shutil

    from burn.host.firmware import recipe as recipe_module

    recipe = load_recipe("qemu-m33", False, False, None)
    build = tmp_path / "build"
    qemu_port.keep_or_clean(recipe, build)
    (build / "burnflex_args.o").write_bytes(b"an object of the first checkout")
    before = [p.read_bytes() for p in qemu_port._flag_files(recipe)]
    other = tmp_path / "firmware"
    shutil.copytree(recipe.board_dir, other / "boards" / recipe.board_dir.name)
    shutil.copytree(recipe_module.FIRMWARE_DIR / "qemu", other / "qemu")
    monkeypatch.setattr(recipe_module, "FIRMWARE_DIR", other)
    assert [p.read_bytes() for p in qemu_port._flag_files(recipe)] == before
    qemu_port.keep_or_clean(recipe, build)
    assert not (build / "burnflex_args.o").exists()
