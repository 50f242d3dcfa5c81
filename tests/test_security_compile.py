"""Untrusted workspaces, the compile side (docs/security.md): every attack reproduced with a
harmless payload (a marker file in the test's folder), through the real CLI and the real
server over stdio, with the real nvcc."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_raw import RawLsp, alive, wait_for

KERNEL = """__global__ void gelu(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.7 * x[i];
}
"""
GUARD = "#ifdef KP_BROKEN\n#error the compile database's flags were applied\n#endif\n"


def cli(*args, cwd=None, env=None, timeout=180):
    return subprocess.run([sys.executable, "-P", "-m", "kernelpro.profilers.cli", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd, env={**os.environ, **(env or {})},
                          stdin=subprocess.DEVNULL)


def payload(tmp: Path, name: str = "PWNED") -> tuple[str, Path, dict]:
    """A shell command that creates a marker file (named by $KP_MARKER, so the command holds no
    slash and fits in a file name), the marker, and the environment that names it."""
    marker = tmp / name
    return "touch $KP_MARKER", marker, {"KP_MARKER": str(marker), "KERNELPRO_CACHE_DIR": str(tmp / "cache")}


def fake_nvcc(tmp: Path) -> Path:
    """An nvcc that is the real one, except on a source holding KP_SLOW (sleeps, its pid in a
    file) or KP_DIE (kills itself): for tests of cancelled and killed compiles."""
    real = shutil.which("nvcc")
    assert real, "nvcc is needed"
    d = tmp / "fakebin"
    d.mkdir()
    script = d / "nvcc"
    script.write_text(f"""#!/bin/sh
