"""The server side of a click: kernel websockets that send each message as soon as it is written.

jupyter_server's kernel websocket leaves Nagle's algorithm on. A click's answer comes in two small
messages close together (the kernel's "busy" status, then the widget's update), so the second waits
in the server until the browser acknowledges the first, which Linux delays by up to 40 ms: on about
every other click the board waited 40 ms for nothing. :class:`NoDelayConnection` turns Nagle's
algorithm off (TCP_NODELAY) when a kernel websocket connects. It is a connection class both Jupyter
servers accept as configuration::

    jupyter lab --ServerApp.kernel_websocket_connection_class=minesweeper_kit.widgets.server.NoDelayConnection
    voila --Voila.kernel_websocket_connection_class=minesweeper_kit.widgets.server.NoDelayConnection

Only the server imports this module (it needs jupyter_server, from the ``lab`` extra).
"""

from __future__ import annotations

from typing import Any

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

CONNECTION_CLASS = f"{__name__}.NoDelayConnection"


class NoDelayConnection(ZMQChannelsWebsocketConnection):
    """A kernel websocket connection with TCP_NODELAY set, so small messages are not held back."""

    def connect(self) -> Any:  # a Future in jupyter_server 2.x; the base class says a coroutine
        """Turn off Nagle's algorithm on the websocket, then connect as jupyter_server does."""
        self.websocket_handler.set_nodelay(True)
        return super().connect()


def server_options(app: str = "ServerApp") -> list[str]:
    """The command-line options that make a Jupyter server (``ServerApp`` or ``Voila``) use it."""
    return [f"--{app}.kernel_websocket_connection_class={CONNECTION_CLASS}"]
