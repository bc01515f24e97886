"""The packages a wheel gets: every folder of Python modules under core/ and host/."""

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _setup_module():
    spec = importlib.util.spec_from_file_location("burn_setup", REPO / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # setup() itself runs only as __main__
    return module


def test_every_folder_of_modules_is_a_package_of_the_wheel():
    packages = set(_setup_module().find_packages(str(REPO)))
    for folder, name in (("core", "burn"), ("host", "burn.host")):
        for py in (REPO / folder).rglob("*.py"):
            rel = py.parent.relative_to(REPO / folder)
            package = ".".join((name,) + rel.parts)
            assert package in packages, "%s is not in a package of the wheel" % py
    assert {"burn.host.autodiff", "burn.host.backends", "burn.host.data",
            "burn.host.train", "burn.host.emulator", "burn.host.firmware"} <= packages
