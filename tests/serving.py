"""Small helpers for the tests that run `mkdocs serve`: a free port, and a GET that never raises; and
a built site served over HTTP for the browser tests."""

import contextlib
import functools
import http.server
import socket
import sys
import threading
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> str:
    """The page's text, or "" while the server cannot answer yet."""
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode("utf-8")
    except OSError:
        return ""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    headers_added: tuple[tuple[str, str], ...] = ()

    def end_headers(self):
        for name, value in self.headers_added:
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass  # a request log line per file would bury pytest's own output


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the browser went on before the file was sent (a lazy image, a closed tab): no traceback
        super().handle_error(request, client_address)


@contextlib.contextmanager
def static_site(directory, headers: dict[str, str] | None = None, port: int = 0):
    """The folder over HTTP on a local port (`port` when it is free, else any free one), each answer
    with `headers` added: its base URL. The folder may be made later, before the first request."""
    handler = functools.partial(type("Handler", (_QuietHandler,), {"headers_added": tuple((headers or {}).items())}),
                                directory=str(directory))
    try:
        server = _Server(("127.0.0.1", port), handler)
    except OSError:  # taken: by another session of the suite, or another program
        server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
