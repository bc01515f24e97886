"""On the board: the model's self-test, its latency and the heap it takes (board program
measure), and the error for a board that ran out of heap."""

from burn.host import board_programs
from burn.host.board_session import is_transport_error
from burn.host.deploy.errors import ModelMemoryError
from burn.host.link import LinkError
from burn.host.link.link import last_literal


def measure(session, remote_model, runs=50, budget_ms=1000, timeout=300.0):
    """Soft-reset the board, load the model from flash, run its self-test and time it.

    Returns the board's measurements (heap figures from gc.mem_alloc(): `heap_start`
    after the reset, `heap_runtime` after importing the runtime, `heap_kernels` after the
    kernels the model uses came in, `heap_model` with the model loaded, `heap_inference`
    allocated by one inference; `latency_us` mean and `latency_min_us`; `tests` passed or
    `self_test_error`). ModelMemoryError when the board has too little heap for it.
    """
    code = board_programs.once("measure", "_measure", remote_model, runs, budget_ms)
    for attempt in range(2):
        try:
            session.link.soft_reset()
            text = session.link.exec(code, timeout=timeout)
            break
        except LinkError as exc:
            if attempt or not is_transport_error(exc):
                raise
            session.reconnect()
    found = last_literal(text)
    return found


def latency_cycles(measured):
    """CPU cycles of the best measured inference (microseconds times the board's clock,
    from machine.freq()), or None when the board did not report its clock. On the emulated
    RP2040 the timer follows the emulated cycles, so this is the emulator's count."""
    freq = measured.get("freq")
    if not freq or "latency_min_us" not in measured:
        return None
    return round(measured["latency_min_us"] * freq / 1e6)


def memory_failure(found, model, name):
    """The ModelMemoryError for a load that ran out of heap on the board, else None."""
    error = found.get("load_error") or found.get("self_test_error") or ""
    if not error.startswith("MemoryError") and "not enough memory" not in error \
            and "limit" not in error:
        return None
    return ModelMemoryError(
        "the board ran out of heap loading %s (%s): the model needs %d bytes for its "
        "buffers (arena %d + layer buffers %d + outputs %d); the board had %d bytes of heap "
        "free after importing the runtime, of %d in all"
        % (name, error, model.buffer_bytes, model.arena_bytes, model.layer_bytes,
           model.output_bytes, found["heap_free"], found["heap_free"] + found["heap_runtime"]))
