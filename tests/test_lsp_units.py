"""Unit tests of the language server's pieces: conversions, settings, scheduling, CLI."""
from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

from kernelpro.lsp_server import convert
from kernelpro.lsp_server.gpu import measured_rows
from kernelpro.lsp_server.hover import kernel_markdown, measured_lines
from kernelpro.lsp_server.lenses import summary_line
from kernelpro.lsp_server.profiling import Outcome, Scheduler, Snapshot
from kernelpro.lsp_server.settings import Settings
from kernelpro.profilers.advice import Advice, Location, Severity
from kernelpro.profilers.nvcc_diag import Diagnostic
from kernelpro.profilers.profile import KernelSummary
from kernelpro.profilers.source import Include

LSP = Path(__file__).resolve().parent.parent / "lsp_server"


def test_utf16_positions_count_surrogate_pairs():
    lines = ["/* 𝛼 */ x = 2.0;"]
    col = lines[0].index("2.0") + 1  # 1-based code points
    p = convert.position(lines, 1, col)
    assert p.character == col - 1 + 1  # 𝛼 takes two UTF-16 units
    assert convert.position(lines, 1, col, "utf-32").character == col - 1
    assert convert.position(lines, 1, col, "utf-8").character == len(lines[0][: col - 1].encode())
    r = convert.line_range(lines, 1)  # no column: first code to the end of the line
    assert (r.start.character, r.end.character) == (0, convert.units(lines[0]))
    assert convert.line_range([""], 1).end.character == 1  # never an empty range


def test_advice_diagnostic_fields():
    a = Advice(rule="missing-restrict", severity=Severity.HINT, kernel="k", file="/x/a.cu", line=1, column=5,
               end_line=1, end_column=8, message="`in` is read only", remedy="declare it const __restrict__",
               related=[Location("/x/a.cu", 1, 1, 1, 3, "here")],
               fix={"title": "t", "edits": [{"line": 1, "column": 5, "end_line": 1, "end_column": 8, "new_text": "y"}]})
    d = convert.advice_diagnostic(a, ["𝛼 = abc;"], "file:///x/a.cu")
    assert d.severity == convert.SEVERITY["hint"] and d.code == "missing-restrict" and d.source == "kernelpro"
    assert (d.range.start.character, d.range.end.character) == (5, 8)
    assert d.message == "`in` is read only"  # the fix is related information, not in the message
    fix, here = d.related_information
    assert fix.message == "fix: declare it const __restrict__" and fix.location.range == d.range
    assert here.location.uri == "file:///x/a.cu" and here.message == "here"
    assert d.data == {"rule": "missing-restrict", "fix": a.fix, "kernel": "k"}
    e = convert.fix_edit("file:///x/a.cu", a.fix, ["𝛼 = abc;"], 3)
    (tde,) = e.document_changes
    assert tde.text_document.version == 3 and tde.edits[0].range.start.character == 5


def test_header_errors_go_on_the_include_line(tmp_path):
    (tmp_path / "h.cuh").write_text("x\n")
    msgs = [Diagnostic("error", "bad", str(tmp_path / "h.cuh"), 7, 3),
            Diagnostic("warning", "unused", str(tmp_path / "a.cu"), 2, None), Diagnostic("remark", "r")]
    lines = ["#include <cstdio>", '#include "h.cuh"', "int x;"]
    out = convert.compiler_diagnostics(msgs, str(tmp_path / "a.cu"), lines,
                                       [Include(1, "cstdio", False), Include(2, "h.cuh", True)], [str(tmp_path / "h.cuh")])
    assert len(out) == 2
    assert out[0].range.start.line == 1 and out[0].message.startswith(f"{tmp_path / 'h.cuh'}:7:3: bad")
    assert out[1].range.start.line == 1 and out[1].severity == convert.SEVERITY["warning"]


