"""Malformed Content-Length headers: the server reads on from the next header (issue 11, item 10)."""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import pytest

from kernelpro.lsp_server.framing import Bad, Framer


def frame(obj, length=None) -> bytes:
    body = json.dumps(obj).encode()
    return f"Content-Length: {len(body) if length is None else length}\r\n\r\n".encode() + body


def bodies(items):
    return [json.loads(x)["id"] for x in items if not isinstance(x, Bad)]


def test_well_framed_messages_in_any_chunking():
    data = frame({"id": 1}) + frame({"id": 2, "s": "Content-Length: 9"}) + b"Content-Length: 9\r\nContent-Type: x\r\n\r\n" + b'{"id": 3}'
    for size in (1, 7, len(data)):
        f, out = Framer(), []
        for i in range(0, len(data), size):
            f.feed(data[i:i + size])
            out += f.messages()
        assert bodies(out) == [1, 2, 3] and not [x for x in out if isinstance(x, Bad)]


@pytest.mark.parametrize("bad", [b"Content-Length: abc\r\n\r\n{\"id\": 0}",
                                 b"Content-Length: -4\r\n\r\n{\"id\": 0}",
                                 b"Content-Length: 3\r\n\r\n{\"id\": 0}",  # too small
                                 b"Content-Length: 400\r\n\r\n{\"id\": 0}",  # too large
                                 b"garbage\r\n\r\n",
                                 b"Content-Length: 99999999999\r\n\r\n{\"id\": 0}"])
def test_a_bad_message_is_dropped_and_the_next_one_read(bad):
    f = Framer()
    f.feed(frame({"id": 1}) + bad + frame({"id": 2}) + frame({"id": 3}))
    out = f.messages()
    assert bodies(out) == [1, 2, 3]
    assert [x for x in out if isinstance(x, Bad)]


def test_a_too_large_length_waits_while_the_body_may_still_arrive():
    body = b'{"id": 5, "text": "Content-Length: 12345"}'
    f = Framer()
    f.feed(b"Content-Length: %d\r\n\r\n" % len(body) + body[:30])  # half a message
    assert f.messages() == []
    f.feed(body[30:])
    assert bodies(f.messages()) == [5]


def _read_message(proc, timeout: float):
    """One message from the server's stdout (raw framing), or None on timeout."""
    if _READ_AHEAD:  # a previous read brought more than one message (a log line and a response)
        return _READ_AHEAD.pop(0)
    end = time.monotonic() + timeout
    buf = _PARTIAL.pop() if _PARTIAL else b""  # the start of a message a previous read cut
    fd = proc.stdout.fileno()
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if not r:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return None
        buf += chunk
        while b"\r\n\r\n" in buf:
            head, rest = buf.split(b"\r\n\r\n", 1)
            n = next(int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length"))
            if len(rest) < n:
                break
            _READ_AHEAD.append(json.loads(rest[:n]))
            buf = rest[n:]
        if _READ_AHEAD:
            if buf:
                _PARTIAL.append(buf)
            return _READ_AHEAD.pop(0)
    if buf:
        _PARTIAL.append(buf)
    return None


_READ_AHEAD: list = []
_PARTIAL: list = []  # at most one: bytes read past the last whole message (a read may end mid-message)


def _response(proc, id_, timeout=60):  # a liveness bound for a loaded machine, not a speed check
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        msg = _read_message(proc, end - time.monotonic())
        if msg is None:
            return None
        if msg.get("id") == id_ and "method" not in msg:
            return msg
    return None


@pytest.mark.parametrize("bad", [b"Content-Length: abc\r\n\r\n", b"Content-Length: 5\r\n\r\n",
                                 b"Content-Length: 100000\r\n\r\n"])
def test_real_server_answers_after_a_malformed_header(bad, tmp_path):
    _READ_AHEAD.clear()
    _PARTIAL.clear()
    proc = subprocess.Popen([sys.executable, "-m", "kernelpro.lsp_server"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        def send(data: bytes):
            proc.stdin.write(data)
            proc.stdin.flush()

        send(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
        assert _response(proc, 1)["result"]["serverInfo"]["name"] == "kernelpro"
        send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        hover = {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
                 "params": {"textDocument": {"uri": "file:///nowhere.cu"}, "position": {"line": 0, "character": 0}}}
        send(bad + json.dumps(hover).encode())  # a hover behind a broken header: dropped
        send(frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown", "params": None}))
        res = _response(proc, 3)
        assert res is not None and "error" not in res, "the server did not answer shutdown after a bad header"
        send(frame({"jsonrpc": "2.0", "method": "exit", "params": None}))
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
