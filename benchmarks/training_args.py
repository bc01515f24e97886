"""What the training benchmarks (resnet8_step, train_epoch) share: their command-line options
and burn's optimizer as they choose it."""


def add_training_options(ap, torch_device, launches_help):
    """--torch-device (default `torch_device`), --gpu-adam, --capture, --launches and
    --im2col."""
    ap.add_argument("--torch-device", default=torch_device, help="cpu or cuda")
    ap.add_argument("--gpu-adam", action="store_true",
                    help="update on the GPU (burn.host.cuda.optim.Adam)")
    ap.add_argument("--capture", action="store_true",
                    help="replay each step as a CUDA graph (implies --gpu-adam)")
    ap.add_argument("--launches", action="store_true", help=launches_help)
    ap.add_argument("--im2col", action="store_true",
                    help="burn's GPU convolutions through im2col columns and cuBLAS, the "
                         "path before the kernels that read the windows in place")


def apply_training_options(args):
    """Set what the options of add_training_options change in burn: --im2col."""
    if args.im2col:
        from burn.host.cuda import conv

        conv.IN_PLACE = False


def burn_label(args):
    """How burn's steps ran, as the tables name it: captured, gpu-adam or nothing, and
    im2col when --im2col."""
    how = " captured" if args.capture else " gpu-adam" if args.gpu_adam else ""
    return how + (" im2col" if args.im2col else "")


def burn_optimizer(model, gpu_adam, capture):
    """Adam at lr 1e-3 over the model's parameters: burn.host.cuda.optim's, which updates on
    the GPU, when `gpu_adam` or `capture` (a captured step needs it), else the host one."""
    if gpu_adam or capture:
        from burn.host.cuda.optim import Adam as GpuAdam

        return GpuAdam(model.parameters(), lr=1e-3)
    from burn.host.train.optim import Adam

    return Adam(model.parameters(), lr=1e-3)


COMPILE_MODES = ("default", "reduce-overhead", "max-autotune")


def add_torch_options(ap):
    """--torch-compile (PyTorch columns compiled in these modes beside eager) and
    --torch-tf32 (let PyTorch's convolutions and products round through TF32)."""
    ap.add_argument("--torch-compile", default="reduce-overhead", metavar="MODES",
                    help="comma-separated torch.compile modes timed beside eager on CUDA "
                         "(%s; 'none' for eager only; default: reduce-overhead)"
                         % ", ".join(COMPILE_MODES))
    ap.add_argument("--torch-tf32", action="store_true",
                    help="allow TF32 in PyTorch's cuDNN convolutions and cuBLAS products "
                         "(off by default: burn's products are plain float32)")


def torch_modes(args):
    """The PyTorch columns to time: 'eager', then each --torch-compile mode (CUDA only).
    Sets PyTorch's TF32 switches from --torch-tf32 on the way."""
    import torch

    torch.backends.cudnn.allow_tf32 = args.torch_tf32
    torch.backends.cuda.matmul.allow_tf32 = args.torch_tf32
    modes = [m for m in args.torch_compile.split(",") if m and m != "none"]
    for m in modes:
        if m not in COMPILE_MODES:
            raise SystemExit("--torch-compile: unknown mode %r (one of %s)"
                             % (m, ", ".join(COMPILE_MODES)))
    if args.torch_device == "cpu":
        modes = []
    return ["eager"] + modes


def torch_train_step(model, opt, mode):
    """One PyTorch training step function (inputs, labels) -> None over `model` and `opt`:
    eager, or the model's forward and backward compiled by torch.compile in `mode` (the
    optimizer stays eager, as PyTorch's examples run it)."""
    import torch

    forward = model if mode == "eager" else torch.compile(model, mode=mode)

    def step(x, y):
        if mode == "reduce-overhead":  # a new step of the CUDA graph trees
            torch.compiler.cudagraph_mark_step_begin()
        loss = torch.nn.functional.cross_entropy(forward(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step
