"""burn in the browser: `burn web build` writes a static site that runs burn's core on
MicroPython's WebAssembly port (burn.host.web.site), `burn web serve` serves it locally
(burn.host.web.serve). See docs/web.md."""
