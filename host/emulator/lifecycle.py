"""What every emulated board shares: a process started by `start()` and ended by `close()`,
used as a context manager, stopped as a VirtualBoard is, named by its board and port."""


class BoardProcess:
    """Mixin of an emulated board: the class gives `start()`, `close()`, `proc`, `board` and
    `port`."""

    def stop(self, timeout=5.0):
        """close() under the name a VirtualBoard uses, so a session stops either alike."""
        self.close(timeout)

    def __enter__(self):
        return self.start() if self.proc is None else self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "%s(%r, port=%r)" % (type(self).__name__, self.board.name, self.port)
