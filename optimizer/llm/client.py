"""A small chat client for OpenAI-compatible endpoints (OpenAI, vLLM, llama.cpp, Ollama...).

It does its own retries (exponential backoff with jitter, Retry-After honoured) on 429, 5xx,
timeouts and connection errors, and turns every failure into one `LLMError` with a one-line
reason. The API key is only handed to the `openai` client; it is kept out of reprs, logs and
error texts.

The key is bound to an endpoint the user configured, never to whatever URL a workspace or a
command line names:
- `KERNELPRO_LLM_API_KEY` is sent only to the endpoint equal to `KERNELPRO_LLM_BASE_URL`
  (scheme, host, port and path compared, without a trailing slash);
- `OPENAI_API_KEY` only to https://api.openai.com, under /v1;
- otherwise no key is sent (a placeholder), and an HTTP 401/403 says how to bind one;
- plain http only to loopback hosts (127.0.0.0/8, ::1, localhost): any other http URL is refused
  before any request (`endpoint_problem`); redirects are not followed.
"""
from __future__ import annotations

import email.utils
import ipaddress
import json
import logging
import os
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import openai

log = logging.getLogger(__name__)

RETRY_STATUS = {408, 409, 429}


class LLMError(Exception):
    """The model could not be reached or answered nonsense; `reason` is one line."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


NO_KEY = "not-needed"  # what is sent where no key is bound
OPENAI_HOST = "api.openai.com"
BIND_HINT = ('set KERNELPRO_LLM_BASE_URL to this URL together with KERNELPRO_LLM_API_KEY '
             '(in VS Code: the command "KernelPro: Set LLM API key")')


def normalise_url(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, path without a trailing slash), or None when it is not an http(s) URL."""
    try:
        parts = urlsplit((url or "").strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    if scheme not in ("http", "https") or not host:
        return None
    if port is None:
        port = 443 if scheme == "https" else 80
    return scheme, host, port, parts.path.rstrip("/")


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


def endpoint_problem(url: str | None) -> str | None:
    """Why the chat endpoint `url` is refused before any request (None: it is fine)."""
    shown = re.sub(r"//[^/@]*@", "//", url or "")  # never echo a user name or password
    n = normalise_url(url or "")
    if n is None:
        return f"LLM base URL {shown!r} is not an http:// or https:// URL"
    if "@" in urlsplit(url.strip()).netloc:
        return "LLM base URL must not carry a user name or password; use KERNELPRO_LLM_API_KEY"
    if n[0] == "http" and not is_loopback(n[1]):
        return (f"LLM base URL {url} uses plain http to a host that is not this machine: the code and any key "
                "would cross the network unencrypted; use https:// (plain http only to localhost, 127.0.0.0/8 or ::1)")
    return None


def bound_api_key(base_url: str) -> tuple[str, str | None]:
    """(key, where it came from) for `base_url`: the key bound to that endpoint, or NO_KEY."""
    target = normalise_url(base_url)
    if target is None:
        return NO_KEY, None
    key = os.environ.get("KERNELPRO_LLM_API_KEY")
    bound = os.environ.get("KERNELPRO_LLM_BASE_URL")
    if key and bound and normalise_url(bound) == target:
        return key, "KERNELPRO_LLM_API_KEY"
    key = os.environ.get("OPENAI_API_KEY")
    scheme, host, port, path = target
    if key and scheme == "https" and host == OPENAI_HOST and port == 443 and (path == "/v1" or path.startswith("/v1/")):
        return key, "OPENAI_API_KEY"
    return NO_KEY, None


@dataclass
class LLMConfig:
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 120.0
    max_retries: int = 3
    temperature: float = 0.2
    max_answer_chars: int = 200_000
    backoff_s: float = 1.0  # first retry waits about this long, then doubles
    max_backoff_s: float = 30.0  # cap for both backoff and Retry-After

    key_source: str | None = field(default=None, repr=False)  # "given", an environment variable, or None (no key)

    def __post_init__(self):
        if self.api_key:
            self.key_source = self.key_source or "given"
        else:
            self.api_key, self.key_source = bound_api_key(self.base_url)


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text as the model wrote it


@dataclass
class ChatResult:
    message: dict[str, Any]  # the assistant message, ready to append to the conversation
    tool_calls: list[ToolCall]
    usage_tokens: int
    finish_reason: str | None
    usage_estimated: bool = False

    @property
    def content(self) -> str:
        return self.message.get("content") or ""


def _retry_after(exc: Exception) -> float | None:
    resp = getattr(exc, "response", None)
    headers = getattr(resp, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        return float(ra)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(ra)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ChatClient:
    def __init__(self, config: LLMConfig):
        """Raises LLMError when the endpoint is refused (endpoint_problem): nothing is sent."""
        problem = endpoint_problem(config.base_url)
        if problem:
            raise LLMError(problem)
        self.config = config
        self._client = openai.OpenAI(
            base_url=config.base_url,
            api_key=config.api_key,
            timeout=config.timeout_s,
            max_retries=0,
            # a redirect would take the conversation (and the key, to the same origin) elsewhere
            http_client=openai.DefaultHttpxClient(follow_redirects=False, timeout=config.timeout_s),
        )

    def __repr__(self) -> str:
        return f"ChatClient(base_url={self.config.base_url!r}, model={self.config.model!r})"

    def _scrub(self, text: str) -> str:
        key = self.config.api_key or ""
        if len(key) >= 4 and key in text:
            text = text.replace(key, "***")
        return text

    def _backoff(self, attempt: int, exc: Exception) -> float:
        cfg = self.config
        ra = _retry_after(exc)
        if ra is not None:
            return min(max(ra, 0.0), cfg.max_backoff_s)
        base = cfg.backoff_s * (2 ** attempt)
        return min(base * (0.5 + random.random()), cfg.max_backoff_s)

    def chat(self, messages: list[dict], tools: list[dict] | None = None) -> ChatResult:
        cfg = self.config
        problem = endpoint_problem(cfg.base_url)
        if problem:
            raise LLMError(problem)
        kwargs: dict[str, Any] = {"model": cfg.model, "messages": messages, "temperature": cfg.temperature}
        if tools:
            kwargs["tools"] = tools
        last = "no attempt made"
        for attempt in range(cfg.max_retries + 1):
            try:
                resp = self._client.chat.completions.create(**kwargs)
            except openai.APITimeoutError as exc:
                err, last, retry = exc, f"request timed out after {cfg.timeout_s:g} s", True
            except openai.APIConnectionError as exc:
                err, last, retry = exc, f"cannot connect to {cfg.base_url}", True
            except openai.APIStatusError as exc:
                err, status = exc, exc.status_code
                last = self._scrub(_one_line(f"HTTP {status} from {cfg.base_url}: {exc.message}"))
                if status in (401, 403) and cfg.key_source is None:
                    last += f"; no API key is bound to {cfg.base_url}: {BIND_HINT}"
                retry = status in RETRY_STATUS or status >= 500
            except (json.JSONDecodeError, ValueError):
                last, retry = f"malformed response from {cfg.base_url}: body is not JSON", False
            except openai.OpenAIError as exc:
                last, retry = self._scrub(_one_line(f"{type(exc).__name__}: {exc}")), False
            else:
                return self._result(resp, messages)
            if not retry:
                break
            if attempt < cfg.max_retries:
                wait = self._backoff(attempt, err)
                log.info("LLM call failed (%s); retry %d/%d in %.2f s", last, attempt + 1, cfg.max_retries, wait)
                time.sleep(wait)
        else:
            raise LLMError(f"{last} (gave up after {cfg.max_retries + 1} attempts)")
        # raised outside the except blocks: no chained exception holds the request headers
        raise LLMError(last)

    def _result(self, resp: Any, messages: list[dict]) -> ChatResult:
        where = self.config.base_url
        if isinstance(resp, (str, bytes)) or not hasattr(resp, "model_dump"):
            raise LLMError(f"malformed response from {where}: not a chat completion")
        choices = getattr(resp, "choices", None)
        if not choices:
            raise LLMError(f"malformed response from {where}: no choices")
        choice = choices[0]
        msg = getattr(choice, "message", None)
        if msg is None:
            raise LLMError(f"malformed response from {where}: choice has no message")
        content = getattr(msg, "content", None)
        if content is not None and not isinstance(content, str):
            content = json.dumps(content)
        calls: list[ToolCall] = []
        for i, tc in enumerate(getattr(msg, "tool_calls", None) or []):
            fn = getattr(tc, "function", None)
            name = getattr(fn, "name", None) or ""
            args = getattr(fn, "arguments", None)
            if not isinstance(args, str):
                args = json.dumps(args if args is not None else {})
            calls.append(ToolCall(id=getattr(tc, "id", None) or f"call_{i}", name=name, arguments=args))
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in calls
            ]
        usage = getattr(resp, "usage", None)
        total = getattr(usage, "total_tokens", None) if usage is not None else None
        estimated = not isinstance(total, int)
        if estimated:
            chars = sum(len(str(m.get("content") or "")) for m in messages)
            chars += len(content or "") + sum(len(c.arguments) for c in calls)
            total = chars // 4
        return ChatResult(message, calls, int(total), getattr(choice, "finish_reason", None), estimated)
