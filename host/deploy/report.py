"""What flashing found and did (FlashReport), as the lines `burn-flash` prints, and the
transfer's progress line."""

from dataclasses import dataclass

from burn.host.deploy.board_software import REMOTE_NATMOD
from burn.host.deploy.fit import ModelFacts
from burn.host.deploy.measure import latency_cycles
from burn.host.deploy.probe import BoardFacts
from burn.host.deploy.transfer import SendResult, TransferPlan


def grouped(value):
    """`value` with thousands separators: 12,345."""
    return "{:,}".format(value)


@dataclass
class FlashReport:
    """Everything `flash` found and did."""

    where: str
    board: object
    facts: BoardFacts
    arch: str
    software: object  # board_software.BoardSoftware
    model: ModelFacts
    remote_model: str
    plan: TransferPlan
    notes: list
    dry_run: bool = False
    sent: SendResult = None
    measured: dict = None
    fs_free_after: int = None
    rom_written: bool = None  # None: the model is on the filesystem, not in ROMFS

    @property
    def self_test_error(self):
        """The device's self-test failure, or None."""
        if self.measured is None:
            return None
        return self.measured.get("self_test_error") or self.measured.get("load_error")

    @property
    def ok(self):
        """Whether flashing (and the self-test, if it ran) succeeded."""
        return self.self_test_error is None


def plan_lines(report):
    """What would be (or was) sent, removed and kept, one line per file sent or removed."""
    plan = report.plan
    lines = []
    for t in plan.of("remove"):
        lines.append("  remove %-34s %9s bytes  (stale)" % (t.remote, grouped(t.size)))
    for t in plan.of("send"):
        lines.append("  send   %-34s %9s bytes  (%s)" % (t.remote, grouped(t.size), t.reason))
    kept = plan.of("keep")
    lines.append("  %d files to send (%s bytes), %d to remove, %d unchanged on the board"
                 % (len(plan.of("send")), grouped(plan.bytes_to_send), len(plan.of("remove")),
                    len(kept)))
    return lines


def self_test_verdict(count, outputs):
    """What `count` passed reference vectors say of a model with `outputs` (Model.info()'s):
    integer outputs equal the file's references bit for bit, float32 ones lie within the
    self-test's tolerance of them (burn.model.Model.self_test)."""
    exact = sorted({o["dtype"] for o in outputs if o["dtype"] != "float32"})
    said = ["%s outputs equal to the file's references bit for bit" % "/".join(exact)] \
        if exact else []
    if any(o["dtype"] == "float32" for o in outputs):
        said.append("float32 outputs within 1e-4 + 1e-3 x |reference| of the file's references")
    return "%d reference vectors passed: %s" % (count, "; ".join(said) or "no outputs")


def report_lines(report):
    """The human-readable report of a finished flash."""
    lines = []
    s = report.sent
    if s is not None:
        lines.append("sent %d files, %s bytes (%s bytes on the wire) in %.2f s%s; removed %d"
                     % (len(s.sent), grouped(s.payload_bytes), grouped(s.wire_bytes), s.seconds,
                        ", %d reconnects" % s.retries if s.retries else "", len(s.removed)))
    m = report.measured
    model = report.model
    if m is not None:
        if report.self_test_error:
            verdict = "FAILED on the board: " + report.self_test_error
            if model.host_self_test_error:
                verdict += " (the host's runtime disagrees with the file's reference vectors " \
                           "too: the file's references are wrong, not the board)"
        else:
            verdict = self_test_verdict(m["tests"], model.outputs or [])
        lines.append("self-test   " + verdict)
        if "latency_us" in m:
            lines.append("latency     %.3f ms per inference on the board (best %.3f ms, "
                         "%d runs, %s kernels)" % (
                             m["latency_us"] / 1000.0, m["latency_min_us"] / 1000.0,
                             m["runs"], m.get("backend", "?")))
            cycles = latency_cycles(m)
            if cycles is not None:
                lines.append("cycles      %s per inference at the board's %g MHz: %.1f ms at "
                             "125 MHz, %.1f ms at 133 MHz" % (
                                 grouped(cycles), m["freq"] / 1e6, cycles / 125e3, cycles / 133e3))
            lines.extend(cores_lines(m))
            lines.append("heap        %s bytes in use during inference (of %s): the model "
                         "%s (arena %s, buffers %s), the runtime and kernels %s, %s allocated "
                         "by an inference" % (
                             grouped(m["heap_model"] + m["heap_inference"]),
                             grouped(report.facts.heap_total),
                             grouped(m["heap_model"] - m["heap_kernels"]),
                             grouped(model.arena_bytes), grouped(model.buffer_bytes),
                             grouped(m["heap_kernels"] - m["heap_start"]),
                             grouped(m["heap_inference"])))
    soft = report.software
    where = "" if report.rom_written is None else " in ROMFS (%s, read in place)" % (
        report.remote_model)
    flash_line = "flash       model %s%s + core %s + flex module %s bytes" % (
        grouped(model.size) if model is not None else "none", where,
        grouped(soft.core_bytes) if soft.core is not None else "0 (frozen)",
        grouped(len(soft.files.get(REMOTE_NATMOD, b""))))
    if report.fs_free_after is not None:
        flash_line += "; filesystem %s of %s bytes used" % (
            grouped(report.facts.fs_total - report.fs_free_after), grouped(report.facts.fs_total))
    lines.append(flash_line)
    return lines


def cores_lines(measured):
    """The report's lines on the cores an inference used and how each op ran on them
    (Model.info()'s `cores` and each op's `split`); none from a board that does not say."""
    cores = measured.get("cores")
    if not cores:
        return []
    splits = measured.get("splits") or []
    shared = sum(1 for _kind, split in splits if split and not split.startswith("one core"))
    if cores.get("used") == 2:
        head = "cores       2: %d of %d ops split between core 0 and core 1" % (
            shared, len(splits))
    else:
        head = "cores       1: %s" % (cores.get("why") or "one core")
    lines = [head]
    if cores.get("used") == 2:
        lines += ["  op %-3d %-22s %s" % (k, kind, split or "-")
                  for k, (kind, split) in enumerate(splits)]
    return lines


class TransferProgress:
    """A `progress` callback for `send` that shows the whole transfer: a live line on a
    terminal, a line per tenth of the bytes otherwise."""

    def __init__(self, total_bytes, stream):
        self.total = max(total_bytes, 1)
        self.stream = stream
        self.tty = stream.isatty()
        self.done = 0
        self.shown = 0

    def __call__(self, remote, sent, total):
        """One more piece of `remote` has reached the board."""
        now = self.done + sent
        if sent == total:
            self.done += total
        percent = 100 * now // self.total
        if self.tty:
            self.stream.write("\r  sending %3d%%  %-44s" % (percent, remote[-44:]))
            if now >= self.total:
                self.stream.write("\n")
        elif percent >= self.shown + 10 or now >= self.total:
            self.shown = percent - percent % 10
            self.stream.write("  sending %3d%%  (%s of %s bytes)\n" % (percent, grouped(now),
                                                                   grouped(self.total)))
        self.stream.flush()
