"""GPU helpers for the cupy backend: counting kernel launches and whole-step CUDA graphs."""