last=""; for a in "$@"; do last="$a"; done
if [ -f "$last" ] && grep -q KP_SLOW "$last"; then echo $$ > {tmp}/slow.pid; sleep 600; fi
if [ -f "$last" ] && grep -q KP_DIE "$last"; then kill -9 $$; fi
exec {real} "$@"
""")
    script.chmod(0o755)
    os.symlink(Path(real).resolve().parent / "ptxas", d / "ptxas")
    return script


# --- 1. shell in nvcc's command line ------------------------------------------------------

def test_file_name_with_backticks_runs_nothing_in_the_cli(tmp_path):
    cmd, marker, env = payload(tmp_path)
    src = tmp_path / f"a`{cmd}`$({cmd}).cu"
    src.write_text(KERNEL)
    r = cli("profile", str(src), "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert not marker.exists()
    data = json.loads(r.stdout)
    # the findings (SASS-based ones included) name the file as the user wrote it
    fp64 = [a for a in data["advice"] if a["rule"] == "fp64-in-float-kernel"]
    assert fp64 and fp64[0]["file"] == str(src)


def test_non_ascii_file_name_keeps_sass_findings(tmp_path):
    src = tmp_path / "ядро_内核.cu"
    src.write_text(KERNEL)
    r = cli("profile", str(src), "--json", env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")})
    assert r.returncode == 0, r.stderr
    fp64 = [a for a in json.loads(r.stdout)["advice"] if a["rule"] == "fp64-in-float-kernel"]
    assert fp64 and fp64[0]["file"] == str(src) and fp64[0]["line"] == 3


def test_include_and_define_values_reach_nvcc_as_data(tmp_path):
    cmd, marker, env = payload(tmp_path)
    inc = tmp_path / f"inc$({cmd}),x"
    inc.mkdir()
    (inc / "scale.h").write_text("#define SCALE 2\n")
    src = tmp_path / "k.cu"
    src.write_text('#include "scale.h"\n' + KERNEL.replace("0.7 * x[i]", "SCALE * x[i] * WIDTH"))
    r = cli("profile", str(src), "--json", "-I", str(inc), "-D", f"WIDTH=(1+0*sizeof(\"$({cmd})\"))", env=env)
    assert not marker.exists()
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert not data["errors"], data["errors"]
    assert data["kernels"][0]["name"] == "gelu"


def _ws(tmp: Path) -> Path:
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "k.cu").write_text(GUARD + KERNEL)
    return ws


def _has_error(diags) -> bool:
    return any(d.get("severity") == 1 for d in diags)


def test_compile_database_values_and_file_name_over_stdio(tmp_path):
    """A trusted workspace's compile_commands.json whose directory, -I, -D and -include carry
    payloads, and a file whose name does: the server compiles, publishes, runs nothing."""
    cmd, marker, env = payload(tmp_path)
    ws = _ws(tmp_path)
    evil_dir = ws / f"b$({cmd})"
    evil_dir.mkdir()
    pre = ws / f"pre`{cmd}`.h"
    pre.write_text("#define PRE 1\n")
    name = ws / f"n`{cmd}`.cu"
    name.write_text(KERNEL)
    db = [{"directory": str(evil_dir), "file": str(ws / "k.cu"),
           "arguments": ["nvcc", f"-I$({cmd})", f"-DX=$({cmd})", "-include", str(pre), f"-std=c++17$({cmd})",
                         f"-D$({cmd})=1", "-maxrregcount", f"`{cmd}`", "-c", str(ws / "k.cu")]},
          {"directory": str(evil_dir), "file": str(name), "command": f"nvcc -DY=`{cmd}` -c {name}"}]
    (ws / "compile_commands.json").write_text(json.dumps(db))
    s = RawLsp(ws, env=env)
    try:
        s.initialize(ws)
        d1 = s.diagnostics(s.open(ws / "k.cu"))
        d2 = s.diagnostics(s.open(name))
        assert not _has_error(d1) and not _has_error(d2), (d1, d2)
        assert any(d.get("code") == "fp64-in-float-kernel" for d in d2)
    finally:
        s.close()
    assert not marker.exists()


def test_compile_database_above_the_workspace_or_for_another_file_is_not_used(tmp_path):
    ws = _ws(tmp_path)
    # a database in the parent of the workspace, and one inside whose only entry is elsewhere
    (tmp_path / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(tmp_path), "file": str(ws / "k.cu"), "command": "nvcc -DKP_BROKEN -c k.cu"}]))
    sub = ws / "sub"
    sub.mkdir()
    (sub / "k.cu").write_text(GUARD + KERNEL)
    (sub / "compile_commands.json").write_text(json.dumps(
        [{"directory": "/elsewhere", "file": "/elsewhere/other.cu", "command": "nvcc -DKP_BROKEN -c other.cu"}]))
    s = RawLsp(ws, env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")})
    try:
        s.initialize(ws)
        assert not _has_error(s.diagnostics(s.open(ws / "k.cu")))
        assert not _has_error(s.diagnostics(s.open(sub / "k.cu")))
    finally:
        s.close()


def test_untrusted_workspace_ignores_its_compile_database_and_refuses_optimize(tmp_path):
    ws = _ws(tmp_path)
    (ws / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(ws), "file": str(ws / "k.cu"), "command": "nvcc -DKP_BROKEN -c k.cu"}]))
    (ws / "k.kernelpro.toml").write_text("")
    for trusted in (True, False):
        s = RawLsp(ws, env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")}, settings={"optimize": {"workers": "2"}})
        try:
            s.initialize(ws, {"trusted": trusted})
            uri = s.open(ws / "k.cu")
            assert _has_error(s.diagnostics(uri)) is trusted  # the database's -DKP_BROKEN only when trusted
            titles = [x["command"]["title"] for x in s.request("textDocument/codeLens", {"textDocument": {"uri": uri}})["result"]]
            assert ("Optimize (trust the folder)" in titles) is not trusted, titles
            if not trusted:
                r = s.request("workspace/executeCommand", {"command": "kernelpro.optimize", "arguments": [uri, "gelu"]})
                assert r["result"] == {"ok": False, "reason": "untrusted workspace"}
                shown = s.wait_note(lambda m: m["method"] == "window/showMessage")
                assert "trust the folder" in shown["params"]["message"]
        finally:
            s.close()


def test_settings_defines_include_paths_and_extra_flags(tmp_path):
    """Workspace settings: -D and -I values with payloads, -ccbin naming a 'compiler' in the
    workspace, -MD -MF naming a file to write: nothing runs, nothing is written, one warning."""
    cmd, marker, env = payload(tmp_path)
    ws = _ws(tmp_path)
    evil = ws / "evilcc"
    evil.mkdir()
    for tool in ("gcc", "g++", "cc", "c++"):
        (evil / tool).write_text(f"#!/bin/sh\n{cmd}\nexit 1\n")
        (evil / tool).chmod(0o755)
    written = tmp_path / "dep.d"
    settings = {"defines": [f"Z=$({cmd})"], "includePaths": [f"/tmp/$({cmd})"],
                "extraFlags": ["-ccbin", str(evil), "-MD", "-MF", str(written), f"-Xcompiler=-B{evil}", "-use_fast_math"]}
    s = RawLsp(ws, settings=settings, env=env)
    try:
        s.initialize(ws)
        d = s.diagnostics(s.open(ws / "k.cu"))
        assert not _has_error(d), d
        warned = s.wait_note(lambda m: m["method"] == "window/showMessage" and "extraFlags ignores" in m["params"]["message"])
        assert "-ccbin" in warned["params"]["message"] and "-use_fast_math" not in warned["params"]["message"]
    finally:
        s.close()
    assert not marker.exists() and not written.exists()


def test_relative_nvcc_path_is_refused(tmp_path):
    cmd, marker, env = payload(tmp_path)
    ws = _ws(tmp_path)
    (ws / "bin").mkdir()
    (ws / "bin" / "nvcc").write_text(f"#!/bin/sh\n{cmd}\n")
    (ws / "bin" / "nvcc").chmod(0o755)
    s = RawLsp(ws, settings={"nvccPath": "bin/nvcc"}, env=env)
    try:
        s.initialize(ws)
        d = s.diagnostics(s.open(ws / "k.cu"))
        assert d and "absolute path" in d[0]["message"]
    finally:
        s.close()
    assert not marker.exists()


# --- 3. python -m from the workspace ---------------------------------------------------------

def test_children_do_not_import_the_workspace(tmp_path):
    """The optimizer the server starts (here with `optimize.workers`, so no GPU check comes
    first) runs in the file's folder: an argparse.py there must not be imported."""
    cmd, marker, env = payload(tmp_path)
    ws = _ws(tmp_path)
    for mod in ("argparse", "json", "git", "enum"):
        (ws / f"{mod}.py").write_text(f"import os\nos.system({cmd!r})\n")
    (ws / "k.kernelpro.toml").write_text("")
    s = RawLsp(ws, settings={"optimize": {"workers": "2"}}, env=env)
    try:
        s.initialize(ws)
        uri = s.open(ws / "k.cu")
        s.diagnostics(uri)
        r = s.request("workspace/executeCommand", {"command": "kernelpro.optimize", "arguments": [uri, "gelu"]})
        assert "token" in r["result"], r
        s.wait_note(lambda m: m["method"] == "$/progress" and m["params"]["value"].get("kind") == "end", timeout=120)
    finally:
        s.close()
    assert not marker.exists()


