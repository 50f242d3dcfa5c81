"""Prompts for the two roles of the LLM agent: a planner that picks a strategy from the
feedback, and a coder that writes the kernel, trying its drafts on the tools first.

Feedback modes (the paper's comparison):
- "advice": each Advice as text (diagnosis, evidence, remedy, estimated gain);
- "raw": only the numbers behind each finding (rule id, line, evidence), no diagnosis or fix;
- "none": nothing but the source and the measured times.
"""
from __future__ import annotations

import json
import re

FEEDBACK_MODES = ("advice", "raw", "none")

PLANNER_SYSTEM = """You are an expert CUDA performance engineer planning the next optimization \
of one kernel. You see the kernel, its measured times{feedback_note}, lessons from earlier \
attempts and the steps already taken. Choose ONE concrete change that is most likely to make \
the kernel faster while keeping its results correct. Do not write code.

Answer with a JSON object only:
{{"strategy": "<one or two sentences: what to change and why>", "answers": [<rule ids of the \
findings this change addresses>], "confidence": <0..1, how likely it is to help>}}"""

_FEEDBACK_NOTE = {
    "advice": " and expert advice from micro-profiling tools (diagnosis, evidence, fix)",
    "raw": " and raw metrics from micro-profiling tools (numbers only, no diagnosis)",
    "none": "",
}

CODER_SYSTEM = """You are an expert CUDA programmer. Rewrite the kernel `{kernel}` following the \
strategy you are given.

Rules:
- Keep the kernel's name `{kernel}` and its parameter list (you may add const and __restrict__).
- Write device code only: __global__ and __device__ functions, __constant__/__device__ \
variables, templates. No main(), no host functions, no cudaMalloc/cudaMemcpy, no <<<>>> launches: \
KernelPro compiles the kernel to a cubin and launches it itself.
- Include only CUDA device headers (cuda_fp16.h, cuda_bf16.h, mma.h, cooperative_groups.h, \
cuda/pipeline, cub/..., cute/..., cutlass/...) or headers of the project.
- Results must stay correct for every problem size.
{tools_note}
Final answer: the complete kernel source in one ```cuda fenced block. If you change the launch \
configuration, add one ```json block with any of "block", "grid", "shared_bytes" (integers, \
lists of integers, or arithmetic strings over the size names, e.g. "(n + 255) // 256") and \
"flags" (nvcc flags such as "-use_fast_math"); what you leave out stays as it is."""

_TOOLS_NOTE = """- You have tools. Call them on your drafts (pass the full source) before you answer: \
fix what they report, then submit. You have at most {rounds} rounds of tool calls."""


def feedback_text(advice: list, mode: str) -> str:
    """The tool feedback as the planner sees it, in one of FEEDBACK_MODES."""
    if mode not in FEEDBACK_MODES:
        raise ValueError(f"unknown feedback mode {mode!r}; choose one of {', '.join(FEEDBACK_MODES)}")
    if mode == "none" or not advice:
        return ""
    if mode == "advice":
        return "\n".join(a.text() for a in advice)
    lines = []
    for a in advice:
        nums = "; ".join(e.text() for e in a.evidence) or "(no numbers)"
        lines.append(f"[{a.rule}] line {a.line}: {nums}")
    return "\n".join(lines)


def _times(times: dict) -> str:
    if not times:
        return "(not measured)"
    return ", ".join(f"{k}: {v * 1e6:.2f} us" for k, v in times.items())


