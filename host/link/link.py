"""`Link`: one connection to a MicroPython board (real or virtual) and what you can do on it."""

import ast
from errno import ENOENT
from pathlib import Path

from burn.host.boards import load_board
from burn.host.link import files
from burn.host.link.errors import DeviceError, DeviceMemoryError, LinkError
from burn.host.link.ports import find_port, open_port
from burn.host.link.raw_repl import RawRepl

VIRTUAL_PREFIX = "virtual"


def connect(port=None, board=None, virtual=False, flash_dir=None, timeout=5.0):
    """Open a `Link` to a board.

    `port`: a device path or pyserial URL; "virtual" or "virtual:<board>" starts a virtual
    board; None finds an attached board by its USB id (NoBoardError if there is none).
    `virtual=True` starts a virtual `board` (default rp2040) whose flash lives in `flash_dir`
    (a temporary folder if None); closing the link stops it.
    """
    virtual_board = None
    if port is not None and str(port).split(":", 1)[0] == VIRTUAL_PREFIX:
        virtual = True
        board = str(port).partition(":")[2] or board
    if virtual:
        from burn.host.virtual_board import VirtualBoard

        virtual_board = VirtualBoard(board or "rp2040", flash_dir).start()
        port = virtual_board.port
    elif port is None:
        port = find_port(board)
    try:
        link = Link(port, board=board, timeout=timeout)
    except BaseException:
        if virtual_board is not None:
            virtual_board.stop()
        raise
    link.virtual_board = virtual_board
    return link


