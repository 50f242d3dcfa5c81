"""Compute Sanitizer (memcheck, racecheck, initcheck) over one launch of a kernel, where the machine has it.

A result can pass every numeric check and still be wrong: a read past the end of a buffer that lands
in padding, a shared-memory race that the current scheduling happens to order, a read of memory
nothing wrote. The runner's `--once` job (one launch at the smallest size, no reference, nothing
else on the GPU) runs under each tool; any error the tool reports fails the candidate.

`sanitizer_command` and `parse_output` are pure (tested on recorded text); `sanitize_job` runs them.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..children import child_env

TOOLS = ("memcheck", "racecheck", "initcheck")
EXIT_CODE = 86  # --error-exitcode: set when the tool found an error
PRINT_LIMIT = 20
_PREFIX = re.compile(r"^=+ ?(.*)$")
_ERROR_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors?")
_RACE_SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
_NOT_ERRORS = ("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY", "Target application returned",
               "Warning:", "WARN", "Note:", "This tool")


@dataclass
class Report:
    tool: str
    ran: bool  # the tool started and the target finished (errors or not)
    errors: list[str] = field(default_factory=list)  # one line per error: what, and where
    warnings: list[str] = field(default_factory=list)
    count: int = 0  # errors, from the summary when there is one
    returncode: int | None = None
    note: str = ""  # why it did not run, when it did not

    def to_json(self) -> dict:
        return asdict(self)


def find_sanitizer() -> str | None:
    """compute-sanitizer from KERNELPRO_COMPUTE_SANITIZER, PATH, $CUDA_HOME/bin or /usr/local/cuda*/bin."""
    env = os.environ.get("KERNELPRO_COMPUTE_SANITIZER")
    if env:
        return env if os.path.isfile(env) else None
    hit = shutil.which("compute-sanitizer")
    if hit:
        return hit
    roots = [os.environ.get(k) for k in ("CUDA_HOME", "CUDA_PATH")] + sorted(glob.glob("/usr/local/cuda*"), reverse=True)
    for root in filter(None, roots):
        for sub in ("bin", "compute-sanitizer"):
            p = os.path.join(root, sub, "compute-sanitizer")
            if os.path.isfile(p):
                return p
    return None


def sanitizer_command(exe: str, tool: str, job_path: str, out_path: str, python: str | None = None) -> list[str]:
    """The command line running the runner's one-job mode under `tool`."""
    if tool not in TOOLS:
        raise ValueError(f"unknown Compute Sanitizer tool {tool!r} (known: {', '.join(TOOLS)})")
    return [exe, "--tool", tool, "--error-exitcode", str(EXIT_CODE), "--print-limit", str(PRINT_LIMIT),
            "--show-backtrace", "no", python or sys.executable, "-P", "-m", "kernelpro.profilers.runtime.runner",
            "--once", job_path, "--out", out_path]


def parse_output(tool: str, text: str, returncode: int | None = None) -> Report:
    """The errors and warnings in a Compute Sanitizer log (each error's headline with its first `at` line)."""
    rep = Report(tool, True, returncode=returncode)
    current = None  # the error or warning list the indented lines belong to
    for raw in text.splitlines():
        m = _PREFIX.match(raw.strip())
        if not m:
            continue
        body = m.group(1)
        if not body.strip():
            current = None
            continue
        if s := _ERROR_SUMMARY.search(body):
            rep.count = max(rep.count, int(s.group(1)))
            continue
        if s := _RACE_SUMMARY.search(body):
            rep.count = max(rep.count, int(s.group(2)))
            continue
        if body.startswith((" ", "\t")):  # details of the last headline
            detail = body.strip()
            if current is not None and current and detail.startswith(("at ", "and ")) and " | " not in current[-1]:
                current[-1] += " | " + detail
            continue
        if body.startswith(("Warning:", "WARN")):
            rep.warnings.append(body.removeprefix("Warning:").strip())
            current = rep.warnings
            continue
        if body.startswith(_NOT_ERRORS):
            current = None
            continue
        rep.errors.append(body.removeprefix("Error:").strip())
        current = rep.errors
    rep.count = max(rep.count, len(rep.errors))
    return rep


