"""The language server end to end (pytest-lsp, real server process, real nvcc)."""
from __future__ import annotations

import asyncio
import time

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from kernelpro.profilers.source import parse_source

from lsp_fixtures.helpers import (CONFIG, apply_edit, diagnostics_for, line_of, open_doc, start, token_range,
                                  wait_until, workspace)


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, request):
    ws = workspace(request.getfixturevalue("tmp_path"))
    lsp_client.ws = ws
    await start(lsp_client, ws)
    yield
    await lsp_client.shutdown_session()


def ours(diags):
    return [d for d in diags if d.source == "kernelpro"]


@pytest.mark.asyncio
async def test_advice_diagnostics_have_exact_ranges_and_codes(client: LanguageClient):
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, version=1)
    fp64 = [d for d in diags if d.code == "fp64-in-float-kernel"]
    assert len(fp64) == 1, [(d.code, d.message) for d in diags]
    d = fp64[0]
    assert d.range == token_range(text, line_of(text, "in[i] * 2.0"), "2.0")
    assert d.severity == types.DiagnosticSeverity.Warning
    assert d.source == "kernelpro"
    assert d.code_description.href.endswith("#fp64-in-float-kernel")
    assert " — fix: " in d.message and "2.0f" in d.message
    assert d.data["rule"] == "fp64-in-float-kernel" and d.data["fix"]["edits"]
    for other in diags:  # every advice diagnostic carries its rule and a docs link
        if other.code_description:
            assert other.data["rule"] == other.code


@pytest.mark.asyncio
async def test_utf16_columns_after_a_non_bmp_character(client: LanguageClient):
    path = client.ws / "nonbmp.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, version=1)
    d = next(d for d in diags if d.code == "fp64-in-float-kernel")
    expected = token_range(text, line_of(text, "/* 𝛼 */"), "2.0")
    assert d.range == expected
    line = text.split("\n")[expected.start.line]
    assert expected.start.character == line.index("2.0") + 1  # 𝛼 is two UTF-16 units


@pytest.mark.asyncio
async def test_compile_errors_at_their_lines(client: LanguageClient):
    path = client.ws / "syntax.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, version=1)
    errors = [d for d in diags if d.severity == types.DiagnosticSeverity.Error]
    assert errors, diags
    assert any("expected a \";\"" in d.message for d in errors)
    assert all(0 <= d.range.start.line < len(text.split("\n")) for d in diags)
    # the server is alive: hover answers (nothing compiled, so no kernel numbers)
    h = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=18)))
    assert h is None or "not compiled" in h.contents.value


@pytest.mark.asyncio
async def test_header_error_on_the_include_line(client: LanguageClient):
    path = client.ws / "uses_header.cu"
    text = path.read_text()
    header = (client.ws / "bad_header.cuh").read_text()
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, version=1)
    d = next(d for d in diags if "not_declared" in d.message)
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.range.start.line == line_of(text, '#include "bad_header.cuh"') - 1
    assert f"bad_header.cuh:{line_of(header, 'not_declared')}" in d.message


@pytest.mark.asyncio
async def test_hover_and_code_lenses(client: LanguageClient):
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    ln = line_of(text, "void scale(")
    pos = types.Position(line=ln - 1, character=text.split("\n")[ln - 1].index("scale") + 2)
    t0 = time.perf_counter()
    h = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos))
    assert time.perf_counter() - t0 < 0.5
    v = h.contents.value
    assert h.contents.kind == types.MarkupKind.Markdown
    for word in ("registers", "spills", "stack", "shared memory", "occupancy", "limited by", "block: 256", "default"):
        assert word in v, v
    # hover on the line of the fp64 advice shows its evidence
    ln2 = line_of(text, "in[i] * 2.0")
    h2 = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=ln2 - 1, character=4)))
    assert "fp64-in-float-kernel" in h2.contents.value and "FP64 instructions on this line" in h2.contents.value

    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    titles = [l.command.title for l in lenses]
    kernels = parse_source(text).kernels
    assert len(kernels) == 3
    assert sum("regs ·" in t and "occupancy" in t and "(block 256)" in t for t in titles) == len(kernels), titles
    opt = [l for l in lenses if l.command.command == "kernelpro.optimize"]
    assert [list(l.command.arguments) for l in opt] == [[uri, k.name] for k in kernels]
    assert [l.range.start.line for l in opt] == [k.start_line - 1 for k in kernels]
    assert sum(l.command.command == "kernelpro.createSpec" for l in lenses) == len(kernels)
    assert sum(l.command.command == "kernelpro.profileGpu" for l in lenses) == len(kernels)
    # with a spec beside the file, no "Create launch spec" lens
    (client.ws / "defects.kernelpro.toml").write_text('kernel = "scale"\n')
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert not [l for l in lenses if l.command.command == "kernelpro.createSpec"]


