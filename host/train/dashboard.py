"""Training progress: a live terminal dashboard, or plain lines when output is not a tty.

Both receive the same events from the Learner (`start`, `batch`, `epoch`, `message`,
`close`) and expose `stop_requested`, which the Learner checks after every batch. The live
dashboard draws train and valid curves of one metric at a time with braille characters;
the left/right arrow keys switch the metric and `q` asks the Learner to stop after it has
written a checkpoint.
"""

import os
import select
import sys
import threading
import time

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .log import metric_names


def _clock(seconds):
    seconds = max(0, int(seconds))
    return "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


class _Timer:
    """Tracks progress through epochs*batches and estimates the time left."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.done = 0
        self.total = 1

    def eta(self):
        elapsed = time.monotonic() - self.t0
        if not self.done:
            return "?"
        return _clock(elapsed / self.done * (self.total - self.done))


class PlainProgress:
    """One line per reporting interval and per epoch: for CI logs and pipes."""

    def __init__(self, stream=None, every_seconds=5.0):
        self.stream = stream or sys.stdout
        self.every = every_seconds
        self.stop_requested = False
        self.timer = _Timer()
        self._last = 0.0

    def _say(self, text):
        self.stream.write(text + "\n")
        self.stream.flush()

    def start(self, epochs, batches, first_epoch=1):
        """A run of `epochs` epochs of `batches` batches begins (at `first_epoch`)."""
        self.epochs = epochs
        self.batches = batches
        self.timer.total = max(1, (epochs - first_epoch + 1) * batches)
        self._say("training: %d epochs x %d batches" % (epochs, batches))

    def batch(self, epoch, index, loss):
        """Batch `index` (1-based) of `epoch` finished with training loss `loss`."""
        self.timer.done += 1
        now = time.monotonic()
        if now - self._last >= self.every:
            self._last = now
            self._say("epoch %d/%d  batch %d/%d  loss %.4f  eta %s" % (
                epoch, self.epochs, index, self.batches, loss, self.timer.eta()))

    def epoch(self, row):
        """An epoch ended; `row` holds its metrics."""
        parts = ["epoch %d/%d" % (row["epoch"], self.epochs)]
        for k in sorted(row):
            if k not in ("epoch", "time"):
                parts.append("%s %.4g" % (k, row[k]))
        parts.append("(%.1fs)" % row.get("time", 0.0))
        self._say("  ".join(parts))

    def message(self, text):
        """A note for the user (checkpoint written, early stop, divergence)."""
        self._say(text)

    def close(self):
        """The run is over."""


class _Keys:
    """Reads single key presses from a terminal in a background thread."""

    def __init__(self, fd, on_key):
        import termios
        import tty

        self.fd = fd
        self.on_key = on_key
        self.saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
        self.running = True
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        pending = b""
        while self.running:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            chunk = os.read(self.fd, 16)
            if not chunk:
                return
            pending += chunk
            while pending:
                if pending.startswith(b"\x1b[") and len(pending) >= 3:
                    self.on_key({b"C": "right", b"D": "left", b"A": "up",
                                 b"B": "down"}.get(pending[2:3], ""))
                    pending = pending[3:]
                elif pending.startswith(b"\x1b") and len(pending) < 3:
                    break
                else:
                    self.on_key(pending[:1].decode("latin-1"))
                    pending = pending[1:]

    def close(self):
        import termios

        self.running = False
        self.thread.join(timeout=1)
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)


class LiveDashboard:
    """Full-screen curves, a metrics table and a progress line, redrawn as training runs."""

    def __init__(self, console=None, key_fd=None, chart_size=(60, 12)):
        self.console = console or Console()
        self.stop_requested = False
        self.timer = _Timer()
        self.rows = []
        self.metric = 0
        self.status = ""
        self.epoch_now = 0
        self.batch_now = 0
        self.loss_now = float("nan")
        self.chart_size = chart_size
        self.key_fd = sys.stdin.fileno() if key_fd is None else key_fd
        self.live = None
        self.keys = None

    def start(self, epochs, batches, first_epoch=1):
        self.epochs = epochs
        self.batches = batches
        self.timer.total = max(1, (epochs - first_epoch + 1) * batches)
        self.live = Live(self._render(), console=self.console, refresh_per_second=8,
                         transient=False)
        self.live.start()
        if os.isatty(self.key_fd):
            self.keys = _Keys(self.key_fd, self._key)

    def metric_names(self):
        """Base metric names with a curve (e.g. loss, accuracy)."""
        return metric_names(self.rows) or ["loss"]

    def _key(self, key):
        names = self.metric_names()
        if key == "right":
            self.metric = (self.metric + 1) % len(names)
        elif key == "left":
            self.metric = (self.metric - 1) % len(names)
        elif key in ("q", "Q"):
            self.stop_requested = True
            self.status = "stopping: finishing this batch and writing a checkpoint..."
        self._refresh()

    def _refresh(self):
        if self.live is not None:
            self.live.update(self._render())

    def batch(self, epoch, index, loss):
        self.timer.done += 1
        self.epoch_now, self.batch_now, self.loss_now = epoch, index, loss
        self._refresh()

    def epoch(self, row):
        self.rows.append(row)
        self._refresh()

    def message(self, text):
        self.status = text
        self._refresh()

    def close(self):
        if self.keys is not None:
            self.keys.close()
            self.keys = None
        if self.live is not None:
            self._refresh()
            self.live.stop()
            self.live = None

    def _render(self):
        names = self.metric_names()
        name = names[self.metric % len(names)]
        train = [r["train_" + name] for r in self.rows if "train_" + name in r]
        valid = [r["valid_" + name] for r in self.rows if "valid_" + name in r]
        width, height = self.chart_size
        chart = braille_chart([train, valid], width, height)
        legend = Text.assemble(("━ train ", "cyan"), ("━ valid", "magenta"))
        lo_hi = _range_text(train + valid)
        curves = Panel(Group(chart, legend, Text(lo_hi, style="dim")),
                       title="%s  (metric %d/%d, ←/→ to switch)" % (
                           name, self.metric % len(names) + 1, len(names)))
        table = Table(show_header=True, header_style="bold", expand=False)
        table.add_column("epoch", justify="right")
        keys = sorted({k for r in self.rows for k in r} - {"epoch", "time", "lr"})
        for k in keys:
            table.add_column(k, justify="right")
        for r in self.rows[-5:]:
            table.add_row(str(r["epoch"]), *["%.4g" % r[k] if k in r else "" for k in keys])
        progress = Text("epoch %d/%d  batch %d/%d  loss %.4f  eta %s    q: stop" % (
            self.epoch_now, getattr(self, "epochs", 0), self.batch_now,
            getattr(self, "batches", 0), self.loss_now, self.timer.eta()))
        parts = [curves, table, progress]
        if self.status:
            parts.append(Text(self.status, style="yellow"))
        return Group(*parts)


def _range_text(values):
    if not values:
        return "waiting for the first epoch"
    return "min %.4g  max %.4g  last %.4g" % (min(values), max(values), values[-1])


_DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))
_STYLES = ("cyan", "magenta")


def braille_chart(series, width, height):
    """A rich Text plotting each list of numbers as a line (one colour per series) on a
    width x height grid of braille cells (2 x 4 dots each), sharing one y scale."""
    values = [v for s in series for v in s]
    cells = [[[0, 0] for _ in range(width)] for _ in range(height)]
    if values:
        lo, hi = min(values), max(values)
        span = (hi - lo) or 1.0
        px_w, px_h = width * 2, height * 4
        for k, s in enumerate(series):
            points = [(_x_of(i, len(s), px_w), _y_of(v, lo, span, px_h))
                      for i, v in enumerate(s)]
            for (x0, y0), (x1, y1) in zip(points, points[1:] or points):
                for x, y in _line(x0, y0, x1, y1):
                    cells[y // 4][x // 2][k] |= _DOTS[y % 4][x % 2]
    text = Text()
    for row in cells:
        for bits in row:
            both = bits[0] | bits[1]
            style = "white" if bits[0] and bits[1] else _STYLES[0] if bits[0] else _STYLES[1]
            text.append(chr(0x2800 + both), style=style if both else None)
        text.append("\n")
    return text


def _x_of(i, n, px_w):
    return 0 if n <= 1 else round(i * (px_w - 1) / (n - 1))


def _y_of(v, lo, span, px_h):
    return (px_h - 1) - round((v - lo) / span * (px_h - 1))


def _line(x0, y0, x1, y1):
    """Integer points of a line from (x0, y0) to (x1, y1) (Bresenham)."""
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    while True:
        yield x0, y0
        if x0 == x1 and y0 == y1:
            return
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def make_progress(kind="auto"):
    """'live', 'plain' or 'auto' (live on an interactive terminal, plain otherwise)."""
    if kind == "auto":
        kind = "live" if sys.stdout.isatty() and sys.stdin.isatty() else "plain"
    if kind == "live":
        return LiveDashboard()
    if kind == "plain":
        return PlainProgress()
    raise ValueError("dashboard must be 'auto', 'live' or 'plain', got " + repr(kind))
