"""The LLM proposer: a planner reads the feedback and picks a strategy, a coder writes the
kernel, calling the micro-profiling tools on its drafts (OpenAI tool calling) before it answers.

Failures are data: an unreachable endpoint, a rejected answer, a tool-round limit or an empty
reply is appended to `self.failures` ({"reason", "stage": "planner"|"coder"|"answer"}) and
reported through on_event({"type": "llm_failure", ...}); propose() never raises. After an
LLMError (the client has already retried) the rest of that propose() call is skipped.
A rejected answer is sent back to the coder with the reason, up to attempts_per_call answers
per proposal. Only the kernel's device code and declared launch part are used (see answer.py).

Every source the model passes to a tool (any tool whose parameters have a "source" string) goes
through the same check as its final answer (police.check_source) before the tool runs: a
refused draft is not compiled, and the model gets the reason and the line instead.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..model import Candidate, Proposal
from . import prompts
from .splice import splice
from .answer import Answer, BadAnswer, extract_answer
from .police import check_source
from .client import ChatClient, ChatResult, LLMError, ToolCall

log = logging.getLogger(__name__)

MAX_TOOL_CHARS = 20_000


@dataclass
class ToolSpec:
    """A tool the coder may call: fn takes the decoded JSON arguments and returns text."""

    name: str
    description: str
    parameters: dict  # JSON schema of the arguments object
    fn: Callable[[dict], str]

    def to_openai(self) -> dict:
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.parameters}}


class _Abort(Exception):
    """The endpoint failed after its retries: stop this propose() call."""


class LLMProposer:
    name = "llm"

    def __init__(
        self,
        client: ChatClient,
        tools: list[ToolSpec],
        kernel_name: str,
        feedback: str = "advice",
        memory_text: Callable[[list[str]], str] | None = None,
        max_tool_rounds: int = 6,
        attempts_per_call: int = 2,
        project_dir: str | Path | None = None,
        on_event: Callable[[dict], Any] | None = None,
        check: Callable[[Answer], str | None] | None = None,
    ):
        """check: optional last gate on an extracted answer (e.g. a compile); returns a reason or None."""
        if feedback not in prompts.FEEDBACK_MODES:
            raise ValueError(f"unknown feedback mode {feedback!r}; choose one of {', '.join(prompts.FEEDBACK_MODES)}")
        names = [t.name for t in tools]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate tool names in {names}")
        self.client = client
        self.tools = {t.name: t for t in tools}
        self.kernel_name = kernel_name
        self.feedback = feedback
        self.memory_text = memory_text
        self.max_tool_rounds = max(0, int(max_tool_rounds))
        self.attempts_per_call = max(1, int(attempts_per_call))
        self.project_dir = project_dir
        self.on_event = on_event
        self.check = check
        self.failures: list[dict] = []
        self.tokens_used = 0
        self._reference: str | None = None  # the source the coder starts from (what it copies is the user's)

    # -- bookkeeping ---------------------------------------------------------------
    def _emit(self, event: dict) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except Exception as exc:  # an observer must not break the search
            log.warning("on_event raised %s: %s", type(exc).__name__, exc)

    def _fail(self, stage: str, reason: str, **extra) -> None:
        rec = {"reason": reason, "stage": stage, **extra}
        self.failures.append(rec)
        self._emit({"type": "llm_failure", "kernel": self.kernel_name, **rec})

    def _chat(self, messages, tools, ctx, stage: str) -> ChatResult:
        try:
            res = self.client.chat(messages, tools=tools)
        except LLMError as exc:
            self._fail(stage, exc.reason)
            raise _Abort() from None
        self.tokens_used += res.usage_tokens
        if ctx is not None:
            ctx.tokens_used = getattr(ctx, "tokens_used", 0) + res.usage_tokens
        return res

    # -- Proposer ------------------------------------------------------------------
    def propose(self, node, ctx, k: int) -> list[Proposal]:
        out: list[Proposal] = []
        tried: list[str] = []
        for _ in range(max(0, k)):
            try:
                p = self._one(node, ctx, tried)
            except _Abort:
                break
            except Exception as exc:  # a bug somewhere below must not stop the search
                log.exception("LLM proposer failed")
                self._fail("coder", f"internal error: {type(exc).__name__}: {exc}")
                continue
            if p is not None:
                out.append(p)
                tried.append(p.candidate.description)
        return out

    def _one(self, node, ctx, tried: list[str]) -> Proposal | None:
        plan = self._plan(node, ctx, tried)
        if plan is None:
            return None
        return self._code(node, ctx, plan)

    def _plan(self, node, ctx, tried) -> dict | None:
        ev = node.evaluation
        lessons = ""
        if self.memory_text is not None:
            try:
                lessons = self.memory_text(node.path()) or ""
            except Exception as exc:
                log.warning("memory_text raised %s: %s", type(exc).__name__, exc)
        root = getattr(ctx, "root", None)
        root_times = getattr(getattr(root, "evaluation", None), "times_s", None)
        msgs = prompts.planner_messages(
            source=node.candidate.source, kernel=self.kernel_name, evaluation=ev, root_times=root_times,
            mode=self.feedback, lessons=lessons, path=node.path(),
            objective=getattr(ctx, "objective", "time"), avoid=tried,
            launch=node.candidate.launch, flags=node.candidate.flags,
        )
        res = self._chat(msgs, None, ctx, "planner")
        plan = prompts.parse_plan(res.content)
        if not plan["strategy"]:
            self._fail("planner", _empty_reason(res))
            return None
        known = {a.rule for a in (getattr(ev, "advice", None) or [])}
        plan["answers"] = [] if self.feedback == "none" else [r for r in dict.fromkeys(plan["answers"]) if r in known]
        self._emit({"type": "llm_plan", "strategy": plan["strategy"], "answers": plan["answers"]})
        return plan

    def _code(self, node, ctx, plan: dict) -> Proposal | None:
        parent = node.candidate
        self._reference = parent.source
        tool_defs = [t.to_openai() for t in self.tools.values()] or None
        messages = prompts.coder_messages(
            source=parent.source, kernel=self.kernel_name, strategy=plan["strategy"],
            tool_names=list(self.tools), max_rounds=self.max_tool_rounds,
            launch=parent.launch, flags=parent.flags,
        )
        rounds = attempts = 0
        while True:
            res = self._chat(messages, tool_defs, ctx, "coder")
            if res.tool_calls:
                if rounds >= self.max_tool_rounds:
                    self._fail("coder", f"tool-round limit ({self.max_tool_rounds}) reached without a final answer")
                    return None
                rounds += 1
                messages.append(res.message)
                for call in res.tool_calls:
                    text = self._run_tool(call)
                    if rounds == self.max_tool_rounds:
                        text += prompts.last_round_note()
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
                continue
            attempts += 1
            try:
                if not res.content.strip():
                    raise BadAnswer(_empty_reason(res))
                ans = extract_answer(
                    res.content, self.kernel_name, project_dir=self.project_dir,
                    max_chars=self.client.config.max_answer_chars, reference_source=parent.source,
                )
                # what the answer does not declare is kept from the parent
                launch = {**(parent.launch or {}), **ans.launch} if ans.launch else parent.launch
                cand = Candidate(
                    source=splice(parent.source, ans.source), launch=launch, flags=parent.flags if ans.flags is None else ans.flags,
                    description=_one_line(plan["strategy"]), answers=tuple(plan["answers"]), origin="llm", kind="llm",
                )
                if cand.key() == parent.key() or (ctx is not None and hasattr(ctx, "is_known") and ctx.is_known(cand)):
                    raise BadAnswer("the answer repeats a kernel that was already tried; make the change")
                if self.check is not None:
                    why = self.check(ans)
                    if why:
                        raise BadAnswer(why)
            except BadAnswer as exc:
                reason = exc.reason + (" (the reply was cut off at the token limit)" if res.finish_reason == "length" else "")
                stage = "coder" if not res.content.strip() else "answer"
                self._fail(stage, reason)
                if attempts >= self.attempts_per_call:
                    return None
                messages.append({"role": "assistant", "content": res.content or ""})
                messages.append(prompts.repair_message(reason))
                continue
            conf = plan.get("confidence")
            prior = min(1.0, max(0.05, conf)) if conf is not None else 0.5
            self._emit({"type": "llm_proposal", "description": cand.description, "answers": list(cand.answers)})
            return Proposal(cand, prior)

    def _run_tool(self, call: ToolCall) -> str:
        """Run one tool call; every problem becomes an error text for the model."""
        spec = self.tools.get(call.name)
        error = None
        if spec is None:
            error = f"error: unknown tool '{call.name}'; available tools: {', '.join(self.tools) or 'none'}"
        else:
            try:
                args = json.loads(call.arguments or "{}")
            except json.JSONDecodeError as exc:
                error = (f"error: the arguments of {call.name} are not valid JSON "
                         f"({exc.msg} at character {exc.pos}); send a JSON object")
            else:
                if not isinstance(args, dict):
                    error = f"error: the arguments of {call.name} must be a JSON object"
        if error is None and _takes_source(spec) and "source" in args:
            if not isinstance(args["source"], str):
                error = f"error: the 'source' of {call.name} must be a string (the whole .cu text)"
            else:
                try:  # the model's code is checked before any tool compiles it
                    check_source(args["source"], self.project_dir, reference=self._reference)
                except BadAnswer as exc:
                    error = f"error: {call.name} did not run: the source was refused: {exc.reason}"
        if error is None:
            try:
                text = str(spec.fn(args))
            except BadAnswer as exc:
                error = f"error: {call.name} did not run: the source was refused: {exc.reason}"
            except Exception as exc:
                error = f"error: tool {call.name} failed: {type(exc).__name__}: {exc}"
        if error is not None:
            self._fail("coder", f"tool call: {error}", tool=call.name)
            text = error
        if len(text) > MAX_TOOL_CHARS:
            text = text[:MAX_TOOL_CHARS] + f"\n... (truncated, {len(text)} characters in all)"
        self._emit({"type": "llm_tool", "name": call.name, "error": error is not None})
        return text


def _takes_source(spec: ToolSpec) -> bool:
    props = (spec.parameters or {}).get("properties") or {}
    return isinstance(props, dict) and "source" in props


def _empty_reason(res: ChatResult) -> str:
    return "empty answer" + (f" (finish_reason={res.finish_reason})" if res.finish_reason not in (None, "stop") else "")


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
