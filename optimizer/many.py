"""Several kernels in one `kernelpro optimize`: which (file, kernel) pairs, and running them.

`kernelpro optimize a.cu b.cu` takes each file's kernel from the launch spec beside it
(`a.kernelpro.toml`, or one per kernel, `a.<kernel>.kernelpro.toml`); `--kernel K` names it instead;
a directory stands for every launch spec under it. Without `--workers` the kernels run one after
another on the one GPU, exactly as single runs; with `--workers` they run at once, each its own
search, sharing the backend's workers (candidates wait for a worker in the order they were proposed).
"""
from __future__ import annotations

import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .run import OptimizeError, RunConfig, RunOutcome, optimize, preflight

SPEC_SUFFIX = ".kernelpro.toml"


@dataclass(frozen=True)
class KernelJob:
    file: Path
    kernel: str


def _spec_kernel(spec: Path) -> tuple[str, Path]:
    """(kernel, .cu file) a launch spec names; the full check comes later (preflight)."""
    try:
        data = tomllib.loads(spec.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise OptimizeError(f"{spec}: cannot read the launch spec: {e}") from None
    kernel = data.get("kernel")
    if not isinstance(kernel, str) or not kernel:
        raise OptimizeError(f'{spec}: missing kernel = "NAME" (the __global__ function to run)')
    source = data.get("source")
    if isinstance(source, str):
        return kernel, (spec.parent / source).resolve()
    stem = spec.name[: -len(SPEC_SUFFIX)]
    cu = spec.parent / f"{stem}.cu"
    if not cu.exists() and "." in stem:  # foo.kernel.kernelpro.toml -> foo.cu
        cu = spec.parent / f"{stem.split('.')[0]}.cu"
    return kernel, cu


def _specs_beside(cu: Path) -> list[Path]:
    own = cu.with_name(cu.stem + SPEC_SUFFIX)
    per_kernel = sorted(cu.parent.glob(f"{cu.stem}.*{SPEC_SUFFIX}"))
    return ([own] if own.is_file() else []) + [p for p in per_kernel if p != own]


def _only_kernel(path: Path) -> list[str]:
    """The file's kernel when it has exactly one (else none: the caller asks for --kernel)."""
    from kernelpro.profilers.compile import read_source
    from kernelpro.profilers.source import parse_source

    try:
        src = parse_source(read_source(path.resolve()), str(path))
    except Exception:  # noqa: BLE001 - unreadable: the preflight says so
        return []
    return [src.kernels[0].name] if len(src.kernels) == 1 else []


def find_jobs(paths: list[str], kernel: str | None = None, infer: bool = False) -> list[KernelJob]:
    """The (file, kernel) pairs the command line names, in its order, each once; with `infer` a file
    without a spec stands for its only kernel."""
    out: list[KernelJob] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            specs = [s for s in sorted(path.rglob("*" + SPEC_SUFFIX))
                     if not any(part.startswith(".") for part in s.relative_to(path).parts)]
            found = [KernelJob(cu, k) for k, cu in map(_spec_kernel, specs) if kernel in (None, k)]
            if not found:
                what = f"launch spec for kernel '{kernel}'" if kernel else "launch spec (*.kernelpro.toml)"
                raise OptimizeError(f"{path}: no {what} in this directory")
            out += found
        elif kernel:
            out.append(KernelJob(path, kernel))
        elif not path.exists():
            raise OptimizeError(f"{path}: no such file or directory")
        else:
            named = [k for k, _ in map(_spec_kernel, _specs_beside(path))]
            only = _only_kernel(path) if not named else []
            if not named and infer:  # no spec: the file's only kernel, whose spec preflight infers
                named = only
            if not named:
                hint = f"; or --infer-spec to infer one for its kernel {only[0]}" if only else ""
                raise OptimizeError(f"{path}: give --kernel K (no launch spec beside it names a kernel){hint}")
            out += [KernelJob(path, k) for k in named]
    seen, unique = set(), []
    for j in out:
        key = (str(j.file.resolve()), j.kernel)
        if key not in seen:
            seen.add(key)
            unique.append(j)
    return unique


def check_all(cfgs: list[RunConfig]) -> tuple[list, list[str]]:
    """preflight of every config before anything starts: (results, one line per problem)."""
    checked, problems = [], []
    for cfg in cfgs:
        try:
            checked.append(preflight(cfg))
        except OptimizeError as e:
            checked.append(None)
            problems.append(str(e))
    return checked, problems


def run_all(cfgs: list[RunConfig], emit: Callable[[dict], None], backend=None,
            checked: list | None = None) -> list[RunOutcome | OptimizeError]:
    """Each config's outcome, or the OptimizeError that stopped it (the others still run)."""
    checked = checked or [None] * len(cfgs)

    def one(i: int):
        try:
            return optimize(cfgs[i], on_event=emit, backend=backend, checked=checked[i])
        except OptimizeError as e:
            return e

    if backend is None or len(cfgs) == 1:
        return [one(i) for i in range(len(cfgs))]
    results: list = [None] * len(cfgs)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = one(i)
        except BaseException as e:  # re-raised in the caller's thread below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,), name=f"kernelpro-{cfgs[i].kernel}", daemon=True)
               for i in range(len(cfgs))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.2)
    except KeyboardInterrupt:
        backend.close()  # what is in flight fails at once, so every search ends
        for t in threads:
            t.join(30)
        raise
    if errors:
        raise errors[0]
    return results
