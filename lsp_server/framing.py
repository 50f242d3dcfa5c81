"""Reading LSP messages from a byte stream, recovering from bad framing, in linear time.

pygls' reader trusts every `Content-Length`: after one malformed header (not a number, too
small, too large) it reads the rest of the stream out of step and never answers again. This
reader keeps a buffer and, when a header or a body does not make sense, drops bytes up to the
next `Content-Length:` header and goes on from there. A body is accepted only when it is one
JSON object (or array) of exactly the announced length; a too-large length is noticed as soon
as the bytes after the header hold a complete JSON value followed by another header.

Every byte is examined a bounded number of times, however the stream is cut into chunks
(docs/security.md): the header end is searched for only within the first MAX_HEADER bytes and
never twice over the same bytes; a body is decoded (json.loads) once, when all of it is there;
while it arrives it is scanned once, forward, by an incremental scanner (nesting depth, inside
a string or not, position) whose state survives between feeds, with bytes.find/count doing the
work between quotes and brackets, and only once a `Content-Length:` appears past the scan
position (before that the length cannot be seen to run into the next message); and recovery
searches for the next header forward from where the scan stopped, never again from the start.
A body nested too deeply for json (RecursionError) is a Bad note like any other malformed body,
and bodies must be JSON objects or arrays (JSON-RPC messages or batches).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

HEADER = b"Content-Length:"
MAX_BODY = 256 * 1024 * 1024  # a larger announced length is treated as malformed
MAX_HEADER = 8 * 1024  # a header block (up to its blank line) longer than this is malformed
# one Content-Length line, from its start to the end of the line (\r\n or the block's end)
_LENGTH_LINE = re.compile(rb"content-length:[ \t]*(\d{1,12})[ \t]*(?:\r\n|\Z)", re.I)
_LENGTH_NAME = re.compile(rb"content-length:", re.I)
_WS = re.compile(rb"[ \t\r\n]*")  # JSON whitespace
_BRACKET = re.compile(rb"[\[\]{}]")


@dataclass
class Bad:
    """Bytes dropped because they were not a well-framed message, and why."""
    reason: str
    dropped: int


class Framer:
    """Feed bytes, take out message bodies (bytes) and Bad notes, in stream order."""

    def __init__(self):
        self.buf = bytearray()
        self._reset()

    def _reset(self) -> None:
        """The state of the message at the start of the buffer."""
        self._head_seen = 0  # the bytes before this hold no b"\r\n\r\n"
        self._head_end = -1  # where the header block's blank line starts, once found
        self._start = -1  # where the body starts, once the header block was read
        self._length = 0
        self._pos = 0  # how far the body was scanned
        self._depth = 0  # bracket depth at _pos
        self._in_str = False  # _pos is inside a JSON string
        self._str_start = 0  # where that string's contents start
        self._ended = -1  # where the top-level value ended (its closing bracket + 1), once seen
        self._hdr_seen = 0  # no header starts in the body between _pos and this
        self._why = ""  # why the complete body is not a message, once decoded

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
        if not self.buf:
            return None
        if self._start < 0:
            item = self._header()
            if item is not None or self._start < 0:
                return item
        return self._body()

    # -- the header block ---------------------------------------------------
    def _header(self) -> Bad | None:
        """Read the header block at the start of the buffer: sets _start and _length, or
        returns a Bad, or None when the block is not complete yet."""
        buf = self.buf
        if self._head_end < 0:
            limit = min(len(buf), MAX_HEADER)
            end = buf.find(b"\r\n\r\n", max(0, self._head_seen - 3), limit)
            if end < 0:
                self._head_seen = limit
                if len(buf) < MAX_HEADER:
                    return None
                return self._resync(1, f"no header block ends within {MAX_HEADER} bytes")
            self._head_end = end
        end = self._head_end
        if not _LENGTH_NAME.match(buf, 0, end):
            i = buf.find(HEADER, 1, end)
            if i >= 0:
                return self._drop_to(i, "bytes before the Content-Length header")
            return self._resync(end, "no Content-Length header")
        length, pos = None, 0
        while pos < end:
            if _LENGTH_NAME.match(buf, pos, end):
                m = _LENGTH_LINE.match(buf, pos, end)
                if m is None:  # the block is bad up to here: read on after this line's start
                    line = bytes(buf[pos:min(pos + 60, end)]).split(b"\r\n")[0]
                    return self._resync(pos + 1, f"malformed header {line!r}")
                length, pos = int(m.group(1)), m.end()
            else:  # another header (Content-Type): skip its line
                nl = buf.find(b"\r\n", pos, end)
                pos = end if nl < 0 else nl + 2
        if length is None or length > MAX_BODY:
            return self._resync(end, f"bad Content-Length {length}")
        self._start, self._length = end + 4, length
        self._pos = self._start
        return None

    # -- the body -----------------------------------------------------------
    def _body(self) -> bytes | Bad | None:
        """A body, a Bad, or None (wait). A complete body is decoded once; an incomplete one is
        scanned (from where the last call stopped) only once a header appears after the scan
        position, since only then can the announced length be seen to run into the next message."""
        buf, start, length = self.buf, self._start, self._length
        region = start + length  # the body's announced end
        complete = len(buf) >= region
        if complete and not self._why:
            body = bytes(buf[start:region])
            self._why = _not_a_message(body)
            if not self._why:
                del buf[:region]
                self._reset()
                return body
        elif not complete and self._ended < 0:
            h = buf.find(HEADER, max(self._pos, self._hdr_seen))
            self._hdr_seen = max(self._pos, len(buf) - (len(HEADER) - 1))
            if h < 0:
                return None
        stop = min(len(buf), region)
        p = self._pos
        if self._ended < 0:
            p = self._scan(p, stop)
            if isinstance(p, Bad):
                return p
            self._pos = p
            if self._ended < 0:  # the value has not ended yet
                if complete:  # the length is too small
                    return self._resync(region, f"the {length} bytes after Content-Length are {self._why}")
                return None
        # after the value: whitespace, then the body's end or (too large a length) the next header
        p = _WS.match(buf, p, stop).end()
        self._pos = p
        if p == region:  # one balanced value, yet not valid JSON
            return self._resync(region, f"the {length} bytes after Content-Length are {self._why}")
        if p == len(buf):
            return None
        if buf.startswith(HEADER, p):
            return self._resync(p, f"Content-Length {length} is larger than the message")
        if len(buf) - p < len(HEADER) and HEADER.startswith(bytes(buf[p:])):
            return None  # perhaps the next header, cut short
        return self._resync(p, f"bytes after the JSON value within Content-Length {length}")

    def _scan(self, p: int, stop: int) -> int | Bad:
        """Advance the body scan from p to at most stop; sets _ended when the top-level value's
        closing bracket is seen. Returns the new position (or a Bad)."""
        buf = self.buf
        if self._depth == 0:  # the value has not started: whitespace, then { or [
            p = _WS.match(buf, p, stop).end()
            if p == stop:
                return p
            if buf[p] not in b"{[":
                return self._resync(p, "the body is not a JSON object")
            self._depth, p = 1, p + 1
        while p < stop:
            if self._in_str:  # the next quote not escaped by an odd run of backslashes
                q = buf.find(b'"', p, stop)
                if q < 0:
                    return stop
                i = q
                while i > self._str_start and buf[i - 1] == 0x5C:  # backslash
                    i -= 1
                p = q + 1
                if (q - i) % 2 == 0:
                    self._in_str = False
                continue
            q = buf.find(b'"', p, stop)
            seg = stop if q < 0 else q
            opens = buf.count(b"{", p, seg) + buf.count(b"[", p, seg)
            closes = buf.count(b"}", p, seg) + buf.count(b"]", p, seg)
            if closes < self._depth:  # the depth cannot reach 0 in this stretch
                self._depth += opens - closes
            else:  # find the bracket that closes the value, if it is in this stretch
                for m in _BRACKET.finditer(buf, p, seg):
                    self._depth += 1 if m.group() in b"[{" else -1
                    if self._depth == 0:
                        self._ended = m.end()
                        return m.end()
            if q < 0:
                return seg
            self._in_str, self._str_start, p = True, q + 1, q + 1
        return p

    # -- dropping bytes -----------------------------------------------------
    def _resync(self, frm: int, reason: str) -> Bad:
        """Drop everything before the next Content-Length header at or after `frm` (keeping a
        tail that may be the start of one when there is none)."""
        nxt = self.buf.find(HEADER, frm)
        if nxt < 0:
            nxt = max(frm, len(self.buf) - (len(HEADER) - 1))
        return self._drop_to(nxt, reason)

    def _drop_to(self, n: int, reason: str) -> Bad:
        """Drop n bytes (at least 1), keeping what the header search learnt about the bytes
        after them (where the header block ends, or how far there is no blank line), so that
        no byte is searched twice."""
        n = max(n, 1)
        seen, end = self._head_seen, self._head_end
        del self.buf[:n]
        self._reset()
        if end >= n:
            self._head_end = self._head_seen = end - n
        else:
            self._head_seen = max(0, seen - n)
        return Bad(reason, n)


def _not_a_message(body: bytes) -> str:
    """'' when the body is one JSON object (or array), else why not."""
    try:
        value = json.loads(body)
    except RecursionError:
        return "nested too deeply"
    except ValueError:
        return "not one JSON value"
    return "" if isinstance(value, (dict, list)) else "not a JSON object"


async def run_reader(stop, read: Callable[[], Any], protocol, on_bad: Callable[[Bad], None], logger) -> None:
    """The server's read loop: `read()` awaits the next chunk of bytes (b"" at end of stream).
    No one message ends it: an exception while framing, decoding or handling one is logged."""
    framer = Framer()
    while not stop.is_set():
        data = await read()
        if not data:
            break
        try:
            framer.feed(data)
            items = framer.messages()
        except Exception:  # a framer bug: start afresh rather than stop reading
            logger.exception("Unable to frame messages; dropping the buffered bytes")
            items = [Bad("the framer failed", len(framer.buf))]
            framer = Framer()
        for item in items:
            try:
                if isinstance(item, Bad):
                    on_bad(item)
                    continue
                message = json.loads(item, object_hook=protocol.structure_message)
                protocol.handle_message(message)
            except Exception:  # RecursionError included
                logger.exception("Unable to handle message")
