"""What can go wrong putting a model on a board: one exception family, each message saying
why and what to do."""


class FlashError(Exception):
    """Flashing failed; the message says why and what to do."""


class IncompatibleBoard(FlashError):
    """The board's MicroPython cannot load the core as compiled here."""


class ModelTooBig(FlashError):
    """The model cannot fit the board's heap or flash; `.what`, `.needed`, `.available`."""

    def __init__(self, message, what, needed, available):
        super().__init__(message)
        self.what = what
        self.needed = needed
        self.available = available


class ModelMemoryError(FlashError):
    """The board ran out of heap loading or running the model (sizes in the message)."""
