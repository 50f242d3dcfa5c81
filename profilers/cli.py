"""`kernelpro` command line. Exit status: 0 compiled, 1 compile errors, 2 bad usage or missing tools,
3 compiled but nothing to analyse (no kernel, or only templates the file never instantiates).

Commands from layers above the profilers (optimize, candidates, memory) register through the
`kernelpro.commands` entry point group, so this module never imports them.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import sys
import threading
from pathlib import Path


class UsageError(Exception):
    """Bad input: one clear line, exit 2."""


def _compile_options(args):
    from .cachekey import CompileOptions

    return CompileOptions(arch=args.arch, include_paths=tuple(args.include or ()), defines=tuple(args.define or ()),
                          extra_flags=tuple(args.flag or ()), timeout_s=args.compile_timeout)


def add_compile_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the .cu file")
    p.add_argument("--arch", default="sm_90", help="target architecture (default sm_90)")
    p.add_argument("--kernel", help="only this kernel")
    p.add_argument("-I", dest="include", action="append", metavar="DIR", help="include path")
    p.add_argument("-D", dest="define", action="append", metavar="NAME=VAL", help="preprocessor define")
    p.add_argument("--flag", action="append", metavar="FLAG", help="extra nvcc flag (repeatable)")
    p.add_argument("--compile-timeout", type=float, default=120.0, metavar="S", help="stop nvcc after S seconds")
    p.add_argument("--nvcc", help="path to nvcc")


def _setup_toolchain(args):
    from .toolchain import discover

    # the user's own command line: a relative --nvcc means their working directory
    tc = discover({"nvcc": os.path.abspath(os.path.expanduser(args.nvcc))} if getattr(args, "nvcc", None) else None)
    for name in ("nvcc",):
        if name not in tc.tools:
            raise UsageError(tc.missing_message(name))
    return tc


def cmd_profile(args) -> int:
    from .cachekey import CompileError

    if args.block is not None and not 1 <= args.block <= 1024:
        raise UsageError(f"--block {args.block}: threads per block must be 1 to 1024")
    if not args.compile_timeout > 0:
        raise UsageError(f"--compile-timeout {args.compile_timeout:g}: must be a number of seconds above 0")
    tc = _setup_toolchain(args)
    path = Path(args.file)
    if path.suffix not in (".cu", ".cuh") and not args.force:
        raise UsageError(f"{path}: not a CUDA file (.cu or .cuh); pass --force to profile it anyway")
    try:
        rep = _profile(args, path, tc)
    except CompileError as e:
        raise UsageError(str(e)) from None
    if args.kernel and not rep.kernels:
        raise UsageError(next((n for n in rep.notes if n.startswith("no kernel named")), f"no kernel named '{args.kernel}'"))
    dyn = not_measured = None
    if args.run:
        dyn = _run_dynamic(args, rep)
        if isinstance(dyn, str):  # the static report still prints; it says why nothing was measured
            dyn, not_measured = None, dyn
            print(f"kernelpro: nothing measured: {not_measured}", file=sys.stderr)
    if args.json:
        out = rep.to_json()
        if not_measured is not None:
            out["measured"] = None
            out["not_measured"] = not_measured
        if dyn is not None:
            out["measured"] = dyn["measured"]
            out["measured_advice"] = [a.to_json() for a in dyn["advice"]]
            out["advice"] = out["advice"] + out["measured_advice"]
            out["lines"] = dyn.get("lines") or []
        print(json.dumps(out, indent=2))
    else:
        from .report import print_report

        print_report(rep, dynamic=dyn)
        if not_measured is not None:
            print(f"\nnot measured (--run): {not_measured}")
    if not_measured is not None:
        return 2
    if not rep.ok:
        return 1
    return 0 if rep.analysed else 3


def _profile(args, path: Path, tc):
    """The static profile; an unchanged one comes from the report cache (not with --run or --no-cache)."""
    options, slot = _compile_options(args), None
    if not (args.run or args.no_cache):
        from .report_cache import lookup

        hit, slot = lookup(path, options, tc, args.kernel, args.block)
        if hit is not None:
            return hit
    if not args.json:  # rich loads while nvcc runs (not on a hit: there the thread only contends)
        threading.Thread(target=importlib.import_module, args=(f"{__package__}.report",), daemon=True).start()
    from .profile import profile_file

    with _progress(path, enabled=not args.json and sys.stderr.isatty()) as progress:
        rep = profile_file(path, options, kernel=args.kernel, block=args.block, toolchain=tc,
                           use_cache=not args.no_cache, progress=progress)
    if not rep.source.text.strip():
        rep.notes.append("the file is empty")
    if slot is not None:
        from .report_cache import store

        store(slot, rep)
    return rep


class _progress:
    """Progress on the terminal's stderr while a profile runs (nvcc, then the kernels); nothing otherwise.

    A context manager yielding the `progress(done, total)` callback for profile_file (or None)."""

    def __init__(self, path: Path, enabled: bool):
        self.path, self.enabled, self.bar, self.task = path, enabled, None, None

    def __enter__(self):
        if not self.enabled:
            return None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=Console(stderr=True), transient=True)
        self.bar.start()
        self.task = self.bar.add_task(f"compiling {self.path.name} with nvcc", total=None)
        return self.update

    def update(self, done: int, total: int) -> None:
        if done == 0:
            self.bar.update(self.task, description=f"analysing the kernels of {self.path.name}", total=total, completed=0)
        else:
            self.bar.update(self.task, completed=done)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False


def _run_dynamic(args, rep):
    """--run: measured numbers and dynamic advice, through the GPU runtime; or why nothing can be measured."""
    try:
        from .runtime.measure import gpu_problem, measured_profile
    except ImportError as e:
        return f"the GPU runtime is not available ({e})"
    problem = gpu_problem()
    if problem:
        return f"no GPU: {problem}"
    return measured_profile(rep, kernel=args.kernel)


def cmd_rules(args) -> int:
    from .tools import load_builtin

    tools = sorted(load_builtin().values(), key=lambda t: t.name)
    wn, wk = max((len(t.name) for t in tools), default=0), max((len(t.kind) for t in tools), default=0)
    for t in tools:  # columns as wide as their longest entry: every row lines up
        print(f"{t.name:{wn}}  {t.kind:{wk}}  rules: {', '.join(t.rules)}")
        if args.verbose:
            print(f"    {t.description}\n")
    return 0


BUILTIN = ("profile", "rules", "spec", "bench", "hunt")


def build_parser(plugins: bool = True) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kernelpro", description="KernelPro: micro-profiling tools and an optimizer for CUDA kernels")
    p.add_argument("--version", action="version", version=f"kernelpro {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    pr = sub.add_parser("profile", help="static profile of a .cu file: resources, occupancy, expert advice")
    add_compile_args(pr)
    pr.add_argument("--block", type=int, help="threads per block to assume (default: launch spec, launch site, 256)")
    pr.add_argument("--json", action="store_true", help="print JSON (see docs/json.md)")
    pr.add_argument("--run", action="store_true", help="also run it on the GPU: measured numbers and dynamic advice")
    pr.add_argument("--no-cache", action="store_true", help="ignore the compile cache")
    pr.add_argument("--force", action="store_true", help="profile a file without a .cu/.cuh suffix")
    pr.set_defaults(func=cmd_profile)

    ru = sub.add_parser("rules", help="list the micro-profiling tools and their rules")
    ru.add_argument("-v", "--verbose", action="store_true")
    ru.set_defaults(func=cmd_rules)

    for name in ("spec", "bench"):
        _maybe_runtime_command(sub, name)
    from .hunt.cli import register as register_hunt  # small module; the index loads on use

    register_hunt(sub)
    if plugins:
        from importlib.metadata import entry_points
    for ep in entry_points(group="kernelpro.commands") if plugins else ():
        try:
            ep.load()(sub)
        except Exception as e:  # an optional layer that fails to load must not break profiling
            sub.add_parser(ep.name, help=f"(unavailable: {e})")
    return p


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kernelpro")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _maybe_runtime_command(sub, name: str) -> None:
    try:
        from .runtime import cli as rcli
    except ImportError:
        return
    getattr(rcli, f"register_{name}")(sub)


def _terminated(signum, frame):
    raise SystemExit(128 + signum)  # unwinds like Ctrl-C: compiles killed, temp folders removed


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminated)
    if argv[:1] == ["--parent"] and len(argv) > 1 and argv[1].isdigit():
        # started by the language server: end as on SIGTERM when it dies (docs/security.md)
        from .children import watch_parent

        watch_parent(int(argv[1]), lambda: os.kill(os.getpid(), signal.SIGTERM))
        argv = argv[2:]
    # commands of the layers above load only when asked for (they import more)
    plugins = not (argv and argv[0] in BUILTIN)
    parser = build_parser(plugins)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except UsageError as e:
        print(f"kernelpro: {e}", file=sys.stderr)
        return 2
    except Exception as e:
        from .toolchain import ToolchainError

        if isinstance(e, ToolchainError):
            print(f"kernelpro: {e}", file=sys.stderr)
            return 2
        raise
    except KeyboardInterrupt:
        print("kernelpro: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
