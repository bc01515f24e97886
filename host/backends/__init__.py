"""Host backends: numpy (CPU), flex (C kernels via cffi) and cupy (CUDA)."""
