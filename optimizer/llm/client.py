"""A small chat client for OpenAI-compatible endpoints (OpenAI, vLLM, llama.cpp, Ollama...).

It does its own retries (exponential backoff with jitter, Retry-After honoured) on 429, 5xx,
timeouts and connection errors, and turns every failure into one `LLMError` with a one-line
reason. The API key is only handed to the `openai` client; it is kept out of reprs, logs and
error texts.
"""
from __future__ import annotations

import email.utils
import json
import logging
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

import openai

log = logging.getLogger(__name__)

RETRY_STATUS = {408, 409, 429}


class LLMError(Exception):
    """The model could not be reached or answered nonsense; `reason` is one line."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def default_api_key() -> str:
    return os.environ.get("KERNELPRO_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY") or "not-needed"


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

    def __post_init__(self):
        if not self.api_key:
            self.api_key = default_api_key()


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
        self.config = config
        self._client = openai.OpenAI(
            base_url=config.base_url,
            api_key=config.api_key,
            timeout=config.timeout_s,
            max_retries=0,
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
