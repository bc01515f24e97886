"""`burn web serve`: a site that `burn web build` wrote, served over local HTTP by Python's
http.server, with the MIME types a browser needs (application/wasm for the port, so it can be
compiled while it streams in, and JavaScript for the modules)."""

import functools
import http.server
import threading

MIME_TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript",
              ".js": "text/javascript", ".json": "application/json",
              ".bst": "application/octet-stream", ".py": "text/plain; charset=utf-8"}


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files of one folder with MIME_TYPES; quiet unless `verbose`."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    verbose = False

    def log_message(self, format, *args):
        """Log a request to stderr only when the server was made verbose."""
        if self.verbose:
            super().log_message(format, *args)


def make_server(folder, port=0, host="127.0.0.1", verbose=False):
    """An HTTP server of `folder` on `host`:`port` (0: a free port; its number is
    `server.server_address[1]`), not yet serving."""
    handler = type("Handler", (SiteHandler,), {"verbose": verbose})
    return http.server.ThreadingHTTPServer(
        (host, port), functools.partial(handler, directory=str(folder)))


def serve_in_thread(folder, port=0, host="127.0.0.1"):
    """A server of `folder` answering from a daemon thread; `.shutdown()` stops it."""
    server = make_server(folder, port, host)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
