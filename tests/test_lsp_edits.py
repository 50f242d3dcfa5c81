"""The view follows edits that are not saved (issue 29, item 9): a quick fix takes its diagnostic with
it at once, and a buffer back at a text profiled before (an Undo) shows that text's result at once."""
from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_fixtures.helpers import apply_edit, client, diagnostics_for, line_of, open_doc, wait_until  # noqa: F401

TWO = "out[i] = in[i] * 2.0 + in[i + 1] * 0.7;"  # two double literals on one line


def profiles(client: LanguageClient, name: str = "defects.cu") -> int:
    return sum(f"profiled {name}" in m.message for m in client.log_messages)


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def literals(diags: list[types.Diagnostic]) -> dict[str, types.Diagnostic]:
    """The fp64 findings by the literal their message names."""
    return {d.message.split()[2]: d for d in diags if d.code == "fp64-in-float-kernel"}


async def next_publish(client: LanguageClient, uri: str, mark: int, version: int) -> list[types.Diagnostic]:
    return await diagnostics_for(client, uri, version=version, after=mark, timeout=5)


async def quick_fix(client: LanguageClient, uri: str, d: types.Diagnostic) -> types.TextDocumentEdit:
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=d.range, context=types.CodeActionContext(diagnostics=[d])))
    (fix,) = [a for a in actions if isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.QuickFix]
    (tde,) = fix.edit.document_changes
    return tde


@pytest.mark.asyncio
async def test_quick_fix_then_undo_without_saving(client: LanguageClient):
    path = client.ws / "defects.cu"
    text = path.read_text().replace("out[i] = in[i] * 2.0 + in[i + 1];", TWO)
    path.write_text(text)
    uri = open_doc(client, path)
    first = await diagnostics_for(client, uri, version=1)
    row = line_of(text, TWO) - 1
    lits = literals(first)
    assert {"2.0", "0.7"} <= set(lits) and lits["2.0"].range.start.line == lits["0.7"].range.start.line == row
    others = sorted((d.code, d.range.start.line) for d in first if d.code != "fp64-in-float-kernel")
    assert others
    n = profiles(client)

    # the quick fix of 0.7 (the line's second literal), applied and not saved
    tde = await quick_fix(client, uri, lits["0.7"])
    fixed = apply_edit(text, tde.edits)
    assert "0.7f" in fixed
    mark = len(client.published)
    change(client, uri, 2, fixed)
    after = await next_publish(client, uri, mark, 2)
    assert set(literals(after)) == {"2.0"}  # the fixed one went with the edit
    assert literals(after)["2.0"].range == lits["2.0"].range  # the other one on that line stayed where it is
    assert sorted((d.code, d.range.start.line) for d in after if d.code != "fp64-in-float-kernel") == others

    # the quick fix of 2.0 on the fixed text: offered at once, its edit still right
    tde = await quick_fix(client, uri, literals(after)["2.0"])
    assert tde.text_document.version == 2
    both = apply_edit(fixed, tde.edits)
    assert TWO.replace("2.0", "2.0f").replace("0.7", "0.7f") in both

    # Undo: back at the opened text, whose result is known: shown at once, nothing profiled
    mark = len(client.published)
    change(client, uri, 3, text)
    undone = await next_publish(client, uri, mark, 3)
    assert sorted((d.code, d.range.start.line, d.range.start.character, d.message) for d in undone) == \
        sorted((d.code, d.range.start.line, d.range.start.character, d.message) for d in first)
    assert set(literals(undone)) == {"2.0", "0.7"}
    await asyncio.sleep(1.0)
    assert profiles(client) == n


@pytest.mark.asyncio
async def test_undo_after_a_save_gets_the_earlier_result(client: LanguageClient):
    """Save the fixed text (a new profile), then Undo to the text profiled before: its result comes
    back from the server's results by text, at once and without a profile."""
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    first = await diagnostics_for(client, uri, version=1)
    (d,) = literals(first).values()
    tde = await quick_fix(client, uri, d)
    fixed = apply_edit(text, tde.edits)
    n = profiles(client)
    change(client, uri, 2, fixed)
    path.write_text(fixed)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await wait_until(lambda: profiles(client) > n, 30, "the saved text's profile")
    await asyncio.sleep(0.3)
    saved = [p for p in client.published if p.uri == uri][-1]
    assert saved.version == 2 and not literals(saved.diagnostics)
    n = profiles(client)
    mark = len(client.published)
    change(client, uri, 3, text)  # Undo, not saved
    undone = await next_publish(client, uri, mark, 3)
    assert set(literals(undone)) == {"2.0"} and literals(undone)["2.0"].range == d.range
    assert len(undone) == len(first)
    await asyncio.sleep(1.0)
    assert profiles(client) == n


@pytest.mark.asyncio
async def test_typing_that_touches_no_finding_publishes_nothing(client: LanguageClient):
    """Edits that leave every finding alone publish nothing (the client moves them itself)."""
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    mark = len(client.published)
    typed = text.replace("// Defective kernels", "// Defective CUDA kernels")
    change(client, uri, 2, typed)
    change(client, uri, 3, "// one more line\n" + typed)
    await asyncio.sleep(1.0)
    assert not [p for p in client.published[mark:] if p.uri == uri]
    # an edit inside a finding's range removes that finding
    touched = ("// one more line\n" + typed).replace("in[i] * 2.0 +", "in[i] * 2.5 +")
    change(client, uri, 4, touched)
    after = await next_publish(client, uri, mark, 4)
    assert not literals(after)