class Link:
    """A MicroPython board on a serial port, driven through its raw REPL.

    Every method raises a `LinkError` subclass on failure; code that raises on the board
    gives `DeviceError` (with the board's traceback) or `DeviceMemoryError` (with sizes).
    """

    def __init__(self, port, board=None, timeout=5.0):
        self.port = str(port)
        self.board = load_board(board) if board is not None else None
        self.virtual_board = None
        self._conn = open_port(self.port)
        self.repl = RawRepl(self._conn, self.port)
        try:
            self.repl.enter(timeout)
        except BaseException:
            self._conn.close()
            raise

    # ---- running code -------------------------------------------------------------------------

    def exec(self, code, timeout=10.0, on_output=None):
        """Run `code` on the board; its printed output as text (newlines as '\\n').

        `timeout`: seconds the code may run (None: no limit); past it the code is interrupted
        and LinkTimeout raised. `on_output(bytes)` sees output live.
        """
        out, err = self.repl.exec_raw(code, timeout, on_output)
        text = _text(out)
        if err:
            raise self._device_error(_text(err), text)
        return text

    def eval(self, expression, timeout=10.0):
        """The value of a Python literal expression evaluated on the board."""
        text = self.exec("print(repr(%s))" % expression, timeout)
        try:
            return ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            raise LinkError(
                "the board printed %r for %s, not a literal" % (text, expression)
            ) from None

    def exec_literal(self, code, timeout=10.0):
        """Run `code`, whose last printed line is a Python literal; that literal."""
        return last_literal(self.exec(code, timeout))

    def _device_error(self, traceback, output):
        if "MemoryError" not in traceback.splitlines()[-1]:
            return DeviceError(traceback, output)
        try:
            heap = self.mem_info()
        except LinkError:
            return DeviceMemoryError(traceback, output)
        return DeviceMemoryError(traceback, output, heap["free"], heap["total"])

    def interrupt(self):
        """Ctrl-C, then back to a clean raw REPL prompt."""
        self.repl.enter()

    def soft_reset(self):
        """Soft-reset the board (fresh heap, files kept); returns what boot.py printed."""
        return _text(self.repl.soft_reset())

    # ---- facts ------------------------------------------------------------------------------

    def info(self):
        """{'platform', 'version', 'mpy' (sys.implementation._mpy or None), 'machine'}."""
        text = self.exec(
            "import sys\nprint(repr((sys.platform, sys.version, "
            "getattr(sys.implementation, '_mpy', None), "
            "getattr(sys.implementation, '_machine', ''))))"
        )
        platform, version, mpy, machine = ast.literal_eval(text.strip())
        return {"platform": platform, "version": version, "mpy": mpy, "machine": machine}

    def mem_info(self):
        """Heap after a collection: {'free', 'alloc', 'total'} in bytes."""
        free, alloc = self.eval("(lambda gc: (gc.collect(), gc.mem_free(), gc.mem_alloc())[1:])"
                                "(__import__('gc'))")
        return {"free": free, "alloc": alloc, "total": free + alloc}

    def fs_info(self, path="/"):
        """(total, free) bytes of the filesystem holding `path`."""
        stat = self.eval("__import__('os').statvfs(%r)" % path)
        return stat[0] * stat[2], stat[0] * stat[3]

    # ---- files ------------------------------------------------------------------------------

    def put_file(self, local, remote, progress=None):
        """Copy a host file (or bytes) to `remote`, atomically, hash-checked; its SHA-256.

        `progress(sent, total)` sees the bytes that have reached the board so far.
        """
        data = local if isinstance(local, (bytes, bytearray)) else Path(local).read_bytes()
        return files.put_bytes(self, bytes(data), remote, progress=progress)

    def get_file(self, remote, local=None):
        """The bytes of `remote`, hash-checked; also written to `local` if given."""
        data = files.get_bytes(self, remote)
        if local is not None:
            tmp = Path(str(local) + files.PART_SUFFIX)
            tmp.write_bytes(data)
            tmp.replace(local)
        return data

    def sha256(self, remote):
        """SHA-256 (hex) of a file on the board computed there; None if there is no such file."""
        return files.remote_hashes(self, [remote])[remote]

    def stat(self, remote):
        """(mode, size) of a file or folder on the board; DeviceError (ENOENT) if absent."""
        mode, size = self.eval("(lambda s: (s[0], s[6]))(__import__('os').stat(%r))" % remote)
        return mode, size

    def exists(self, remote):
        """Whether a file or folder exists on the board."""
        try:
            self.stat(remote)
        except DeviceError as exc:
            if exc.errno == ENOENT:
                return False
            raise
        return True

    def ls(self, path="/"):
        """[(name, size, is_dir)] of a folder on the board."""
        return files.listdir(self, path)

    def mkdir(self, path):
        """Create a folder and its parents on the board."""
        files.makedirs(self, path)

    def rm(self, path):
        """Remove a file (or an empty folder) on the board."""
        self.exec("import os\ntry:\n    os.remove(%r)\nexcept OSError:\n    os.rmdir(%r)\n"
                  % (path, path))

    def rename(self, src, dst):
        """Rename a file on the board."""
        self.exec("import os\nos.rename(%r, %r)" % (src, dst))

    def sync_dir(self, local_dir, remote_dir, pattern="*.py"):
        """Upload files matching `pattern` under `local_dir` whose contents differ on the board.

        Returns the remote paths written.
        """
        local_dir = Path(local_dir)
        found = [path.relative_to(local_dir).as_posix()
                 for path in sorted(local_dir.rglob(pattern)) if "__pycache__" not in path.parts]
        return self.sync_files(local_dir, found, remote_dir)

    def sync_files(self, local_dir, relative_paths, remote_dir):
        """Upload the files `relative_paths` (relative to `local_dir`, kept relative under
        `remote_dir`) whose contents differ on the board. Returns the remote paths written."""
        wanted = {remote_dir.rstrip("/") + "/" + rel: (Path(local_dir) / rel).read_bytes()
                  for rel in relative_paths}
        present = files.remote_hashes(self, list(wanted))
        written = []
        for remote, data in wanted.items():
            if present.get(remote) != files.sha256_hex(data):
                self.put_file(data, remote)
                written.append(remote)
        return written

    # ---- lifetime ---------------------------------------------------------------------------

    def close(self):
        """Leave the raw REPL, close the port, stop a virtual board this link started."""
        try:
            if self.repl.in_raw:
                self.repl.leave()
        except LinkError:
            pass
        finally:
            self._conn.close()
            if self.virtual_board is not None:
                self.virtual_board.stop()
                self.virtual_board = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "Link(%r)" % self.port


def last_literal(text):
    """The Python literal on the last line of what a board printed (LinkError if none)."""
    lines = text.strip().splitlines()
    try:
        return ast.literal_eval(lines[-1])
    except (IndexError, ValueError, SyntaxError):
        raise LinkError("the board printed %r, not a literal on its last line"
                        % text[-200:]) from None


def _text(data):
    return data.decode("utf-8", "replace").replace("\r\n", "\n")

