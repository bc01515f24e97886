"""Command-line options shared by the training benchmarks (resnet8_step, train_epoch)."""


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
