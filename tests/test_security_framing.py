"""The message framer under hostile input (docs/security.md): linear work, no crash on deep nesting.

A 1 MB `.cu` full of `// Content-Length: 12` comment lines once blocked the server's event loop
for minutes (the framer tried to decode the incomplete body up to every such line, each time
from the body's start), and one 2 KB message of 1000 nested brackets ended the server (a
RecursionError out of the framer). Linearity is checked by counting the bytes the framer
examines (bytearray searches and slices, regex spans, json input), never by timing.
"""
from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from kernelpro.lsp_server import framing
from kernelpro.lsp_server.framing import Bad, Framer

CHUNK = 1 << 16  # what the server's stdin pump reads at a time
LINE = "// Content-Length: 12\n"


def frame_body(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def frame(obj, length: int | None = None) -> bytes:
    return frame_body(json.dumps(obj).encode(), length)


def did_open(uri: str, text: str) -> dict:
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "cuda-cpp", "version": 1, "text": text}}}


def comment_file(size: int) -> str:
    return LINE * (size // len(LINE))


def deep(n: int = 1000) -> bytes:
    return b"[" * n + b"]" * n  # 2 KB for n = 1000


# -- counting the framer's work -------------------------------------------------------------
class TooMuchWork(Exception):
    pass


class Work:
    """Bytes examined, with a budget: past it the count raises, so a quadratic framer fails
    fast instead of running for minutes."""

    def __init__(self, budget: int):
        self.bytes = 0
        self.decodes = 0
        self.budget = budget

    def charge(self, n: int) -> None:
        self.bytes += max(0, n)
        if self.bytes > self.budget:
            raise TooMuchWork(f"the framer examined more than {self.budget} bytes")


def _span(n: int, start, end) -> tuple[int, int]:
    start = 0 if start is None else (start if start >= 0 else max(0, n + start))
    end = n if end is None else (min(end, n) if end >= 0 else max(0, n + end))
    return start, end


def counting_buffer(work: Work):
    class CountingBuffer(bytearray):
        """The framer's buffer: searches count the bytes up to the hit (or the whole range),
        counts and slices their range, an index one byte."""

        def find(self, sub, start=None, end=None):
            hit = bytearray.find(self, sub, start, end)
            s, e = _span(len(self), start, end)
            work.charge((hit + len(sub) if hit >= 0 else e) - s)
            return hit

        def rfind(self, sub, start=None, end=None):
            s, e = _span(len(self), start, end)
            work.charge(e - s)
            return bytearray.rfind(self, sub, start, end)

        def index(self, sub, start=None, end=None):
            hit = self.find(sub, start, end)
            if hit < 0:
                raise ValueError("subsection not found")
            return hit

        def count(self, sub, start=None, end=None):
            s, e = _span(len(self), start, end)
            work.charge(e - s)
            return bytearray.count(self, sub, start, end)

        def startswith(self, prefix, start=None, end=None):
            work.charge(max(map(len, prefix)) if isinstance(prefix, tuple) else len(prefix))
            return bytearray.startswith(self, prefix, start, end)

        def __getitem__(self, key):
            if isinstance(key, slice):
                s, e, _ = key.indices(len(self))
                work.charge(e - s)
            else:
                work.charge(1)
            return bytearray.__getitem__(self, key)

    return CountingBuffer()


class CountingPattern:
    """A compiled regex whose calls count the span they cover (the whole range when they fail)."""

    def __init__(self, pattern: re.Pattern, work: Work):
        self.pattern, self.work = pattern, work

    def __getattr__(self, name):
        return getattr(self.pattern, name)

    def _run(self, how: str, string, pos: int = 0, endpos: int = sys.maxsize):
        m = getattr(self.pattern, how)(string, pos, endpos)
        self.work.charge((m.end() if m else min(endpos, len(string))) - pos)
        return m

    def match(self, *args):
        return self._run("match", *args)

    def search(self, *args):
        return self._run("search", *args)

    def fullmatch(self, *args):
        return self._run("fullmatch", *args)

    def finditer(self, string, pos: int = 0, endpos: int = sys.maxsize):
        self.work.charge(min(endpos, len(string)) - pos)
        return self.pattern.finditer(string, pos, endpos)

    def findall(self, string, pos: int = 0, endpos: int = sys.maxsize):
        self.work.charge(min(endpos, len(string)) - pos)
        return self.pattern.findall(string, pos, endpos)


def instrument(monkeypatch, work: Work) -> None:
    """Count every regex, json decode and (through counting_buffer) buffer access of framing.py."""
    for name, value in list(vars(framing).items()):
        if isinstance(value, re.Pattern):
            monkeypatch.setattr(framing, name, CountingPattern(value, work))

    def loads(s, *args, **kwargs):
        work.charge(len(s))
        work.decodes += 1
        return json.loads(s, *args, **kwargs)

    monkeypatch.setattr(framing, "json", types.SimpleNamespace(
        loads=loads, dumps=json.dumps, JSONDecoder=json.JSONDecoder, JSONDecodeError=json.JSONDecodeError))
    if hasattr(framing, "_DECODER"):
        class Decoder:
            def raw_decode(self, s, *args):
                work.charge(len(s))
                work.decodes += 1
                return json.JSONDecoder().raw_decode(s, *args)

            def decode(self, s, *args):
                work.charge(len(s))
                work.decodes += 1
                return json.JSONDecoder().decode(s, *args)
        monkeypatch.setattr(framing, "_DECODER", Decoder())


def examined(monkeypatch, data: bytes, chunk: int = CHUNK) -> tuple[Work, list]:
    """Feed `data` in chunks to an instrumented Framer: (the work, what came out)."""
    work = Work(budget=20 * len(data))
    with monkeypatch.context() as m:
        instrument(m, work)
        f = Framer()
        f.buf = counting_buffer(work)
        out = []
        for i in range(0, len(data), chunk):
            f.feed(data[i:i + chunk])
            out += f.messages()
    return work, out


def test_the_framer_examines_each_byte_a_bounded_number_of_times(monkeypatch):
    """The audit's input: a didOpen of a file of `// Content-Length: 12` lines, in 64 KB chunks."""
    work = {}
    for mb in (1, 2):
        body = json.dumps(did_open("file:///big.cu", comment_file(mb << 20))).encode()
        data = frame_body(body)
        w, out = examined(monkeypatch, data)
        assert out == [body]  # the message itself, whole, and nothing dropped
        assert w.bytes <= 6 * len(data), f"{w.bytes / len(data):.1f} bytes examined per input byte"
        assert w.decodes == 1  # decoded once, when complete
        work[mb] = w.bytes
    assert 1.8 <= work[2] / work[1] <= 2.2, f"2 MB took {work[2] / work[1]:.2f}x the work of 1 MB"


@pytest.mark.parametrize("extra", [0, 4096], ids=["exact", "too-large"])
def test_announced_length_runs_into_the_next_message_found_in_linear_work(monkeypatch, extra):
    """A too-large Content-Length on the same 1 MB body: found as soon as the next header comes,
    by one forward scan (the header-like comment lines inside the JSON string do not count)."""
    body = json.dumps(did_open("file:///big.cu", comment_file(1 << 20))).encode()
    nxt = frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    data = frame_body(body, len(body) + extra) + nxt
    w, out = examined(monkeypatch, data)
    bodies = [x for x in out if not isinstance(x, Bad)]
    assert [json.loads(b).get("id") for b in bodies] == ([None, 2] if extra == 0 else [2])
    if extra:
        reasons = [x.reason for x in out if isinstance(x, Bad)]
        assert reasons == [f"Content-Length {len(body) + extra} is larger than the message"]
    assert w.bytes <= 6 * len(data), f"{w.bytes / len(data):.1f} bytes examined per input byte"


@pytest.mark.parametrize("extra", [0, 100], ids=["exact-length", "too-large-length"])
def test_a_deeply_nested_message_is_a_bad_note_not_a_crash(extra):
    f = Framer()
    f.feed(frame({"id": 1}) + frame_body(deep(), len(deep()) + extra) + frame({"id": 2}))
    out = f.messages()
    assert [json.loads(x)["id"] for x in out if not isinstance(x, Bad)] == [1, 2]
    bad = [x for x in out if isinstance(x, Bad)]
    assert len(bad) == 1
    if not extra:
        assert "nested too deeply" in bad[0].reason


def test_run_reader_reads_on_whatever_one_message_raises():
    """A too-deep message, an on_bad that raises, a handler that raises: the loop goes on."""
    import asyncio
    import logging

    handled = []

    class Protocol:
        @staticmethod
        def structure_message(obj):
            return obj

        @staticmethod
        def handle_message(message):
            if message.get("id") == 2:
                raise RuntimeError("a handler failed")
            handled.append(message["id"])

    def on_bad(bad):
        raise RuntimeError("on_bad failed")

    chunks = [frame({"id": 1}), frame_body(deep()), frame({"id": 2}), frame_body(b"{]", 2), frame({"id": 3}), b""]

    async def read():
        return chunks.pop(0)

    async def main():
        await framing.run_reader(threading.Event(), read, Protocol, on_bad, logging.getLogger("test"))

    asyncio.run(main())
    assert handled == [1, 3]


# -- the same through the real server over stdio ----------------------------------------------
class Server:
    """The language server as a child over pipes; a thread reads its messages into a queue."""

    def __init__(self, cwd: Path):
        self.proc = subprocess.Popen([sys.executable, "-m", "kernelpro.lsp_server"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
        self.inbox: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf, fd = b"", self.proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.inbox.put(None)
                return
            buf += chunk
            while b"\r\n\r\n" in buf:
                head, rest = buf.split(b"\r\n\r\n", 1)
                n = next(int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length"))
                if len(rest) < n:
                    break
                self.inbox.put(json.loads(rest[:n]))
                buf = rest[n:]

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def response(self, id_, timeout: float = 120):  # a liveness bound on a loaded machine, not a speed check
        while True:
            try:
                msg = self.inbox.get(timeout=timeout)
            except queue.Empty:
                return None
            if msg is None:
                return None  # the server ended
            if msg.get("id") == id_ and "method" not in msg:
                return msg

    def initialize(self, root: Path) -> None:
        self.send(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}}))
        assert self.response(1)["result"]["serverInfo"]["name"] == "kernelpro"
        self.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    def hover(self, id_, uri: str):
        self.send(frame({"jsonrpc": "2.0", "id": id_, "method": "textDocument/hover",
                         "params": {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}}))
        return self.response(id_)

    def shutdown(self) -> None:
        self.send(frame({"jsonrpc": "2.0", "id": 99, "method": "shutdown", "params": None}))
        res = self.response(99)
        assert res is not None and "error" not in res
        self.send(frame({"jsonrpc": "2.0", "method": "exit", "params": None}))
        assert self.proc.wait(timeout=30) == 0

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    try:
        yield s
    finally:
        s.close()


def open_small_file(server: Server, tmp_path: Path) -> str:
    path = tmp_path / "defects.cu"
    shutil.copy(Path(__file__).parent / "lsp_fixtures" / "defects.cu", path)
    server.send(frame(did_open(path.as_uri(), path.read_text())))
    return path.as_uri()


@pytest.mark.timeout(600)
def test_real_server_answers_after_opening_a_1mb_file_of_content_length_comments(server, tmp_path):
    server.initialize(tmp_path)
    big = tmp_path / "big.cu"
    big.write_text(comment_file(1 << 20))
    server.send(frame(did_open(big.as_uri(), big.read_text())))  # read by the server in 64 KB chunks
    uri = open_small_file(server, tmp_path)
    res = server.hover(2, uri)
    assert res is not None, "the server did not answer a hover after the 1 MB file was opened"
    assert "error" not in res
    server.shutdown()


@pytest.mark.timeout(600)
def test_real_server_answers_after_a_message_of_1000_nested_brackets(server, tmp_path):
    server.initialize(tmp_path)
    server.send(frame_body(deep()))  # 2 KB: a bare array 1000 deep
    uri = open_small_file(server, tmp_path)
    server.send(frame_body(b'{"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": '
                           + deep(999) + b"}"))  # a request, 1000 deep with its params
    res = server.hover(4, uri)
    assert res is not None, "the server did not answer after a message of 1000 nested brackets"
    assert "error" not in res
    server.shutdown()
