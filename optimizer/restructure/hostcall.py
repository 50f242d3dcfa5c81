"""A library kernel behind a kernel's own signature: an `extern "C"` host launcher beside the kernel,
declared with the kernel's parameters, that runs one of KernelPro's building blocks; the block's header
included at the file's top (before the file's own macros can reach it), the kernel left as written, and
the file's own `kernel<<<...>>>(args)` launches calling the launcher with the same arguments. The spec's
launch becomes a host step (`{"host": name}`, docs/launch-specs.md). Used by gemmlib.py (the tensor-core
GEMM) and by the device-wide scan plan.
"""
from __future__ import annotations

from kernelpro.profilers.source import SourceFile, span_text

from .launch import launch_sites
from .text import Refuse


def params_text(src: SourceFile, kernel: str, what: str) -> str:
    """The kernel's parameter declarations as written (the launcher takes the same)."""
    k = src.kernel(kernel)
    if k is None or k.is_template:
        raise Refuse(f"{what}: a template kernel (the launcher needs one instantiation)")
    if any(not prm.name for prm in k.signature):
        raise Refuse(f"{what}: a parameter without a name")
    return ", ".join(" ".join(src.data[prm.decl_start:prm.decl_end].decode().split()) for prm in k.signature)


def with_launcher(src: SourceFile, kernel: str, header: str, name: str, comment: str, body: str, what: str,
                  calls: bool = True) -> str:
    """The file with `#include <header>` at its top, `extern "C" int name(<the kernel's parameters>) { body }`
    after the kernel (comment lines above it), and (calls) its own launches of the kernel calling it; a launcher
    that replaces a chain of kernels leaves the host code's launches alone (calls=False: its other passes stay)."""
    k = src.kernel(kernel)
    launcher = "".join(f"// {line}\n" for line in comment.split("\n")) + \
        f'extern "C" int {name}({params_text(src, kernel, what)}) {{\n{body.rstrip()}\n}}'
    subs = []
    for call, _cfg, _args, _host in (launch_sites(src, kernel) if calls else []):
        al = call.child_by_field_name("arguments")
        if al is not None:
            subs.append((call.start_byte, call.end_byte, f"{name}{src.node_text(al)}"))
    subs.append((k.node.end_byte, k.node.end_byte, "\n\n" + launcher))
    return f"#include <{header}>  // KernelPro: {what}\n" + span_text(src, 0, len(src.data), sorted(subs))
