"""Robustness of the language server: rapid edits, bad files, missing nvcc, settings, watching."""
from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_fixtures.helpers import client, diagnostics_for, line_of, open_doc, wait_until  # noqa: F401 (client: the fixture)


def hover_params(uri, line=0, character=0):
    return types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri),
                             position=types.Position(line=line, character=character))


def change_config(client, settings):
    client.set_configuration(settings, section="kernelpro")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"kernelpro": settings}))


@pytest.mark.parametrize("settings", [{"profileOn": "type", "typingDelayMs": 150}])
@pytest.mark.asyncio
async def test_rapid_edits_publish_only_the_last_version(client: LanguageClient, settings):
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    mark = len(client.published)
    for v in range(2, 202):  # type 200 characters at the end of the first line
        col = len(text.split("\n")[0]) + (v - 2)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=0, character=col), end=types.Position(line=0, character=col)),
                text="x")]))
    await asyncio.sleep(0.35)  # the typing pause passed: a profile of version 201 runs now
    ln = line_of(text, "void scale(")
    h = await client.text_document_hover_async(hover_params(uri, ln - 1, text.split("\n")[ln - 1].index("scale")))
    # answered from the last report while version 201's profile still runs (nothing published yet)
    assert not [p for p in client.published[mark:] if p.version == 201]
    assert h is not None and "registers" in h.contents.value
    diags = await diagnostics_for(client, uri, version=201, after=mark)
    await asyncio.sleep(0.5)
    assert [p.version for p in client.published[mark:] if p.uri == uri] == [201]
    assert any(d.code == "fp64-in-float-kernel" for d in diags)
    assert any(getattr(s, "state", None) == "profiling" for s in client.statuses)


@pytest.mark.asyncio
async def test_binary_huge_and_non_cuda_files(client: LanguageClient):
    blob = client.ws / "blob.cu"
    blob.write_bytes(b"\x7fELF\x00\x01\x02binary")
    uri = open_doc(client, blob, text="\x7fELF\x00\x01\x02binary")
    (d,) = await diagnostics_for(client, uri, version=1)
    assert d.severity == types.DiagnosticSeverity.Error and "binary file" in d.message

    huge = client.ws / "huge.cu"
    big = "// " + "x" * (2 * 1024 * 1024 + 10) + "\n__global__ void k() {}\n"
    uri2 = open_doc(client, huge, text=big)
    (d2,) = await diagnostics_for(client, uri2, version=1)
    assert d2.severity == types.DiagnosticSeverity.Information and "MB" in d2.message

    notes = client.ws / "notes.txt"
    notes.write_text("__global__ void not_cuda() {}\n")
    uri3 = open_doc(client, notes)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri3)))
    assert await client.text_document_hover_async(hover_params(uri3, 0, 18)) is None
    await asyncio.sleep(0.3)
    assert not [p for p in client.published if p.uri == uri3]


@pytest.mark.parametrize("settings", [{"nvccPath": "/nowhere/bin/nvcc"}])
@pytest.mark.asyncio
async def test_missing_nvcc_is_one_clear_diagnostic_and_the_server_lives(client: LanguageClient, settings):
    uri = open_doc(client, client.ws / "defects.cu")
    (d,) = await diagnostics_for(client, uri, version=1)
    assert d.code == "toolchain" and "nvcc" in d.message and "/nowhere/bin/nvcc" in d.message
    uri2 = open_doc(client, client.ws / "nonbmp.cu")
    await diagnostics_for(client, uri2, version=1)
    shown = [m for m in client.messages if "nvcc" in m.message]
    assert len(shown) == 1 and shown[0].type == types.MessageType.Error
    assert any(getattr(s, "state", None) == "error" for s in client.statuses)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert lenses[0].command.title == "KernelPro: cannot profile (see Problems)"  # not "not profiled yet"
    # settings fixed: every open file is profiled again
    mark = len(client.published)
    change_config(client, {"nvccPath": ""})
    diags = await diagnostics_for(client, uri, version=1, after=mark)
    assert any(x.code == "fp64-in-float-kernel" for x in diags)


