"""Board program: remove names from the board's globals (those a board program defined)."""


def _forget(names):
    """Remove `names` from the globals; names already gone are fine."""
    g = globals()
    for name in names:
        g.pop(name, None)
