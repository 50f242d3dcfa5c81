"""lsp_server's modules import without a circle (issue 29, item 18): the server's state lives in a module
that imports no feature, the features are registered by the entry point, and no module imports it."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "lsp_server"
MODULES = sorted(p.stem for p in PKG.glob("*.py") if p.stem != "__init__")
ENTRY = {"server", "__main__"}  # create_server registers the features; __main__ runs it
FEATURES = {"documents", "hover", "lenses", "actions", "hints", "gpu", "optimize"}


def loaded_by(module: str) -> set[str]:
    """The package's modules a fresh interpreter holds after importing `module` alone."""
    code = (f"import importlib, json, sys; importlib.import_module('kernelpro.lsp_server.{module}'); "
            "print(json.dumps(sorted(m.rsplit('.', 1)[-1] for m in sys.modules "
            "if m.startswith('kernelpro.lsp_server.'))))")
    r = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return set(json.loads(r.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_alone_and_not_the_entry_point(module):
    loaded = loaded_by(module)
    assert module in loaded
    if module not in ENTRY:
        assert not loaded & ENTRY, f"importing {module} loaded {sorted(loaded & ENTRY)}"


def test_the_state_module_imports_no_feature():
    assert not loaded_by("state") & FEATURES


def test_no_module_imports_the_entry_point():
    for path in PKG.glob("*.py"):
        if path.stem in ENTRY:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [a.name for a in node.names] if node.level else [node.module or ""]
                tail = {n.rsplit(".", 1)[-1] for n in names if n}
                assert not (node.level or "lsp_server" in (node.module or "")) or not tail & ENTRY, \
                    f"{path.name}:{node.lineno} imports the entry point"
            elif isinstance(node, ast.Import):
                assert not any(a.name.endswith(("lsp_server.server", "lsp_server.__main__")) for a in node.names), \
                    f"{path.name}:{node.lineno} imports the entry point"


def test_the_entry_point_registers_every_feature():
    code = ("from kernelpro.lsp_server.server import create_server; s = create_server(); "
            "import json; print(json.dumps(sorted(s.protocol.fm.features) + sorted(s.protocol.fm.commands)))")
    r = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    have = set(json.loads(r.stdout.strip().splitlines()[-1]))
    assert {"textDocument/hover", "textDocument/codeLens", "textDocument/codeAction", "textDocument/inlayHint",
            "textDocument/didOpen", "kernelpro.optimize", "kernelpro.sass"} <= have