def test_settings_merge_and_argv():
    s = Settings.from_json({"llm": {"model": "m"}, "optimize.budget": 7, "defines": ["A=1"], "includePaths": "inc other"})
    assert s.get("llm.model") == "m" and s.get("llm.baseUrl") == "" and s.get("optimize.budget") == 7
    assert s.get("optimize.objective") == "time"
    o = s.compile_options()
    assert o.defines == ("A=1",) and o.include_paths == ("inc", "other") and o.arch == "sm_90"
    argv = s.optimizer_argv("/a.cu", "k")
    # -P: no working directory on sys.path; --parent: the child ends when this server dies
    assert argv[:6] == [sys.executable, "-P", "-m", "kernelpro.optimizer", "--parent", str(os.getpid())]
    assert argv[6:] == ["optimize", "/a.cu", "--kernel", "k", "--budget", "7", "--objective", "time", "--json-events",
                        "--llm-model", "m"]
    s2 = s.updated({"optimizerCommand": ["x"], "profileOn": "bogus", "typingDelayMs": "nope"})
    assert s2.optimizer_argv("/a.cu", "k")[0] == "x" and s2.profile_on == "save" and s2.typing_delay_s == 0.8
    ray = s.updated({"optimize": {"workers": " ray://head:10001 "}}).optimizer_argv("/a.cu", "k")
    assert ray[ray.index("--workers") + 1] == "ray://head:10001" and "--workers" not in argv  # the editor's setting
    assert s.profile_key() != s.updated({"arch": "sm_80"}).profile_key()
    assert s.profile_key() == s.updated({"llm": {"model": "other"}}).profile_key()
    assert Settings.from_json({"nvccPath": "/n"}).toolchain_settings() == {"nvcc": "/n"}


def test_measured_rows_in_hover_and_lens():
    """On the output `kernelpro profile --run --json` printed on the H200 (docs/gpu-runs)."""
    rec = json.loads((ROOT / "docs" / "gpu-runs" / "2026-12-02" / "run_c_latency.json").read_text())
    rows = measured_rows(rec["measured"])
    row = rows["row_recurrence"]
    assert row["size"] == "large"  # the last (largest) size is the one shown
    text = "\n".join(measured_lines(row))
    assert f"{row['time_us']:.4g} µs at size large" in text
    assert f"({row['bw_fraction'] * 100:.0f}% of the DRAM peak)" in text
    assert f"{row['energy_uj'] / 1000:.4g} mJ per launch" in text and "latency-bound" in text
    k = KernelSummary("row_recurrence", 8, registers=32, spill_stores=0, spill_loads=0, stack_bytes=0, shared_bytes=0,
                      occupancy=1.0, occupancy_limiter="warps", occupancy_text="full", block=128,
                      block_origin="launch spec")
    assert summary_line(k) == "32 regs · 0 spills · occupancy 100% (block 128)"
    assert summary_line(k, row) == (f"32 regs · 0 spills · occupancy 100% (block 128) · {row['time_us']:.3g} µs · "
                                    f"{row['bw_fraction'] * 100:.0f}% of DRAM peak")
    assert "Last GPU run" in kernel_markdown(k, row)
    assert "limited by" not in kernel_markdown(k)  # nothing limits a full SM
    half = KernelSummary("k", 1, registers=128, occupancy=0.125, occupancy_limiter="registers", block=256)
    assert summary_line(half) == "128 regs · 0 spills · occupancy 12.5% (assumed block 256)"
    assert "**12.5%**, limited by registers" in kernel_markdown(half) and "**assumed**" in kernel_markdown(half)
    assert measured_rows({"k": {"time_us": 1}}) == {} and measured_rows(None) == {}


@pytest.mark.parametrize("limiter, words", [("shared_memory", "shared memory"), ("block_size", "warps per SM"),
                                            ("blocks_per_sm", "blocks per SM")])
def test_hover_names_the_limiter_in_words(limiter, words):
    """Issue 29, item 11: "limited by shared_memory" read like an identifier (and escaped as shared\\_memory)."""
    k = KernelSummary("k", 1, registers=32, occupancy=0.1875, occupancy_limiter=limiter, block=256)
    text = kernel_markdown(k)
    assert f"**18.75%**, limited by {words}" in text and "_" not in text.split("limited by")[1].split("\n")[0]


def test_a_kernel_without_machine_code_says_why_in_the_documented_words():
    nothing = KernelSummary("k", 1)
    assert summary_line(nothing, None, "cannot profile (see Problems)") == "KernelPro: cannot profile (see Problems)"
    assert "cannot profile (see Problems)" in kernel_markdown(nothing, None, "cannot profile (see Problems)")
    assert "not compiled" not in summary_line(nothing) + kernel_markdown(nothing)


