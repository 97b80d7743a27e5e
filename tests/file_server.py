"""A real HTTP server on 127.0.0.1 serving a directory, for download tests (ROMs, published games,
:func:`textmem_gym.downloads.fetch_cached`)."""

from __future__ import annotations

import functools
import http.server
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Served:
    """A running server: its base URL (no trailing slash) and the paths requested so far."""

    url: str
    requests: list[str] = field(default_factory=list)


@contextmanager
def serve_directory(root: Path) -> Iterator[Served]:
    """Serves ``root`` over HTTP until the block ends; records every request path."""
    served = Served("")

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (base signature)
            served.requests.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    served.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()


def closed_port_url() -> str:
    """A URL on a local port nothing listens on (the connection is refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"
