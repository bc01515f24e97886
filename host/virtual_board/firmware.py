# The virtual board's firmware: runs INSIDE the MicroPython unix port, never under CPython.
#
#   micropython -X heapsize=N firmware.py CMD_FD EVT_FD FLASH_IMAGE BLOCK_BYTES FS_TYPE RUN_MAIN
#
# It mounts the board's flash image (littlefs2 or FAT, through a file-backed block device) at
# "/" in place of the host filesystem, runs boot.py (and main.py), then executes the source
# frames the supervisor sends on CMD_FD, answering each with an event frame on EVT_FD.
# Program output goes to fd 1 as on a board's USB serial; the supervisor does the REPL.
#
# Frames, both directions: 1 kind byte, 4-byte little-endian length, payload.
#   to here:    b"f" source to run as a file (raw REPL), b"s" one interactive statement
#   from here:  b"B" booting (Ctrl-C may now interrupt boot.py/main.py), b"R" ready
#               (payload: version line), b"S" a frame read whole and starting (Ctrl-C may
#               now interrupt it), b"D" done, b"E" error (payload: the traceback
#               text), b"X" SystemExit (the supervisor soft-resets)
import gc
import io
import os
import sys

import vfs

_THIS = sys.argv[0]


class FlashImage:
    """A block device over the flash image file; writes reach the file at once."""

    def __init__(self, path, block_bytes):
        self.f = open(path, "r+b")
        self.block_bytes = block_bytes
        self.f.seek(0, 2)
        self.blocks = self.f.tell() // block_bytes

    def readblocks(self, block, buf, offset=0):
        self.f.seek(block * self.block_bytes + offset)
        self.f.readinto(buf)

    def writeblocks(self, block, buf, offset=0):
        self.f.seek(block * self.block_bytes + offset)
        self.f.write(buf)

    def ioctl(self, op, arg):
        if op == 4:
            return self.blocks
        if op == 5:
            return self.block_bytes
        return 0


def mount_flash(path, block_bytes, fs_type):
    """Mount the image at "/" (formatting it on first boot, as a fresh board does)."""
    fs_class = vfs.VfsFat if fs_type == "fat" else vfs.VfsLfs2
    dev = FlashImage(path, block_bytes)
    vfs.umount("/")
    try:
        vfs.mount(fs_class(dev), "/")
    except OSError:
        fs_class.mkfs(dev)
        vfs.mount(fs_class(dev), "/")
    os.chdir("/")
    sys.path[:] = ["", ".frozen", "/lib"]


def write_all(stream, data):
    """Write every byte, riding out a Ctrl-C that lands while the frame is on its way.

    MicroPython raises a pending KeyboardInterrupt only at jumps or in an interrupted
    system call that moved no data, so no byte is written twice.
    """
    view = memoryview(data)
    while view:
        try:
            while view:
                view = view[stream.write(view):]
        except KeyboardInterrupt:
            pass


def read_exact(stream, n):
    """n bytes of the stream, riding out a Ctrl-C as write_all does: each read adds to the
    count in the same statement, before any jump where an interrupt could be raised."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        try:
            while got < n:
                before = got
                got += stream.readinto(view[got:])  # (an `or` would be a jump)
                if got == before:
                    raise SystemExit(0)  # the supervisor closed the pipe: power off
        except KeyboardInterrupt:
            pass
    return buf


def send(stream, kind, payload=b""):
    n = len(payload)
    head = bytes((kind, n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >> 24) & 255))
    write_all(stream, head + payload)


def traceback_text(exc):
    """The traceback as the board prints it: without this file's own frames."""
    gc.collect()
    out = io.StringIO()
    sys.print_exception(exc, out)
    lines = out.getvalue().split("\n")
    return "\n".join(line for line in lines if _THIS not in line)


def run_source(source, mode, user_globals, filename="<stdin>"):
    """Compile and run one source text; the (kind, payload) event answering it."""
    try:
        exec(compile(source, filename, mode), user_globals)
        return ord("D"), b""
    except SystemExit:
        return ord("X"), b""
    except BaseException as exc:  # a board reports every exception, Ctrl-C included
        error = exc
    while True:
        try:
            return ord("E"), traceback_text(error).encode()
        except KeyboardInterrupt:
            pass


def serve_next(cmd, evt, user_globals):
    """Read the next source frame whole, tell the host it starts ("S": only from then on
    does the host deliver a Ctrl-C, so none lands while a frame is being read), run it and
    answer it. The host delivers one Ctrl-C per program and waits for the answer, so the
    answer is never lost: a Ctrl-C that lands just outside the program itself (MicroPython
    raises it at any jump) becomes the answer, a KeyboardInterrupt traceback, as on a
    board."""
    head = read_exact(cmd, 5)
    body = read_exact(cmd, head[1] | (head[2] << 8) | (head[3] << 16) | (head[4] << 24))
    mode = ("exec", "single")[head[0] == ord("s")]
    result = None
    started = False
    while True:
        try:
            if not started:
                started = True
                # written directly: write_all would swallow the Ctrl-C that may follow
                evt.write(b"S\x00\x00\x00\x00")
                result = run_source(str(body, "utf-8"), mode, user_globals)
                # before "done": the frame's unreachable files are closed (flushed to the
                # flash) while the host waits, not raced by a soft reset that kills us
                gc.collect()
            send(evt, result[0], result[1])
            return
        except KeyboardInterrupt as exc:
            if result is None:
                result = ord("E"), traceback_text(exc).encode()


def run_file_if_exists(name, user_globals):
    try:
        os.stat(name)
    except OSError:
        return
    with open(name) as f:
        source = f.read()
    kind, text = run_source(source, "exec", user_globals, name)
    if kind == ord("E"):
        print(text.decode(), end="")


def main():
    cmd = open(int(sys.argv[1]), "rb")
    evt = open(int(sys.argv[2]), "wb")
    mount_flash(sys.argv[3], int(sys.argv[4]), sys.argv[5])
    user_globals = {"__name__": "__main__"}
    version = sys.version.split("; ")[-1].encode()
    send(evt, ord("B"))
    try:
        run_file_if_exists("boot.py", user_globals)
        if sys.argv[6] == "1":
            run_file_if_exists("main.py", user_globals)
    except KeyboardInterrupt:
        pass  # landed between the scripts
    try:
        gc.collect()
    except KeyboardInterrupt:
        pass  # landed just after the scripts
    send(evt, ord("R"), version)
    while True:
        try:
            serve_next(cmd, evt, user_globals)
        except KeyboardInterrupt:
            pass  # a Ctrl-C that arrived after the program had finished


main()
