"""Optimize a kernel that has no launch spec: write the spec `kernelpro spec init` infers (the kernel as
it is now, the buffer's text, snapshotted as the reference), open it with its guessed values marked
GUESS, and start the optimizer when the user accepts it (one click, no typing)."""
from __future__ import annotations

from typing import Any

from lsprotocol import types

from .state import KernelProServer

START = "Optimize with it"


def write_inferred(ls: KernelProServer, uri: str, kernel: str, target=None):
    """(plan, None) with the inferred spec and its snapshot written, or (None, why not)."""
    try:
        from kernelpro.profilers.runtime.infer import InferError, infer_spec, write_spec
    except ImportError as e:
        return None, f"the launch-spec inference is not available ({e})"
    path = ls.path_of(uri)
    text = ls.text_of(uri)[0] if uri in ls.docs else None
    try:
        plan = infer_spec(path, kernel, text, spec_path=target)
        write_spec(plan, text=text)
    except FileExistsError:
        return None, f"{plan.spec_path.name} exists already"
    except (InferError, OSError) as e:
        return None, f"cannot infer a launch spec for {kernel}: {e}"
    return plan, None


async def offer(ls: KernelProServer, uri: str, kernel: str) -> dict[str, Any]:
    """The spec written and shown; the optimizer started if the user says so."""
    from .gpu import show_document

    plan, why = write_inferred(ls, uri, kernel)
    if plan is None:
        ls.failed(f"KernelPro: {why}")
        return {"ok": False, "reason": why}
    await show_document(ls, plan.spec_path)
    ls.refresh_lenses()
    guessed = plan.guesses
    message = (f"KernelPro: inferred a launch spec for {kernel} ({plan.spec_path.name}), the kernel as it is now as "
               f"the reference; " + (f"{len(guessed)} value{'s are' if len(guessed) > 1 else ' is'} guessed (marked "
                                     f"GUESS)" if guessed else "nothing is guessed") + ". Optimize with it?")
    caps = ls.protocol.client_capabilities
    choice = None
    if caps and caps.window and caps.window.show_message:
        try:
            choice = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
                type=types.MessageType.Info, message=message,
                actions=[types.MessageActionItem(title=START), types.MessageActionItem(title="Not now")]))
        except Exception:  # noqa: BLE001 - a client that cannot ask: the spec stays for a later Optimize
            choice = None
    if choice is not None and choice.title == START:
        from .optimize import start

        return await start(ls, uri, kernel)
    ls.show(f"KernelPro: {plan.spec_path.name} written; Optimize uses it", types.MessageType.Info)
    return {"ok": False, "reason": "inferred a launch spec; not started", "uri": plan.spec_path.as_uri(),
            "guessed": guessed}
