"""Shared setup for the language-server tests (pytest-lsp against the real server)."""
from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path
from typing import Union

from lsprotocol import types
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

HERE = Path(__file__).parent
CONFIG = ClientServerConfig(server_command=[sys.executable, "-m", "kernelpro.lsp_server"])
FIXTURES = ["defects.cu", "syntax.cu", "bad_header.cuh", "uses_header.cu", "nonbmp.cu"]


def workspace(tmp: Path) -> Path:
    ws = tmp / "ws"
    ws.mkdir()
    for name in FIXTURES:
        shutil.copy(HERE / name, ws / name)
    return ws


def fix_code_action_parsing(client: LanguageClient) -> None:
    """lsprotocol 2025.0.0 reads every code action that carries a `command` as a bare Command
    (losing its kind); VS Code tells them apart by `typeof command === "string"`: do the same."""
    conv = client.protocol._converter
    union = Union[types.Command, types.CodeAction]

    def hook(obj, _):
        return conv.structure(obj, types.Command if isinstance(obj.get("command"), str) else types.CodeAction)

    conv.register_structure_hook(union, hook)


async def start(client: LanguageClient, ws: Path, settings: dict | None = None) -> None:
    """initialize with `settings` as initializationOptions; record notifications."""
    fix_code_action_parsing(client)
    client.published = []  # PublishDiagnosticsParams, in arrival order
    client.statuses = []
    orig = client.protocol._handle_notification

    def spy(method, params):
        if method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            client.published.append(params)
        elif method == "kernelpro/status":
            client.statuses.append(params)
        orig(method, params)

    client.protocol._handle_notification = spy
    client.code_lens_refreshes = 0

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def refresh(params):
        client.code_lens_refreshes += 1

    @client.feature("kernelpro/status")
    def status(params):
        pass
    client.set_configuration(settings or {}, section="kernelpro")
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=ws.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=ws.as_uri(), name="ws")],
        initialization_options={"settings": settings or {}},
    ))


def open_doc(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="cuda-cpp", version=version, text=path.read_text() if text is None else text)))
    return uri


async def diagnostics_for(client: LanguageClient, uri: str, version: int | None = None, timeout: float = 30,
                          after: int = 0) -> list[types.Diagnostic]:
    """The diagnostics of the first publish for `uri` (at `version`) after index `after`."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for p in client.published[after:]:
            if p.uri == uri and (version is None or p.version == version):
                return list(p.diagnostics)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {uri} version {version} within {timeout} s; got "
                         f"{[(p.uri, p.version) for p in client.published]}")


async def wait_until(pred, timeout: float = 20, what: str = "condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def utf16(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def token_range(text: str, line_no: int, token: str, nth: int = 0) -> types.Range:
    """The LSP range (UTF-16) of the nth `token` on 1-based line `line_no` of `text`."""
    line = text.split("\n")[line_no - 1]
    idx = -1
    for _ in range(nth + 1):
        idx = line.index(token, idx + 1)
    return types.Range(start=types.Position(line=line_no - 1, character=utf16(line[:idx])),
                       end=types.Position(line=line_no - 1, character=utf16(line[:idx + len(token)])))


def line_of(text: str, needle: str) -> int:
    """1-based number of the first line containing `needle`."""
    for i, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in the text")


def apply_edit(text: str, edits: list[types.TextEdit]) -> str:
    """Apply TextEdits (UTF-16 ranges) to text, last first."""
    lines = text.split("\n")

    def offset(pos: types.Position) -> int:
        before = sum(len(l) + 1 for l in lines[:pos.line])
        line = lines[pos.line]
        units, i = 0, 0
        while i < len(line) and units < pos.character:
            units += utf16(line[i])
            i += 1
        return before + i

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        a, b = offset(e.range.start), offset(e.range.end)
        text = text[:a] + e.new_text + text[b:]
        lines = text.split("\n")
    return text


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, request):
    """The real server on a fresh workspace; a test parametrized with `settings` starts with them."""
    ws = workspace(request.getfixturevalue("tmp_path"))
    lsp_client.ws = ws
    callspec = getattr(request.node, "callspec", None)
    await start(lsp_client, ws, callspec.params.get("settings") if callspec else None)
    yield
    await lsp_client.shutdown_session()
