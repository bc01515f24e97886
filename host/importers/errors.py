"""The one error an import raises for a model it cannot convert."""


class TFLiteImportError(ValueError):
    """A TFLite model that cannot be imported: malformed, unsupported, or refused by TFLM.
    The message is one line that names the node (index and op) and the problem; where
    several nodes fail, `problems` holds one line for each."""

    def __init__(self, message, problems=()):
        super().__init__(message)
        self.problems = list(problems) or [message]
