"""The KeyValueStore interface over a KeyValueServer on the loopback interface (one connection per request)."""
from __future__ import annotations

import socket
from typing import Any

from pjrt_cts.kvstore.protocol import decode_bytes, encode_bytes, receive_message, send_message
from pjrt_cts.kvstore.store import KeyNotFound, KeyTimeout, StoreFailure

_ERRORS = {"not_found": KeyNotFound, "timeout": KeyTimeout, "failure": StoreFailure}


def parse_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if host not in ("127.0.0.1", "localhost"):
        raise ValueError(f"key-value server address {text!r} is not on the loopback interface")
    return "127.0.0.1", int(port)


class RemoteKeyValueStore:
    """Thread-safe (no shared socket). Every request is bounded: connect and I/O time out."""

    def __init__(self, address: tuple[str, int] | str, *, io_timeout_s: float = 10.0) -> None:
        self.address = parse_address(address) if isinstance(address, str) else address
        self.io_timeout_s = io_timeout_s

    def _request(self, message: dict[str, Any], wait_s: float = 0.0) -> dict[str, Any]:
        try:
            with socket.create_connection(self.address, timeout=self.io_timeout_s) as sock:
                sock.settimeout(self.io_timeout_s + wait_s)
                send_message(sock, message)
                response = receive_message(sock)
        except (OSError, ConnectionError, ValueError) as error:
            raise StoreFailure(f"key-value server {self.address[0]}:{self.address[1]} unreachable: {error}") from None
        if "error" in response:
            raise _ERRORS.get(response["error"], StoreFailure)(str(response.get("message", "")))
        return response

    def put(self, key: bytes, value: bytes) -> None:
        self._request({"op": "put", "key": encode_bytes(key), "value": encode_bytes(value)})

    def try_get(self, key: bytes) -> bytes:
        return decode_bytes(self._request({"op": "try_get", "key": encode_bytes(key)})["value"])

    def get(self, key: bytes, timeout_s: float) -> bytes:
        response = self._request({"op": "get", "key": encode_bytes(key), "timeout_s": timeout_s}, wait_s=timeout_s)
        return decode_bytes(response["value"])
