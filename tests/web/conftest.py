"""The web table's fixtures: a uvicorn server on a random loopback port, in a thread."""
from __future__ import annotations

import socket
import threading
import time

import pytest


@pytest.fixture(scope="module")
def live_server():
    """The base URL of `cardzoo serve`'s app running in this process (stopped after the module)."""
    uvicorn = pytest.importorskip("uvicorn")
    from cardzoo.web.server import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the web server did not start")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)
