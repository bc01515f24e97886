"""Builds the flex_c extension `burn._flex` with cffi, lists the packages and ships the
project trees the host tools read at run time; all other metadata lives in pyproject.toml.

The built extension is kept in the user cache (`$BURN_CACHE_DIR` or ~/.cache/burn, folder
`flex-ext/<key>`), keyed by its sources, compiler, flags, Python ABI, platform and cffi
version, so a re-install with unchanged flex_c sources copies it instead of compiling."""

import hashlib
import importlib.util
import os
import shutil
import sys
import sysconfig

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

# The one place where folders become import packages: core/ is `burn`, host/ is `burn.host`.
ROOTS = (("core", "burn"), ("host", "burn.host"))
HERE = os.path.dirname(os.path.abspath(__file__))


def find_packages(base=HERE):
    """Every folder with an __init__.py under core/ and host/, as its package name."""
    found = []
    for folder, name in ROOTS:
        top = os.path.join(base, folder)
        for root, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            if "__init__.py" in files:
                rel = os.path.relpath(root, top)
                found.append(name if rel == "." else name + "." + rel.replace(os.sep, "."))
    return found


def _host_module(name, base=HERE):
    """host/<name>.py, loaded by path (burn can't be imported before it is built)."""
    path = os.path.join(base, "host", name + ".py")
    spec = importlib.util.spec_from_file_location("burn_setup_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def project_files(base=HERE):
    """host/project_files.py: its tree names and file rule decide what the wheel ships and
    where, and which flex_c files key the extension build."""
    return _host_module("project_files", base)


def extension_key(ext, compiler_command, base=HERE):
    """The cache key of extension `ext`: a hash of every flex_c source file, the extension's
    own sources (cffi's generated C file among them), the compiler command, flags, Python
    ABI, platform and cffi version."""
    import cffi

    digest = hashlib.sha256()
    flex_c = os.path.join(base, "flex_c")
    files = [(rel, os.path.join(flex_c, rel)) for rel in project_files(base).source_files(flex_c)]
    files += [(os.path.basename(p), p) for p in ext.sources]
    for rel, path in files:
        with open(path, "rb") as f:
            digest.update(b"%d %s\0%d\0" % (len(rel), rel.encode(), os.path.getsize(path)))
            digest.update(f.read())
    for part in (compiler_command, ext.include_dirs, ext.define_macros, ext.undef_macros,
                 ext.extra_compile_args, ext.extra_link_args, ext.libraries,
                 getattr(ext, "py_limited_api", None), sys.implementation.cache_tag,
                 sysconfig.get_config_var("EXT_SUFFIX"), sysconfig.get_platform(),
                 cffi.__version__, [os.environ.get(v) for v in
                                    ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED")]):
        digest.update(repr(part).encode() + b"\0")
    return digest.hexdigest()[:32]


def cached_build(key, target, build, base=HERE):
    """Put the cached file of `key` at `target`, or run build() (which writes `target`) and
    cache what it wrote; True on a cache hit. Both copies go through a temporary name."""
    folder = _host_module("cache", base).cache_dir("flex-ext", key)
    cached = os.path.join(str(folder), os.path.basename(target))
    if os.path.isfile(cached):
        _copy_atomic(cached, target)
        return True
    build()
    _copy_atomic(target, cached)
    return False


def _copy_atomic(source, target):
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    tmp = "%s.%d.tmp" % (target, os.getpid())
    shutil.copy2(source, tmp)
    os.replace(tmp, target)


class BuildExt(build_ext):
    """build_ext that takes an extension from the user cache when its key matches (cffi
    wraps this class and generates its C file first)."""

    def build_extension(self, ext):
        command = getattr(self.compiler, "compiler_so", None) or [type(self.compiler).__name__]
        key = extension_key(ext, list(command) + list(self.include_dirs or ()))
        if cached_build(key, self.get_ext_fullpath(ext.name),
                        lambda: super(BuildExt, self).build_extension(ext)):
            print("%s: unchanged sources, taken from the cache (key %s)" % (ext.name, key))
        else:
            print("%s: compiled, and cached for the next build (key %s)" % (ext.name, key))


def copy_project_trees(build_lib, base=HERE):
    """Copy each project tree's source files to <build_lib>/burn/host/_project/<tree>/;
    returns the paths written."""
    files = project_files(base)
    written = []
    for name in files.TREES:
        source = os.path.join(base, name)
        target = os.path.join(build_lib, "burn", "host", files.SHIPPED, name)
        shutil.rmtree(target, ignore_errors=True)
        for rel in files.source_files(source):
            dest = os.path.join(target, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(os.path.join(source, rel), dest)
            written.append(dest)
    return written


class BuildPy(build_py):
    """build_py that also ships the project trees (flex_c, micropython, firmware, boards)
    inside burn.host; an editable install reads the checkout's own folders instead."""

    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):
            self.project_outputs = copy_project_trees(self.build_lib)

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + getattr(self, "project_outputs", [])


if __name__ == "__main__":
    setup(cffi_modules=["flex_c/build_ffi.py:ffibuilder"], packages=find_packages(),
          cmdclass={"build_py": BuildPy, "build_ext": BuildExt})
