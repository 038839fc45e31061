"""NoDelayConnection: a kernel websocket that sends small messages at once (TCP_NODELAY)."""

from __future__ import annotations

import socket
import subprocess
import sys
from types import SimpleNamespace

import pytest
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

from minesweeper_kit.widgets import server


def test_the_connection_turns_nagle_off_before_connecting(monkeypatch):
    calls: list = []
    monkeypatch.setattr(ZMQChannelsWebsocketConnection, "connect", lambda self: calls.append("connect") or "future")
    handler = SimpleNamespace(set_nodelay=lambda value: calls.append(("nodelay", value)))
    monkeypatch.setattr(server.NoDelayConnection, "websocket_handler", handler)
    connection = server.NoDelayConnection.__new__(server.NoDelayConnection)
    assert connection.connect() == "future"
    assert calls == [("nodelay", True), "connect"]


def test_tornado_sets_the_socket_option_it_is_asked_for():
    """What set_nodelay does underneath: TCP_NODELAY on the stream's socket."""
    from tornado.iostream import IOStream

    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        stream = IOStream(accepted)
        stream.set_nodelay(True)
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        stream.set_nodelay(False)
        assert not accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        client.close()
        accepted.close()
        listener.close()


@pytest.mark.parametrize(("app", "where"), [("ServerApp", "jupyter_server.serverapp"), ("Voila", "voila.app")])
def test_both_servers_accept_the_option(app, where):
    """The option as `mines play --web` passes it, read by the server's own command-line parser."""
    code = (
        f"import sys\nfrom {where} import {app}\n"
        f"app = {app}()\napp.parse_command_line(sys.argv[1:])\n"
        "print(app.kernel_websocket_connection_class.__name__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *server.server_options(app)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "NoDelayConnection"