# --- 7. stdin, devices and memory ------------------------------------------------------------

@pytest.mark.parametrize("target", ["/dev/stdin", "/dev/zero", "fifo"])
def test_includes_of_non_regular_files_are_refused(tmp_path, target):
    ws = _ws(tmp_path)
    if target == "fifo":
        os.mkfifo(ws / "pipe.h")
        target = "pipe.h"
    (ws / "k.cu").write_text(f'#include "{target}"\n' + KERNEL)
    s = RawLsp(ws, env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")})
    try:
        s.initialize(ws)
        uri = s.open(ws / "k.cu")
        d = s.diagnostics(uri)
        assert d and "not a regular file" in d[0]["message"] and d[0]["severity"] == 1
        # the server still reads the editor's messages: a hover is answered
        assert "result" in s.hover(uri, 1, 20)
    finally:
        s.close()


def test_an_include_built_by_a_macro_stops_at_the_memory_limit(tmp_path):
    src = tmp_path / "z.cu"
    src.write_text('#define DEV "/dev/zero"\n#include DEV\n' + KERNEL)
    r = cli("profile", str(src), "--json", env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache"),
                                                 "KERNELPRO_COMPILE_MEMORY_MB": "512"}, timeout=120)
    errs = [d["message"] for d in json.loads(r.stdout)["errors"]]
    assert errs and any("memory" in e for e in errs), errs


