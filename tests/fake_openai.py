"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests.

Each POST /v1/chat/completions takes the next entry of `script` (a str is a text answer;
otherwise one of the dicts built by the helpers below). `requests` holds the JSON bodies
received, `headers` their HTTP headers. An exhausted script answers HTTP 500.
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


def text(content, usage: bool = True, finish_reason: str = "stop") -> dict:
    return {"kind": "text", "content": content, "usage": usage, "finish_reason": finish_reason}


def tool_call(name: str, arguments, call_id: str | None = None, content=None) -> dict:
    """arguments: a dict (sent as JSON text) or a str (sent as is, e.g. broken JSON)."""
    return tool_calls([(name, arguments, call_id)], content=content)


def tool_calls(calls: list, content=None) -> dict:
    return {"kind": "tools", "calls": calls, "content": content}


def http_error(status: int, retry_after: str | None = None, body: str | None = None) -> dict:
    return {"kind": "error", "status": status, "retry_after": retry_after, "body": body}


def delay(seconds: float, then: dict | str | None = None) -> dict:
    return {"kind": "delay", "seconds": seconds, "then": then}


def garbage(content_type: str = "application/json") -> dict:
    return {"kind": "garbage", "content_type": content_type}


def no_choices() -> dict:
    return {"kind": "no_choices"}


class FakeLLM:
    def __init__(self):
        self.script: list = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        self.counter = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                if self.path.rstrip("/") == "/v1/models":
                    self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model",
                                                                  "created": 0, "owned_by": "tests"}]})
                else:
                    self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self._json(400, {"error": {"message": "request is not JSON", "type": "invalid_request"}})
                    return
                with fake.lock:
                    fake.requests.append(body)
                    fake.headers.append(dict(self.headers))
                    entry = fake.script.pop(0) if fake.script else None
                    fake.counter += 1
                    n = fake.counter
                self._answer(entry, body, n)

            def _answer(self, entry, body, n):
                if entry is None:
                    self._json(500, {"error": {"message": "fake script exhausted", "type": "server_error"}})
                    return
                if isinstance(entry, str):
                    entry = text(entry)
                kind = entry["kind"]
                if kind == "delay":
                    time.sleep(entry["seconds"])
                    self._answer(entry["then"] or text("late"), body, n)
                elif kind == "error":
                    headers = {"Retry-After": entry["retry_after"]} if entry["retry_after"] is not None else {}
                    err = entry["body"] or json.dumps({"error": {"message": f"fake error {entry['status']}",
                                                                 "type": "server_error"}})
                    self._send(entry["status"], err.encode(), "application/json", headers)
                elif kind == "garbage":
                    self._send(200, b"<html>this is { not json", entry["content_type"])
                elif kind == "no_choices":
                    self._json(200, self._completion(body, n, choices=[]))
                elif kind == "text":
                    msg = {"role": "assistant", "content": entry["content"]}
                    self._json(200, self._completion(body, n, [msg], entry["finish_reason"], entry["usage"]))
                elif kind == "tools":
                    calls = []
                    for i, (name, args, cid) in enumerate(entry["calls"]):
                        calls.append({"id": cid or f"call_{n}_{i}", "type": "function",
                                      "function": {"name": name,
                                                   "arguments": args if isinstance(args, str) else json.dumps(args)}})
                    msg = {"role": "assistant", "content": entry["content"], "tool_calls": calls}
                    self._json(200, self._completion(body, n, [msg], "tool_calls"))
                else:
                    raise ValueError(f"unknown script entry kind {kind!r}")

            def _completion(self, body, n, messages=None, finish="stop", usage=True, choices=None):
                if choices is None:
                    choices = [{"index": i, "message": m, "finish_reason": finish} for i, m in enumerate(messages)]
                out = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()),
                       "model": body.get("model", "fake-model"), "choices": choices}
                if usage:
                    prompt = len(json.dumps(body.get("messages", []))) // 4
                    done = len(json.dumps(choices)) // 4
                    out["usage"] = {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}
                return out

            def _json(self, status, obj):
                self._send(status, json.dumps(obj).encode(), "application/json")

            def _send(self, status, data: bytes, ctype: str, headers: dict | None = None):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       name="fake-openai", daemon=True)

    def push(self, *entries) -> "FakeLLM":
        self.script.extend(entries)
        return self

    def start(self) -> "FakeLLM":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_llm():
    fake = FakeLLM().start()
    try:
        yield fake
    finally:
        fake.stop()
