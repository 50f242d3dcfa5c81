"""The editor never shows findings for text that is no longer there (real server, real git, real nvcc)."""
from __future__ import annotations

import asyncio
import subprocess

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_fixtures.helpers import CONFIG, diagnostics_for, line_of, open_doc, start, wait_until, workspace


def git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, request):
    ws = workspace(request.getfixturevalue("tmp_path"))
    lsp_client.ws = ws
    git(ws, "init", "-q", "-b", "main")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "kernels")
    await start(lsp_client, ws)
    yield
    await lsp_client.shutdown_session()


def change(client, uri, version, text):
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def fp64_lines(diags):
    return sorted(d.range.start.line for d in diags if d.code == "fp64-in-float-kernel")


@pytest.mark.asyncio
async def test_checkout_of_a_branch_then_the_editor_reloads(client: LanguageClient):
    """`git checkout fixed -- defects.cu`; the editor reloads the buffer (a didChange, no save):
    the new findings come without a save, and no 'deleted on disk' warning appears."""
    ws = client.ws
    path = ws / "defects.cu"
    text = path.read_text()
    git(ws, "checkout", "-q", "-b", "fixed")
    fixed = text.replace("in[i] * 2.0 +", "in[i] * 2.0f +")
    path.write_text(fixed)
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "fix the literal")
    git(ws, "checkout", "-q", "main")
    assert path.read_text() == text

    uri = open_doc(client, path)
    before = await diagnostics_for(client, uri, version=1)
    assert fp64_lines(before) == [line_of(text, "in[i] * 2.0") - 1]
    await asyncio.sleep(0.5)  # the watcher has settled
    mark = len(client.published)
    git(ws, "checkout", "fixed", "--", "defects.cu")
    assert path.read_text() == fixed
    change(client, uri, 2, fixed)  # what VS Code sends when it reloads the file from disk
    after = await diagnostics_for(client, uri, version=2, after=mark)
    await asyncio.sleep(1.0)  # anything still in flight has arrived
    last = [p for p in client.published[mark:] if p.uri == uri][-1]
    assert last.version == 2 and fp64_lines(last.diagnostics) == [] and fp64_lines(after) == []
    assert not [m for m in client.messages if "deleted" in m.message]


@pytest.mark.asyncio
async def test_file_replaced_on_disk_is_not_reported_deleted(client: LanguageClient):
    """A file removed and written again at once (git, many editors) is a change, not a deletion.
    Its new text is profiled at once, but published only when the buffer holds it (issue 29, item 10:
    Neovim reloads later; until then the buffer keeps the findings of its own text)."""
    path = client.ws / "nonbmp.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    before = await diagnostics_for(client, uri, version=1)
    assert fp64_lines(before)
    mark = len(client.published)
    path.unlink()
    fixed = text.replace("2.0 +", "2.0f +")
    path.write_text(fixed)
    await wait_until(lambda: sum("profiled nonbmp.cu" in m.message for m in client.log_messages) >= 2, 30,
                     "the profile of the new disk text")
    await asyncio.sleep(0.3)
    assert not [p for p in client.published[mark:] if p.uri == uri]  # the buffer still holds the old text
    change(client, uri, 2, fixed)  # the editor reloads the file
    diags = await diagnostics_for(client, uri, version=2, after=mark)  # at once: that text's result is known
    assert not [d for d in diags if d.code == "fp64-in-float-kernel"]
    await asyncio.sleep(1.0)
    assert sum("profiled nonbmp.cu" in m.message for m in client.log_messages) == 2  # not profiled again
    assert not [m for m in client.messages if "deleted" in m.message]


@pytest.mark.asyncio
async def test_save_then_keep_typing_publishes_that_save_moved_to_the_new_text(client: LanguageClient):
    """profileOn "save": the result of the save arrives after more typing; it is published on the
    current version, its ranges moved with the text, instead of being dropped as outdated."""
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    mark = len(client.published)
    saved = text.replace("acc += w[t] * x[i + t];", "acc += w[t] * x[i + t] * 0.5;")  # a new fp64 literal
    change(client, uri, 2, saved)
    path.write_text(saved)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    typed = "// a comment typed after the save\n" + saved  # every line moves down by one
    change(client, uri, 3, typed)
    diags = await diagnostics_for(client, uri, after=mark)
    await asyncio.sleep(0.5)
    pubs = [p for p in client.published[mark:] if p.uri == uri]
    assert [p.version for p in pubs] == [3], [p.version for p in pubs]
    want = [line_of(typed, "in[i] * 2.0") - 1, line_of(typed, "x[i + t] * 0.5") - 1]
    assert fp64_lines(diags) == want
    # the quick fix carried over lands on the moved literal
    d = next(d for d in diags if d.range.start.line == want[1])
    (edit,) = d.data["fix"]["edits"]
    assert edit["line"] == want[1] + 1
    # the hover follows the moved lines too
    h = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=want[1], character=4)))
    assert h is not None and "fp64-in-float-kernel" in h.contents.value
