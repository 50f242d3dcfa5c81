"""The packaged KernelPro .vsix in real VS Code: code-server in headless Chromium (playwright-core).

Install the editors with `bash scripts/setup_editors.sh` (prefix $KERNELPRO_EDITORS, default
/opt/kernelpro-editors). Without them the test skips, except under CI (CI set), where that is a
failure. KERNELPRO_SCREENSHOT=PATH copies the main screenshot there (docs/vscode-screenshot.png).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from session_lock import session_lock

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "vscode-client"
DRIVER = ROOT / "tests" / "editors" / "vscode_drive.mjs"
EXAMPLE = ROOT / "examples" / "a_fp64_literal.cu"
RULE = "fp64-in-float-kernel"
LITERAL = "0.7978845608"
PREFIX = Path(os.environ.get("KERNELPRO_EDITORS", "/opt/kernelpro-editors"))
CODE_SERVER = PREFIX / "code-server" / "node_modules" / ".bin" / "code-server"
PLAYWRIGHT = PREFIX / "playwright"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def require(ok: bool, what: str) -> None:
    if ok:
        return
    reason = f"{what} is not installed (run: bash scripts/setup_editors.sh)"
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(f"CI is set but {reason}")
    pytest.skip(reason)


def package_vsix(tmp: Path) -> Path:
    """The client's .vsix: the one in vscode-client/ if newer than its sources, else a fresh build (called
    under the session lock "vscode-client")."""
    built = CLIENT / "kernelpro-0.1.0.vsix"
    sources = [CLIENT / "package.json", CLIENT / "package-lock.json", *CLIENT.glob("src/**/*.ts")]
    if built.exists() and built.stat().st_mtime > max(p.stat().st_mtime for p in sources if p.exists()):
        return built
    # built once per test session (into its compile cache, tests/conftest.py), keyed by the sources
    h = hashlib.sha256()
    for p in sorted(sources):
        if p.exists():
            h.update(str(p.relative_to(CLIENT)).encode() + b"\0" + p.read_bytes())
    out = Path(os.environ.get("KERNELPRO_CACHE_DIR", tmp)) / f"kernelpro-{h.hexdigest()[:16]}.vsix"
    if out.exists():
        return out
    if not (CLIENT / "node_modules" / ".bin" / "vsce").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CLIENT, check=True,
                       capture_output=True, timeout=300)
    p = subprocess.run(["npm", "run", "package", "--", "-o", str(out)], cwd=CLIENT, capture_output=True, text=True,
                       timeout=180)
    assert p.returncode == 0 and out.exists(), f"npm run package failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return out


def position(text: str, needle: str, after: str) -> tuple[int, int]:
    """1-based (line, column) of `needle` on the first line containing `after`."""
    for n, line in enumerate(text.split("\n"), 1):
        if after in line and needle in line:
            return n, line.index(needle, line.index(after)) + 1
    raise AssertionError(f"{needle!r} not in the example")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SETTINGS = {
    "workbench.startupEditor": "none", "workbench.tips.enabled": False,
    "workbench.welcomePage.walkthroughs.openOnInstall": False, "workbench.enableExperiments": False,
    "extensions.ignoreRecommendations": True, "extensions.autoUpdate": False, "extensions.autoCheckUpdates": False,
    "update.mode": "none", "telemetry.telemetryLevel": "off", "security.workspace.trust.enabled": False,
    "window.restoreWindows": "none", "editor.hover.delay": 150, "editor.codeLens": True,
    "editor.minimap.enabled": False, "chat.commandCenter.enabled": False, "workbench.colorTheme": "Default Light Modern",
    "kernelpro.trace.server": "messages",
}


def logs_of(data: Path) -> str:
    """The KernelPro output channel (LSP trace + server stderr) and the extension host log."""
    parts = []
    for p in sorted(data.glob("logs/**/*.log")):
        if "KernelPro" in p.name or p.name in ("exthost.log", "remoteexthost.log"):
            parts.append(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}")
    return "\n".join(parts)


def require_editors() -> None:
    require(CODE_SERVER.exists(), f"code-server ({CODE_SERVER})")
    require((PLAYWRIGHT / "node_modules" / "playwright-core").is_dir(), f"playwright-core ({PLAYWRIGHT})")
    require(Path(CHROMIUM).exists(), "chromium")
    require(shutil.which("node") is not None and shutil.which("npm") is not None, "node/npm")


def run_vscode(tmp_path: Path, ws: Path, file: str, scenario: str, trust: bool = False, **env_extra: str) -> tuple[dict, Path]:
    """Install the packaged client into a throw-away code-server, open `ws`, run the driver's
    `scenario` on `file`; returns (result.json, the user-data folder with the logs). With `trust`,
    workspace trust is on and `ws` is not trusted: it opens in Restricted Mode, without asking."""
    data, ext, out = tmp_path / "data", tmp_path / "ext", tmp_path / "out"
    # code-server's sockets go in TMPDIR: a short private one (socket paths are limited to 107 bytes)
    sock_dir = tempfile.mkdtemp(prefix="kp-vscode-")
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "xdg-config"), XDG_DATA_HOME=str(tmp_path / "xdg-data"),
               XDG_CACHE_HOME=str(tmp_path / "xdg-cache"), TMPDIR=sock_dir)
    common = ["--user-data-dir", str(data), "--extensions-dir", str(ext), "--config", str(tmp_path / "config.yaml")]
    with session_lock("vscode-client"):  # tests/test_vscode_client.py builds in the same folder
        vsix = package_vsix(tmp_path)
        p = subprocess.run([str(CODE_SERVER), *common, "--install-extension", str(vsix)], env=env,
                           capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and list(ext.glob("kernelpro.kernelpro-*")), f"install failed:\n{p.stdout}\n{p.stderr}"
    (data / "User").mkdir(parents=True, exist_ok=True)
    user = {**SETTINGS, "kernelpro.interpreter": [sys.executable]}
    if trust:
        user.update({"security.workspace.trust.enabled": True, "security.workspace.trust.startupPrompt": "never",
                     "security.workspace.trust.emptyWindow": False})
    (data / "User" / "settings.json").write_text(json.dumps(user))

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with open(tmp_path / "code-server.log", "w") as log:
        server = subprocess.Popen(
            [str(CODE_SERVER), *common, "--bind-addr", f"127.0.0.1:{port}", "--auth", "none", "--disable-telemetry",
             "--disable-update-check", *([] if trust else ["--disable-workspace-trust"]),
             "--disable-getting-started-override", "--ignore-last-opened", str(ws)],
            env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/healthz", timeout=2).read()
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "code-server.log").read_text()
                assert time.monotonic() < deadline, "code-server did not answer /healthz in 60 s"
                time.sleep(0.2)
        drive = subprocess.run(
            ["node", str(DRIVER)], capture_output=True, text=True, timeout=180,
            env=dict(env, KP_URL=url, KP_FOLDER=str(ws), KP_FILE=file, KP_OUT=str(out), KP_PLAYWRIGHT=str(PLAYWRIGHT),
                     KP_CHROMIUM=CHROMIUM, KP_RULE=RULE, KP_TIMEOUT="60", KP_SCENARIO=scenario, **env_extra))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(5)
        shutil.rmtree(sock_dir, ignore_errors=True)
    assert (out / "result.json").exists(), f"driver wrote no result:\n{drive.stdout}\n{drive.stderr}"
    return json.loads((out / "result.json").read_text()), data


def test_vscode_squiggle_problems_lens_hover_and_quick_fix(tmp_path):
    require_editors()
    ws = tmp_path / "ws"
    ws.mkdir()
    cu = ws / EXAMPLE.name
    shutil.copy(EXAMPLE, cu)
    text = cu.read_text()
    hover_line, hover_col = position(text, "gelu", "__global__")
    fix_line, fix_col = position(text, LITERAL, "float inner")
    r, data = run_vscode(tmp_path, ws, cu.name, "fix", KP_KERNEL="gelu",
                         KP_HOVER_LINE=str(hover_line), KP_HOVER_COL=str(hover_col + 1),
                         KP_FIX_LINE=str(fix_line), KP_FIX_COL=str(fix_col + 1), KP_FIX_TEXT="float inner")
    where = f"\nresult: {json.dumps(r, indent=1)[:6000]}\nlogs:\n{logs_of(data)}"
    assert r["ok"], f"errors: {r['errors']}{where}"
    if os.environ.get("KERNELPRO_SCREENSHOT"):
        shutil.copy(r["screenshots"]["diagnostics"], os.environ["KERNELPRO_SCREENSHOT"])

    t = r["texts"]
    # a warning squiggle, and the Problems panel lists the rule on the literal's line and column
    assert t["squiggles"], where
    rows = [row for row in t["problems"] if RULE in row]
    assert any(LITERAL in row and f"Ln {fix_line}, Col {fix_col}" in row for row in rows), t["problems"]
    assert any("kernelpro" in row for row in rows), rows
    # the code lens above the kernel: the resource summary and the actions
    lens = " ".join(t["code_lens"])
    assert re.search(r"\d+ regs · \d+ spills · occupancy [\d.]+%", lens), lens
    assert "Optimize" in lens and "Profile on GPU" in lens
    # hover on the kernel's name shows its resources
    hover = " ".join(t["hover"])
    assert "gelu" in hover and re.search(r"registers: \d+ per thread", hover) and "occupancy" in hover, hover
    # Ctrl+. at the literal offers the fix that appends f
    assert any(f"Make {LITERAL} a float literal ({LITERAL}f)" in a for a in t["code_actions"]), t["code_actions"]
    # choosing it edits the buffer, and its diagnostic goes at once, before any save (issue 29, item 9);
    # the other literal on that line keeps its own
    assert f"{LITERAL}f *" in t["fixed_line"], t["fixed_line"]
    assert t["unchanged_on_disk"]
    unsaved = [row for row in t["problems_unsaved"] if RULE in row]
    assert len(unsaved) == len(rows) - 1 and not any(f"Ln {fix_line}, Col {fix_col}]" in row for row in unsaved), unsaved
    assert any("0.044715" in row for row in unsaved), unsaved
    # after Ctrl+S the saved text's profile agrees
    assert cu.read_text() == text.replace(f"{LITERAL} *", f"{LITERAL}f *", 1) != text
    after = [row for row in t["problems_after"] if RULE in row]
    assert len(after) == len(rows) - 1 and not any(f"Ln {fix_line}, Col {fix_col}]" in row for row in after), after


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def test_vscode_follows_a_checkout_and_shows_sass_beside_the_source(tmp_path):
    """A candidate branch checked out outside the editor: VS Code reloads the buffer, and the Problems
    panel follows without a save and without a 'deleted' warning. Then Show SASS: the headers name
    the right source lines, and the cursor in either editor lights up the other."""
    require_editors()
    ws = tmp_path / "ws"
    ws.mkdir()
    cu = ws / EXAMPLE.name
    shutil.copy(EXAMPLE, cu)
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", ".")
    git(ws, "commit", "-qm", "gelu")
    branch = "kernelpro/gelu/20261203-1"
    git(ws, "checkout", "-q", "-b", branch)
    cu.write_text((ROOT / "examples" / "a_fp64_literal_fixed.cu").read_text())
    git(ws, "commit", "-qam", "gelu: 1.9x faster (time), 1 size")
    git(ws, "checkout", "-q", "main")
    text_main = cu.read_text()
    fixed = (ROOT / "examples" / "a_fp64_literal_fixed.cu").read_text()
    sass_line, _ = position(fixed, "float inner", "float inner")
    r, data = run_vscode(tmp_path, ws, cu.name, "stale-sass", KP_BRANCH=branch, KP_AFTER="0",
                         KP_SASS_LINE=str(sass_line), KP_SASS_CLICK="STG.E desc")
    where = f"\nresult: {json.dumps(r, indent=1)[:8000]}\nlogs:\n{logs_of(data)}"
    if os.environ.get("KERNELPRO_SASS_SCREENSHOT") and r["screenshots"].get("sass"):
        shutil.copy(r["screenshots"]["sass"], os.environ["KERNELPRO_SASS_SCREENSHOT"])
    assert r["ok"], f"errors: {r['errors']}{where}"
    t = r["texts"]
    # before: the literals; after the checkout (no save): none, and no false "deleted" warning
    assert len([row for row in t["problems_before"] if RULE in row]) == 4, t["problems_before"]
    assert not [row for row in t["problems_after"] if RULE in row]
    assert not [n for n in t["notifications"] if "deleted" in n.lower()], t["notifications"]
    source = t["source_file"].split("\n")
    assert t["source_file"] == cu.read_text() != text_main
    # the SASS document: its title, and every block header quotes the source line it names
    assert t["sass_top"][0].startswith(f"// SASS of {cu.name} for sm_90"), t["sass_top"][:3]
    headers = [h.strip() for h in t["sass_top"] + t["sass_visible"] if h.strip().startswith(f"// {cu.name}:")]
    assert headers, t["sass_top"]
    for h in headers:
        m = re.match(rf"// {re.escape(cu.name)}:(\d+)  (.*)$", h)
        assert m and source[int(m.group(1)) - 1].strip() == m.group(2).strip(), h
    # source -> SASS: the cursor's line lights up in the source and its instructions in the SASS
    code = lambda shown: [x.split("\u200a")[0].strip() for x in shown]  # an inlay hint follows a hair space
    assert code(t["source_lit"]) == [source[sass_line - 1].strip()], t["source_lit"]
    lit = [x.strip() for x in t["sass_lit"]]
    assert f"// {cu.name}:{sass_line}  {source[sass_line - 1].strip()}" in lit, lit
    assert all(x.startswith("/*") or x.startswith(f"// {cu.name}:{sass_line} ") for x in lit), lit
    assert any(x.startswith("/*") for x in lit)
    # SASS -> source: an instruction of another line lights up that line
    other = int(re.match(rf"// {re.escape(cu.name)}:(\d+)", t["sass_other"]).group(1))
    assert other != sass_line
    assert code(t["source_lit_after"]) == [source[other - 1].strip()], (t["sass_other"], t["source_lit_after"])
    # a click on the store at the SASS's end (its line's first run is far above): the clicked instruction
    # stays in view, and its source line lights up (issue 29, item 11)
    assert any("STG.E desc" in x for x in t["sass_click_visible"]), t["sass_click_visible"]
    store = position(t["source_file"], "y[i] =", "y[i] =")[0]
    assert code(t["sass_click_source_lit"]) == [source[store - 1].strip()], t["sass_click_source_lit"]
    # the inlay hints: the global load and store widths at the end of their lines
    hints = {x.split("\u200a")[0].strip(): x.split("\u200a")[1].strip() for x in t["sass_source_lines"] if "\u200a" in x}
    assert hints.get("float v = x[i];") == "LDG.32", hints


def test_vscode_restricted_mode_gives_static_advice_and_runs_nothing_of_the_workspace(tmp_path):
    """A folder that is not trusted, whose .vscode/settings.json names a script as the interpreter, nvcc
    and the optimizer, and whose root holds an argparse.py and a kernelpro/ package: Restricted Mode with
    KernelPro limited, not off. The static diagnostics appear (the user's Python, nvcc from PATH), the
    Optimize lens is refused with the reason and the palette has no Optimize; nothing of the
    workspace runs. Trusted afterwards: the workspace's interpreter is asked about ("Keep mine"), the
    server restarts with the user's, and still nothing of the workspace runs (nvccPath and
    optimizerCommand are the user's settings only)."""
    require_editors()
    ws = tmp_path / "ws"
    ws.mkdir()
    cu = ws / EXAMPLE.name
    shutil.copy(EXAMPLE, cu)
    marker = tmp_path / "pwned"
    evil = ws / "tools" / "run.sh"
    evil.parent.mkdir()
    evil.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\nexit 1\n")
    evil.chmod(0o755)
    touch = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    (ws / "argparse.py").write_text(touch)
    (ws / "kernelpro").mkdir()
    (ws / "kernelpro" / "__init__.py").write_text(touch)
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "settings.json").write_text(json.dumps({
        "kernelpro.interpreter": [str(evil)], "kernelpro.nvccPath": str(evil), "kernelpro.optimizerCommand": [str(evil)],
        "kernelpro.server.args": ["--log-file", str(tmp_path / "ws-log.txt")],
    }))
    r, data = run_vscode(tmp_path, ws, cu.name, "restricted", trust=True, KP_INTERPRETER_ANSWER="Keep mine")
    where = f"\nresult: {json.dumps(r, indent=1)[:8000]}\nlogs:\n{logs_of(data)}"
    assert r["ok"], f"errors: {r['errors']}{where}"
    t = r["texts"]
    # Restricted Mode, and KernelPro in it: the static advice on the literal's line, the lens
    assert t["restricted_indicator"], where
    assert [row for row in t["problems_restricted"] if RULE in row], t["problems_restricted"]
    assert any(re.search(r"\d+ regs", lens) for lens in t["code_lens_restricted"]), t["code_lens_restricted"]
    # Optimize: refused by the client with the reason; gone from the palette, which keeps the static commands
    assert any("Optimize is off in Restricted Mode" in n for n in t["optimize_notifications"]), t["optimize_notifications"]
    palette = " | ".join(t["palette_restricted"])
    assert "Show SASS" in palette and "Set LLM API key" in palette, palette
    assert "Optimize Kernel" not in palette and "Profile Kernel on GPU" not in palette, palette
    # trusted: asked before the workspace's interpreter is used; the answer kept the user's
    assert any(f"This workspace sets kernelpro.interpreter to {evil}. Use it?" in q for q in t["interpreter_question"]), where
    assert [row for row in t["problems_trusted"] if RULE in row], t["problems_trusted"]
    assert "Optimize Kernel" in " | ".join(t["palette_trusted"]), t["palette_trusted"]
    # the client's log: the server ran with -P from the home folder, first in Restricted Mode
    log = "\n".join(p.read_text(errors="replace") for p in data.glob("logs/**/*KernelPro*.log"))
    assert f"-P -m kernelpro.lsp_server (cwd {Path.home()}, PYTHONSAFEPATH=1)" in log, where
    assert "Restricted Mode: static advice only" in log and "workspace trusted" in log, where
    # and nothing the workspace named or planted ever ran
    assert not marker.exists(), f"the workspace's code ran: {marker.read_text()}{where}"
    assert not (tmp_path / "ws-log.txt").exists()  # server.args is the user's only
