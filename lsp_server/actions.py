"""Code actions (quick fixes, create spec, optimize) and the server commands."""
from __future__ import annotations

from lsprotocol import types

from . import gpu, optimize
from .convert import SOURCE, fix_edit
from .lenses import parsed, spec_path
from .server import KernelProServer


def _args(ls: KernelProServer, args, name: str) -> tuple[str, str] | None:
    if len(args) < 2 or not all(isinstance(a, str) and a for a in args[:2]):
        ls.show(f"KernelPro: {name} needs [uri, kernel name] arguments, got {list(args)!r}", types.MessageType.Error)
        return None
    return args[0], args[1]


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

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def cancel(ls: KernelProServer, params: types.WorkDoneProgressCancelParams):
        optimize.cancel(ls, params.token)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Source]))
    def code_action(ls: KernelProServer, params: types.CodeActionParams):
        uri = params.text_document.uri
        st = ls.docs.get(uri)
        if st is None:
            return []
        doc = ls.workspace.get_text_document(uri)
        lines = doc.source.split("\n")
        out: list[types.CodeAction] = []
        fresh = st.published_version == doc.version  # fixes are for the text they were computed on
        for d in params.context.diagnostics:
            data = d.data if isinstance(d.data, dict) else {}
            fix = data.get("fix")
            if d.source != SOURCE or not isinstance(fix, dict) or not fresh:
                continue
            out.append(types.CodeAction(title=fix.get("title") or f"Fix {data.get('rule')}",
                                        kind=types.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=True,
                                        edit=fix_edit(uri, fix, lines, doc.version, ls.encoding)))
        kernel = _kernel_at(uri, doc, params.range.start.line + 1)
        if kernel is not None and st.path.endswith(".cu"):
            args = [uri, kernel]
            out.append(types.CodeAction(title=f"Optimize this kernel ({kernel})", kind=types.CodeActionKind.Source,
                                        command=types.Command(title="Optimize", command="kernelpro.optimize", arguments=args)))
            if not spec_path(st.path).exists():
                edit, why = gpu.spec_edit(ls, uri, kernel)
                if edit is not None:
                    out.append(types.CodeAction(title=f"Create launch spec for {kernel}", kind=types.CodeActionKind.Source,
                                                edit=edit))
                else:
                    out.append(types.CodeAction(title=f"Create launch spec for {kernel}", kind=types.CodeActionKind.Source,
                                                disabled=types.CodeActionDisabledType(reason=why)))
        return out


def _kernel_at(uri: str, doc, line: int) -> str | None:
    src = parsed(uri, doc.version, doc.source)
    k = src.kernel_at(line)
    return k.name if k else None
