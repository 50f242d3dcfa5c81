"""KernelPro language server: CUDA micro-profiling advice in the editor (pygls).

Run it with `python -m kernelpro.lsp_server` (stdio) or `kernelpro-lsp --tcp --port N`; a server with
its features is `kernelpro.lsp_server.server.create_server()` (the entry point's module, which no
module of the package imports). Importing one module of the package (framing, convert, a feature)
loads only what that module needs.
"""
from __future__ import annotations

__all__ = ["KernelProServer"]


def __getattr__(name: str):
    if name == "KernelProServer":
        from .state import KernelProServer

        return KernelProServer
    raise AttributeError(name)