@pytest.mark.asyncio
async def test_settings_change_mid_run_drops_the_outdated_profile(client: LanguageClient):
    uri = open_doc(client, client.ws / "defects.cu")
    change_config(client, {"arch": "sm_80"})  # arrives while the sm_90 profile runs
    diags = await diagnostics_for(client, uri, version=1)
    fp64 = [d for d in diags if d.code == "fp64-in-float-kernel"]
    assert fp64
    h = await client.text_document_hover_async(hover_params(uri, fp64[0].range.start.line, 4))
    assert "sm\\_80" in h.contents.value and "sm\\_90" not in h.contents.value  # Markdown-escaped
    await asyncio.sleep(0.5)
    assert len([p for p in client.published if p.uri == uri]) == 1
    # a bad architecture is a clear diagnostic, not a crash
    mark = len(client.published)
    change_config(client, {"arch": "sm_1"})
    (d,) = await diagnostics_for(client, uri, version=1, after=mark)
    assert "unknown architecture 'sm_1'" in d.message


@pytest.mark.asyncio
async def test_deleted_file_keeps_profiling_the_buffer(client: LanguageClient):
    path = client.ws / "defects.cu"
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    mark = len(client.published)
    path.unlink()
    await wait_until(lambda: [m for m in client.messages if "deleted" in m.message], what="a deleted message")
    diags = await diagnostics_for(client, uri, version=1, after=mark)
    assert any(d.code == "fp64-in-float-kernel" for d in diags)
    await asyncio.wait_for(client.text_document_hover_async(hover_params(uri)), 5)  # the server answers


@pytest.mark.asyncio
async def test_header_changed_on_disk_reprofiles_its_includers(client: LanguageClient):
    uri = open_doc(client, client.ws / "uses_header.cu")
    diags = await diagnostics_for(client, uri, version=1)
    assert any("not_declared" in d.message for d in diags)
    mark = len(client.published)
    header = client.ws / "bad_header.cuh"
    header.write_text(header.read_text().replace("not_declared", "2.0f"))
    diags = await diagnostics_for(client, uri, version=1, after=mark)
    assert not [d for d in diags if d.severity == types.DiagnosticSeverity.Error], diags


@pytest.mark.asyncio
async def test_source_changed_on_disk_is_reprofiled_when_not_dirty(client: LanguageClient):
    path = client.ws / "nonbmp.cu"
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, version=1)
    assert any(d.code == "fp64-in-float-kernel" for d in diags)
    mark = len(client.published)
    fixed = path.read_text().replace("2.0 +", "2.0f +")
    path.write_text(fixed)
    await wait_until(lambda: sum("profiled nonbmp.cu" in m.message for m in client.log_messages) >= 2, 30,
                     "the disk text's profile")
    # published when the editor reloads the buffer (a didChange to the disk text), not before
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)]))
    diags = await diagnostics_for(client, uri, version=2, after=mark)
    assert not any(d.code == "fp64-in-float-kernel" for d in diags)


@pytest.mark.asyncio
async def test_file_outside_the_workspace(client: LanguageClient, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    src = other / "k.cu"
    src.write_text((client.ws / "defects.cu").read_text())
    uri = open_doc(client, src)
    diags = await diagnostics_for(client, uri, version=1)
    assert any(d.code == "fp64-in-float-kernel" for d in diags)


@pytest.mark.asyncio
async def test_launch_spec_written_on_disk_sets_the_block_size(client: LanguageClient):
    from kernelpro.profilers.runtime.spec import init_spec

    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    mark = len(client.published)
    spec = init_spec(path, "scale").replace("block = [256]", "block = [128]").replace("cdiv(n, 256)", "cdiv(n, 128)")
    (client.ws / "defects.kernelpro.toml").write_text(spec)
    await diagnostics_for(client, uri, version=1, after=mark)
    ln = line_of(text, "void scale(")
    h = await client.text_document_hover_async(hover_params(uri, ln - 1, text.split("\n")[ln - 1].index("scale")))
    assert "block: 128 threads (from launch spec)" in h.contents.value, h.contents.value
