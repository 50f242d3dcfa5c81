"""Code actions (quick fixes, create spec, optimize) and the server commands."""
from __future__ import annotations

from lsprotocol import types

from . import gpu, optimize
from .convert import SOURCE, fix_edit
from .lenses import parsed
from .state import KernelProServer


def _args(ls: KernelProServer, args, name: str) -> tuple[str, str] | None:
    if len(args) < 2 or not all(isinstance(a, str) and a for a in args[:2]):
        ls.show(f"KernelPro: {name} needs [uri, kernel name] arguments, got {list(args)!r}", types.MessageType.Error)
        return None
    return args[0], args[1]


def wanted(kind: str, only: list | None) -> bool:
    """LSP's context.only: a kind is wanted when it is, or lies under, one of the asked kinds."""
    if not only:
        return True
    return any(kind == str(o) or kind.startswith(f"{o}.") for o in only)


def setup(server: KernelProServer) -> None:
    @server.command("kernelpro.optimize")
    async def optimize_cmd(ls: KernelProServer, *args):
        a = _args(ls, args, "kernelpro.optimize")
        return await optimize.start(ls, *a) if a else None

    @server.command("kernelpro.profileGpu")
    async def profile_gpu_cmd(ls: KernelProServer, *args):
        a = _args(ls, args, "kernelpro.profileGpu")
        return await gpu.profile_gpu(ls, *a) if a else None

    @server.command("kernelpro.createSpec")
    async def create_spec_cmd(ls: KernelProServer, *args):
        a = _args(ls, args, "kernelpro.createSpec")
        return await gpu.create_spec(ls, *a) if a else None

    @server.command("kernelpro.sass")
    def sass_cmd(ls: KernelProServer, *args):
        """[uri, kernel?] -> the SASS document of the file (sass_view.py)."""
        from .sass_view import sass_document

        uri = args[0] if args and isinstance(args[0], str) else None
        st = ls.docs.get(uri) if uri else None
        if st is None:
            return {"ok": False, "reason": f"{uri or 'no file'} is not open"}
        if st.report is None:
            return {"ok": False, "reason": st.problem or "not profiled yet"}
        doc = ls.workspace.get_text_document(uri)
        kernel = args[1] if len(args) > 1 and isinstance(args[1], str) and args[1] else None
        out = sass_document(st.report, st.path, kernel, st.line_map(st.report_text, doc.source))
        return {"ok": True, "uri": uri, "version": doc.version, **out}

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def cancel(ls: KernelProServer, params: types.WorkDoneProgressCancelParams):
        optimize.cancel(ls, params.token)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Source]))
    async def code_action(ls: KernelProServer, params: types.CodeActionParams):
        uri = params.text_document.uri
        st = ls.docs.get(uri)
        if st is None:
            return []
        only = params.context.only
        doc = ls.workspace.get_text_document(uri)
        lines = doc.source.split("\n")
        out: list[types.CodeAction] = []
        fresh = st.published_version == doc.version  # fixes are for the text they were computed on
        for d in params.context.diagnostics if wanted(types.CodeActionKind.QuickFix, only) else ():
            data = d.data if isinstance(d.data, dict) else {}
            fix = data.get("fix")
            if d.source != SOURCE or not isinstance(fix, dict) or not fresh:
                continue
            out.append(types.CodeAction(title=fix.get("title") or f"Fix {data.get('rule')}",
                                        kind=types.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=True,
                                        edit=fix_edit(uri, fix, lines, doc.version, ls.encoding)))
        kernel = await _kernel_at(ls, uri, doc, params.range.start.line + 1) if wanted(types.CodeActionKind.Source, only) else None
        if kernel is not None and st.path.endswith(".cu"):
            args = [uri, kernel]
            out.append(types.CodeAction(title=f"Optimize this kernel ({kernel})", kind=types.CodeActionKind.Source,
                                        command=types.Command(title="Optimize", command="kernelpro.optimize", arguments=args)))
            if gpu.find_spec(st.path, kernel) is None:
                why = gpu.spec_problem(st.path, kernel)
                out.append(types.CodeAction(
                    title=f"Create launch spec for {kernel}", kind=types.CodeActionKind.Source,
                    command=types.Command(title="Create launch spec", command="kernelpro.createSpec", arguments=args)
                    if why is None else None,
                    disabled=types.CodeActionDisabledType(reason=why) if why else None))
        return out


async def _kernel_at(ls: KernelProServer, uri: str, doc, line: int) -> str | None:
    src = await parsed(ls, uri, doc.version, doc.source)
    k = src.kernel_at(line)
    return k.name if k else None
