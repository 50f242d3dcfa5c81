"""A bare LSP client over the real server's stdio, for tests that choose the server's working
directory, environment and signals (pytest-lsp starts the server its own way).

Server-to-client requests are answered: workspace/configuration with the settings given,
anything else with null. Notifications are kept in arrival order.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

SERVER = [sys.executable, "-P", "-m", "kernelpro.lsp_server"]


class RawLsp:
    def __init__(self, cwd: Path, settings: dict | None = None, env: dict | None = None,
                 command: list[str] | None = None):
        self.settings = settings or {}
        self.proc = subprocess.Popen(command or SERVER, cwd=str(cwd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
        self.notes: list[dict] = []
        self.responses: dict[int, dict] = {}
        self.lock = threading.Condition()
        self.next_id = 0
        self.sent = 0  # messages written to the server
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.stderr: list[str] = []

    # -- wire ------------------------------------------------------------
    def send(self, obj: dict) -> None:
        body = json.dumps(obj).encode()
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
            self.sent += 1
        except (BrokenPipeError, ValueError):
            pass

    def _drain_stderr(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line.decode(errors="replace"))

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                c = out.read(1)
                if not c:
                    with self.lock:
                        self.closed = True
                        self.lock.notify_all()
                    return
                head += c
            n = next(int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length"))
            msg = json.loads(out.read(n))
            if "method" in msg and "id" in msg:  # a request from the server
                result: Any = [self.settings for _ in msg.get("params", {}).get("items", [])] \
                    if msg["method"] == "workspace/configuration" else None
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                continue
            with self.lock:
                if "method" in msg:
                    self.notes.append(msg)
                else:
                    self.responses[msg["id"]] = msg
                self.lock.notify_all()

    def request(self, method: str, params: Any, timeout: float = 60) -> dict:
        with self.lock:
            self.next_id += 1
            i = self.next_id
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        with self.lock:
            if not self.lock.wait_for(lambda: i in self.responses or self.closed, timeout):
                raise AssertionError(f"no answer to {method} within {timeout} s")
            if i not in self.responses:
                raise AssertionError(f"the server closed before answering {method}: {''.join(self.stderr)[-2000:]}")
            return self.responses.pop(i)

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_note(self, pred: Callable[[dict], bool], timeout: float = 60, after: int = 0) -> dict:
        with self.lock:
            found: list[dict] = []

            def ok():
                found[:] = [n for n in self.notes[after:] if pred(n)]
                return bool(found) or self.closed

            self.lock.wait_for(ok, timeout)
            if not found:
                raise AssertionError(f"no such notification within {timeout} s; got "
                                     f"{[n['method'] for n in self.notes]}; stderr: {''.join(self.stderr)[-2000:]}")
            return found[0]

    # -- LSP -------------------------------------------------------------
    def initialize(self, root: Path, options: dict | None = None) -> dict:
        res = self.request("initialize", {
            "processId": os.getpid(), "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": {"workspace": {"configuration": True}, "window": {"workDoneProgress": True}},
            "initializationOptions": {"settings": self.settings, **(options or {})}})
        self.notify("initialized", {})
        return res

    def open(self, path: Path, text: str | None = None, version: int = 1) -> str:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cuda-cpp", "version": version,
            "text": path.read_text() if text is None else text}})
        return uri

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 60, after: int = 0) -> list[dict]:
        n = self.wait_note(lambda m: m["method"] == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                           and (version is None or m["params"].get("version") == version), timeout, after)
        return n["params"]["diagnostics"]

    def hover(self, uri: str, line: int = 0, character: int = 0, timeout: float = 60) -> dict:
        return self.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": {"line": line, "character": character}}, timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.request("shutdown", None, timeout=20)
                self.notify("exit", None)
                self.proc.wait(20)
            except (AssertionError, subprocess.TimeoutExpired):
                self.proc.send_signal(signal.SIGKILL)
                self.proc.wait()


def wait_for(pred: Callable[[], Any], timeout: float = 30, what: str = "condition") -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead too
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