def failure_text(reports: list[Report]) -> str | None:
    """"compute-sanitizer memcheck: Invalid __global__ read ... (3 errors)", or None when all are clean."""
    for r in reports:
        if r.ran and (r.count or r.errors or r.returncode == EXIT_CODE):
            first = r.errors[0] if r.errors else f"the tool exited with status {r.returncode}"
            more = f" ({r.count} errors)" if r.count > 1 else ""
            return f"compute-sanitizer {r.tool}: {first}{more}"
    return None


def run_tool(exe: str, tool: str, job: dict, timeout_s: float = 180.0) -> Report:
    work = Path(tempfile.mkdtemp(prefix=f"kernelpro-{tool}-"))
    try:
        (work / "job.json").write_text(json.dumps(job))
        cmd = sanitizer_command(exe, tool, str(work / "job.json"), str(work / "result.json"))
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, start_new_session=True,
                               stdin=subprocess.DEVNULL, env=child_env())
        except subprocess.TimeoutExpired:
            return Report(tool, False, note=f"did not finish within {timeout_s:g} s")
        except OSError as e:
            return Report(tool, False, note=f"cannot start {exe}: {e}")
        rep = parse_output(tool, p.stdout + "\n" + p.stderr, p.returncode)
        result = work / "result.json"
        if not result.is_file() and not (rep.errors or rep.count):
            tail = " | ".join(l.strip() for l in (p.stderr or p.stdout).splitlines()[-3:] if l.strip())
            return Report(tool, False, returncode=p.returncode, note=f"the run under {tool} failed: {tail[-300:]}")
        return rep
    finally:
        shutil.rmtree(work, ignore_errors=True)


def sanitize_job(job: dict, tools=TOOLS, timeout_s: float = 180.0, exe: str | None = None) -> dict:
    """{"failure": str | None, "notes": [...], "reports": [Report as JSON]} for one sanitize job."""
    exe = exe or find_sanitizer()
    if exe is None:
        return {"failure": None, "notes": ["Compute Sanitizer not run: compute-sanitizer not found"], "reports": []}
    reports = [run_tool(exe, t, job, timeout_s) for t in tools]
    notes = [f"compute-sanitizer {r.tool} not run: {r.note}" for r in reports if not r.ran]
    notes += [f"compute-sanitizer {r.tool} warning: {w}" for r in reports for w in r.warnings[:3]]
    return {"failure": failure_text(reports), "notes": notes, "reports": [r.to_json() for r in reports]}


def sanitize_spec(cu_path, spec, options, source_text: str | None = None, pool_timeout_s: float = 180.0,
                  tools=TOOLS) -> dict:
    """Compile the kernel (the cache makes this cheap after an evaluation) and sanitize one launch."""
    from ..compile import compile_cuda, compile_library
    from .measure import EvalError, build_job

    if find_sanitizer() is None:
        return {"failure": None, "notes": ["Compute Sanitizer not run: compute-sanitizer not found"], "reports": []}
    try:
        art = compile_cuda(cu_path, options, text=source_text)
        if not art.ok:
            return {"failure": None, "notes": ["Compute Sanitizer not run: the kernel does not compile"], "reports": []}
        library = compile_library(cu_path, options, text=source_text) if spec.host_steps else None
        job = build_job(spec, art, sanitize=True, library=library)
    except (EvalError, Exception) as e:  # the evaluation already reported these; the sanitizer adds nothing
        return {"failure": None, "notes": [f"Compute Sanitizer not run: {e}"], "reports": []}
    return sanitize_job(job, tools, max(60.0, 3 * pool_timeout_s))
