"""The language server end to end (pytest-lsp, real server process, real nvcc)."""
from __future__ import annotations

import asyncio
from pathlib import Path

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
    # the link opens docs/rules.md at the rule's heading (VS Code reads #L<line> of a file URI)
    href = d.code_description.href
    docs, line = href.split("#L")
    lines = Path(docs.removeprefix("file://")).read_text().split("\n")
    assert lines[int(line) - 1] == "### fp64-in-float-kernel"
    # one short sentence; the fix is related information at the same range
    assert d.message == "the literal 2.0 is a double"
    assert [(r.location.range, r.message) for r in d.related_information if r.message.startswith("fix:")] == [
        (d.range, r.message) for r in d.related_information if "2.0f" in r.message]
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
    assert h is None or "cannot profile (see Problems)" in h.contents.value
    # the lens says what docs/editor.md says it does for a file that does not compile (issue 29, item 11)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    summaries = [lens.command.title for lens in lenses if lens.command.command == ""]
    assert summaries and all(t == "KernelPro: cannot profile (see Problems)" for t in summaries), summaries
    assert "`KernelPro: cannot profile (see Problems)` when the file cannot be compiled" in \
        (Path(__file__).resolve().parents[1] / "docs" / "editor.md").read_text()


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
    h = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos))
    v = h.contents.value
    assert h.contents.kind == types.MarkupKind.Markdown
    for word in ("registers", "spills", "stack", "shared memory", "occupancy", "block: 256", "**assumed**"):
        assert word in v, v
    assert "limited by" not in v  # 100%: nothing limits it
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
    assert sum("regs ·" in t and "occupancy" in t and "(assumed block 256)" in t for t in titles) == len(kernels), titles
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
        profiled = sum("profiled defects.cu" in m.message for m in client.log_messages)
        client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
        # the saved text's own profile (the edit's publish before it only drops what the edit touched)
        await wait_until(lambda: sum("profiled defects.cu" in m.message for m in client.log_messages) > profiled, 60,
                         "the saved text's profile")
        await asyncio.sleep(0.2)
        after = [p for p in client.published[start:] if p.uri == uri][-1].diagnostics
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
    # a command (the server writes and saves the file), not an edit that leaves an unsaved buffer
    assert spec.disabled is None and spec.edit is None
    assert spec.command.command == "kernelpro.createSpec" and list(spec.command.arguments) == [uri, "taps"]


@pytest.mark.asyncio
async def test_code_actions_honour_context_only(client: LanguageClient):
    """VS Code asks for quick fixes with only=["quickfix"]: a source action there is dropped with a
    warning in its log on every request."""
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, version=1)
    d = next(d for d in diags if d.code == "fp64-in-float-kernel")

    async def kinds(only):
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=d.range,
            context=types.CodeActionContext(diagnostics=[d], only=only)))
        return {a.kind for a in actions}

    assert await kinds([types.CodeActionKind.QuickFix]) == {types.CodeActionKind.QuickFix}
    assert await kinds([types.CodeActionKind.Source]) == {types.CodeActionKind.Source}
    assert await kinds(["source.organizeImports"]) == set()
    assert await kinds(None) == {types.CodeActionKind.QuickFix, types.CodeActionKind.Source}
    assert line_of(text, "void scale(") <= d.range.start.line + 1


@pytest.mark.asyncio
async def test_gpu_command_without_gpu_says_so_at_every_click(client: LanguageClient):
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
    shown = [m for m in client.messages if "GPU" in m.message]  # each click answers (issue 29, item 11)
    assert len(shown) == 2 and all("static advice works without one" in m.message for m in shown)
    # the static diagnostics are still there
    assert [d for d in client.diagnostics[uri] if d.code == "fp64-in-float-kernel"]


@pytest.mark.asyncio
async def test_create_spec_command_saves_the_file_and_opens_it(client: LanguageClient):
    """The spec is written to disk (an unsaved buffer made Optimize fail on a 0-byte file) and shown."""
    shown = client.shown_documents
    path = client.ws / "defects.cu"
    uri = open_doc(client, path)
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="kernelpro.createSpec", arguments=[uri, "scale"]))
    spec = client.ws / "defects.kernelpro.toml"
    assert res["ok"] is True and res["uri"] == spec.as_uri(), res
    assert 'kernel = "scale"' in spec.read_text()
    from kernelpro.profilers.runtime.spec import load_spec

    assert load_spec(spec).kernel == "scale"  # a valid spec, on disk
    assert [p.uri for p in shown] == [spec.as_uri()] and shown[0].take_focus
    # again: nothing is overwritten; the existing spec is shown
    before = spec.read_text()
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="kernelpro.createSpec", arguments=[uri, "scale"]))
    assert res["ok"] is False and "exists already" in res["reason"] and spec.read_text() == before
    assert len(shown) == 2
    # bad arguments are a clear message, not a crash
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="kernelpro.optimize", arguments=[]))
    assert any("needs [uri, kernel name]" in m.message for m in client.messages)
