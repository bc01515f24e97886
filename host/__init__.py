"""burn.host: the workstation side (backends, training, export, devices, CLIs)."""
