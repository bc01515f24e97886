"""What the training benchmarks (resnet8_step, train_epoch) share: their command-line options
and burn's optimizer as they choose it."""


def add_training_options(ap, torch_device, launches_help):
    """--torch-device (default `torch_device`), --gpu-adam, --capture and --launches."""
    ap.add_argument("--torch-device", default=torch_device, help="cpu or cuda")
    ap.add_argument("--gpu-adam", action="store_true",
                    help="update on the GPU (burn.host.cuda.optim.Adam)")
    ap.add_argument("--capture", action="store_true",
                    help="replay each step as a CUDA graph (implies --gpu-adam)")
    ap.add_argument("--launches", action="store_true", help=launches_help)


def burn_label(args):
    """How burn's steps ran, as the tables name it: captured, gpu-adam or nothing."""
    return " captured" if args.capture else " gpu-adam" if args.gpu_adam else ""


def burn_optimizer(model, gpu_adam, capture):
    """Adam at lr 1e-3 over the model's parameters: burn.host.cuda.optim's, which updates on
    the GPU, when `gpu_adam` or `capture` (a captured step needs it), else the host one."""
    if gpu_adam or capture:
        from burn.host.cuda.optim import Adam as GpuAdam

        return GpuAdam(model.parameters(), lr=1e-3)
    from burn.host.train.optim import Adam

    return Adam(model.parameters(), lr=1e-3)
