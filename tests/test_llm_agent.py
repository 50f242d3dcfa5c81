"""The LLM proposer against a scripted OpenAI-compatible server (tests/fake_openai.py)."""
import json
import logging
import random
import shutil
import subprocess
import time

import pytest

from fake_openai import delay, fake_llm, garbage, http_error, no_choices, text, tool_call, tool_calls  # noqa: F401
from kernelpro.optimizer.llm import ChatClient, LLMConfig, LLMError, LLMProposer, ToolSpec
from kernelpro.optimizer.model import Candidate, Evaluation
from kernelpro.optimizer.search import Node, SearchContext
from kernelpro.profilers.advice import Advice, Evidence, Severity

SOURCE = """__global__ void saxpy(float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""
BETTER = SOURCE.replace("float* x, float* y", "const float* __restrict__ x, float* __restrict__ y")
KEY = "sk-test-SECRET-0123456789"

ADVICE = [
    Advice(rule="restrict-pointers", severity=Severity.WARNING, kernel="saxpy", file="saxpy.cu", line=1,
           message="read-only pointer x is not const __restrict__", remedy="declare x as const float* __restrict__",
           evidence=[Evidence("ldg_constant", 0, "instructions", "sass"), Evidence("global_loads", 2, "", "sass")],
           gain=1.1),
    Advice(rule="narrow-loads", severity=Severity.INFO, kernel="saxpy", file="saxpy.cu", line=3,
           message="32-bit global loads in a streaming kernel", remedy="load float4",
           evidence=[Evidence("load_width", 32, "bit", "sass")]),
]


def plan(strategy="Add const __restrict__ to the pointers.", answers=("restrict-pointers",), confidence=0.8):
    return text(json.dumps({"strategy": strategy, "answers": list(answers), "confidence": confidence}))


def answer(src=BETTER, launch=None, before="Done."):
    out = f"{before}\n```cuda\n{src}```\n"
    if launch is not None:
        out += f"```json\n{json.dumps(launch)}\n```\n"
    return text(out)


def make_node():
    root_ev = Evaluation(ok=True, failure=None, times_s={"n=1M": 12.5e-6}, energy_j={}, error={},
                         advice=ADVICE, resources={"registers": 16})
    root = Node(id=0, candidate=Candidate(source=SOURCE), evaluation=root_ev)
    ctx = SearchContext(objective="time", rng=random.Random(0), tokens_used=0, root=root)
    return root, ctx


def make_client(fake, **kw):
    cfg = dict(api_key=KEY, timeout_s=5.0, max_retries=2, backoff_s=0.001, max_backoff_s=1.0)
    cfg.update(kw)
    return ChatClient(LLMConfig(fake.base_url, "fake-model", **cfg))


class Recorder:
    def __init__(self, reply="compiled: 12 registers, 0 bytes spill"):
        self.calls, self.reply = [], reply

    def __call__(self, args):
        self.calls.append(args)
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


def compile_tool(fn):
    return ToolSpec("compile", "Compile the draft and report registers and spills.",
                    {"type": "object", "properties": {"source": {"type": "string"}}, "required": ["source"]}, fn)


def proposer(fake, tools=(), events=None, client=None, **kw):
    sink = events if events is not None else []
    return LLMProposer(client or make_client(fake), list(tools), "saxpy", on_event=sink.append, **kw)


def messages_of(req, role):
    return [m for m in req["messages"] if m["role"] == role]


def test_good_run_with_tool_call(fake_llm):
    rec = Recorder()
    events = []
    fake_llm.push(
        plan(answers=("restrict-pointers", "not-a-rule")),
        tool_call("compile", {"source": BETTER}, call_id="call_abc"),
        answer(launch={"block": 256, "grid": "(n + 255) // 256", "flags": ["-use_fast_math"]}),
    )
    root, ctx = make_node()
    p = proposer(fake_llm, [compile_tool(rec)], events)
    out = p.propose(root, ctx, 1)
    assert len(out) == 1 and p.failures == []
    cand = out[0].candidate
    assert cand.source == BETTER and cand.origin == "llm"
    assert cand.launch == {"block": 256, "grid": "(n + 255) // 256"} and cand.flags == ("-use_fast_math",)
    assert cand.description == "Add const __restrict__ to the pointers."
    assert cand.answers == ("restrict-pointers",)  # unknown rule ids dropped
    assert out[0].prior == pytest.approx(0.8)
    assert rec.calls == [{"source": BETTER}]
    reqs = fake_llm.requests
    assert len(reqs) == 3
    assert "tools" not in reqs[0]  # the planner has no tools
    assert [t["function"]["name"] for t in reqs[1]["tools"]] == ["compile"]
    assert reqs[1]["tools"][0]["type"] == "function"
    assert "Add const __restrict__" in messages_of(reqs[1], "user")[0]["content"]
    tool_msgs = messages_of(reqs[2], "tool")
    assert tool_msgs == [{"role": "tool", "tool_call_id": "call_abc", "content": "compiled: 12 registers, 0 bytes spill"}]
    asked = messages_of(reqs[2], "assistant")[0]
    assert asked["tool_calls"][0]["function"]["name"] == "compile"
    assert ctx.tokens_used == p.tokens_used > 0
    assert [e["type"] for e in events] == ["llm_plan", "llm_tool", "llm_proposal"]


@pytest.mark.parametrize("mode", ["advice", "raw", "none"])
def test_feedback_modes_change_the_planner_prompt(fake_llm, mode):
    fake_llm.push(plan(), answer())
    root, ctx = make_node()
    out = proposer(fake_llm, feedback=mode).propose(root, ctx, 1)
    assert len(out) == 1
    prompt = messages_of(fake_llm.requests[0], "user")[0]["content"]
    assert "12.50 us" in prompt and "__global__ void saxpy" in prompt
    diagnosis, remedy = ADVICE[0].message, ADVICE[0].remedy
    if mode == "advice":
        assert diagnosis in prompt and remedy in prompt and "ldg_constant = 0" in prompt
        assert out[0].candidate.answers == ("restrict-pointers",)
    elif mode == "raw":
        assert "[restrict-pointers] line 1: ldg_constant = 0 instructions (sass)" in prompt
        assert "load_width = 32 bit" in prompt
        assert diagnosis not in prompt and remedy not in prompt and ADVICE[1].remedy not in prompt
    else:
        assert "restrict-pointers" not in prompt and "ldg_constant" not in prompt and diagnosis not in prompt
        assert "registers" not in prompt
        assert out[0].candidate.answers == ()


def test_memory_path_and_plain_text_plan(fake_llm):
    fake_llm.push(text("Use float4 vector loads."), answer())
    root, ctx = make_node()
    child = Node(id=1, candidate=Candidate(source=SOURCE + "// v1\n", description="unrolled by 4"),
                 evaluation=root.evaluation, parent=root)
    seen = []
    p = proposer(fake_llm, memory_text=lambda path: seen.append(path) or "Lesson: tiling hurt at n=1M.")
    out = p.propose(child, ctx, 1)
    assert seen == [["unrolled by 4"]]
    prompt = messages_of(fake_llm.requests[0], "user")[0]["content"]
    assert "Lesson: tiling hurt at n=1M." in prompt and "1. unrolled by 4" in prompt
    assert out[0].candidate.description == "Use float4 vector loads." and out[0].prior == 0.5


def test_second_proposal_is_told_the_first(fake_llm):
    fake_llm.push(plan("Strategy A."), answer(), plan("Strategy B."), answer(BETTER + "// b\n"))
    root, ctx = make_node()
    out = proposer(fake_llm).propose(root, ctx, 2)
    assert [p.candidate.description for p in out] == ["Strategy A.", "Strategy B."]
    assert "- Strategy A." in messages_of(fake_llm.requests[2], "user")[0]["content"]


def test_rejected_answer_is_sent_back_and_repaired(fake_llm):
    fake_llm.push(plan(), text("I would add __restrict__."), answer())
    root, ctx = make_node()
    p = proposer(fake_llm, attempts_per_call=2)
    out = p.propose(root, ctx, 1)
    assert len(out) == 1
    assert p.failures[0]["stage"] == "answer" and p.failures[0]["reason"].startswith("no code block")
    last_user = messages_of(fake_llm.requests[2], "user")[-1]["content"]
    assert last_user.startswith("Your answer was rejected: no code block")


@pytest.mark.parametrize("reply, word", [
    ("Just add __restrict__ to the pointers.", "no code block"),
    ("```cuda\n" + BETTER.replace("saxpy", "saxpy_fast") + "```", "kernel 'saxpy' not found"),
    ("```cuda\n" + BETTER + "int main() { return 0; }\n```", "host function 'main'"),
    ("```cuda\n#include \"../../etc/passwd\"\n" + BETTER + "```", "resolves outside the project"),
    ("```cuda\n" + BETTER + "// " + "x" * 3000 + "\n```", "answer too long"),
    ("", "empty answer"),
    ("```cuda\n" + SOURCE + "```", "repeats a kernel"),
], ids=["no-code", "renamed", "host-code", "include-outside", "enormous", "empty", "duplicate"])
def test_bad_answers_are_failed_attempts(fake_llm, tmp_path, reply, word):
    fake_llm.push(plan(), text(reply))
    root, ctx = make_node()
    events = []
    client = make_client(fake_llm, max_answer_chars=2000)
    p = proposer(fake_llm, events=events, client=client, attempts_per_call=1, project_dir=tmp_path)
    assert p.propose(root, ctx, 1) == []
    assert len(p.failures) == 1 and word in p.failures[0]["reason"]
    assert p.failures[0]["stage"] in ("answer", "coder")
    assert events[-1]["type"] == "llm_failure" and word in events[-1]["reason"]
    assert len(fake_llm.requests) == 2


def nvcc_compile(source: str, tmp) -> str:
    path = tmp / "draft.cu"
    path.write_text(source)
    r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-o", str(tmp / "draft.cubin"), str(path)],
                       capture_output=True, text=True, timeout=120)
    return "ok" if r.returncode == 0 else "compile error:\n" + r.stderr[-2000:]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_code_that_does_not_compile(fake_llm, tmp_path):
    broken = BETTER.replace("a * x[i]", "a * undefined_thing[i]")
    fake_llm.push(plan(), tool_call("compile", {"source": broken}), answer(broken))
    root, ctx = make_node()
    tool = compile_tool(lambda args: nvcc_compile(args["source"], tmp_path))

    def check(ans):
        out = nvcc_compile(ans.source, tmp_path)
        return None if out == "ok" else "does not compile: " + out.splitlines()[1][:200]

    p = proposer(fake_llm, [tool], attempts_per_call=1, check=check)
    assert p.propose(root, ctx, 1) == []
    tool_msg = messages_of(fake_llm.requests[2], "tool")[0]["content"]
    assert tool_msg.startswith("compile error:") and "undefined_thing" in tool_msg
    assert p.failures[-1]["stage"] == "answer" and "does not compile" in p.failures[-1]["reason"]
    assert "undefined_thing" in p.failures[-1]["reason"]


def test_timeout(fake_llm):
    fake_llm.push(delay(1.0), delay(1.0))
    root, ctx = make_node()
    p = proposer(fake_llm, client=make_client(fake_llm, timeout_s=0.2, max_retries=1))
    t = time.monotonic()
    assert p.propose(root, ctx, 3) == []  # the endpoint is down: the other two slots are skipped
    assert time.monotonic() - t < 3
    assert len(p.failures) == 1 and p.failures[0]["stage"] == "planner"
    assert "timed out" in p.failures[0]["reason"] and "gave up after 2 attempts" in p.failures[0]["reason"]
    assert len(fake_llm.requests) == 2


def test_429_then_success_honours_retry_after(fake_llm):
    fake_llm.push(http_error(429, retry_after="0"), http_error(429, retry_after="0.3"), plan(), answer())
    root, ctx = make_node()
    p = proposer(fake_llm)
    t = time.monotonic()
    out = p.propose(root, ctx, 1)
    assert time.monotonic() - t >= 0.3  # backoff_s is 1 ms: the wait came from Retry-After
    assert len(out) == 1 and p.failures == []
    assert len(fake_llm.requests) == 4


@pytest.mark.parametrize("status", [500, 503])
def test_5xx_until_retries_are_exhausted(fake_llm, status):
    fake_llm.push(*[http_error(status)] * 3, plan(), answer())
    root, ctx = make_node()
    p = proposer(fake_llm, client=make_client(fake_llm, max_retries=2))
    assert p.propose(root, ctx, 2) == []
    assert len(fake_llm.requests) == 3
    r = p.failures[0]["reason"]
    assert f"HTTP {status}" in r and "gave up after 3 attempts" in r and "Traceback" not in r


def test_client_error_is_not_retried(fake_llm):
    fake_llm.push(http_error(401), plan())
    client = make_client(fake_llm)
    with pytest.raises(LLMError) as ei:
        client.chat([{"role": "user", "content": "hi"}])
    assert "HTTP 401" in ei.value.reason and len(fake_llm.requests) == 1


@pytest.mark.parametrize("entry, word", [
    (garbage(), "body is not JSON"),
    (garbage("text/html"), "not a chat completion"),
    (no_choices(), "no choices"),
], ids=["garbage-json", "garbage-html", "no-choices"])
def test_malformed_responses(fake_llm, entry, word):
    fake_llm.push(plan(), entry)
    root, ctx = make_node()
    p = proposer(fake_llm)
    assert p.propose(root, ctx, 1) == []
    assert p.failures[0]["stage"] == "coder" and word in p.failures[0]["reason"]


def test_bad_tool_arguments_unknown_tools_and_raising_tools(fake_llm):
    rec = Recorder(reply=RuntimeError("ptxas crashed"))
    fake_llm.push(
        plan(),
        tool_calls([("compile", '{"source": "unterminated', "c1"), ("profile", {"source": "x"}, "c2"),
                    ("compile", "[1, 2]", "c3"), ("compile", {"source": BETTER}, "c4")]),
        answer(),
    )
    root, ctx = make_node()
    p = proposer(fake_llm, [compile_tool(rec)])
    out = p.propose(root, ctx, 1)
    assert len(out) == 1  # tool errors do not end the attempt
    tool_msgs = {m["tool_call_id"]: m["content"] for m in messages_of(fake_llm.requests[2], "tool")}
    assert tool_msgs["c1"].startswith("error: the arguments of compile are not valid JSON")
    assert tool_msgs["c2"].startswith("error: unknown tool 'profile'; available tools: compile")
    assert tool_msgs["c3"] == "error: the arguments of compile must be a JSON object"
    assert tool_msgs["c4"] == "error: tool compile failed: RuntimeError: ptxas crashed"
    assert rec.calls == [{"source": BETTER}]
    assert len(p.failures) == 4 and all(f["stage"] == "coder" and f["reason"].startswith("tool call: error")
                                        for f in p.failures)


def test_tool_round_limit(fake_llm):
    rec = Recorder()
    fake_llm.push(plan(), *[tool_call("compile", {"source": BETTER}) for _ in range(3)], answer())
    root, ctx = make_node()
    p = proposer(fake_llm, [compile_tool(rec)], max_tool_rounds=2)
    assert p.propose(root, ctx, 1) == []
    assert len(rec.calls) == 2 and len(fake_llm.requests) == 4
    assert "tool-round limit (2)" in p.failures[-1]["reason"]
    assert "last round of tool calls" in messages_of(fake_llm.requests[3], "tool")[-1]["content"]


def test_usage_is_estimated_when_the_server_omits_it(fake_llm):
    fake_llm.push(text("hello there, this is an answer", usage=False))
    res = make_client(fake_llm).chat([{"role": "user", "content": "x" * 400}])
    assert res.usage_estimated and res.usage_tokens == (400 + len("hello there, this is an answer")) // 4
    fake_llm.push(text("counted"))
    res = make_client(fake_llm).chat([{"role": "user", "content": "hi"}])
    assert not res.usage_estimated and res.usage_tokens > 0


def test_api_key_never_logged_or_in_errors(fake_llm, caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_LOG", "debug")
    fake_llm.push(http_error(429, retry_after="0"), plan(), answer(), http_error(401, body=json.dumps(
        {"error": {"message": f"bad key {KEY}", "type": "auth"}})))
    root, ctx = make_node()
    client = make_client(fake_llm)
    p = proposer(fake_llm, client=client)
    assert len(p.propose(root, ctx, 1)) == 1
    with pytest.raises(LLMError) as ei:
        client.chat([{"role": "user", "content": "hi"}])
    assert "HTTP 401" in str(ei.value) and KEY not in str(ei.value) and ei.value.__context__ is None
    assert fake_llm.headers[0]["authorization"] == f"Bearer {KEY}"  # it was sent, so it was there to leak
    assert caplog.records  # something was logged
    for rec in caplog.records:
        assert KEY not in rec.getMessage() and KEY not in str(rec.args)
    assert KEY not in caplog.text
    assert KEY not in repr(client.config) and KEY not in repr(client)
    assert all(KEY not in json.dumps(f) for f in p.failures)


def test_api_key_from_environment(monkeypatch):
    """A key from the environment goes only to the endpoint it is bound to (tests/test_security_llm.py)."""
    for var in ("KERNELPRO_LLM_API_KEY", "KERNELPRO_LLM_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    assert LLMConfig("http://127.0.0.1:8000/v1", "m").api_key == "not-needed"
    monkeypatch.setenv("OPENAI_API_KEY", "from-openai")
    assert LLMConfig("https://api.openai.com/v1", "m").api_key == "from-openai"
    assert LLMConfig("http://127.0.0.1:8000/v1", "m").api_key == "not-needed"
    monkeypatch.setenv("KERNELPRO_LLM_API_KEY", "from-kernelpro")
    monkeypatch.setenv("KERNELPRO_LLM_BASE_URL", "http://127.0.0.1:8000/v1/")
    assert LLMConfig("http://127.0.0.1:8000/v1", "m").api_key == "from-kernelpro"
    assert LLMConfig("http://127.0.0.1:8001/v1", "m").api_key == "not-needed"
    assert LLMConfig("http://x/v1", "m", api_key="given").api_key == "given"


def test_models_endpoint(fake_llm):
    import openai
    ids = [m.id for m in openai.OpenAI(base_url=fake_llm.base_url, api_key="x").models.list()]
    assert ids == ["fake-model"]


def test_bad_feedback_mode():
    with pytest.raises(ValueError, match="unknown feedback mode"):
        LLMProposer(None, [], "saxpy", feedback="verbose")


def test_child_keeps_the_parents_launch_unless_it_declares_one(fake_llm):
    fake_llm.push(plan(), answer(), plan("Bigger blocks."), answer(BETTER + "// b\n", launch={"block": 512}))
    _, ctx = make_node()
    parent = Node(id=1, candidate=Candidate(source=SOURCE, launch={"block": 128, "grid": "n // 128"},
                                            flags=("-use_fast_math",)), evaluation=ctx.root.evaluation)
    out = proposer(fake_llm).propose(parent, ctx, 2)
    assert out[0].candidate.launch == {"block": 128, "grid": "n // 128"}
    assert out[0].candidate.flags == ("-use_fast_math",)
    assert out[1].candidate.launch == {"block": 512, "grid": "n // 128"}
    assert 'Current launch overrides: {"block": 128' in messages_of(fake_llm.requests[0], "user")[0]["content"]
    assert "Current extra nvcc flags: -use_fast_math" in messages_of(fake_llm.requests[1], "user")[0]["content"]
