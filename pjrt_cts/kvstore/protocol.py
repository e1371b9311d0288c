"""Wire format between RemoteKeyValueStore and KeyValueServer: one JSON line each way per connection."""
from __future__ import annotations

import base64
import json
import socket
from typing import Any

MAX_LINE_BYTES = 64 << 20  # bigger requests are refused: nothing legitimate is that large
ERROR_KINDS = ("not_found", "timeout", "failure")


def encode_bytes(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def decode_bytes(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"))


def send_message(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message).encode() + b"\n")


def receive_message(sock: socket.socket) -> dict[str, Any]:
    """Read one line (the socket's timeout bounds every recv); ConnectionError on EOF or oversize."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("connection closed before a complete message")
        newline = chunk.find(b"\n")
        if newline >= 0:
            chunks.append(chunk[:newline])
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_LINE_BYTES:
            raise ConnectionError(f"message longer than {MAX_LINE_BYTES} bytes")
    message = json.loads(b"".join(chunks))
    if not isinstance(message, dict):
        raise ConnectionError("message is not a JSON object")
    return message
