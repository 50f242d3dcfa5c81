"""Headless Neovim's built-in LSP client against the real KernelPro server.

Install the editor with `bash scripts/setup_editors.sh`. Without nvim the test skips, except
under CI (CI set), where a missing editor is a failure.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LUA = ROOT / "tests" / "editors" / "nvim_lsp.lua"
EXAMPLE = ROOT / "examples" / "a_fp64_literal.cu"
RULE = "fp64-in-float-kernel"
LITERAL = "0.7978845608"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def require(path: str | None, what: str) -> str:
    if path:
        return path
    reason = f"{what} is not installed (run: bash scripts/setup_editors.sh)"
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(f"CI is set but {reason}")
    pytest.skip(reason)


def find(text: str, needle: str, after: str = "") -> tuple[int, int]:
    """0-based (line, character) of `needle` on the first line containing `after` and `needle`."""
    for n, line in enumerate(text.split("\n")):
        if after in line and needle in line:
            return n, line.index(needle, line.index(after) if after else 0)
    raise AssertionError(f"{needle!r} not in the example")


def test_neovim_diagnostics_hover_lens_and_quick_fix(tmp_path):
    nvim = require(shutil.which("nvim"), "Neovim (nvim)")
    ws = tmp_path / "ws"
    ws.mkdir()
    cu = ws / EXAMPLE.name
    shutil.copy(EXAMPLE, cu)
    text = cu.read_text()
    fix_line, fix_col = find(text, LITERAL, "float inner")
    hover_line, hover_col = find(text, "gelu", "__global__")
    out = tmp_path / "result.json"
    xdg = tmp_path / "xdg"
    env = dict(os.environ,
               XDG_CONFIG_HOME=str(xdg / "config"), XDG_DATA_HOME=str(xdg / "data"),
               XDG_STATE_HOME=str(xdg / "state"), XDG_CACHE_HOME=str(xdg / "cache"),
               KP_CMD=json.dumps([sys.executable, "-P", "-m", "kernelpro.lsp_server"]), KP_FILE=str(cu), KP_OUT=str(out),
               KP_TIMEOUT="60", KP_FIX_CODE=RULE, KP_FIX_LINE=str(fix_line), KP_FIX_COL=str(fix_col),
               KP_HOVER_LINE=str(hover_line), KP_HOVER_COL=str(hover_col + 1))
    proc = subprocess.run([nvim, "--headless", "-n", "-i", "NONE", "-u", str(LUA)], cwd=ws, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=150)
    assert out.exists(), f"nvim wrote no result (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    r = json.loads(out.read_text())
    assert r["ok"], f"errors: {r['errors']}\nnvim output: {proc.stdout}{proc.stderr}"

    # diagnostics: the unsuffixed literal, exactly its characters, from source "kernelpro"
    ours = [d for d in r["diagnostics"] if d.get("source") == "kernelpro" and d.get("code") == RULE]
    assert len(ours) >= 2, r["diagnostics"]
    t = r["target"]
    assert t["range"]["start"] == {"line": fix_line, "character": fix_col}
    assert t["range"]["end"] == {"line": fix_line, "character": fix_col + len(LITERAL)}
    assert LITERAL in t["message"]
    assert r["editor_diagnostics"] >= len(ours)  # Neovim stored them too

    # hover on the kernel's name: its resources
    hover = r["hover"]["contents"]
    hover = hover["value"] if isinstance(hover, dict) else str(hover)
    assert "gelu" in hover and re.search(r"registers: \*\*\d+\*\*", hover), hover
    assert "occupancy" in hover

    # code lenses on the kernel's line: the summary and the actions
    titles = [lens["command"]["title"] for lens in r["code_lens"] if lens.get("command")]
    assert {lens["range"]["start"]["line"] for lens in r["code_lens"]} == {hover_line}
    assert any(re.match(r"\d+ regs · \d+ spills · occupancy \d+%", s) for s in titles), titles
    assert any(t.startswith("Optimize") for t in titles) and any(t.startswith("Profile on GPU") for t in titles)

    # inlay hints: the literal's line runs FP64 instructions; the load of x[i] is 32-bit
    hints = {h["position"]["line"]: h["label"] for h in r["inlay_hints"]}
    assert "FP64" in hints[fix_line], hints
    load_line, _ = find(text, "float v = x[i];")
    assert hints[load_line] == "LDG.32", hints
    assert all(h["position"]["character"] == len(text.split("\n")[h["position"]["line"]].rstrip()) for h in r["inlay_hints"])

    # the quick fix, applied by Neovim and saved
    assert f"{LITERAL}f" in r["fix_title"], r["fix_title"]
    assert f"{LITERAL}f *" in r["line_after_edit"]
    saved = cu.read_text()
    assert saved.split("\n")[fix_line] == r["line_after_edit"]
    assert saved.replace(f"{LITERAL}f", LITERAL, 1) == text  # nothing else changed

    # after the re-publish: that diagnostic is gone, the other literals are still reported
    after = [d for d in r["diagnostics_after"] if d.get("code") == RULE]
    assert not [d for d in after if d["range"]["start"]["line"] == fix_line
                and d["range"]["start"]["character"] == fix_col], after
    assert len(after) == len(ours) - 1, after


DOC = ROOT / "docs" / "editor.md"
RUN_DOC_CONFIG = r"""
-- sources the configuration of docs/editor.md, opens the file, waits for KernelPro's diagnostics
local out, file = os.getenv('KP_OUT'), os.getenv('KP_FILE')
local result = { ok = false }
local function finish()
  local f = io.open(out, 'w') f:write(vim.fn.json_encode(result)) f:close()
  vim.cmd('qall!')
