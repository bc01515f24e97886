"""Learning-rate schedules: step, cosine, one-cycle and linear warm-up.

A schedule sets `optimizer.lr` from the number of `step()` calls made so far (one per epoch
or per batch, as the caller chooses). `state_dict()` / `load_state_dict()` save the count.
"""

import math


class Schedule:
    """Base class: `lr_at(t)` gives the rate after t steps; `step()` applies the next one."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.base_lr = optimizer.lr
        self.t = 0
        optimizer.lr = self.lr_at(0)

    def lr_at(self, t):
        """Learning rate after `t` steps."""
        raise NotImplementedError

    def step(self):
        """Advance one step and set the optimizer's learning rate."""
        self.t += 1
        self.optimizer.lr = self.lr_at(self.t)
        return self.optimizer.lr

    def state_dict(self):
        """The step count and the base learning rate."""
        return {"t": self.t, "base_lr": self.base_lr}

    def load_state_dict(self, state):
        """Restore what `state_dict` returned and re-apply the rate."""
        self.t = int(state["t"])
        self.base_lr = float(state["base_lr"])
        self.optimizer.lr = self.lr_at(self.t)


class StepLR(Schedule):
    """Multiply the rate by `gamma` every `step_size` steps."""

    def __init__(self, optimizer, step_size, gamma=0.1):
        if step_size < 1:
            raise ValueError("StepLR: step_size must be >= 1, got " + repr(step_size))
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer)

    def lr_at(self, t):
        return self.base_lr * self.gamma ** (t // self.step_size)


class CosineLR(Schedule):
    """Cosine annealing from the base rate down to `min_lr` over `total` steps."""

    def __init__(self, optimizer, total, min_lr=0.0):
        if total < 1:
            raise ValueError("CosineLR: total must be >= 1, got " + repr(total))
        self.total = total
        self.min_lr = min_lr
        super().__init__(optimizer)

    def lr_at(self, t):
        t = min(t, self.total)
        cos = 0.5 * (1.0 + math.cos(math.pi * t / self.total))
        return self.min_lr + (self.base_lr - self.min_lr) * cos


class OneCycleLR(Schedule):
    """One cycle: cosine warm-up from max_lr/div to max_lr, then cosine down to
    max_lr/(div*final_div), over `total` steps (`pct_start` of them rising)."""

    def __init__(self, optimizer, max_lr, total, pct_start=0.3, div=25.0, final_div=1e4):
        if total < 2:
            raise ValueError("OneCycleLR: total must be >= 2, got " + repr(total))
        self.max_lr = max_lr
        self.total = total
        self.rise = max(1, int(pct_start * total))
        self.start_lr = max_lr / div
        self.end_lr = self.start_lr / final_div
        super().__init__(optimizer)

    def lr_at(self, t):
        t = min(t, self.total)
        if t <= self.rise:
            return _cosine_between(self.start_lr, self.max_lr, t / self.rise)
        return _cosine_between(self.max_lr, self.end_lr,
                               (t - self.rise) / max(1, self.total - self.rise))


class WarmupLR(Schedule):
    """Linear warm-up over `warmup` steps, then hand over to `after` (another Schedule)
    or keep the base rate."""

    def __init__(self, optimizer, warmup, after=None):
        if warmup < 1:
            raise ValueError("WarmupLR: warmup must be >= 1, got " + repr(warmup))
        self.warmup = warmup
        self.after = after
        super().__init__(optimizer)
        if after is not None:
            self.base_lr = after.base_lr
            optimizer.lr = self.lr_at(0)

    def lr_at(self, t):
        if t < self.warmup:
            return self.base_lr * (t + 1) / self.warmup
        if self.after is None:
            return self.base_lr
        return self.after.lr_at(t - self.warmup)


def _cosine_between(a, b, frac):
    return b + (a - b) * 0.5 * (1.0 + math.cos(math.pi * frac))
