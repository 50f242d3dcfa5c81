"""Reading LSP messages from a byte stream, recovering from bad framing.

pygls' reader trusts every `Content-Length`: after one malformed header (not a number, too
small, too large) it reads the rest of the stream out of step and never answers again. This
reader keeps a buffer and, when a header or a body does not make sense, drops bytes up to the
next `Content-Length:` header and goes on from there. A body is accepted only when it is one
JSON value of exactly the announced length; a too-large length is noticed as soon as the
bytes after the header hold a complete JSON value followed by another header.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

HEADER = b"Content-Length:"
MAX_BODY = 256 * 1024 * 1024  # a larger announced length is treated as malformed
_LENGTH = re.compile(rb"^content-length:[ \t]*(\d{1,12})[ \t]*$", re.I)
_DECODER = json.JSONDecoder()


@dataclass
class Bad:
    """Bytes dropped because they were not a well-framed message, and why."""
    reason: str
    dropped: int


class Framer:
    """Feed bytes, take out message bodies (bytes) and Bad notes, in stream order."""

    def __init__(self):
        self.buf = bytearray()

    def feed(self, data: bytes) -> None:
        self.buf += data

    def messages(self) -> list[bytes | Bad]:
        out: list[bytes | Bad] = []
        while True:
            item = self._next()
            if item is None:
                return out
            out.append(item)

    # -- one step: a body, a Bad, or None when more bytes are needed
    def _next(self) -> bytes | Bad | None:
        buf = self.buf
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            if len(buf) > 64 * 1024 and buf.find(HEADER, 1) < 0:  # no header in sight: noise
                return self._drop_to(len(buf) - len(HEADER), "no Content-Length header")
            return None
        length, why = _parse_headers(bytes(buf[:end]))
        if length is None:
            return self._resync(why)
        start = end + 4
        if len(buf) < start + length:
            nxt = _complete_json_then_header(buf, start)
            if nxt is not None:  # the announced length runs into the next message
                return self._drop_to(nxt, f"Content-Length {length} is larger than the message")
            return None
        body = bytes(buf[start:start + length])
        if not _is_one_json_value(body):
            return self._resync(f"the {length} bytes after Content-Length are not one JSON value")
        del buf[:start + length]
        return body

    def _resync(self, reason: str) -> Bad:
        """Drop everything before the next Content-Length header after the current position."""
        nxt = self.buf.find(HEADER, 1)
        return self._drop_to(nxt if nxt >= 0 else len(self.buf), reason)

    def _drop_to(self, n: int, reason: str) -> Bad:
        n = max(n, 1)
        del self.buf[:n]
        return Bad(reason, n)


def _parse_headers(block: bytes) -> tuple[int | None, str]:
    # anything before the first header line (left-overs of a broken message) is not a header
    i = block.lower().find(HEADER.lower())
    if i < 0:
        return None, "no Content-Length header"
    length = None
    for line in block[i:].split(b"\r\n"):
        m = _LENGTH.match(line.strip())
        if m:
            length = int(m.group(1))
        elif line.lower().startswith(HEADER.lower()):
            return None, f"malformed header {line[:60]!r}"
    if i > 0:
        return None, "bytes before the Content-Length header"
    if length is None or length > MAX_BODY:
        return None, f"bad Content-Length {length}" if length else "no Content-Length header"
    return length, ""


def _is_one_json_value(body: bytes) -> bool:
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


def _complete_json_then_header(buf: bytearray, start: int) -> int | None:
    """Where the next header starts, when the bytes from `start` are one complete JSON value
    followed (after whitespace) by `Content-Length:`; else None (the body is still arriving)."""
    nxt = buf.find(HEADER, start)
    while nxt >= 0:
        try:
            text = bytes(buf[start:nxt]).decode("utf-8")
            _, used = _DECODER.raw_decode(text.lstrip())
            if not text.lstrip()[used:].strip():
                return nxt
        except ValueError:
            pass
        nxt = buf.find(HEADER, nxt + 1)
    return None


async def run_reader(stop, read: Callable[[], Any], protocol, on_bad: Callable[[Bad], None], logger) -> None:
    """The server's read loop: `read()` awaits the next chunk of bytes (b"" at end of stream)."""
    framer = Framer()
    while not stop.is_set():
        data = await read()
        if not data:
            break
        framer.feed(data)
        for item in framer.messages():
            if isinstance(item, Bad):
                on_bad(item)
                continue
            try:
                message = json.loads(item, object_hook=protocol.structure_message)
                protocol.handle_message(message)
            except Exception:
                logger.exception("Unable to handle message")