def planner_messages(
    *,
    source: str,
    kernel: str,
    evaluation,
    root_times: dict | None,
    mode: str,
    lessons: str = "",
    path: list[str] | None = None,
    objective: str = "time",
    avoid: list[str] | None = None,
    launch: dict | None = None,
    flags: tuple[str, ...] = (),
) -> list[dict]:
    parts = [f"Kernel `{kernel}` (objective: {objective}):\n```cuda\n{source.rstrip()}\n```"]
    if launch or flags:
        parts.append(launch_text(launch, flags))
    times = getattr(evaluation, "times_s", {}) if evaluation is not None else {}
    parts.append(f"Measured times: {_times(times)}")
    energy = getattr(evaluation, "energy_j", None) if evaluation is not None else None
    if energy and objective != "time":
        parts.append("Energy per launch: " + ", ".join(f"{k}: {v * 1e3:.3f} mJ" for k, v in energy.items() if v is not None))
    if root_times and root_times != times:
        parts.append(f"Original kernel's times: {_times(root_times)}")
    if mode != "none" and evaluation is not None:
        res = getattr(evaluation, "resources", None)
        if res:
            parts.append("Resources: " + ", ".join(f"{k}={v}" for k, v in res.items()))
        fb = feedback_text(list(getattr(evaluation, "advice", []) or []), mode)
        title = "Expert advice" if mode == "advice" else "Profiler metrics"
        parts.append(f"{title}:\n{fb}" if fb else f"{title}: (none)")
    if path:
        parts.append("Steps already taken from the original kernel:\n" + "\n".join(f"{i + 1}. {p}" for i, p in enumerate(path)))
    if lessons and lessons.strip():
        parts.append("Lessons from earlier attempts:\n" + lessons.strip())
    if avoid:
        parts.append("Already proposed for this kernel in this round (choose something different):\n"
                     + "\n".join(f"- {a}" for a in avoid))
    parts.append("Answer with the JSON object.")
    return [
        {"role": "system", "content": PLANNER_SYSTEM.format(feedback_note=_FEEDBACK_NOTE[mode])},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def launch_text(launch: dict | None, flags=()) -> str:
    out = []
    if launch:
        out.append("Current launch overrides: " + json.dumps(launch, sort_keys=True))
    if flags:
        out.append("Current extra nvcc flags: " + " ".join(flags))
    return "\n".join(out)


def coder_messages(*, source: str, kernel: str, strategy: str, tool_names: list[str], max_rounds: int,
                   launch: dict | None = None, flags: tuple[str, ...] = ()) -> list[dict]:
    note = _TOOLS_NOTE.format(rounds=max_rounds) + f" Tools: {', '.join(tool_names)}." if tool_names else ""
    extra = launch_text(launch, flags)
    user = (
        f"Strategy: {strategy}\n\nCurrent kernel:\n```cuda\n{source.rstrip()}\n```\n"
        + (extra + "\n" if extra else "") + "\nWrite the new kernel."
    )
    return [
        {"role": "system", "content": CODER_SYSTEM.format(kernel=kernel, tools_note=note)},
        {"role": "user", "content": user},
    ]


def repair_message(reason: str) -> dict:
    return {
        "role": "user",
        "content": f"Your answer was rejected: {reason}\nFix this and answer again with the complete kernel "
        "in one ```cuda block.",
    }


def last_round_note() -> str:
    return "\n(That was your last round of tool calls: your next message must be the final answer.)"


def parse_plan(text: str) -> dict:
    """{"strategy", "answers", "confidence"} from a planner reply; plain text becomes the strategy."""
    text = re.sub(r"<think>.*?</think>", "", text or "", flags=re.S | re.I).strip()
    obj = _find_json_object(text)
    if isinstance(obj, dict) and isinstance(obj.get("strategy"), str) and obj["strategy"].strip():
        answers = obj.get("answers") or []
        if not isinstance(answers, list):
            answers = [answers]
        conf = obj.get("confidence")
        conf = float(conf) if isinstance(conf, (int, float)) and not isinstance(conf, bool) else None
        return {"strategy": " ".join(obj["strategy"].split()),
                "answers": [str(a) for a in answers if isinstance(a, (str, int))], "confidence": conf}
    plain = text.replace("```json", "").replace("```", "").strip()
    return {"strategy": " ".join(plain.split())[:1000], "answers": [], "confidence": None}


def _find_json_object(text: str):
    dec = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            obj, _ = dec.raw_decode(text, i)
            return obj
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
    return None
