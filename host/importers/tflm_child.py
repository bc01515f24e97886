"""Run the TFLM interpreter in a child process, with a time and a memory limit.

TFLM is C++: a hostile model can crash it or make it loop, and it prints diagnostics on the
process's stderr. So the importer never runs it in its own process. `run_tflm` writes the
model and the inputs to a temporary folder, starts `python -m burn.host.importers.tflm_child
FOLDER`, and reads the outputs back. The child limits its own address space and CPU time
(`resource.setrlimit`) before it loads TFLM; the parent kills it after a wall-clock limit.
Whatever goes wrong becomes one `TFLMError` line, with TFLM's stderr summarised.

TFLM's arena starts at `arena` bytes (the importer passes burn's planned arena plus
headroom) and doubles, up to `ARENA_MAX`, while TFLM fails to allocate its tensors.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile

import numpy as np

ARENA_MAX = 256 << 20
MEMORY_LIMIT = ARENA_MAX + (768 << 20)  # the arena plus Python, numpy and TFLM themselves
TIME_LIMIT = 60  # seconds


class TFLMError(RuntimeError):
    """TFLM could not run the model; `refused` is True when it said so cleanly (an error
    status), False when it crashed, ran out of time or memory."""

    def __init__(self, reason, refused):
        RuntimeError.__init__(self, "TFLM could not run this model: " + reason)
        self.refused = refused


def stderr_summary(text):
    """TFLM's stderr in one line: its first line and how many more there were."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    more = " (+%d more line%s)" % (len(lines) - 1, "s" if len(lines) > 2 else "") \
        if len(lines) > 1 else ""
    return "TFLM said: %s%s" % (lines[0][:160], more)


def _signal_name(status):
    try:
        return signal.Signals(-status).name
    except ValueError:
        return "signal %d" % -status


def run_tflm(data, input_sets, outputs, arena, timeout=TIME_LIMIT, memory=MEMORY_LIMIT):
    """Run TFLM on model bytes `data` for each list of input arrays in `input_sets`.
    Returns (output sets, one line summarising TFLM's stderr or ''); each output set is the
    list of the model's `outputs` output arrays. Raises TFLMError."""
    with tempfile.TemporaryDirectory(prefix="burn-tflm-") as folder:
        with open(os.path.join(folder, "model.tflite"), "wb") as f:
            f.write(data)
        arrays = {"in_%d_%d" % (i, k): x for i, ins in enumerate(input_sets)
                  for k, x in enumerate(ins)}
        np.savez(os.path.join(folder, "inputs.npz"), **arrays)
        request = {"sets": len(input_sets), "inputs": len(input_sets[0]) if input_sets else 0,
                   "outputs": int(outputs),
                   "arena": int(arena), "arena_max": ARENA_MAX, "memory": int(memory),
                   "cpu": int(timeout)}
        with open(os.path.join(folder, "request.json"), "w") as f:
            json.dump(request, f)
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        with open(os.path.join(folder, "stderr.txt"), "wb") as err:
            try:
                status = subprocess.run(
                    [sys.executable, "-m", "burn.host.importers.tflm_child", folder],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                    env=env, timeout=timeout, check=False).returncode
            except subprocess.TimeoutExpired:
                status = None
        with open(os.path.join(folder, "stderr.txt"), "rb") as f:
            noise = stderr_summary(f.read().decode("utf-8", "replace"))
        return _result(folder, status, noise, request)


def _result(folder, status, noise, request):
    timeout, memory = request["cpu"], request["memory"]
    sets, outputs = request["sets"], request["outputs"]

    def fail(reason, refused=False):
        raise TFLMError(reason + ("; " + noise if noise else ""), refused)

    if status is None:
        fail("no answer in %d s" % timeout)
    if status < 0:
        fail("it was killed by %s (a crash, or the %d MiB memory / %d s CPU limit)"
             % (_signal_name(status), memory >> 20, timeout))
    answer_path = os.path.join(folder, "answer.json")
    if not os.path.exists(answer_path):
        fail("it exited with status %d" % status)
    with open(answer_path) as f:
        answer = json.load(f)
    if answer.get("error"):
        fail(answer["error"], refused=answer["refused"])
    with np.load(os.path.join(folder, "outputs.npz"), allow_pickle=False) as z:
        return [[z["out_%d_%d" % (i, k)] for k in range(outputs)]
                for i in range(sets)], noise


def _child(folder):
    """The child's side: limits, TFLM, the answer file. Exit status 0 when it answered."""
    import resource

    with open(os.path.join(folder, "request.json")) as f:
        req = json.load(f)
    resource.setrlimit(resource.RLIMIT_AS, (req["memory"], req["memory"]))
    resource.setrlimit(resource.RLIMIT_CPU, (req["cpu"], req["cpu"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        answer = _invoke(folder, req)
    except Exception as e:  # every failure is reported in the answer file
        # TFLM's own refusals are RuntimeErrors; anything else means it could not even try.
        refused = isinstance(e, RuntimeError)
        text = str(e) if refused else "%s: %s" % (type(e).__name__, e)
        answer = {"error": " ".join(text.split()), "refused": refused}
    with open(os.path.join(folder, "answer.json"), "w") as f:
        json.dump(answer, f)


def _interpreter(runtime, data, arena, arena_max, stderr_path):
    """A TFLM interpreter whose arena is the first size from `arena` (doubling) that works.
    The arena grows only while what TFLM prints says that it was too small."""
    while True:
        printed = os.path.getsize(stderr_path)
        try:
            return runtime.Interpreter.from_bytes(data, arena_size=arena), arena
        except RuntimeError:
            with open(stderr_path, "rb") as f:
                f.seek(printed)
                said = f.read().lower()
            if arena * 2 > arena_max or not (b"resize buffer" in said or b"arena" in said):
                raise
            arena *= 2


def _invoke(folder, req):
    from tflite_micro.python.tflite_micro import runtime

    with open(os.path.join(folder, "model.tflite"), "rb") as f:
        data = f.read()
    interp, arena = _interpreter(runtime, data, req["arena"], req["arena_max"],
                                 os.path.join(folder, "stderr.txt"))
    outputs = {}
    with np.load(os.path.join(folder, "inputs.npz"), allow_pickle=False) as z:
        for i in range(req["sets"]):
            for k in range(req["inputs"]):
                x = z["in_%d_%d" % (i, k)]
                if interp.get_input_details(k)["dtype"] == np.bool_:  # held as int8 0/1
                    x = x.astype(np.bool_)
                interp.set_input(x, k)
            interp.invoke()
            for k in range(req["outputs"]):
                outputs["out_%d_%d" % (i, k)] = np.array(interp.get_output(k))
    np.savez(os.path.join(folder, "outputs.npz"), **outputs)
    return {"arena": arena}


if __name__ == "__main__":
    _child(sys.argv[1])
