"""The Learner: epochs of training and validation with metrics, checkpoints, resume,
early stopping, a NaN/inf guard and live progress."""

import math
import time

import numpy as np

from ..autodiff import no_grad
from ..convert import to_numpy
from . import checkpoint as ckpt
from . import log, rng_state
from .dashboard import make_progress
from .losses import cross_entropy
from .optim import clip_grad_norm_


class FitResult:
    """What `fit` returns: the metric rows, why it stopped, and the run folder."""

    def __init__(self, history, stop_reason, run_dir):
        self.history = history
        self.stop_reason = stop_reason
        self.run_dir = run_dir

    def best(self, key, mode="max"):
        """The row with the best value of `key`."""
        rows = [r for r in self.history if key in r]
        pick = max if mode == "max" else min
        return pick(rows, key=lambda r: r[key]) if rows else None

    def __repr__(self):
        return "FitResult(epochs=%d, stop_reason=%r)" % (len(self.history), self.stop_reason)


class Learner:
    """Trains `model` with `optimizer` on batches from DataLoaders.

    - `loss_fn(outputs, targets)` -> scalar tensor (default cross-entropy).
    - `schedule` steps once per epoch (or per batch with `schedule_per="batch"`).
    - `run_dir`: where checkpoints (`epoch-NNNN.ckpt`, `best.ckpt`) and metrics.jsonl /
      metrics.csv go; None keeps nothing on disk.
    - `monitor`/`mode` choose the best checkpoint; `patience` enables early stopping.
    - `dashboard`: 'auto', 'live', 'plain' or an object with the dashboard events.
    - `capture=True` (cupy backend): each training step, forward, backward and update, is
      recorded once per batch shape and replayed as a CUDA graph (burn.host.cuda.graph);
      it needs an optimizer that runs on the GPU (burn.host.cuda.optim.Adam) and no
      gradient clipping. A non-finite loss stops training after that step's update.
    """

    def __init__(self, model, optimizer, loss_fn=cross_entropy, schedule=None,
                 schedule_per="epoch", run_dir=None, keep_last=3, monitor="valid_loss",
                 mode="min", patience=None, clip_grad_norm=None, dashboard="auto",
                 classification=True, capture=False):
        if mode not in ("min", "max"):
            raise ValueError("Learner: mode must be 'min' or 'max', got " + repr(mode))
        if schedule_per not in ("epoch", "batch"):
            raise ValueError("Learner: schedule_per must be 'epoch' or 'batch'")
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.schedule = schedule
        self.schedule_per = schedule_per
        self.run_dir = run_dir
        self.store = ckpt.CheckpointDir(run_dir, keep_last) if run_dir else None
        self.monitor = monitor
        self.mode = mode
        self.patience = patience
        self.clip = clip_grad_norm
        self.progress = make_progress(dashboard) if isinstance(dashboard, str) else dashboard
        self.classification = classification
        if capture and (clip_grad_norm or not getattr(optimizer, "on_device", False)):
            raise ValueError("Learner: capture=True needs an optimizer that runs on the GPU "
                             "(burn.host.cuda.optim.Adam) and no clip_grad_norm")
        self.capture = capture
        self._graph = None

    def _better(self, value, best):
        if best is None:
            return True
        return value < best if self.mode == "min" else value > best

    def _resume(self, train):
        """Restore the newest checkpoint (and, into `train`, its shuffling); returns (first
        epoch, history, best score).

        A run folder without checkpoints starts at epoch 1 with an empty log. One whose
        checkpoints are all unreadable is refused: starting over there would silently throw
        the run away, and the user must decide."""
        if self.store is None:
            return 1, [], None
        payload, skipped = self.store.newest()
        if payload is None and skipped:
            raise ValueError(
                "cannot resume: no checkpoint in %s can be read (%s); nothing was changed. "
                "To start this run again from epoch 1, move those files away or call "
                "fit(..., resume=False) (which also rewrites metrics.jsonl)."
                % (self.run_dir, "; ".join(skipped)))
        for problem in skipped:
            self.progress.message("skipped " + problem)
        if payload is None:
            log.replace(self.run_dir, [])
            self.progress.message("no checkpoint in %s: starting at epoch 1" % self.run_dir)
            return 1, [], None
        try:
            self._restore_rng(payload, train)
            ckpt.load_model_state(self.model, payload["model"])
            if payload["optimizer"] is not None:
                self.optimizer.load_state_dict(payload["optimizer"])
            if self.schedule is not None and payload["schedule"] is not None:
                self.schedule.load_state_dict(payload["schedule"])
            done = payload["epoch"] if payload["epoch_finished"] else payload["epoch"] - 1
            history = [r for r in payload["history"] if r["epoch"] <= done]
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            # the payload came from the newest epoch file but the ones newest() skipped
            path = self.store.path(self.store.epochs()[-1 - len(skipped)])
            raise ValueError("cannot resume from %s: its state does not fit this run (%s: %s); "
                             "the run folder was not changed" % (
                                 path, type(e).__name__, " ".join(str(e).split())[:200])) \
                from None
        log.replace(self.run_dir, history)
        self.progress.message("resumed from epoch %d" % done)
        return done + 1, history, payload["best_score"]

    def _restore_rng(self, payload, train):
        """Continue the random-number streams the checkpoint was written in; a checkpoint
        of an older burn has none, and the run goes on with a warning."""
        if payload.get("rng") is None:
            self.progress.message(
                "warning: the checkpoint of epoch %s holds no random-number state (an older "
                "burn wrote it): training continues, but its dropout masks and shuffles "
                "differ from those of an uninterrupted run" % payload.get("epoch"))
            return
        rng_state.restore(payload["rng"], train)

    def _save(self, epoch, history, best_score, finished, is_best, train):
        if self.store is None:
            return
        payload = ckpt.snapshot(self.model, self.optimizer, self.schedule, epoch, history,
                                best_score, finished, rng_state.capture(train))
        self.store.save(epoch, payload, best=is_best)

    def fit(self, train, valid=None, epochs=10, resume=False):
        """Train for `epochs` epochs (continuing a saved run when `resume`)."""
        if epochs < 1:
            raise ValueError("fit: epochs must be >= 1, got " + repr(epochs))
        first, history, best_score = self._resume(train) if resume else (1, [], None)
        if self.run_dir and not resume:
            log.replace(self.run_dir, [])
        stale, stop_reason = 0, "completed"
        self.progress.start(epochs, len(train), first)
        try:
            for epoch in range(first, epochs + 1):
                if hasattr(train, "set_epoch"):
                    train.set_epoch(epoch)
                t0 = time.monotonic()
                row, stop_reason = self._train_epoch(train, epoch)
                if stop_reason == "diverged":
                    self.progress.message(
                        "training stopped: the loss became %s in epoch %d; the last good "
                        "checkpoint is kept%s" % (row["loss"], epoch, self._where()))
                    break
                if stop_reason == "user":
                    self._save(epoch, history, best_score, False, False, train)
                    self.progress.message("stopped by request; checkpoint written" +
                                          self._where())
                    break
                if valid is not None:
                    row.update(self._evaluate(valid, "valid_"))
                row["epoch"] = epoch
                row["lr"] = self.optimizer.lr
                row["time"] = time.monotonic() - t0
                history.append(row)
                if self.schedule is not None and self.schedule_per == "epoch":
                    self.schedule.step()
                score = row.get(self.monitor)
                is_best = score is not None and self._better(score, best_score)
                if is_best:
                    best_score, stale = score, 0
                else:
                    stale += 1
                self._save(epoch, history, best_score, True, is_best, train)
                if self.run_dir:
                    log.append(self.run_dir, row)
                self.progress.epoch(row)
                if self.patience is not None and stale >= self.patience and epoch < epochs:
                    stop_reason = "early_stopping"
                    self.progress.message("early stopping: %s did not improve for %d epochs"
                                          % (self.monitor, self.patience))
                    break
            if stop_reason == "completed":
                self.progress.message("completed: all %d epochs ran" % epochs)
        finally:
            self.progress.close()
        return FitResult(history, stop_reason, self.run_dir)

    def _where(self):
        return " in " + self.run_dir if self.run_dir else ""

    def _train_epoch(self, loader, epoch):
        self.model.train()
        total, count, correct = 0.0, 0, 0
        for index, (x, y) in enumerate(loader, 1):
            if self.capture:
                out, loss = self._captured_step(x, y)
                value = loss.item()
            else:
                out = self.model(x)
                loss = self.loss_fn(out, y)
                value = loss.item()
            if not math.isfinite(value):
                return {"loss": value}, "diverged"
            if not self.capture:
                self.optimizer.zero_grad()
                loss.backward()
                if self.clip:
                    clip_grad_norm_(self.optimizer.params, self.clip)
                self.optimizer.step()
            if self.schedule is not None and self.schedule_per == "batch":
                self.schedule.step()
            n = y.shape[0]
            total += value * n
            count += n
            if self.classification:
                correct += _correct(out, y)
            self.progress.batch(epoch, index, value)
            if self.progress.stop_requested:
                return {}, "user"
        row = {"train_loss": total / max(count, 1)}
        if self.classification:
            row["train_accuracy"] = correct / max(count, 1)
        return row, "completed"

    def _captured_step(self, x, y):
        """(outputs, loss) of one training step, replayed as a CUDA graph."""
        if self._graph is None:
            from ..cuda.graph import graph

            def step(x, y):
                out = self.model(x)
                loss = self.loss_fn(out, y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                return out, loss

            state = list(self.model.parameters()) + list(self.model.buffers())
            self._graph = graph(step, state, key=lambda: self.optimizer.lr)
        return self._graph(x, y)

    def _evaluate(self, loader, prefix):
        """Mean loss (and accuracy) over a loader, in eval mode without recording."""
        self.model.eval()
        total, count, correct = 0.0, 0, 0
        with no_grad():
            for x, y in loader:
                out = self.model(x)
                n = y.shape[0]
                total += self.loss_fn(out, y).item() * n
                count += n
                if self.classification:
                    correct += _correct(out, y)
        row = {prefix + "loss": total / max(count, 1)}
        if self.classification:
            row[prefix + "accuracy"] = correct / max(count, 1)
        return row


def _correct(out, y):
    return int((to_numpy(out).argmax(axis=1) == to_numpy(y)).sum())


def fit(model, train, valid=None, epochs=10, optimizer=None, **options):
    """Train `model` (see Learner for the options); returns a FitResult."""
    if optimizer is None:
        from .optim import Adam

        optimizer = Adam(model.parameters(), lr=1e-3)
    resume = options.pop("resume", False)
    return Learner(model, optimizer, **options).fit(train, valid, epochs, resume=resume)


def predict(model, loader):
    """Class predictions of `model` over a loader (numpy int array), in eval mode."""
    model.eval()
    preds = []
    with no_grad():
        for x, _ in loader:
            preds.append(to_numpy(model(x)).argmax(axis=1))
    return np.concatenate(preds) if preds else np.zeros(0, dtype=np.int64)


__all__ = ["FitResult", "Learner", "fit", "predict"]
