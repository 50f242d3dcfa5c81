"""Code lenses above each __global__: a one-line summary and the actions."""
from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from kernelpro.profilers.profile import KernelSummary
from kernelpro.profilers.source import parse_source

from .state import KernelProServer
from .watch import SPEC_SUFFIX

_parsed: dict[tuple[str, int | None], object] = {}


def setup(server: KernelProServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: KernelProServer, params: types.CodeLensParams):
        uri = params.text_document.uri
        st = ls.docs.get(uri)
        if st is None or not st.path.endswith(".cu"):
            return []
        doc = ls.workspace.get_text_document(uri)
        src = await parsed(ls, uri, doc.version, doc.source)
        summaries: dict[str, list] = {}
        for s in st.report.kernels if st.report else []:
            summaries.setdefault(s.name, []).append(s)
        from .hover import no_machine_code

        gpu = " (trust the folder)" if not ls.trusted else " (needs a GPU)" if ls.gpu_reason else ""
        opt = gpu if not ls.trusted or not ls.settings.raw.get("optimizerCommand") else ""  # a custom optimizer may run elsewhere
        out = []
        for k in src.kernels:
            line = max(k.start_line - 1, 0)
            rng = types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0))
            args = [uri, k.name]
            if st.report:
                rows = summaries.get(k.name) or [None]
                missing = no_machine_code(st.report, k.name)
                title = " | ".join((f"{s.instantiation}: " if s is not None and s.instantiation and len(rows) > 1 else "")
                                   + summary_line(s, st.measured.get(k.name), missing) for s in rows)
            elif st.problem:
                title = "KernelPro: cannot profile (see Problems)"
            else:
                title = "KernelPro: profiling…"
            out.append(types.CodeLens(range=rng, command=types.Command(title=title, command="")))
            out.append(types.CodeLens(range=rng, command=types.Command(title="Optimize" + opt, command="kernelpro.optimize", arguments=args)))
            out.append(types.CodeLens(range=rng, command=types.Command(title="Profile on GPU" + gpu, command="kernelpro.profileGpu", arguments=args)))
            if find_spec(st.path, k.name) is None:
                out.append(types.CodeLens(range=rng, command=types.Command(title="Create launch spec", command="kernelpro.createSpec", arguments=args)))
        return out


INLINE_PARSE_BYTES = 64 * 1024  # a larger text is parsed off the event loop (2 MB took 13-16 s)


async def parsed(ls: KernelProServer, uri: str, version: int | None, text: str):
    """The document's parse: the last profile's when it was of this text, else parsed here (a
    small text) or in a worker thread, so a big file never blocks the event loop."""
    key = (uri, version)
    if key not in _parsed:
        st = ls.docs.get(uri)
        if st is not None and st.report is not None and st.report_text == text:
            src = st.report.source
        elif len(text) <= INLINE_PARSE_BYTES:
            src = parse_source(text, uri)
        else:
            src = await asyncio.get_running_loop().run_in_executor(None, parse_source, text, uri)
        if len(_parsed) > 64:
            _parsed.clear()
        _parsed[key] = src
    return _parsed[key]


def spec_path(cu_path: str) -> Path:
    """Where "Create launch spec" writes: <stem>.kernelpro.toml beside the file."""
    p = Path(cu_path)
    return p.with_name(p.stem + SPEC_SUFFIX)


def find_spec(cu_path: str, kernel: str | None = None) -> Path | None:
    """The launch spec the optimizer would use (runtime.spec.find_spec, loaded on first use)."""
    from kernelpro.profilers.runtime.spec import find_spec as find

    return find(cu_path, kernel)


def summary_line(k: KernelSummary | None, measured: dict | None = None, missing: str = "") -> str:
    """`missing`: why there is no machine code (hover.no_machine_code), said when there are no registers."""
    from .hover import pct

    if k is None or k.registers is None:
        return f"KernelPro: {missing or 'no machine code'}"
    spills = (k.spill_stores or 0) + (k.spill_loads or 0)
    occ = f"occupancy {pct(k.occupancy)}" if k.occupancy is not None else "occupancy ?"
    block = f"assumed block {k.block}" if k.block_origin == "default" else f"block {k.block}"
    text = f"{k.registers} regs · {spills} spills · {occ} ({block})"
    if measured and measured.get("ok") is False:
        text += " · GPU run failed"
    elif measured:
        if measured.get("time_us") is not None:
            text += f" · {measured['time_us']:.3g} µs"
        if measured.get("bw_fraction") is not None:
            text += f" · {measured['bw_fraction'] * 100:.0f}% of DRAM peak"
    return text
