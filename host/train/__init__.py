"""Training on the host: optimizers, schedules, losses, metrics, the Learner."""
