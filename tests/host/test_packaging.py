"""What the wheel and the sdist get: every Python package of core/ and host/, and the project
trees (flex_c, micropython, firmware, boards) the host tools read at run time, found by
burn.host.project_files from the built package. Runs setup.py's build_py and sdist (no C
compile); .ci/wheel_smoke.sh installs a real wheel."""

import ast
import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _norm(name):
    """A distribution name as pip compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()
# One file of each project tree that a host tool opens at run time.
TREE_FILES = ("flex_c/sources.py", "flex_c/include/flex.h", "flex_c/emulated.ld",
              "micropython/micropython.cmake", "micropython/natmod/Makefile",
              "micropython/package.json", "firmware/manifest.py",
              "firmware/boards/BURN_RP2040/mpconfigboard.h", "boards/rp2040.json")
# Modules host/ imports that the `host` extra does not bring, and why.
NOT_FROM_HOST_EXTRA = {
    "build_ffi": "flex_c/build_ffi.py, loaded from the flex_c tree",
    "vfs": "MicroPython's own module, in code that runs on the virtual board",
    "uctypes": "MicroPython's own module, in a board program (burn.host.board_programs)",
    "machine": "MicroPython's own module, in a board program (burn.host.board_programs)",
    "burnflex": "burn's C module on the board, imported by a board program",
    "cupy": "the gpu extra", "cupyx": "the gpu extra", "cupy_backends": "the gpu extra",
    "capstone": "only burn.host.flex.m4_timing, the benchmarks' Cortex-M4/M33 cycle model "
                "(the dev extra), which says when it is missing",
    "torch": "only burn.host.cuda.launches, the GPU benchmarks' kernel counter, which says "
             "when it is missing",
    "pytest": "the on-device test plugin runs inside pytest (dev extra)",
    "selenium": "only burn.host.web.browser, which the page's tests and benchmark open the "
                "site with (dev extra), and which says when it is missing",
}


def _setup_module():
    spec = importlib.util.spec_from_file_location("burn_setup", REPO / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # setup() itself runs only as __main__
    return module


def _setup(*args, cwd=REPO):
    proc = subprocess.run([sys.executable, str(REPO / "setup.py"), "-q", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="module")
def build_lib(tmp_path_factory):
    """The pure-Python part of the wheel: setup.py build_py into a temporary folder."""
    out = tmp_path_factory.mktemp("build_lib")
    _setup("build_py", "--build-lib", str(out))
    return out


def test_every_folder_of_modules_is_a_package_of_the_wheel():
    packages = set(_setup_module().find_packages(str(REPO)))
    for folder, name in (("core", "burn"), ("host", "burn.host")):
        for py in (REPO / folder).rglob("*.py"):
            rel = py.parent.relative_to(REPO / folder)
            package = ".".join((name,) + rel.parts)
            assert package in packages, "%s is not in a package of the wheel" % py
    assert {"burn.host.autodiff", "burn.host.backends", "burn.host.data",
            "burn.host.train", "burn.host.emulator", "burn.host.firmware"} <= packages


def test_the_build_holds_every_module_of_core_and_host(build_lib):
    """Every Python module, every Node.js script the host runs (the emulator's, the
    WebAssembly runners') and the files of burn web build's page."""
    for folder, target in (("core", build_lib / "burn"), ("host", build_lib / "burn" / "host")):
        for path in [p for suffix in ("py", "mjs", "js", "html")
                     for p in (REPO / folder).rglob("*." + suffix)]:
            if "__pycache__" in path.parts:
                continue
            built = target / path.relative_to(REPO / folder)
            assert built.is_file(), "%s is missing from the wheel (%s)" % (path, built)
    assert (build_lib / "burn" / "host" / "flex" / "wasm_runner.mjs").is_file()
    assert (build_lib / "burn" / "host" / "web" / "burn_web.js").is_file()


def test_the_build_ships_the_project_trees_without_build_outputs(build_lib):
    shipped = build_lib / "burn" / "host" / "_project"
    for rel in TREE_FILES:
        assert (shipped / rel).read_bytes() == (REPO / rel).read_bytes(), rel
    leftovers = [p for p in shipped.rglob("*") if p.suffix in (".o", ".a", ".so", ".mpy", ".pyc")
                 or p.name in ("build", "__pycache__")]
    assert leftovers == []


def test_an_installed_burn_finds_its_trees_in_the_package(build_lib, tmp_path):
    code = ("import json, burn\n"
            "from burn.host import boards, project_files\n"
            "from burn.host.flex import targets\n"
            "from burn.host.firmware import inputs, recipe\n"
            "print(json.dumps({'burn': burn.__file__, 'root': str(project_files.checkout_root()),"
            " 'trees': {n: str(project_files.tree(n)) for n in project_files.TREES},"
            " 'sources': len(targets._sources('cortex-m0plus')),"
            " 'boards': boards.board_names(),"
            " 'manifest': str(recipe.load_recipe('rp2040').manifest),"
            " 'core': inputs.core_files()}))\n")
    env = dict(os.environ, PYTHONPATH=str(build_lib))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    shipped = build_lib / "burn" / "host" / "_project"
    assert Path(found["burn"]).parent == build_lib / "burn"
    assert found["root"] == "None"
    assert found["trees"] == {n: str(shipped / n) for n in ("flex_c", "micropython",
                                                            "firmware", "boards")}
    assert found["sources"] > 10
    assert "rp2040" in found["boards"]
    assert found["manifest"] == str(shipped / "firmware" / "manifest.py")
    assert "__init__.py" in found["core"]
    assert not [f for f in found["core"] if f.startswith("host")]


def test_the_sdist_holds_what_a_complete_wheel_is_built_from(tmp_path):
    _setup("sdist", "--dist-dir", str(tmp_path))
    (archive,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    wanted = set(TREE_FILES) | {"README.md", "setup.py", "pyproject.toml", "MANIFEST.in",
                                "core/__init__.py", "host/project_files.py",
                                "flex_c/build_ffi.py", "docs/getting-started.md",
                                "tests/host/test_packaging.py"}
    assert wanted <= names, sorted(wanted - names)
    assert not [n for n in names if n.startswith("micropython/build/") or n.endswith(".so")]


def _host_imports():
    """Top-level names of the non-standard modules that host/ imports."""
    found = set()
    for path in (REPO / "host").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {name for name in found if name not in sys.stdlib_module_names and name != "burn"}


def test_the_host_extra_brings_every_module_host_imports():
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11")
    with open(REPO / "pyproject.toml", "rb") as f:
        extra = tomllib.load(f)["project"]["optional-dependencies"]["host"]
    wanted = {_norm(re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0]) for req in extra}
    owners = importlib.metadata.packages_distributions()
    missing = []
    for module in sorted(_host_imports() - set(NOT_FROM_HOST_EXTRA)):
        dists = {_norm(d) for d in owners.get(module, [])}
        if not dists & wanted:
            missing.append("%s (from %s)" % (module, ", ".join(sorted(dists)) or "nothing"))
    assert missing == [], "host/ imports modules the host extra does not install: %s" % missing


def test_ci_runs_the_readme_test_command_exactly():
    blocks = re.findall(r"```sh\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    test_command = next(b.strip() for b in blocks if b.strip().endswith("pytest -q"))
    assert "-c constraints.txt" in test_command
    assert test_command in (REPO / ".ci" / "run").read_text()


def test_constraints_pin_every_test_and_oracle_dependency():
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11")
    with open(REPO / "pyproject.toml", "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    wanted = {_norm(re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0])
              for req in extras["host"] + extras["dev"]} - {"burn-micro"}
    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+\-]+", line), line
            name, version = line.split("==")
            assert _norm(name) not in pins, "pinned twice: %s" % name
            pins[_norm(name)] = version
    assert sorted(wanted - set(pins)) == []
    assert pins["torch"] == "2.13.0"  # the CPU build on disk; a newer one pulls CUDA
