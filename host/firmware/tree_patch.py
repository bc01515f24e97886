"""The changes the firmware build makes to its private copy of MicroPython (burn.host.firmware
.tree): each replaces one known passage of a file, once, and refuses a file that does not
hold it as the expected version does."""

from burn.host.firmware import FirmwareError


def replace_once(path, old, new, problem):
    """Put `new` in place of the one `old` in file `path`; nothing when `new` is there
    already; FirmwareError("<path> <problem>") when `old` is not there exactly once."""
    text = path.read_text()
    if new in text:
        return
    if text.count(old) != 1:
        raise FirmwareError("%s %s" % (path, problem))
    path.write_text(text.replace(old, new))
