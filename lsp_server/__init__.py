"""KernelPro language server: CUDA micro-profiling advice in the editor (pygls).

Run it with `python -m kernelpro.lsp_server` (stdio) or `kernelpro-lsp --tcp --port N`.
"""
from .server import KernelProServer, create_server

__all__ = ["KernelProServer", "create_server"]