end
local ok, err = pcall(dofile, os.getenv('KP_CONFIG'))
if not ok then result.error = 'config: ' .. tostring(err) return finish() end
vim.api.nvim_create_autocmd('VimEnter', { once = true, nested = true, callback = function()
  local ok2, e = pcall(function()
    vim.cmd('edit ' .. vim.fn.fnameescape(file))
    vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
    result.diagnostics = vim.tbl_map(function(d) return { code = d.code, source = d.source, lnum = d.lnum } end,
      vim.diagnostic.get(0))
    result.clients = vim.tbl_map(function(c) return c.name end, vim.lsp.get_active_clients())
    vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('KP_HEADER')))
    vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
    result.header = vim.tbl_map(function(d) return { code = d.code, lnum = d.lnum, col = d.col } end, vim.diagnostic.get(0))
    result.header_clients = #vim.lsp.buf_get_clients(0)
    result.ok = true
  end)
  if not ok2 then result.error = tostring(e) end
  finish()
end })
"""


def test_the_neovim_configuration_in_the_docs_works(tmp_path):
    """docs/editor.md promised a Neovim configuration and had none: this runs the one it has now."""
    nvim = require(shutil.which("nvim"), "Neovim (nvim)")
    text = DOC.read_text()
    block = re.search(r"## Neovim\n.*?```lua\n(.*?)```", text, re.S)
    assert block, "docs/editor.md has no Neovim configuration"
    config = tmp_path / "kernelpro.lua"
    assert '"python3", "-P", "-m", "kernelpro.lsp_server"' in block.group(1)  # -P: not the cwd on sys.path
    config.write_text(block.group(1).replace('"python3"', json.dumps(sys.executable)))
    runner = tmp_path / "run.lua"
    runner.write_text(RUN_DOC_CONFIG)
    ws = tmp_path / "ws"
    ws.mkdir()
    cu = ws / EXAMPLE.name
    shutil.copy(EXAMPLE, cu)
    header = ws / "scale.cuh"
    header.write_text(HEADER)
    out = tmp_path / "result.json"
    xdg = tmp_path / "xdg"
    env = dict(os.environ, XDG_CONFIG_HOME=str(xdg / "config"), XDG_DATA_HOME=str(xdg / "data"),
               XDG_STATE_HOME=str(xdg / "state"), XDG_CACHE_HOME=str(xdg / "cache"),
               KP_OUT=str(out), KP_FILE=str(cu), KP_CONFIG=str(config), KP_HEADER=str(header))
    proc = subprocess.run([nvim, "--headless", "-n", "-i", "NONE", "-u", str(runner)], cwd=ws, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=150)
    assert out.exists(), f"nvim wrote no result (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    r = json.loads(out.read_text())
    assert r["ok"], r
    assert r["clients"] == ["kernelpro"]
    fix_line, _ = find(cu.read_text(), LITERAL, "float inner")
    assert any(d["code"] == RULE and d["source"] == "kernelpro" and d["lnum"] == fix_line for d in r["diagnostics"]), r
    # the configuration attaches to a .cuh too, whose kernel's findings show there (issue 29, item 8)
    assert r["header_clients"] == 1
    assert [(d["lnum"], d["col"]) for d in r["header"] if d["code"] == RULE] == [find(HEADER, "0.7")]


VIEWS = ROOT / "tests" / "editors" / "nvim_views.lua"
HEADER = """#pragma once
__global__ void halve(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 0.7;
}
"""


def fp64_at(diags) -> list[tuple[int, int]]:
    return sorted((d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in diags if d.get("code") == RULE)


def test_neovim_view_follows_quick_fix_undo_outside_change_and_header(tmp_path):
    """Issue 29, items 8-10 in Neovim: a quick fix not saved takes its diagnostic with it and leaves the
    other literal on its line; :undo brings the known result back without a profile; a file changed on
    disk is profiled but its findings wait for the buffer to hold that text (:edit!); a .cuh opened on
    its own shows its kernel's findings."""
    nvim = require(shutil.which("nvim"), "Neovim (nvim)")
    ws = tmp_path / "ws"
    ws.mkdir()
    cu = ws / EXAMPLE.name
    shutil.copy(EXAMPLE, cu)
    text = cu.read_text()
    header = ws / "scale.cuh"
    header.write_text(HEADER)
    fix_line, fix_col = find(text, LITERAL, "float inner")
    other = find(text, "0.044715", "float inner")
    disk = tmp_path / "disk.cu"
    disk.write_text(text.replace("0.5 * v", "0.5f * v"))  # what another program writes
    out = tmp_path / "result.json"
    xdg = tmp_path / "xdg"
    env = dict(os.environ, XDG_CONFIG_HOME=str(xdg / "config"), XDG_DATA_HOME=str(xdg / "data"),
               XDG_STATE_HOME=str(xdg / "state"), XDG_CACHE_HOME=str(xdg / "cache"),
               KP_CMD=json.dumps([sys.executable, "-P", "-m", "kernelpro.lsp_server"]), KP_FILE=str(cu),
               KP_HEADER=str(header), KP_DISK=str(disk), KP_OUT=str(out), KP_TIMEOUT="60",
               KP_FIX_LINE=str(fix_line), KP_FIX_COL=str(fix_col))
    proc = subprocess.run([nvim, "--headless", "-n", "-i", "NONE", "-u", str(VIEWS)], cwd=ws, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=170)
    assert out.exists(), f"nvim wrote no result (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    r = json.loads(out.read_text())
    assert r["ok"], f"errors: {r['errors']}\nnvim output: {proc.stdout}{proc.stderr}"

    first = fp64_at(r["first"])
    half = find(text, "0.5 * v", "y[i]")
    assert (fix_line, fix_col) in first and other in first and half in first
    # item 10: the disk text was profiled, but nothing replaced the buffer's findings before the reload
    assert r["publishes_before_reload"] == 0
    assert sorted((d["lnum"], d["col"]) for d in r["shown_before_reload"] if d["code"] == RULE) == first
    reloaded = fp64_at(r["after_reload"])
    on_disk = disk.read_text()
    assert reloaded == sorted([find(on_disk, LITERAL, "float inner"), find(on_disk, "0.044715", "float inner"),
                               find(on_disk, "1.0 +", "y[i]")])
    assert sorted((d["lnum"], d["col"]) for d in r["shown_after_reload"] if d["code"] == RULE) == reloaded
    # item 9: the quick fix takes its diagnostic with it; the other literal on the line keeps its finding,
    # one character further right (after the `f`)
    assert f"{LITERAL}f" in r["line_after_fix"]
    assert fp64_at(r["after_fix"]) == [(other[0], other[1] + 1), find(on_disk, "1.0 +", "y[i]")]
    # ... and :undo shows the reloaded text's result again, from what is known (no profile)
    assert fp64_at(r["after_undo"]) == reloaded and not r["modified_after_undo"]
    assert r["profiles_after_undo"] == r["profiles_before_undo"]
    # item 8: the header's own kernel
    assert fp64_at(r["header"]) == [find(HEADER, "0.7")]