def test_a_huge_header_is_refused_before_reading_it(tmp_path):
    h = tmp_path / "big.h"
    with open(h, "wb") as f:  # sparse: 256 MB that take no disk
        f.truncate(256 * 1024 * 1024)
    src = tmp_path / "k.cu"
    src.write_text('#include "big.h"\n' + KERNEL)
    r = cli("profile", str(src), env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")})
    assert r.returncode != 0 and "big.h" in r.stderr and "MB" in r.stderr


# --- 9. killed, cancelled and stale compiles ------------------------------------------------

def test_a_killed_compile_is_not_cached(tmp_path):
    nvcc = fake_nvcc(tmp_path)
    src = tmp_path / "k.cu"
    src.write_text("// KP_DIE\n" + KERNEL)
    env = {"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")}
    r = cli("profile", str(src), "--json", "--nvcc", str(nvcc), env=env)
    errs = [d["message"] for d in json.loads(r.stdout)["errors"]]
    assert any("signal 9" in e for e in errs), errs
    r2 = cli("profile", str(src), "--json", env=env)  # the real nvcc, same key: compiled, not the cached failure
    assert not json.loads(r2.stdout)["errors"]


def test_bad_cache_entries_are_replaced(tmp_path):
    from kernelpro.profilers.compile import cache_dir, compile_cuda

    os.environ["KERNELPRO_CACHE_DIR"], old = str(tmp_path / "cache"), os.environ.get("KERNELPRO_CACHE_DIR")
    try:
        src = tmp_path / "k.cu"
        src.write_text(KERNEL)
        art = compile_cuda(src)
        entry = cache_dir() / art.key / "artifact.json"
        for bad in ('{"ok": true}', "[]", "not json", '{"ok": true, "command": [], "diagnostics": [], '
                    '"resources": {"_Z1k": {"mangled": "_Z1k", "registers": "many"}}}'):
            entry.parent.mkdir(parents=True, exist_ok=True)
            entry.write_text(bad)
            again = compile_cuda(src)
            assert again.ok and not again.cache_hit and again.kernels[0].name == "gelu"
            assert compile_cuda(src).cache_hit  # written anew
    finally:
        if old is None:
            del os.environ["KERNELPRO_CACHE_DIR"]
        else:
            os.environ["KERNELPRO_CACHE_DIR"] = old


