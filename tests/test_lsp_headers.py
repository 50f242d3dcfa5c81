"""Kernels defined in a .cuh are shown in the .cuh (issue 29, item 8): open alone, it is compiled as
its own translation unit; with an open .cu that includes it, the findings that .cu's profile puts
in the header (its launches, its instantiations) go to the header's URI."""
from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_fixtures.helpers import client, diagnostics_for, line_of, open_doc, wait_until  # noqa: F401

HEADER = """#pragma once
__global__ void halve(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 0.7;
}

template <typename T>
__global__ void twice(T* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 1.3;
}
"""
MAIN = """#include "scale.cuh"

void run(float* d, int n) {
    halve<<<(n + 127) / 128, 128>>>(d, n);
    twice<float><<<(n + 127) / 128, 128>>>(d, n);
}
"""
FP64 = "fp64-in-float-kernel"


def fp64(diags) -> list[tuple[int, int]]:
    return sorted((d.range.start.line, d.range.start.character) for d in diags if d.code == FP64)


def at(text: str, needle: str) -> tuple[int, int]:
    row = line_of(text, needle) - 1
    return row, text.split("\n")[row].index(needle)


def files(ws):
    (ws / "scale.cuh").write_text(HEADER)
    (ws / "main.cu").write_text(MAIN)
    return ws / "scale.cuh", ws / "main.cu"


@pytest.mark.asyncio
async def test_header_opened_alone_is_profiled_as_its_own_unit(client: LanguageClient):
    header, _ = files(client.ws)
    uri = open_doc(client, header)
    diags = await diagnostics_for(client, uri, version=1)
    # the plain kernel's literal; the template is never instantiated in the header alone
    assert fp64(diags) == [at(HEADER, "0.7")]
    assert not [d for d in diags if d.severity == types.DiagnosticSeverity.Error]
    assert not [d for d in diags if "pragma once" in d.message]
    # the hover on the template says why it has no registers (not "not compiled")
    row, col = at(HEADER, "twice")
    h = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=row, character=col + 1)))
    assert h is not None and "a template this file never instantiates" in h.contents.value, h


@pytest.mark.asyncio
async def test_header_shows_what_the_including_file_found_there(client: LanguageClient):
    header, main = files(client.ws)
    main_uri = open_doc(client, main)
    main_diags = await diagnostics_for(client, main_uri, version=1)
    assert not fp64(main_diags)  # the findings in the header are not put on the .cu's lines
    mark = len(client.published)
    uri = open_doc(client, header)
    diags = await diagnostics_for(client, uri, version=1, after=mark)  # at once, from main.cu's profile
    # both literals: main.cu instantiates twice<float>
    assert fp64(diags) == [at(HEADER, "0.7"), at(HEADER, "1.3")]
    assert all(d.range.end.character - d.range.start.character == 3 for d in diags if d.code == FP64)
    # the header's own profile (which cannot instantiate the template) does not take them away
    await wait_until(lambda: any("profiled scale.cuh" in m.message for m in client.log_messages), 30, "the header's profile")
    await asyncio.sleep(0.5)
    last = [p for p in client.published if p.uri == uri][-1]
    assert fp64(last.diagnostics) == [at(HEADER, "0.7"), at(HEADER, "1.3")]
    # with main.cu closed, the header shows its own profile
    mark = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=main_uri)))
    own = await diagnostics_for(client, uri, after=mark)
    assert fp64(own) == [at(HEADER, "0.7")]


@pytest.mark.asyncio
async def test_saved_header_updates_its_findings_through_the_including_file(client: LanguageClient):
    header, main = files(client.ws)
    main_uri = open_doc(client, main)
    await diagnostics_for(client, main_uri, version=1)
    uri = open_doc(client, header)
    await wait_until(lambda: any("profiled scale.cuh" in m.message for m in client.log_messages), 30, "the header's profile")
    fixed = HEADER.replace("1.3", "1.3f")
    mark = len(client.published)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)]))
    header.write_text(fixed)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    # the edit itself takes the literal's finding away; the re-profiles keep it away and the other stays
    first = await diagnostics_for(client, uri, version=2, after=mark)
    assert fp64(first) == [at(HEADER, "0.7")]
    await wait_until(lambda: sum("profiled main.cu" in m.message for m in client.log_messages) >= 2, 30, "main.cu again")
    await asyncio.sleep(0.5)
    last = [p for p in client.published if p.uri == uri][-1]
    assert fp64(last.diagnostics) == [at(HEADER, "0.7")]