def test_scheduler_keeps_only_the_newest_waiting_snapshot():
    started, gate = [], threading.Event()

    def run(snap):
        started.append(snap.version)
        gate.wait(5)
        return Outcome(snap)

    async def go():
        done = []
        sch = Scheduler(lambda o: done.append(o.snapshot.version), run=run)
        s = Settings.from_json({})
        for v in range(1, 6):
            sch.submit(Snapshot("u", "/a.cu", v, "", 0, s))
            await asyncio.sleep(0.01)
        gate.set()
        while sch.busy or len(done) < 2:
            await asyncio.sleep(0.01)
        sch.close()
        return done

    done = asyncio.run(go())
    assert started == [1, 5] and done == [1, 5]


def test_layering_lsp_server_never_imports_the_optimizer():
    for f in LSP.glob("*.py"):
        text = f.read_text()
        assert "from kernelpro.optimizer" not in text and "import kernelpro.optimizer" not in text, f


def test_tcp_mode(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = "test-token-" + "0123456789abcdef"  # --tcp admits only the client that sends it (test_security_listeners.py)
    proc = subprocess.Popen([sys.executable, "-m", "kernelpro.lsp_server", "--tcp", "--port", str(port)],
                            env={**os.environ, "KERNELPRO_LSP_TOKEN": token}, stderr=subprocess.DEVNULL)
    try:
        conn = None
        for _ in range(100):
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                time.sleep(0.1)
        assert conn is not None, "the server did not listen"
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"processId": None, "rootUri": None, "capabilities": {},
                                      "initializationOptions": {"token": token}}}).encode()
        conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        data = b""
        while b"serverInfo" not in data or not data.rstrip().endswith(b"}"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        reply = json.loads(data.split(b"\r\n\r\n", 1)[1])
        caps = reply["result"]["capabilities"]
        assert caps["textDocumentSync"]["change"] == 2  # incremental
        assert set(caps["executeCommandProvider"]["commands"]) >= {"kernelpro.optimize", "kernelpro.profileGpu",
                                                                   "kernelpro.createSpec"}
        assert caps["hoverProvider"] and caps["codeLensProvider"] is not None and caps["codeActionProvider"]
        conn.close()
    finally:
        proc.terminate()
        try:  # the test is about the capabilities; on a loaded 2-core machine exiting took over 10 s once
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise


def test_failed_gpu_sizes_are_not_shown_as_zero_time():
    ok = {"kernel": "k", "size": "small", "ok": True, "time_us": 12.0, "bw_fraction": 0.5}
    bad = {"kernel": "k", "size": "large", "ok": False, "time_us": 0.0, "check": "12 elements outside the tolerance"}
    assert measured_rows([ok, bad])["k"] is ok  # the largest size that ran correctly
    rows = measured_rows([{**ok, "ok": False, "check": "first"}, bad])
    assert rows["k"] is bad
    text = "\n".join(measured_lines(bad))
    assert "failed at size large" in text and "outside the tolerance" in text and "0 µs" not in text
    k = KernelSummary("k", 1, registers=32, spill_stores=0, spill_loads=0, stack_bytes=0, shared_bytes=0,
                      occupancy=1.0, occupancy_limiter="warps", occupancy_text="full", block=128)
    assert summary_line(k, bad) == "32 regs · 0 spills · occupancy 100% (assumed block 128) · GPU run failed"


def test_gpu_run_says_whether_the_buffer_is_saved(tmp_path):
    from kernelpro.lsp_server.gpu import disk_state

    p = tmp_path / "k.cu"
    assert disk_state("x", str(p)) == ("missing", "")
    p.write_bytes(b"__global__ void k() {}\r\n")
    assert disk_state("__global__ void k() {}\n", str(p))[0] == "saved"  # line endings do not count
    assert disk_state(None, str(p)) == ("saved", "__global__ void k() {}\r\n")
    assert disk_state("__global__ void k() { }\n", str(p))[0] == "unsaved"


def test_every_server_setting_is_in_the_settings_ui():
    """useCache and optimizerCommand were documented but missing from VS Code's Settings UI."""
    from kernelpro.lsp_server.settings import DEFAULTS

    def flat(d, prefix=""):
        for k, v in d.items():
            if isinstance(v, dict):
                yield from flat(v, f"{prefix}{k}.")
            else:
                yield f"{prefix}{k}", v

    props = json.loads((ROOT / "vscode-client" / "package.json").read_text())["contributes"]["configuration"]["properties"]
    for key, default in flat(DEFAULTS):
        assert f"kernelpro.{key}" in props, key
        assert props[f"kernelpro.{key}"]["default"] == default, key