@pytest.mark.slow
def test_a_stale_compile_is_cancelled_by_a_newer_text(tmp_path):
    nvcc = fake_nvcc(tmp_path)
    ws = _ws(tmp_path)
    s = RawLsp(ws, settings={"nvccPath": str(nvcc), "profileOn": "type", "typingDelayMs": 0},
               env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")})
    try:
        s.initialize(ws)
        uri = s.open(ws / "k.cu", text="// KP_SLOW\n" + KERNEL)
        pid = int(wait_for(lambda: (tmp_path / "slow.pid").exists() and (tmp_path / "slow.pid").read_text().strip(),
                           60, "the slow nvcc"))
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": KERNEL}]})
        d = s.diagnostics(uri, version=2, timeout=120)  # before the slow one's 600 s
        assert any(x.get("code") == "fp64-in-float-kernel" for x in d)
        wait_for(lambda: not alive(pid), 30, "the stale nvcc to end")
    finally:
        s.close()


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_servers_death_ends_its_compiles(tmp_path, sig):
    nvcc = fake_nvcc(tmp_path)
    ws = _ws(tmp_path)
    s = RawLsp(ws, settings={"nvccPath": str(nvcc)}, env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")})
    s.initialize(ws)
    s.open(ws / "k.cu", text="// KP_SLOW\n" + KERNEL)
    pid = int(wait_for(lambda: (tmp_path / "slow.pid").exists() and (tmp_path / "slow.pid").read_text().strip(),
                       60, "the slow nvcc"))
    s.proc.send_signal(sig)
    s.proc.wait(30)
    try:
        wait_for(lambda: not alive(pid), 30, f"nvcc to end after {sig.name} of the server")
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_source_linked_to_a_device_is_refused(tmp_path):
    link = tmp_path / "k.cu"
    os.symlink("/dev/zero", link)
    r = cli("profile", str(link), env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")}, timeout=60)
    assert r.returncode == 2 and "not a regular file" in r.stderr


@pytest.mark.slow
def test_a_big_parse_leaves_the_event_loop(tmp_path):
    """Code lenses of a 1 MB file (thousands of kernels) are parsed in a worker thread: a
    hover on another file, asked after the lenses, is answered before them."""
    ws = _ws(tmp_path)
    big = ws / "big.cu"
    body = "".join(f"__global__ void k{i}(float* p) {{ p[threadIdx.x] = {i}.0f; }}\n" for i in range(16000))
    big.write_text(body)
    s = RawLsp(ws, settings={"profileOn": "save"}, env={"KERNELPRO_CACHE_DIR": str(tmp_path / "cache")})
    try:
        s.initialize(ws)
        small = s.open(ws / "k.cu")
        s.diagnostics(small)
        s.open(big)
        order: list[str] = []
        import threading

        lens = threading.Thread(target=lambda: (s.request("textDocument/codeLens", {"textDocument": {"uri": big.as_uri()}},
                                                         timeout=300), order.append("lens")))
        sent = s.sent
        lens.start()
        wait_for(lambda: s.sent > sent, 10, "the lens request to be sent")
        s.hover(small, 4, 20, timeout=300)
        order.append("hover")
        lens.join(300)
        assert order == ["hover", "lens"]
    finally:
        s.close()


STARTER = """
import subprocess, sys, time
from kernelpro.profilers.compile import CompileOptions
from kernelpro.lsp_server.gpu import profile_argv
argv = profile_argv(sys.argv[1], None, CompileOptions(), sys.argv[2])
assert argv[1] == "-P" and "--parent" in argv
argv.remove("--run")  # no GPU here: the static profile holds the child in the slow nvcc
p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
print(p.pid, flush=True)
time.sleep(600)
"""


@pytest.mark.slow
def test_a_cli_child_ends_when_the_server_is_killed(tmp_path):
    """The GPU profile (and the optimizer, through the same `--parent`) started by a server that
    is SIGKILLed: the child notices, ends like on SIGTERM and takes its nvcc with it."""
    nvcc = fake_nvcc(tmp_path)
    src = tmp_path / "k.cu"
    src.write_text("// KP_SLOW\n" + KERNEL)
    server = subprocess.Popen([sys.executable, "-P", "-c", STARTER, str(src), str(nvcc)], stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "KERNELPRO_CACHE_DIR": str(tmp_path / "cache")})
    child = int(server.stdout.readline())
    slow = int(wait_for(lambda: (tmp_path / "slow.pid").exists() and (tmp_path / "slow.pid").read_text().strip(),
                        60, "the slow nvcc"))
    server.kill()
    server.wait()
    try:
        wait_for(lambda: not alive(child) and not alive(slow), 30, "the child and its nvcc to end")
    finally:
        for pid in (child, slow):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
