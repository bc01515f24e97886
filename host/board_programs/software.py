"""Board program: what the board imports as `burn` and `burnflex` now, printed as a dict."""


def _software():
    """Print {'core': (file, version)?, 'flex': file or '(built in)'?, 'flex_error': text?};
    the modules are dropped again, so that a later import reads the files then there."""
    import sys

    r = {}
    try:
        import burn

        r["core"] = (burn.__file__, burn.__version__)
    except ImportError:
        pass
    try:
        import burnflex

        r["flex"] = getattr(burnflex, "__file__", "(built in)")
    except (ImportError, ValueError) as e:
        r["flex_error"] = str(e)
    for k in ("burn", "burnflex"):
        sys.modules.pop(k, None)
    print(repr(r))