@pytest.mark.asyncio
async def test_every_quick_fix_compiles_and_clears_its_diagnostic(client: LanguageClient):
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, version=1)
    fixable = [d for d in diags if d.data and d.data.get("fix")]
    assert len({d.code for d in fixable}) >= 2, [d.code for d in diags]
    version, fixed = 1, []
    while fixable and len(fixed) < 12:
        d = fixable[0]
        start = len(client.published)
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=d.range,
            context=types.CodeActionContext(diagnostics=[d])))
        fixes = [a for a in actions if isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.QuickFix]
        assert len(fixes) == 1, actions
        (tde,) = fixes[0].edit.document_changes
        assert tde.text_document.uri == uri and tde.text_document.version == version
        new_text = apply_edit(text, tde.edits)
        assert new_text != text
        version += 1
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=new_text)]))
        path.write_text(new_text)
        client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
        after = await diagnostics_for(client, uri, version=version, after=start)
        assert not [x for x in after if x.severity == types.DiagnosticSeverity.Error], (fixes[0].title, after)
        before_n = sum(x.code == d.code for x in diags)
        assert sum(x.code == d.code for x in after) == before_n - 1, f"{d.code} still there after {fixes[0].title!r}"
        fixed.append(d.code)
        text, diags = new_text, after
        fixable = [x for x in diags if x.data and x.data.get("fix")]
    assert not fixable, [x.code for x in fixable]
    assert {"fp64-in-float-kernel", "missing-restrict"} <= set(fixed)


@pytest.mark.asyncio
async def test_create_spec_code_action_and_command(client: LanguageClient):
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    ln = line_of(text, "void taps(")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=ln, character=0), end=types.Position(line=ln, character=0)),
        context=types.CodeActionContext(diagnostics=[])))
    titles = [a.title for a in actions]
    assert "Optimize this kernel (taps)" in titles
    spec = next(a for a in actions if a.title.startswith("Create launch spec"))
    if spec.disabled is None:
        create, insert = spec.edit.document_changes
        assert create.kind == "create" and create.uri.endswith("defects.kernelpro.toml")
        assert 'kernel = "taps"' in insert.edits[0].new_text
    else:
        assert spec.disabled.reason


@pytest.mark.asyncio
async def test_gpu_command_without_gpu_says_so_once(client: LanguageClient):
    path = client.ws / "defects.cu"
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    from kernelpro.lsp_server.gpu import gpu_problem

    if gpu_problem() is None:
        pytest.skip("a GPU is available here")
    for _ in range(2):
        res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="kernelpro.profileGpu", arguments=[uri, "scale"]))
        assert res["ok"] is False
    shown = [m for m in client.messages if "GPU" in m.message]
    assert len(shown) == 1 and "static advice stays" in shown[0].message
    # the static diagnostics are still there
    assert [d for d in client.diagnostics[uri] if d.code == "fp64-in-float-kernel"]


@pytest.mark.asyncio
async def test_create_spec_command_applies_a_workspace_edit(client: LanguageClient):
    applied = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams):
        applied.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    path = client.ws / "defects.cu"
    uri = open_doc(client, path)
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="kernelpro.createSpec", arguments=[uri, "scale"]))
    try:
        from kernelpro.profilers.runtime.spec import init_spec  # noqa: F401
    except ImportError:
        assert res["ok"] is False and "not available" in res["reason"]
        return
    assert res["ok"] is True, res
    (edit,) = applied
    create, insert = edit.document_changes
    assert create.uri == (client.ws / "defects.kernelpro.toml").as_uri()
    assert 'kernel = "scale"' in insert.edits[0].new_text
    # bad arguments are a clear message, not a crash
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="kernelpro.optimize", arguments=[]))
    assert any("needs [uri, kernel name]" in m.message for m in client.messages)
