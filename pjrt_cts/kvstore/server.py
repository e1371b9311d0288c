"""Serve a KeyValueStore to other processes on the loopback interface, for a bounded time."""
from __future__ import annotations

import socket
import socketserver
import threading
from typing import Any

from pjrt_cts.kvstore.protocol import decode_bytes, encode_bytes, receive_message, send_message
from pjrt_cts.kvstore.store import KeyNotFound, KeyTimeout, KeyValueStore, StoreFailure

LOOPBACK = "127.0.0.1"


class _Handler(socketserver.BaseRequestHandler):
    server: "_TcpServer"

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.settimeout(self.server.io_timeout_s)
        try:
            request = receive_message(sock)
            response = self.server.owner.serve(request)
            sock.settimeout(self.server.io_timeout_s)
            send_message(sock, response)
        except (OSError, ValueError, ConnectionError):
            return  # the client went away or sent garbage: nothing to answer


class _TcpServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: "KeyValueServer", io_timeout_s: float) -> None:
        self.owner = owner
        self.io_timeout_s = io_timeout_s
        super().__init__((LOOPBACK, 0), _Handler)


class KeyValueServer:
    """A thread serving `store` on 127.0.0.1:<ephemeral port>; shuts itself down after `lifetime_s`.

    A get waits at most `max_get_timeout_s` whatever the client asks, so no request ties up the
    server for longer than that.
    """

    def __init__(self, store: KeyValueStore | None = None, *, lifetime_s: float = 300.0,
                 max_get_timeout_s: float = 60.0, io_timeout_s: float = 10.0) -> None:
        self.store = store if store is not None else KeyValueStore()
        self.max_get_timeout_s = max_get_timeout_s
        self.requests = 0
        self._lock = threading.Lock()
        self._server = _TcpServer(self, io_timeout_s)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="kvstore-server", daemon=True)
        self._expiry = threading.Timer(lifetime_s, self.close)
        self._expiry.daemon = True
        self._closed = False

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def address_string(self) -> str:
        host, port = self.address
        return f"{host}:{port}"

    def start(self) -> "KeyValueServer":
        self._thread.start()
        self._expiry.start()
        return self

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._expiry.cancel()
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "KeyValueServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def serve(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.requests += 1
        op = request.get("op")
        try:
            key = decode_bytes(request["key"])
            if op == "put":
                self.store.put(key, decode_bytes(request["value"]))
                return {"ok": True}
            if op == "try_get":
                return {"ok": True, "value": encode_bytes(self.store.try_get(key))}
            if op == "get":
                timeout_s = min(float(request.get("timeout_s", 0.0)), self.max_get_timeout_s)
                return {"ok": True, "value": encode_bytes(self.store.get(key, timeout_s))}
            return {"error": "failure", "message": f"unknown operation {op!r}"}
        except KeyNotFound as error:
            return {"error": "not_found", "message": str(error)}
        except KeyTimeout as error:
            return {"error": "timeout", "message": str(error)}
        except StoreFailure as error:
            return {"error": "failure", "message": str(error)}
        except (KeyError, TypeError, ValueError) as error:
            return {"error": "failure", "message": f"malformed request: {error!r}"}
