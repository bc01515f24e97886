"""The one error an import raises for a model it cannot convert."""


class TFLiteImportError(ValueError):
    """A TFLite model that cannot be imported: malformed, unsupported, or refused by TFLM.
    The message is one line that names the node (index and op) and the problem."""
