"""`burn web`: burn in the browser, as a static site (see docs/web.md).

    burn web build -o DIR [--model FILE.bst|FILE.tflite ...] [--force] [--tests N]
                   [--pico FIRMWARE.uf2 | --no-pico]
    burn web serve DIR [--port N] [--host ADDR]
"""

import sys

from burn.host.cli.number_args import int_from_to, positive_int

PAGE_HELP = ("The page (index.html) runs burn's core on MicroPython's WebAssembly port in "
             "the browser, no server-side code: choose a shipped model or a .bst file of "
             "yours, run it on random inputs or on its self-test vectors; it shows the "
             "outputs, the latency, the self-test result and which kernels ran: flex's C "
             "kernels compiled to WebAssembly (flex-wasm, one call per inference) for a "
             "shipped model whose ops all have flex plan steps, else the plain Python "
             "kernels, with the reason (kernels=plain forces them). "
             "index.html?model=URL&selftest=1 loads that model at start and writes the "
             "self-test result into the element #result ('self-test passed: 2/2', or "
             "'error: ...'); run=1 runs one inference on random inputs instead. With a "
             "firmware (--pico), the page also holds an emulated Raspberry Pi Pico running "
             "it: picotest=1 boots it, flashes the model into its ROMFS, runs the model's "
             "self-test on it and writes the outcome and its latency in cycles into "
             "#pico-result.")


def register(subparsers):
    """Add the `web` subcommand and its actions."""
    parser = subparsers.add_parser(
        "web", help="build and serve a static site that runs models in the browser",
        description="burn in the browser. " + PAGE_HELP)
    actions = parser.add_subparsers(dest="web_action", metavar="ACTION")
    actions.required = True

    build = actions.add_parser(
        "build", help="write the static site into a folder",
        description="Write a static site into DIR: MicroPython's WebAssembly port (the "
        "pinned npm package, installed into burn's cache with npm on first use), burn's "
        "core as .py files, index.html, burn_web.js and the models given. Any web server "
        "can serve it (burn web serve does, locally). " + PAGE_HELP)
    build.add_argument("-o", "--out", required=True, metavar="DIR",
                       help="the folder to write (new or empty; replaced with --force); "
                       "written beside it first and renamed into place when complete")
    build.add_argument("--model", action="append", default=[], metavar="FILE",
                       help="a model to ship with the site: a .bst file, or a .tflite file "
                       "(imported by burn's importer and shipped as .bst); repeat for more")
    build.add_argument("--tests", type=positive_int, default=2, metavar="N",
                       help="self-test vectors to make for each .tflite (default 2)")
    build.add_argument("--force", action="store_true",
                       help="replace DIR when it exists and is not empty")
    pico = build.add_mutually_exclusive_group()
    pico.add_argument("--pico", metavar="FIRMWARE.uf2", default=None,
                      help="add the emulated Raspberry Pi Pico (rp2040js in the page) running "
                      "this burn RP2040 firmware; by default the one `burn firmware build "
                      "--board rp2040` cached is used when there is one (docs/web.md)")
    pico.add_argument("--no-pico", dest="pico", action="store_false",
                      help="leave the emulated Pico out")
    build.set_defaults(run=run_build)

    serve = actions.add_parser(
        "serve", help="serve a built site over local HTTP until Ctrl-C",
        description="Serve the site in DIR with Python's http.server (application/wasm "
        "for the port, JavaScript MIME types for the modules) until Ctrl-C, and print the "
        "page's address.")
    serve.add_argument("dir", metavar="DIR", help="a folder that burn web build wrote")
    serve.add_argument("--port", type=int_from_to(0, 65535), default=8000,
                       help="TCP port (default 8000; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.set_defaults(run=run_serve)


def run_build(args):
    """Build the site; exit status 1 with one line for a bad model, folder or missing npm."""
    import json
    from pathlib import Path

    from burn.host.emulator.runtime import EmulatorError
    from burn.host.mpy.webassembly import WebAssemblyError
    from burn.host.web.site import build_site, site_bytes

    say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    try:
        site = build_site(args.out, args.model, args.force, args.tests, log=say,
                          pico=args.pico)
    # WebBuildError and PicoBuildError are ValueErrors
    except (OSError, ValueError, WebAssemblyError, EmulatorError) as exc:
        print("burn web build: %s" % exc, file=sys.stderr)
        return 1
    pico = json.loads(Path(args.out, "pico.json").read_text())
    pico = ", with the emulated Pico (%s)" % pico["firmware"] if pico["board"] \
        else ", without the emulated Pico"
    print("wrote %s: %d bytes without models (MicroPython %s WebAssembly port, %d core "
          "files), %d models%s; serve it with: burn web serve %s"
          % (args.out, site_bytes(args.out, models=False), site["port"], len(site["core"]),
             len(site["models"]), pico, args.out))
    return 0


def run_serve(args):
    """Serve the site until Ctrl-C; exit status 1 for a folder that is not a built site."""
    from pathlib import Path

    from burn.host.web.serve import make_server

    if not (Path(args.dir) / "site.json").is_file():
        print("burn web serve: %s is not a site that burn web build wrote (no site.json)"
              % args.dir, file=sys.stderr)
        return 1
    try:
        server = make_server(args.dir, args.port, args.host, verbose=True)
    except OSError as exc:
        print("burn web serve: cannot listen on %s:%d: %s" % (args.host, args.port, exc),
              file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    print("serving %s at http://%s:%d/ (Ctrl-C stops it)" % (args.dir, host, port), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
